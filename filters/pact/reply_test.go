package pact

import (
	"math"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/record"
)

func TestParseAnswer(t *testing.T) {
	const optA, optB = "Take off the shoes.", "Keep the shoes on."
	for _, c := range []struct{ reply, want string }{
		{"A", "A"}, {" B\n", "B"}, {"(A)", "A"}, {"**B**", "B"}, {"Ｂ。", "B"}, {"A.", "A"},
		{"Answer: A", "A"}, {"The answer is B.", "B"}, {"I would pick option B because it respects her wish.", "B"},
		{"A. Because guests do that.", "A"}, {"B) keep them on", "B"},
		{"Keep the shoes on.", "B"}, {"I think they should take off the shoes.", "A"},
		{"", ""}, {"I cannot decide.", ""}, {"A or B", ""}, {"Both A and B are fine.", ""},
		{"Absolutely", ""}, {"a", ""}, {"Take off the shoes. Keep the shoes on.", ""},
		{"정답: B", "B"}, {"答案是A", ""}, {"答案是 A", "A"},
	} {
		if got := ParseAnswer(c.reply, optA, optB); got != c.want {
			t.Errorf("ParseAnswer(%q) = %q, want %q", c.reply, got, c.want)
		}
	}
}

func TestLabelProbs(t *testing.T) {
	top := []llm.TokenLogprob{{Token: "A", Logprob: math.Log(0.5)}, {Token: " A", Logprob: math.Log(0.1)},
		{Token: "B", Logprob: math.Log(0.2)}, {Token: "The", Logprob: math.Log(0.15)}, {Token: "a", Logprob: math.Log(0.05)},
		{Token: "B", Logprob: math.NaN()}, {Token: "B", Logprob: 0.3}}
	pA, pB := LabelProbs(top)
	if math.Abs(pA-0.6) > 1e-12 || math.Abs(pB-0.2) > 1e-12 {
		t.Errorf("pA %g pB %g, want 0.6 0.2", pA, pB)
	}
}

func TestSummarise(t *testing.T) {
	for _, c := range []struct {
		p       float64
		maj     string
		entropy float64
	}{{1, record.PactFollow, 0}, {0, record.PactAllow, 0}, {0.5, "tie", 1}, {0.75, record.PactFollow, 0.8112781244591328}} {
		var r record.PactResult
		p := c.p
		Summarise(&r, &p)
		if r.Majority != c.maj || math.Abs(*r.Entropy-c.entropy) > 1e-12 || *r.PFollow != c.p {
			t.Errorf("p %g: %s %g, want %s %g", c.p, r.Majority, *r.Entropy, c.maj, c.entropy)
		}
	}
	var r record.PactResult
	Summarise(&r, nil)
	if r.PFollow != nil || r.Entropy != nil || r.Majority != "" {
		t.Errorf("nil: %+v", r)
	}
}

// swapAB swaps the labels A and B (and their full-width forms) in s.
var swapAB = strings.NewReplacer("A", "B", "B", "A", "Ａ", "Ｂ", "Ｂ", "Ａ")

// FuzzParseAnswer checks ParseAnswer's invariants: it never panics; the
// result is "", "A" or "B"; a label result is a label the reply holds
// (as a letter or an option's text); and swapping A and B in the reply
// and the options swaps the result (checked with options free of the
// letters, whose case folding would break the symmetry).
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{"A", "(B)", "Answer: A", "I pick B.", "A or B", "Keep them on", "**Ａ**", "Absolutely B", "b", "\x00A\xff"} {
		f.Add(s, "Take them off", "Keep them on")
	}
	f.Fuzz(func(t *testing.T, reply, optA, optB string) {
		got := ParseAnswer(reply, optA, optB)
		switch got {
		case "":
			return
		case LabelA, LabelB:
		default:
			t.Fatalf("ParseAnswer(%q) = %q", reply, got)
		}
		opt := optA
		full := "Ａ"
		if got == LabelB {
			opt, full = optB, "Ｂ"
		}
		if !strings.Contains(reply, got) && !strings.Contains(reply, full) && (opt == "" || !contains(reply, opt)) {
			t.Fatalf("ParseAnswer(%q, %q, %q) = %q, which the reply does not hold", reply, optA, optB, got)
		}
		if strings.ContainsAny(optA+optB, "ABabＡＢａｂ") {
			return
		}
		want := map[string]string{LabelA: LabelB, LabelB: LabelA}[got]
		if sw := ParseAnswer(swapAB.Replace(reply), optB, optA); sw != want {
			t.Fatalf("ParseAnswer(%q) = %q but its swap %q gives %q", reply, got, swapAB.Replace(reply), sw)
		}
	})
}
