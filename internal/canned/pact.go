package canned

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"strings"

	"github.com/ngkit/ngkit/filters/seed"
	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// PactBias is the fake model under test of ngpact: its probability of
// choosing the follow option is Base (0.6 when 0), plus Culture[culture]
// for the item's culture (its key or display name, lower case), plus
// Persona["attr=value"] for each of the actor's persona attributes (the
// prompt's "About the actor" lines: age, gender, country, ...) and
// Persona["receiver_attr=value"] for the receiver's, plus
// Norm for the norm framing, clamped to [0.02, 0.98]. Tests inject a known
// effect this way (+0.10 for one culture, 0 for gender) and check that
// ngpact and ngstats recover it. With logprobs the first token's
// alternatives carry that probability exactly (the two labels share 0.9,
// "The" takes 0.1); sampled replies draw from it by a hash of the request
// (its seed and prompt). Neither is the share of sampled replies that name
// no option.
type PactBias struct {
	Base    float64
	Culture map[string]float64
	Persona map[string]float64
	Norm    float64
	Neither float64
}

// pactQuestion is what the fake reads from an ngpact prompt.
type pactQuestion struct {
	culture      string
	persona      map[string]string
	norm         bool
	followLabel  string // "A" or "B"
	optA, optB   string
	expectation  string
	preference   string
	firstUserMsg string
}

// The labels of the pact/question prompts, per language.
var (
	cultureLabels     = []string{"Culture:", "문화:", "文化:"}
	expectationLabels = []string{"Cultural expectation:", "문화적 기대:", "文化期望:"}
	preferenceLabels  = []string{"Personal preference:", "개인적 선호:", "个人偏好:"}
	normFraming       = []string{"What would most people", "사람들 대부분은", "大多数人"}
	receiverLabels    = []string{"About the receiver:", "상대에 대해:", "关于对方:"}
	// the respondent the model answers as (a persona-prompted item), and
	// its lines' labels in each language, read as respondent_country and
	// respondent_demo
	respondentLabels = []string{"Answer as this respondent:", "다음 응답자로서 답하세요:", "请以这位受访者的身份回答:"}
	respondentKeys   = map[string]string{"country": "country", "나라": "country", "国家": "country",
		"demographic group": "demo", "인구 집단": "demo", "人口群体": "demo"}
)

