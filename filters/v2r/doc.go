// Package v2r is the stage of ngv2r: one LLM call per seed record
// (scenario, situation, culture, category, norm, dialogue_type) that
// returns the dialogue, validated before it is accepted.
//
// # Reply
//
// By default the model answers JSON (schemas/llm/v2r_dialogue_<type>):
// turns of {speaker, action, text, stage} and optional narration. The
// stage vocabulary depends on the dialogue type:
//
//   - adherence: no stage;
//   - violation: "violation" on the turns that break the norm, "none" on
//     the others (written as no stage);
//   - v2r: every turn has one of context, violation, recognition, repair,
//     resolution.
//
// With TextMode (servers without any JSON output) the model writes one
// "Name: (action) text" line per turn, parsed by pkg/dialogue, with the
// stage as a tag at the start of the line: "[violation] Minsu: ..." (see
// ParseText for what is accepted).
//
// # Validation
//
// Every dialogue, in either mode, must pass Rules.Check, or the reply is
// asked for again with the reasons (llm.Request.Check) and, when the
// re-asks and retries are spent, the seed goes to the errors file with
// them:
//
//   - MinTurns to MaxTurns turns (narration lines do not count);
//   - at least two speakers;
//   - no empty turn (neither text nor stage direction; a turn of only a
//     direction, "(nods)", is fine, as ngstats has it);
//   - no format markers in speakers, directions, texts or narration: what
//     pkg/dialogue.Clean would remove ([END], [끝], separators, headers,
//     markdown), literal "\n", a stage tag in the text, the speaker's name
//     repeated in front of the text, a line break in a name or direction;
//   - the violation present: a violation dialogue has at least one turn
//     with stage violation; a V2R dialogue's stages never go back in the
//     order context < violation < recognition < repair < resolution, and
//     each of violation, recognition, repair and resolution is there (so
//     context turns, if any, come first and nothing comes after the
//     resolution but more resolution);
//   - then pkg/audit.Audit, the audit ngstats runs, with the same turn
//     bounds and MinLangShare: each turn's language (turn.lang is kept),
//     the share of the turns the detector is sure of that are in the
//     expected language (default: all of them), and any defect ngstats
//     would report on the record. So ngstats finds no per-record defect in
//     ngv2r's output.
//
// The expected language is the seed's lang, else the culture profile's
// (pkg/normbank).
package v2r
