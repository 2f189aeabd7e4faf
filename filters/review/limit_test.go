package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/recio"
)

// An element of an export over the record size limit is an error naming
// the file and the element, read with bounded memory: a 1 GiB field took
// 5.1 GiB. As an array and as one value per line.
func TestExportElementOverTheLimit(t *testing.T) {
	small := `{"id":1,"data":{"dialogue":[{"author":"A","text":"hi"}]}}`
	big := `{"id":2,"data":{"dialogue":[{"author":"A","text":"` + strings.Repeat("a", recio.MaxRecordBytes) + `"}]}}`
	for _, layout := range []string{"[" + small + ",\n" + big + ",\n" + small + "]", small + "\n" + big + "\n" + small + "\n"} {
		f := filepath.Join(t.TempDir(), "export.json")
		os.WriteFile(f, []byte(layout), 0o644)
		for _, src := range []*Source{NewLabelStudio([]string{f}, nil), NewArgilla([]string{f}, nil)} {
			if _, err := src.Next(); err != nil {
				t.Fatalf("element 1: %v", err)
			}
			_, err := src.Next()
			if err == nil || !strings.Contains(err.Error(), f+": element 2:") || !strings.Contains(err.Error(), "32 MiB") {
				t.Errorf("element 2: %v", err)
			}
			src.Close()
		}
	}
}
