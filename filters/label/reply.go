package label

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/record"
)

// turnLabels is one turn's entry in a label_turns reply: its index and,
// in record.Labels' fields (the reply's names), the labels, rules-of-thumb
// and explanation.
type turnLabels struct {
	Index *int `json:"index"`
	record.Labels
}

func (t *turnLabels) get(task string) string { return t.Labels.Get(task) }

// turnsSpec is what a label_turns reply must hold for one dialogue.
type turnsSpec struct {
	turns int      // entries 0..turns-1, each exactly once
	tasks []string // labels every entry must carry
	// explainLang and rotsLang are the languages the explanations and
	// rules-of-thumb must be in ("" or a language the detector cannot
	// tell by script: not checked).
	explainLang, rotsLang string
}

// maxProblems bounds the problems listed in one error: enough for the
// model to fix its reply, short enough to send back.
const maxProblems = 6

// parseTurns decodes a label_turns reply and checks it against spec: one
// entry per turn index, every asked label present and from its closed set
// (the schema checks the sets too, but not every server enforces it), the
// rules-of-thumb with every safety label above casual, and the languages.
// It returns the entries in turn order; the error lists what is wrong, for
// the model to correct.
func parseTurns(raw0 []byte, spec turnsSpec) ([]turnLabels, error) {
	var reply struct {
		Turns []turnLabels `json:"turns"`
	}
	if err := json.Unmarshal(raw0, &reply); err != nil {
		return nil, fmt.Errorf("not the expected JSON object: %v", err)
	}
	var problems []string
	add := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	var raw []map[string]json.RawMessage // the entries' fields, read when a label is not in Labels' JSON
	out := make([]turnLabels, spec.turns)
	seen := make([]bool, spec.turns)
	for k, t := range reply.Turns {
		switch {
		case t.Index == nil:
			add("an entry has no index")
			continue
		case *t.Index < 0 || *t.Index >= spec.turns:
			add("there is no turn %d (the dialogue has turns 0 to %d)", *t.Index, spec.turns-1)
			continue
		case seen[*t.Index]:
			add("turn %d has more than one entry", *t.Index)
			continue
		}
		i := *t.Index
		seen[i] = true
		out[i] = t
		t := &out[i] // labels set by their row's accessor stay where they are put
		for _, task := range spec.tasks {
			if t.get(task) == "" {
				// A label whose field in Labels is not the reply's (a row
				// added to the table in a test) is read by its name.
				if raw == nil {
					var r struct {
						Turns []map[string]json.RawMessage `json:"turns"`
					}
					_ = json.Unmarshal(raw0, &r)
					raw = r.Turns
				}
				var v string
				if k < len(raw) && json.Unmarshal(raw[k][task], &v) == nil {
					*rowOf(task).Field(&t.Labels) = v
				}
			}
			v, set := t.get(task), rowOf(task).Values
			switch {
			case v == "":
				add("turn %d has no %s label", i, task)
			case !slices.Contains(set, v):
				add("turn %d: %s %q is not one of %s", i, task, v, strings.Join(set, ", "))
			}
		}
		for _, task := range spec.tasks {
			// Every value of a label with rules-of-thumb but its first
			// (safety: casual) needs one.
			if row := rowOf(task); row.Rots {
				if v := t.get(task); v != "" && v != row.Values[0] && len(nonEmpty(t.Rots)) == 0 {
					add("turn %d is %s but has no rules-of-thumb (rots)", i, v)
				}
			}
		}
		if strings.TrimSpace(t.Explanation) == "" {
			add("turn %d has no explanation", i)
		}
		t.Rots = nonEmpty(t.Rots)
	}
	var missing []string
	for i, ok := range seen {
		if !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		problems = append([]string{fmt.Sprintf("no entry for turn %s (every turn from 0 to %d needs one)",
			strings.Join(missing, ", "), spec.turns-1)}, problems...)
	}
	if len(problems) == 0 {
		problems = append(problems, languageProblems(out, spec)...)
	}
	if len(problems) > 0 {
		if len(problems) > maxProblems {
			problems = append(problems[:maxProblems], fmt.Sprintf("and %d more problems", len(problems)-maxProblems))
		}
		return nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return out, nil
}

func nonEmpty(l []string) []string {
	var out []string
	for _, s := range l {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// scriptLangs are the languages checked: those the detector tells apart by
// script, with English as the only Latin candidate, so no lingua model is
// ever loaded for this check.
var scriptLangs = []string{"en", "ko", "zh", "ja", "th", "ta"}

// scriptDetector is built on first use, not when every program of the
// multi-call binary starts.
var scriptDetector = sync.OnceValue(func() *lang.Detector {
	d, err := lang.New(scriptLangs...)
	if err != nil {
		panic(err)
	}
	return d
})

// hantDetector checks zh-Hant the way scriptDetector checks zh: any
// Chinese counts (with both forms as candidates, Chinese that neither form
// marks would be weak and short explanations could not pass).
var hantDetector = sync.OnceValue(func() *lang.Detector {
	d, err := lang.New("en", "ko", "zh-Hant", "ja", "th", "ta")
	if err != nil {
		panic(err)
	}
	return d
})

// languageProblems checks that the explanations and rules-of-thumb are
// mostly in the languages asked for.
func languageProblems(turns []turnLabels, spec turnsSpec) []string {
	var problems []string
	check := func(what, want string, texts []string) {
		det := scriptDetector()
		if want == "zh-Hant" {
			det = hantDetector()
		} else if !slices.Contains(scriptLangs, want) {
			return
		}
		if len(texts) == 0 {
			return
		}
		share, langs := det.Check(texts, want)
		confident := 0
		for _, l := range langs {
			if l != "" {
				confident++
			}
		}
		if confident > 0 && share < 0.5 {
			problems = append(problems, fmt.Sprintf("the %s must be in %s, but %.0f%% of them are not", what, LangName(want), 100*(1-share)))
		}
	}
	var expl, rots []string
	for _, t := range turns {
		expl = append(expl, t.Explanation)
		rots = append(rots, t.Rots...)
	}
	check("explanations", spec.explainLang, expl)
	check("rules-of-thumb (rots)", spec.rotsLang, rots)
	return problems
}

// LangName is the English name of a language code ("ko" -> "Korean"); the
// code itself when unknown.
func LangName(code string) string { return lang.Name(lang.Normalize(code)) }
