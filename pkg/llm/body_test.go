package llm

import (
	"bytes"
	"math"
	"testing"

	"github.com/openai/openai-go/v3"
)

// sdkParams is the request as the SDK would build it: the reference
// that c.body must encode byte for byte.
func (c *Client) sdkParams(msgs []Message, sch *schema, s Sampling, mode int) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: c.cfg.Model, Messages: make([]openai.ChatCompletionMessageParamUnion, len(msgs))}
	for i, m := range msgs {
		switch m.Role {
		case "system":
			p.Messages[i] = openai.SystemMessage(m.Content)
		case "assistant":
			p.Messages[i] = openai.AssistantMessage(m.Content)
		default:
			p.Messages[i] = openai.UserMessage(m.Content)
		}
	}
	if s.Temperature != nil {
		p.Temperature = openai.Float(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = openai.Float(*s.TopP)
	}
	if s.Seed != nil {
		p.Seed = openai.Int(*s.Seed)
	}
	if s.TopLogprobs > 0 {
		p.Logprobs = openai.Bool(true)
		p.TopLogprobs = openai.Int(int64(s.TopLogprobs))
	}
	if s.MaxTokens > 0 {
		if c.maxCompletion {
			p.MaxCompletionTokens = openai.Int(int64(s.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(s.MaxTokens))
		}
	}
	if sch != nil {
		switch mode {
		case formatJSONSchema:
			p.ResponseFormat.OfJSONSchema = &openai.ResponseFormatJSONSchemaParam{
				JSONSchema: openai.ResponseFormatJSONSchemaJSONSchemaParam{Name: sch.name, Schema: sch.doc}}
		case formatJSONObject:
			p.ResponseFormat.OfJSONObject = &openai.ResponseFormatJSONObjectParam{}
		}
	}
	return p
}

// TestBodyIsTheSDKs: the body we encode is, byte for byte, what openai-go
// would have sent for the same call, in every response format and with
// every sampling field, text with HTML, control characters, U+2028 and
// invalid UTF-8 included. Servers and the Batch API's request files see
// no difference.
func TestBodyIsTheSDKs(t *testing.T) {
	temp, tp, zero, tiny, huge := 0.7, 0.9, 0.0, 1e-7, 1e22
	seed, neg := int64(3), int64(-1)
	sch := &schema{name: "labels", doc: []byte(`{"type":"object","properties":{"a":{"enum":["<x>","&"]}}}`)}
	msgs := [][]Message{
		{System("s<\u2028>&"), User("u\x01\b\f\t\r\n\"\\é\xff\u2029"), {Role: "assistant", Content: "a"}, {Role: "prompt", Content: "p"}},
		{User("")},
		{},
	}
	samps := []Sampling{
		{},
		{Temperature: &temp, TopP: &tp, Seed: &seed, TopLogprobs: 5, MaxTokens: 100},
		{Temperature: &zero, Seed: &neg, MaxTokens: 1},
		{Temperature: &tiny, TopP: &huge},
	}
	n := 0
	for _, mc := range []bool{false, true} {
		c := &Client{maxCompletion: mc}
		c.cfg.Model = "m<&>\u00e9"
		for _, m := range msgs {
			for _, s := range samps {
				for _, sc := range []*schema{nil, sch} {
					for mode := formatJSONSchema; mode <= formatPrompt; mode++ {
						checkBody(t, c, m, sc, s, mode)
						n++
					}
				}
			}
		}
	}
	if n != 2*3*4*2*3 {
		t.Fatalf("%d cases", n)
	}
}

func checkBody(t *testing.T, c *Client, msgs []Message, sch *schema, s Sampling, mode int) {
	t.Helper()
	want, err := c.sdkParams(msgs, sch, s, mode).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.body(msgs, sch, s, mode)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("body differs from the SDK's\n got: %s\nwant: %s", got, want)
	}
}

// FuzzBody: any text and sampling values encode as the SDK encodes them.
func FuzzBody(f *testing.F) {
	f.Add("sys <b>", "user \u2028\xff\x00", "model", 0.5, 1.0, int64(7), 2, 64, true)
	f.Fuzz(func(t *testing.T, sys, user, model string, temp, topP float64, seed int64, logprobs, maxTok int, mc bool) {
		if math.IsNaN(temp) || math.IsInf(temp, 0) || math.IsNaN(topP) || math.IsInf(topP, 0) {
			return // neither encoder takes them; flags refuse them
		}
		c := &Client{maxCompletion: mc}
		c.cfg.Model = model
		s := Sampling{Temperature: &temp, TopP: &topP, Seed: &seed, TopLogprobs: logprobs % 21, MaxTokens: maxTok}
		sch := &schema{name: model, doc: []byte(`{"type":"object"}`)}
		for mode := formatJSONSchema; mode <= formatPrompt; mode++ {
			checkBody(t, c, []Message{System(sys), User(user)}, sch, s, mode)
		}
	})
}
