package seed

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/internal/golden"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// The check of generated norms accepts every built-in norm, each in its
// culture's norm language: it is not stricter than the release.
func TestBuiltinNormsPassTheCheck(t *testing.T) {
	for _, c := range normbank.NormCultures() {
		p, err := normbank.BuiltinProfile(c)
		if err != nil {
			t.Fatal(err)
		}
		det, err := lang.For(NormLang(p), p.Lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range normbank.Norms(c, nil) {
			if err := CheckNorm(det, oneLine(n.Text), NormLang(p)); err != nil {
				t.Errorf("%s %s: %v: %q", c, n.ID, err, n.Text)
			}
		}
	}
}

// newCulture is a culture with a profile (the Korean or American one,
// renamed) and no norms.
func newCulture(t *testing.T, from, name string) func(string) (*normbank.Culture, error) {
	p, err := normbank.BuiltinProfile(from)
	if err != nil {
		t.Fatal(err)
	}
	c := *p
	c.Name, c.DisplayName, c.NormLang = name, strings.ToUpper(name[:1])+name[1:], ""
	return func(n string) (*normbank.Culture, error) {
		if n == name {
			return &c, nil
		}
		return normbank.Profile(n)
	}
}

func categoryRecords(t *testing.T, culture string, categories []string) []*record.Record {
	return testkit.Records(t, CategorySource(culture, categories))
}

// ngseed --make-norms on the fake: 10 norms for each of the 12 categories,
// in the culture's language, distinct (a near-duplicate in each first
// reply is dropped and replaced by a second call), marked generated.
func TestMakeNorms(t *testing.T) {
	pool, err := seedtest.Load("")
	if err != nil {
		t.Fatal(err)
	}
	// The release has 9 Korean apology norms: 8 a category for Korean.
	for _, tc := range []struct {
		from, name, lang string
		per              int
	}{{"american", "kiwi", "en", DefaultNormsPerCategory}, {"korean", "busan", "ko", 8}} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &seedtest.Replier{Pool: pool, NormDups: true}
			srv := llmtest.New(llmtest.Options{Reply: rep.Reply})
			defer srv.Close()
			c := testkit.Client(t, testkit.LLMConfig(srv.URL, "ngseed"))
			m, err := NewNormMaker(c, NormOptions{PerCategory: tc.per, MaxTopUps: DefaultMaxTopUps, Profile: newCulture(t, tc.from, tc.name)})
			if err != nil {
				t.Fatal(err)
			}
			res := testkit.Run(t, m, categoryRecords(t, tc.name, record.Categories), 4)
			if len(res.Errors) != 0 || len(res.Out) != 12*tc.per {
				t.Fatalf("%d norms, errors %+v", len(res.Out), res.Errors)
			}
			det, _ := lang.For(tc.lang)
			ids := map[string]bool{}
			texts := map[string][]string{}
			for _, r := range res.Out {
				var src string
				json.Unmarshal(r.Extra["source"], &src)
				if r.Culture != tc.name || r.ID != r.NormID || r.NormID != record.NormID(tc.name, r.Category, r.Norm) || src != GeneratedSource || len(r.Gen) != 2 {
					t.Fatalf("norm record %+v (source %q)", r, src)
				}
				if d := det.Detect(r.Norm); d.Lang != tc.lang {
					t.Errorf("%s: in %s: %q", r.ID, d.Lang, r.Norm)
				}
				if ids[r.ID] || strings.HasSuffix(r.Norm, "!") {
					t.Errorf("a duplicate kept: %q", r.Norm)
				}
				ids[r.ID] = true
				texts[r.Category] = append(texts[r.Category], r.Norm)
			}
			// The norms read back as ngseed's input.
			n, err := normbank.NormFromRecord(res.Out[0])
			if err != nil || n.Culture != tc.name || n.ID != res.Out[0].NormID {
				t.Errorf("norm %+v, %v", n, err)
			}
			// Two calls per category (len(r.Gen) above): the near-duplicate
			// was replaced. (Not counted at the server: a slow machine retries.)
			for cat, ts := range texts {
				if len(ts) != tc.per || len(slices.Compact(slices.Sorted(slices.Values(ts)))) != tc.per {
					t.Errorf("%s: %d norms", cat, len(ts))
				}
			}
		})
	}
}

// A category whose norms cannot be had fails alone, naming why.
func TestMakeNormsFailsACategory(t *testing.T) {
	pool, err := seedtest.Load("")
	if err != nil {
		t.Fatal(err)
	}
	rep := &seedtest.Replier{Pool: pool}
	srv := llmtest.New(llmtest.Options{Reply: rep.Reply})
	defer srv.Close()
	c := testkit.Client(t, testkit.LLMConfig(srv.URL, "ngseed"))
	// More norms than the fake knows for the category (about 10 of each
	// culture whose norms are English: American and Chinese).
	m, err := NewNormMaker(c, NormOptions{PerCategory: 40, MaxTopUps: 1, Profile: newCulture(t, "american", "kiwi")})
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Run(t, m, categoryRecords(t, "kiwi", []string{"thanks"}), 1)
	if len(res.Out) != 0 || len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0].Error, "only ") ||
		!strings.Contains(res.Errors[0].Error, "of 40 usable, distinct thanks norms after 2 calls (dropped: none; the replies held too few norms)") {
		t.Fatalf("out %d, errors %+v", len(res.Out), res.Errors)
	}
}

// The norms prompt, first call and top-up, for a new English-speaking
// culture (golden file; go test -update rewrites it).
func TestNormsPromptGolden(t *testing.T) {
	c, _ := newCulture(t, "american", "kiwi")("kiwi")
	var b strings.Builder
	for _, d := range []normPromptData{newNormPromptData(c, "respond_compliments", 10, nil),
		newNormPromptData(c, "respond_compliments", 1, []string{"A first norm.", "A second norm."})} {
		p, err := prompt.Builtin().Render("seed", "norms", c.Name, d)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("===== system\n" + p.System + "\n===== user\n" + p.User + "\n")
	}
	if strings.Contains(b.String(), "<no value>") {
		t.Errorf("an empty value:\n%s", b.String())
	}
	golden.Check(t, "../../testdata/prompts/seed/norms.golden", b.String())
}
