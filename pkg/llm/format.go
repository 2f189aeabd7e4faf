package llm

import "fmt"

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
