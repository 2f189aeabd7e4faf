package export

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/ngkit/ngkit/pkg/record"
)

// Message is one chat message of the OpenAI chat fine-tuning format.
type Message struct {
	Role    string `json:"role" parquet:"role"`
	Content string `json:"content" parquet:"content"`
}

// MessagesRow is one training example of the OpenAI chat fine-tuning
// format (JSONL of {"messages": [{role, content}, ...]}), which the
// Hugging Face chat templates read too.
type MessagesRow struct {
	Messages []Message `json:"messages" parquet:"messages,list"`
}

// Who plays the assistant (MessagesOptions.Assistant).
const (
	AssistantAuto   = "auto"   // the speaker named "assistant" if there is one, else the second speaker
	AssistantFirst  = "first"  // the speaker of the first turn
	AssistantSecond = "second" // the first speaker who is not the first turn's
)

// MessagesOptions tune the messages export.
type MessagesOptions struct {
	// PerTurn writes one example per assistant turn (the dialogue up to
	// and including it) instead of one per dialogue.
	PerTurn bool
	// Assistant: AssistantAuto ("" too), AssistantFirst, AssistantSecond
	// or a speaker's name. Every other speaker is the user.
	Assistant string
	// System, when set, makes the system message from the record (its
	// fields: .Norm, .Situation, .Scenario, .Culture, .Category,
	// .DialogueType, .Lang, ...). Without it, a record imported from chat
	// messages gets its own system message back (extra "system").
	System *template.Template
}

// ParseSystemTemplate reads a --system-template file's text (Go
// text/template over the record). It is tried on an empty record, so that
// a misspelt field is an error at the start, not on every record.
func ParseSystemTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("--system-template %s: %w", name, err)
	}
	// The episode fields are there, so that a template for ngsim episodes
	// ({{.Episode.Subgroup}}) can be tried too.
	if err := t.Execute(io.Discard, &record.Record{Episode: &record.Episode{}, Sim: &record.Sim{}}); err != nil {
		return nil, fmt.Errorf("--system-template %s: %w", name, err)
	}
	return t, nil
}

// Messages returns the converter of --to messages: a dialogue becomes
// OpenAI chat fine-tuning examples, the assistant's turns as "assistant"
// messages and every other speaker's as "user" ones (a stage direction
// before the text, in parentheses). A narration line is a user message of
// its own, in parentheses, where it stands among the turns
// (record.NarrationPos): it is what the user side of the scene sees, and a
// model trained on the file learns to answer it, not to write it. A
// dialogue in which
// the assistant never speaks makes no example, nor does a record without
// turns. An ngsim episode (sim set) ends with the assistant's last reply:
// the user's closing message after it is left out. A system template that
// fails on a record is reported by the error function and the record makes
// no example.
func Messages(opt MessagesOptions, fail func(rec *record.Record, err error)) func(*record.Record) []MessagesRow {
	return func(rec *record.Record) []MessagesRow {
		rows, err := messages(rec, opt)
		if err != nil && fail != nil {
			fail(rec, err)
		}
		return rows
	}
}

func messages(rec *record.Record, opt MessagesOptions) ([]MessagesRow, error) {
	if len(rec.Turns) == 0 {
		return nil, nil
	}
	asst := assistantOf(rec.Turns, opt.Assistant)
	var base []Message
	sys, err := systemMessage(rec, opt.System)
	if err != nil {
		return nil, err
	}
	if sys != "" {
		base = append(base, Message{Role: "system", Content: sys})
	}
	msgs := append([]Message(nil), base...)
	var rows []MessagesRow
	any := false
	narr := 0 // the next narration line
	narrate := func(upTo int) {
		for ; narr < len(rec.Narration) && rec.NarrationPos(narr) <= upTo; narr++ {
			msgs = append(msgs, Message{Role: "user", Content: "(" + rec.Narration[narr] + ")"})
		}
	}
	for i := range rec.Turns {
		narrate(i)
		t := &rec.Turns[i]
		role := "user"
		if t.Speaker == asst {
			role = "assistant"
		}
		msgs = append(msgs, Message{Role: role, Content: utterance(t)})
		if role == "assistant" {
			any = true
			if opt.PerTurn {
				rows = append(rows, MessagesRow{Messages: append([]Message(nil), msgs...)})
			}
		}
	}
	if !any {
		return nil, nil
	}
	narrate(len(rec.Turns))
	if !opt.PerTurn {
		if rec.Sim != nil {
			// An ngsim episode may end with the user's closing message
			// ("thanks, bye"): a training example ends with the assistant.
			for msgs[len(msgs)-1].Role != "assistant" {
				msgs = msgs[:len(msgs)-1]
			}
		}
		rows = append(rows, MessagesRow{Messages: msgs})
	}
	return rows, nil
}

// assistantOf names the speaker who plays the assistant.
func assistantOf(turns []record.Turn, who string) string {
	switch who {
	case AssistantFirst:
		return turns[0].Speaker
	case "", AssistantAuto, AssistantSecond:
		if who != AssistantSecond {
			for _, t := range turns {
				if t.Speaker == "assistant" {
					return t.Speaker
				}
			}
		}
		for _, t := range turns[1:] {
			if t.Speaker != turns[0].Speaker {
				return t.Speaker
			}
		}
		return "" // one speaker only: no assistant
	}
	return who
}

func systemMessage(rec *record.Record, t *template.Template) (string, error) {
	if t == nil {
		s, _ := rec.ExtraString("system")
		return s, nil
	}
	var b strings.Builder
	if err := t.Execute(&b, rec); err != nil {
		var ee template.ExecError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("--system-template: %v", ee.Err)
		}
		return "", fmt.Errorf("--system-template: %w", err)
	}
	return strings.TrimSpace(b.String()), nil
}
