package imports

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/episode"
)

// FuzzEpisodes feeds any bytes to the episode-spec import, as JSONL and as
// CSV on stdin. Invariant: it never panics nor loops; every item it yields
// is either failed with a reason (Item.Err, its line named in Where) or a
// record with a culture, a lang and a spec that episode.Validate accepts;
// a stopping error names stdin.
func FuzzEpisodes(f *testing.F) {
	for _, s := range []string{
		`{"culture":"thai","goal":"g","domain":"work","opening":"hi","constraints":["a","b"]}`,
		`{"culture":"korean","episode":{"goal":"g","domain":"d","opening":"o","constraints":[{"text":"x"},{"text":"y","reveal":"never"}]}}`,
		`{"culture":"x","lang":"en","goal":"g","domain":"d","opening":"o","constraint_1":"a","reveal_2":"never"}`,
		"culture,goal,domain,opening,constraints\nthai,g,d,o,a | b\n",
		"culture,goal,domain,opening,constraint_1,constraint_2,persona\njapanese,g,d,o,a,b,\"{\"\"age\"\":\"\"30\"\"}\"\n",
		"culture,goal\nthai\n",
		"{oops\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := NewEpisodes(nil, EpisodesOptions{Stdin: bytes.NewReader(data)})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		for n := 0; ; n++ {
			if n > len(data)+2 {
				t.Fatalf("more items than lines")
			}
			it, err := src.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "stdin") {
					t.Fatalf("error without the input's name: %v", err)
				}
				return
			}
			if it.Err != nil {
				if it.Line <= 0 || it.Rec == nil || it.Rec.ID == "" {
					t.Fatalf("failed item without its line or record: %+v", it)
				}
				continue
			}
			r := it.Rec
			if r.Culture == "" || r.Lang == "" || r.Episode == nil {
				t.Fatalf("record %+v", r)
			}
			if err := episode.Validate(r.Episode); err != nil {
				t.Fatalf("an invalid spec passed: %v", err)
			}
		}
	})
}
