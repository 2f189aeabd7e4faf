// Package labelreply is the canned labelling model of nglabel (the
// built-in demo model's, and that of nglabel's tests and benchmarks,
// filters/label/labeltest): it reads the dialogue from the prompt
// (the "[index] Speaker: text" lines), the labels asked for (the reply
// example) and the dialogue type, and answers what a careful labeller
// would, in the languages asked for, so that replies pass nglabel's
// checks.
package labelreply

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/internal/fakefit"
)

// Turn is one entry of a label_turns reply.
type Turn struct {
	Index       int      `json:"index"`
	Norm        string   `json:"norm,omitempty"`
	Intent      string   `json:"intent,omitempty"`
	Emotion     string   `json:"emotion,omitempty"`
	Stage       string   `json:"stage,omitempty"`
	Safety      string   `json:"safety,omitempty"`
	Rots        []string `json:"rots,omitempty"`
	Explanation string   `json:"explanation"`
}

// Reply is a label_turns reply.
type Reply struct {
	Turns []Turn `json:"turns"`
}

// Prompt is what the fake read from a request.
type Prompt struct {
	Kind  string // "turns", "quality" or "pairwise"
	Turns int
	Type  string // dialogue type
	Lang  string // script of the dialogue: "ko", "zh" or "en"
	// Asked labels (turns), from the reply example.
	Norm, Intent, Emotion, Stage, Safety bool
	// RotsLang is the language the prompt asks the rules-of-thumb in.
	RotsLang string
	Seed     int64
	// User is the prompt (the first user message).
	User string
}

var (
	turnLine = regexp.MustCompile(`(?m)^\[(\d+)\] `)
	typeLine = regexp.MustCompile(`(?m)^(?:Dialogue type|대화 유형): (\w+)`)
)

// Read parses a request; the first user message is the prompt (later
// ones are re-asks).
func Read(req *wire.ChatRequest) Prompt {
	var user, system string
	for _, m := range req.Messages {
		if m.Role == "user" && user == "" {
			user = m.Text()
		}
		if m.Role == "system" && system == "" {
			system = m.Text()
		}
	}
	p := Prompt{Kind: "turns", User: user}
	// The task's fixed part (labels asked, reply format) may be in the
	// system prompt, ahead of the record (prompts providers cache).
	task := system + "\n" + user
	switch {
	case strings.Contains(user, "Dialogue B") || strings.Contains(user, "대화 B"):
		p.Kind = "pairwise"
	case strings.Contains(task, `"score"`):
		p.Kind = "quality"
	}
	p.Turns = len(turnLine.FindAllString(user, -1))
	if m := typeLine.FindStringSubmatch(user); m != nil {
		p.Type = m[1]
	}
	var lines []string
	for _, l := range strings.Split(user, "\n") {
		if turnLine.MatchString(l) {
			lines = append(lines, l)
		}
	}
	p.Lang = script(strings.Join(lines, " "))
	p.Norm = strings.Contains(task, `"norm": "..."`)
	p.Intent = strings.Contains(task, `"intent": "..."`)
	p.Emotion = strings.Contains(task, `"emotion": "..."`)
	p.Stage = strings.Contains(task, `"stage": "..."`)
	p.Safety = strings.Contains(task, `"safety": "..."`)
	p.RotsLang = p.Lang
	if strings.Contains(task, "rules-of-thumb in English") || strings.Contains(task, "경험칙(rule-of-thumb) 하나 이상을 영어로") {
		p.RotsLang = "en"
	}
	if req.Seed != nil {
		p.Seed = *req.Seed
	}
	return p
}

// script tells the dialogue's language by its letters.
func script(s string) string {
	var hangul, han, latin int
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Hangul, r):
			hangul++
		case unicode.Is(unicode.Han, r):
			han++
		case unicode.IsLetter(r) && r < 0x250:
			latin++
		}
	}
	switch {
	case hangul > 0 && hangul*3 >= latin:
		return "ko"
	case han > 0 && han*3 >= latin:
		return "zh"
	}
	return "en"
}

var rot = map[string]string{
	"en": "It's wrong to ignore how your words make others feel.",
	"ko": "상대의 감정을 무시하는 말을 하는 것은 잘못이다.",
	"zh": "不顾别人感受说话是不对的。",
}

// Labels is the fake's right answer to a turns prompt: adherence
// dialogues adhere throughout; violation dialogues break the norm in turn
// 1; V2R dialogues go context, violation, recognition, repair, resolution.
// The seed varies the emotions of odd turns, so samples differ a little.
func Labels(p Prompt) Reply {
	r := Reply{Turns: make([]Turn, p.Turns)}
	for i := range r.Turns {
		t := Turn{Index: i, Explanation: "The speaker responds to the previous turn in a way that fits the situation."}
		norm, stage := "adhered", "resolution"
		switch p.Type {
		case "violation":
			if i == 1 {
				norm = "violated"
			}
		case "v2r":
			switch {
			case i == 0:
				norm, stage = "not_relevant", "context"
			case i == 1:
				norm, stage = "violated", "violation"
			case i == 2:
				norm, stage = "not_relevant", "recognition"
			case i == 3:
				stage = "repair"
			}
		}
		if p.Norm {
			t.Norm = norm
		}
		if p.Stage {
			t.Stage = stage
		}
		if p.Intent {
			t.Intent = []string{"QUE", "JUS", "CRT", "APO", "THX", "ACK"}[i%6]
		}
		if p.Emotion {
			t.Emotion = "neutral"
			if i%2 == 1 && p.Seed%3 == 1 {
				t.Emotion = "surprise"
			}
		}
		if p.Safety {
			t.Safety = "casual"
			if norm == "violated" {
				t.Safety = "needs_caution"
				if p.Seed%2 == 1 {
					t.Safety = "casual"
				}
			}
			if t.Safety != "casual" {
				t.Rots = []string{rot[p.RotsLang]}
			}
		}
		r.Turns[i] = t
	}
	return r
}

// Quality is the fake's quality judgement; the seed fit is internal/fakefit's
// judgement of the prompt's seed and dialogue.
func Quality(p Prompt) map[string]any {
	norm := map[string]int{"adherence": 5, "violation": 1, "v2r": 3}[p.Type]
	if norm == 0 {
		norm = 4
	}
	out := map[string]any{}
	for i, c := range []string{"consistency", "naturalness", "relevance", "coherence", "emotion", "norm"} {
		s := 3 + i%3
		if c == "norm" {
			s = norm
		}
		out[c] = map[string]any{"score": s, "explanation": "Scored " + strconv.Itoa(s) + " for " + c + "."}
	}
	fit, why := fakefit.FromPrompt(p.User)
	out["fit"] = map[string]any{"score": fit, "explanation": why}
	return out
}

// Pairwise is the fake's pairwise judgement: A is more natural, B more
// norm-appropriate (a judge with a position bias on one criterion).
func Pairwise() map[string]any {
	return map[string]any{
		"naturalness": map[string]string{"winner": "A", "explanation": "A flows better."},
		"norm":        map[string]string{"winner": "B", "explanation": "B shows the norm more clearly."},
	}
}

// Answer is the model: the right answer to any nglabel prompt.
func Answer(req *wire.ChatRequest) string {
	p := Read(req)
	var v any
	switch p.Kind {
	case "quality":
		v = Quality(p)
	case "pairwise":
		v = Pairwise()
	default:
		v = Labels(p)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
