package imports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/recio"
)

// A cell (a row) over the record size limit is an error naming the file
// and the row, read with bounded memory: a 256 MiB cell once took 1.8 GiB.
func TestCSVRowOverTheLimit(t *testing.T) {
	f := filepath.Join(t.TempDir(), "data.csv")
	big := strings.Repeat("a", recio.MaxRecordBytes+10)
	os.WriteFile(f, []byte("text\nA: hi.\n\"A: "+big+"\"\nA: bye.\n"), 0o644)
	src, err := NewCSV([]string{f}, CSVOptions{TextColumn: "text"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Next(); err != nil {
		t.Fatalf("row 1: %v", err)
	}
	_, err = src.Next()
	if err == nil || !strings.Contains(err.Error(), f+":row 2") || !strings.Contains(err.Error(), "32 MiB") {
		t.Errorf("row 2: %v", err)
	}
	// The header row is bound too.
	os.WriteFile(f, []byte(big+"\nx\n"), 0o644)
	if src, err = NewCSV([]string{f}, CSVOptions{TextColumn: "text"}); err == nil {
		_, err = src.Next()
	}
	if err == nil || !strings.Contains(err.Error(), "32 MiB") {
		t.Errorf("header: %v", err)
	}
}