func afterLabel(line string, labels []string) (string, bool) {
	for _, l := range labels {
		if v, ok := strings.CutPrefix(line, l); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// parsePactQuestion reads an ngpact prompt (the first user message: a
// re-ask adds more); ok is false for any other request.
func parsePactQuestion(req *wire.ChatRequest) (q pactQuestion, ok bool) {
	for _, m := range req.Messages {
		if m.Role == "user" {
			q.firstUserMsg = m.Text()
			break
		}
	}
	q.persona = map[string]string{}
	prefix := "" // "receiver_" in the receiver's attributes
	for _, line := range strings.Split(q.firstUserMsg, "\n") {
		line = strings.TrimSpace(line)
		if _, ok := afterLabel(line, receiverLabels); ok {
			prefix = "receiver_"
		} else if _, ok := afterLabel(line, respondentLabels); ok {
			prefix = "respondent_"
		} else if !strings.HasPrefix(line, "- ") {
			prefix = ""
		}
		if v, ok := afterLabel(line, cultureLabels); ok {
			q.culture = strings.ToLower(v)
		} else if v, ok := afterLabel(line, expectationLabels); ok {
			q.expectation = v
		} else if v, ok := afterLabel(line, preferenceLabels); ok {
			q.preference = v
		} else if v, ok := strings.CutPrefix(line, "A. "); ok {
			q.optA = v
		} else if v, ok := strings.CutPrefix(line, "B. "); ok {
			q.optB = v
		} else if v, ok := strings.CutPrefix(line, "- "); ok {
			if k, val, ok := strings.Cut(v, ": "); ok {
				if prefix == "respondent_" && respondentKeys[k] != "" {
					k = respondentKeys[k]
				}
				q.persona[prefix+strings.ReplaceAll(k, " ", "_")] = val
			}
		}
	}
	for _, f := range normFraming {
		q.norm = q.norm || strings.Contains(q.firstUserMsg, f)
	}
	if q.optA == "" || q.optB == "" || q.expectation == "" {
		return q, false
	}
	// The follow option is the one nearer the expectation than the
	// preference (the fake writer's follow option is its expectation).
	score := func(o string) float64 { return similarity(o, q.expectation) - similarity(o, q.preference) }
	q.followLabel = "A"
	if score(q.optB) > score(q.optA) {
		q.followLabel = "B"
	}
	return q, true
}

// similarity is the Jaccard similarity of two texts' character bigrams.
func similarity(a, b string) float64 {
	grams := func(s string) map[string]bool {
		r := []rune(strings.ToLower(s))
		m := map[string]bool{}
		for i := 0; i+1 < len(r); i++ {
			m[string(r[i:i+2])] = true
		}
		return m
	}
	ga, gb := grams(a), grams(b)
	inter := 0
	for g := range ga {
		if gb[g] {
			inter++
		}
	}
	if u := len(ga) + len(gb) - inter; u > 0 {
		return float64(inter) / float64(u)
	}
	return 0
}

// PFollow is the fake's probability of following the culture for a
// question.
func (b PactBias) PFollow(culture string, persona map[string]string, normFraming bool) float64 {
	p := b.Base
	if p == 0 {
		p = 0.6
	}
	p += b.Culture[strings.ToLower(culture)]
	for k, v := range persona {
		p += b.Persona[k+"="+v]
	}
	if normFraming {
		p += b.Norm
	}
	return math.Min(math.Max(p, 0.02), 0.98)
}

func other(l string) string {
	if l == "A" {
		return "B"
	}
	return "A"
}

// pactAnswer answers an ngpact question: the more likely label when the
// request asks for logprobs, else a draw.
func (m *Model) pactAnswer(req *wire.ChatRequest, q pactQuestion) string {
	p := m.Pact.PFollow(q.culture, q.persona, q.norm)
	if req.Logprobs != nil && *req.Logprobs {
		if p >= 0.5 {
			return q.followLabel
		}
		return other(q.followLabel)
	}
	h := fnv.New64a()
	if req.Seed != nil {
		fmt.Fprint(h, *req.Seed)
	}
	fmt.Fprint(h, "\x00", q.firstUserMsg, "\x00", len(req.Messages))
	x := record.Mix64(h.Sum64())
	u := float64(x>>11) / float64(1<<53)
	if v := float64(record.Mix64(x)>>11) / float64(1<<53); v < m.Pact.Neither {
		return "I cannot choose between these."
	}
	l := q.followLabel
	if u >= p {
		l = other(l)
	}
	switch x % 3 { // the forms a model answers in
	case 0:
		return l
	case 1:
		return "Answer: " + l
	}
	return "(" + l + ")"
}

// Logprobs is a wire.Alternatives (an llmtest.Options.Logprobs): for an ngpact question, the
// first token's alternatives with the bias's probability.
func (m *Model) Logprobs(req *wire.ChatRequest, content string) []wire.TopLogprob {
	q, ok := parsePactQuestion(req)
	if !ok {
		return nil
	}
	p := m.Pact.PFollow(q.culture, q.persona, q.norm)
	f, a := wire.TopLogprob{Token: q.followLabel, Logprob: math.Log(0.9 * p)}, wire.TopLogprob{Token: other(q.followLabel), Logprob: math.Log(0.9 * (1 - p))}
	if a.Logprob > f.Logprob {
		f, a = a, f
	}
	return []wire.TopLogprob{f, a, {Token: "The", Logprob: math.Log(0.1)}}
}

// pactReply answers ngseed --types pact (schemas pact_items and
// pact_conflict) and ngpact's questions; ok is false for other requests.
func (m *Model) pactReply(req *wire.ChatRequest) (string, bool) {
	switch req.SchemaName() {
	case "pact_items":
		return m.pactItems(req), true
	case "pact_conflict":
		return pactVerdicts(req), true
	case "":
		if q, ok := parsePactQuestion(req); ok {
			return m.pactAnswer(req, q), true
		}
	}
	return "", false
}

var (
	sentenceEnd = regexp.MustCompile(`[^.!?。！？]+[.!?。！？]+`)
	slotLine    = regexp.MustCompile(`(?m)^\d+\. (an actor with these attributes|any actor)`)
)

// pactItems writes items from release situations of the norm's culture
// and category: the expectation is the situation's first sentence and the
// follow option the same, the preference and allow option its second,
// so the text is real text in the culture's language.
func (m *Model) pactItems(req *wire.ChatRequest) string {
	user := ""
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			user = msg.Text()
			break
		}
	}
	var norm *normbank.Norm
	for _, n := range normbank.BuiltinNorms() {
		if strings.Contains(user, n.Text) {
			norm = &n
			break
		}
	}
	if norm == nil {
		return `{"items": []}`
	}
	want := len(slotLine.FindAllString(user, -1))
	pairs := m.seed.Pool.Pairs(norm.Culture, norm.Category, record.TypeAdherence)
	start := record.Bucket(norm.ID, max(len(pairs), 1))
	items := []seed.PactDraft{}
	for i := 0; i < len(pairs) && len(items) < want; i++ {
		pr := pairs[(start+i)%len(pairs)]
		if strings.Contains(user, pr.Scenario) {
			continue // already kept
		}
		s := sentenceEnd.FindAllString(pr.Situation, -1)
		if len(s) < 2 {
			continue
		}
		e, p := strings.TrimSpace(s[0]), strings.TrimSpace(s[1])
		items = append(items, seed.PactDraft{Scenario: pr.Scenario, Actor: "actor", Receiver: "receiver",
			Expectation: e, Preference: p, FollowOption: e, AllowOption: p})
	}
	b, _ := json.Marshal(map[string]any{"items": items})
	return string(b)
}

// pactVerdicts finds every item in conflict.
func pactVerdicts(req *wire.ChatRequest) string {
	n := len(regexp.MustCompile(`(?m)^\d+\. scenario: `).FindAllString(req.LastUser(), -1))
	out := []seed.Verdict{}
	for i := 1; i <= n; i++ {
		out = append(out, seed.Verdict{Index: i, Conflict: true, Reason: "acting on the preference means not doing what is expected"})
	}
	b, _ := json.Marshal(map[string]any{"items": out})
	return string(b)
}
