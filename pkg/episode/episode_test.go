package episode

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

func TestLeaks(t *testing.T) {
	c := "No beef may be served because the grandmother does not eat it."
	for _, x := range []struct {
		msg  string
		want bool
	}{
		{"By the way, NO BEEF may be served, because the grandmother does not eat it!", true},
		{"Also my grandmother does not eat it, so no beef please.", false}, // paraphrase: hints are fine
		{"you see, because the grandmother does not eat it", true},         // a long run of it
		{"the grandmother does not eat it", false},                         // five words: shorter than a run
		{"Grandma won't touch beef.", false},
		{"", false},
	} {
		if got := Leaks(x.msg, c); got != x.want {
			t.Errorf("Leaks(%q) = %v, want %v", x.msg, got, x.want)
		}
	}
	// Scripts without spaces: a run of 12 characters.
	zh := "奶奶不吃牛肉所以聚餐时不能点任何牛肉菜"
	if !Leaks("我想说奶奶不吃牛肉所以聚餐时不能点，谢谢", zh) || Leaks("奶奶不吃牛肉，谢谢", zh) {
		t.Error("Chinese run")
	}
	// A short constraint leaks only whole.
	if !Leaks("We keep halal.", "keep halal") || Leaks("We keep it", "keep halal") {
		t.Error("short constraint")
	}
}

func TestValidate(t *testing.T) {
	ok := func() *record.Episode {
		return &record.Episode{Domain: "Work ", Goal: " g ", Opening: "hello there",
			Constraints: []record.Constraint{{Text: "a rule"}, {Text: "another rule", Reveal: "NEVER"}}}
	}
	ep := ok()
	Normalize(ep)
	if err := Validate(ep); err != nil {
		t.Fatal(err)
	}
	if ep.Domain != "work" || ep.Goal != "g" || ep.Constraints[0].ID != "c1" || ep.Constraints[0].Reveal != "implicit" || ep.Constraints[1].Reveal != "never" {
		t.Errorf("normalised %+v", ep)
	}
	for _, c := range []struct {
		mut  func(*record.Episode)
		want string
	}{
		{func(e *record.Episode) { e.Goal = "" }, "no goal"},
		{func(e *record.Episode) { e.Opening = "" }, "no opening"},
		{func(e *record.Episode) { e.Domain = "" }, "no domain"},
		{func(e *record.Episode) { e.Constraints = e.Constraints[:1] }, "1 hidden constraint(s)"},
		{func(e *record.Episode) { e.Constraints[1].ID = "c1" }, "c1 is used twice"},
		{func(e *record.Episode) { e.Constraints[0].Reveal = "maybe" }, `reveal "maybe"`},
		{func(e *record.Episode) { e.Constraints[0].Text = "" }, "has no text"},
		{func(e *record.Episode) { e.Opening = "hello, another rule" }, "gives hidden constraint c2 away"},
	} {
		ep := ok()
		Normalize(ep)
		c.mut(ep)
		if err := Validate(ep); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
