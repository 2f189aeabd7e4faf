package seed

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
)

func drain(t *testing.T, src pipeline.Source) []string {
	t.Helper()
	var out []string
	for {
		it, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rec := it.Rec
		if rec == nil {
			if rec, err = it.Decode(it.Raw); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, rec.Culture+"/"+rec.Category+"/"+rec.NormID)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNormSourceSelects(t *testing.T) {
	src, err := NormSource(normbank.BuiltinNorms(), Selection{Culture: "Chinese", Categories: []string{"thanks", "apology"}, Limit: 12}, "builtin")
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, src)
	want := normbank.Norms("chinese", []string{"apology", "thanks"})[:12]
	if len(got) != 12 {
		t.Fatalf("%d norms: %v", len(got), got)
	}
	for i, n := range want {
		if got[i] != n.Culture+"/"+n.Category+"/"+n.ID {
			t.Errorf("norm %d: %s, want %s", i, got[i], n.ID)
		}
	}
	for _, sel := range []Selection{{Culture: "koren"}, {Culture: "korean", Categories: []string{"apolgy"}}} {
		_, err := NormSource(normbank.BuiltinNorms(), sel, "builtin")
		if err == nil || !strings.Contains(err.Error(), "korean") && !strings.Contains(err.Error(), "apology") {
			t.Errorf("%+v: %v", sel, err)
		}
	}
}

// Streamed norms: selected, each once, at most Limit; records that are
// not norms pass to fail in the stage; a note says what was left out.
func TestStreamSource(t *testing.T) {
	in := `{"culture":"korean","category":"thanks","norm":"감사는 바로 표현한다."}
{"culture":"Korean","category":"THANKS","norm":" 감사는 바로 표현한다. "}
{"culture":"american","category":"thanks","norm":"Say thank you."}
{"culture":"korean","category":"apology","norm":"변명 없이 사과한다."}
{"id":"x","scenario":"not a norm"}
{"culture":"korean","category":"thanks","norm":"선물은 두 손으로 받는다."}
{"culture":"korean","category":"thanks","norm":"세 번째 규범."}
`
	var stderr strings.Builder
	src := StreamSource(pipeline.NewFileSource([]string{"-"}, recio.OpenOptions{Stdin: strings.NewReader(in)}),
		Selection{Culture: "korean", Categories: []string{"thanks", "greeting"}, Limit: 3}, &stderr, "ngseed")
	got := drain(t, src)
	if len(got) != 3 || !strings.HasPrefix(got[0], "korean/thanks/") || got[1] != "//" || !strings.HasPrefix(got[2], "korean/thanks/") {
		t.Fatalf("got %v", got)
	}
	note := stderr.String()
	for _, want := range []string{"1 repeated norms read once", "2 norms not selected", "--categories greeting matched no input norm (categories read: apology, thanks)"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
}
