package fakefit

import (
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/v2r/v2rtest"
	"github.com/ngkit/ngkit/pkg/record"
)

func speakersOf(r *record.Record) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range r.Turns {
		if !seen[t.Speaker] {
			seen[t.Speaker] = true
			out = append(out, t.Speaker)
		}
	}
	return out
}

// TestReleaseSeparation: on the release sample, every dialogue fits its
// own seed (4 or more), and the dialogues of the other seeds of its
// culture and type mostly do not (3 or less): what a fit judge must tell.
func TestReleaseSeparation(t *testing.T) {
	recs, err := imports.ReadNormGenesis(v2rtest.ReleaseFiles())
	if err != nil {
		t.Fatal(err)
	}
	by := map[[2]string][]*record.Record{}
	for _, r := range recs {
		if len(r.Turns) > 0 {
			k := [2]string{r.Culture, r.DialogueType}
			by[k] = append(by[k], r)
		}
	}
	var own, others, passed int
	for _, rs := range by {
		for i, s := range rs {
			seed := s.Scenario + " " + s.Situation
			for j, d := range rs {
				score, why := Score(seed, speakersOf(d))
				if why == "" {
					t.Fatalf("%s: no reason", d.ID)
				}
				if i == j {
					own++
					if score < 4 {
						t.Errorf("%s against its own seed: fit %d (%s)", d.ID, score, why)
					}
					continue
				}
				others++
				if score >= 4 {
					passed++
				}
			}
		}
	}
	share := float64(passed) / float64(others)
	t.Logf("%d own pairs; %d unrelated pairs, %d (%.1f%%) scored 4 or more", own, others, passed, 100*share)
	if own < 100 || share > 0.03 {
		t.Errorf("%d own pairs, %.1f%% of unrelated pairs fit: want >= 100 and <= 3%%", own, 100*share)
	}
}

func TestFromPrompt(t *testing.T) {
	prompt := "Social norm (apology): Apologise at once.\nScenario: Minsu spills coffee on Jiyoung's desk.\n" +
		"Situation: In the office, Minsu apologises to Jiyoung.\n\nDialogue:\n[0] Minsu: (bowing) Sorry!\n[1] Jiyoung: It's fine.\n[2] Minsu: Let me clean it."
	if got := Speakers(prompt); len(got) != 2 || got[0] != "Minsu" || got[1] != "Jiyoung" {
		t.Fatalf("speakers %q", got)
	}
	if s, _ := FromPrompt(prompt); s != 5 {
		t.Errorf("fit %d, want 5", s)
	}
	other := "Scenario: Minsu spills coffee.\nSituation: Minsu and Jiyoung.\n[0] Wang Wei: Hello.\n[1] Li Na: Hi."
	s, why := FromPrompt(other)
	if s != 1 || why != "2 of 2 speakers (Wang Wei, Li Na) are not people of the scenario or situation: the dialogue seems to be about another situation" {
		t.Errorf("fit %d, %q", s, why)
	}
}

// FuzzFromPrompt: on any prompt, the fake judge gives a score of 1-5 and
// a reason, and the speakers it reads are distinct and not empty.
func FuzzFromPrompt(f *testing.F) {
	f.Add("Scenario: Minsu spills coffee.\nSituation: Minsu and Jiyoung.\n[0] Minsu: Sorry.\n[1] Jiyoung: Fine.")
	f.Add("[0] : x\n[1] 민수： 죄송합니다\n[2] A:B: c")
	f.Add("")
	f.Fuzz(func(t *testing.T, prompt string) {
		score, why := FromPrompt(prompt)
		if score < 1 || score > 5 || why == "" {
			t.Fatalf("score %d, reason %q", score, why)
		}
		seen := map[string]bool{}
		for _, s := range Speakers(prompt) {
			if s == "" || seen[s] {
				t.Fatalf("speakers %q", Speakers(prompt))
			}
			seen[s] = true
		}
	})
}
