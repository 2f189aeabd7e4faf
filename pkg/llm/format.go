package llm

import (
	"fmt"

	"github.com/openai/openai-go/v3"
)

// mode is the response format in use.
func (c *Client) mode() int { return int(c.format.Load()) }

var formatNames = [...]string{formatJSONSchema: "json_schema", formatJSONObject: "json_object", formatPrompt: "prompt"}

// auto reports whether the response format is chosen by the ladder.
func (c *Client) auto() bool {
	return (c.cfg.ResponseFormat == "" || c.cfg.ResponseFormat == "auto") && c.bat == nil
}

// stepDown moves auto mode from rung mode to the next one, for the rest
// of the run, and says so on stderr once per step: of the calls that
// failed at the same rung at once, only one moves it.
func (c *Client) stepDown(mode int, why string) {
	if !c.format.CompareAndSwap(int32(mode), int32(mode+1)) || c.cfg.Stderr == nil {
		return
	}
	next := "response_format json_object, with the schema in the prompt"
	if mode+1 == formatPrompt {
		next = "no response_format: the schema is in the prompt and replies are validated"
	}
	fmt.Fprintf(c.cfg.Stderr, "%s: %s cannot use response_format %s (%s); from now on: %s (choose with --response-format)\n",
		c.cfg.Stage, RedactURL(c.cfg.BaseURL), formatNames[mode], cut(why, 200), next)
}

// withFormat adds the JSON instruction to the system message when the
// schema is not sent as response_format.
func (c *Client) withFormat(msgs []Message, sch *schema, mode int) []Message {
	if sch == nil || mode == formatJSONSchema {
		return msgs
	}
	instr := "Reply with only a JSON object, no other text, that matches this JSON Schema:\n" + sch.text
	out := make([]Message, 0, len(msgs)+1)
	if len(msgs) > 0 && msgs[0].Role == "system" {
		out = append(out, System(msgs[0].Content+"\n\n"+instr))
		return append(out, msgs[1:]...)
	}
	out = append(out, System(instr))
	return append(out, msgs...)
}

// params builds the chat-completions request.
func (c *Client) params(msgs []Message, sch *schema, s Sampling, mode int) openai.ChatCompletionNewParams {
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
