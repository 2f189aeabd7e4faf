package imports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// MessagesOptions tune the chat-messages import.
type MessagesOptions struct {
	Fields // set on every record
	Stdin  io.Reader
}

// Messages reads chat datasets as a pipeline.Source: JSONL (or a JSON
// array) of objects with "messages": [{role, content}] (OpenAI fine-tuning
// files, most Hugging Face chat sets) or ShareGPT's "conversations": [{from,
// value}]. Each object is one dialogue: a turn per user or assistant
// message (ShareGPT's human and gpt are user and assistant; other roles
// keep their name), the system message in extra "system", every other key
// of the object in extra. Content given as a list of parts keeps its text
// parts, joined by newlines. No line of text is parsed, so nothing is
// unplaced; a message that is not an object with a role and content is an
// error naming the file, line and message.
type Messages struct {
	names   []string
	opt     MessagesOptions
	cur     *valueScanner
	f       io.Closer
	display string
	file    string
	index   int64
}

// NewMessages imports the named files ("-" or none: stdin).
func NewMessages(names []string, opt MessagesOptions) (*Messages, error) {
	if err := opt.Fields.Check(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Messages{names: names, opt: opt}, nil
}

// Next implements pipeline.Source.
func (m *Messages) Next() (pipeline.Item, error) {
	for {
		if m.cur == nil {
			if len(m.names) == 0 {
				return pipeline.Item{}, io.EOF
			}
			name := m.names[0]
			m.names = m.names[1:]
			display, r, f, err := openText(name, m.opt.Stdin)
			if err != nil {
				return pipeline.Item{}, err
			}
			m.display, m.f, m.index, m.file = display, f, 0, sourceName(display)
			m.cur = newValueScanner(r, 64<<20)
		}
		raw, line, err := m.cur.Next()
		if err == nil && !utf8.Valid(raw) {
			return pipeline.Item{}, notUTF8(m.display, line, raw)
		}
		if err == nil {
			idx, name, file, fields := m.index, m.display, m.file, m.opt.Fields
			m.index++
			return pipeline.Item{
				Raw: append([]byte(nil), raw...), Name: name, Line: line,
				Decode: func(b []byte) (*record.Record, error) {
					rec, err := decodeMessages(b, file, idx)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: %w", name, line, err)
					}
					fields.apply(rec)
					return rec, nil
				},
			}, nil
		}
		if !errors.Is(err, io.EOF) {
			return pipeline.Item{}, fmt.Errorf("%s:%d: %w", m.display, line, err)
		}
		if m.index == 0 {
			return pipeline.Item{}, fmt.Errorf("%s: empty input (no records)", m.display)
		}
		m.Close()
	}
}

// Close implements pipeline.Source.
func (m *Messages) Close() error {
	m.cur = nil
	if m.f != nil {
		err := m.f.Close()
		m.f = nil
		return err
	}
	return nil
}

// shareGPTRoles maps ShareGPT's "from" values to chat roles.
var shareGPTRoles = map[string]string{"human": "user", "user": "user", "gpt": "assistant", "chatgpt": "assistant",
	"assistant": "assistant", "bard": "assistant", "bing": "assistant", "model": "assistant", "system": "system"}

func decodeMessages(raw []byte, file string, idx int64) (*record.Record, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, describe(err)
	}
	key, roleKey, textKey := "messages", "role", "content"
	list, ok := obj[key]
	if !ok {
		key, roleKey, textKey = "conversations", "from", "value"
		if list, ok = obj[key]; !ok {
			return nil, errors.New(`want an object with "messages" [{role, content}] or "conversations" [{from, value}]`)
		}
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(list, &msgs); err != nil {
		return nil, fmt.Errorf("%s: want a list of objects, got %s", key, kind(list))
	}
	rec := &record.Record{ID: record.NewID("messages", file, strconv.FormatInt(idx, 10))}
	for k, v := range obj {
		if k != key {
			rec.SetExtra(k, v)
		}
	}
	var system []string
	for i, m := range msgs {
		var role string
		if err := json.Unmarshal(m[roleKey], &role); err != nil || role == "" {
			return nil, fmt.Errorf("%s[%d]: want a %q string", key, i, roleKey)
		}
		text, err := content(m[textKey])
		if err != nil {
			return nil, fmt.Errorf("%s[%d].%s: %w", key, i, textKey, err)
		}
		if r, ok := shareGPTRoles[strings.ToLower(role)]; ok && key == "conversations" {
			role = r
		}
		if role == "system" || role == "developer" {
			system = append(system, text)
			continue
		}
		rec.Turns = append(rec.Turns, record.Turn{Index: len(rec.Turns), Speaker: role, Text: text})
	}
	if len(system) > 0 {
		rec.SetExtra("system", strings.Join(system, "\n"))
	}
	if len(rec.Turns) == 0 {
		rec.AddDefect(record.DefectEmptyDialogue)
	}
	rec.SetExtra("source_file", file)
	rec.SetExtra("source_index", idx)
	return rec, nil
}

// content reads a message's content: a string, null (no text), or a list
// of parts whose text parts count.
func content(v json.RawMessage) (string, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || bytes.Equal(v, []byte("null")) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(v, &parts); err != nil {
		return "", fmt.Errorf("want a string or a list of parts, got %s", kind(v))
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}
