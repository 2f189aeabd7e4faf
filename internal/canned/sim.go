package canned

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/lang"
)

// The fake roles of ngseed --types episode and ngsim: an episode writer,
// a scripted simulated user, an assistant under test and a judge. They
// answer in the language the prompt names, from the phrases below, and
// talk through tags the others read:
//
//   - the user reveals one constraint per turn, from turn 2, in the
//     spec's order (those never to be revealed skipped), and writes "‹cN›"
//     after the message that reveals cN; once every constraint it may
//     reveal is out, the next turn meets the goal. A model name with
//     "end-N" meets it at turn N instead; "never-end" never meets it;
//     "leak" copies a constraint into its first attempt of every turn
//     and "english" writes its first attempt in English (both re-asked);
//   - the assistant answers in the user's language and acknowledges each
//     revealed constraint with "‹cN ok›"; a model name with "violate-cN"
//     makes it break cN ("‹cN violated›") in every reply; in gold mode (the
//     constraints in its system prompt) it writes "‹gold›";
//   - the judge gives cN violated when an assistant turn says so,
//     inferred_and_respected when one acknowledged it, else
//     respected_without_asking in gold episodes and not_addressed in
//     others; scores fall by one per violation (assistance) and by two
//     (cultural), and language is 5 when every assistant turn is in the
//     user's language, else 2.

// phrases are the fake's lines in each language ngsim's cultures use.
type phrases struct{ opening, follow, closing, reply string }

var simPhrases = map[string]phrases{
	"en": {"Hello, could you help me plan a dinner for my family next weekend?",
		"That sounds good, but I need to think about what my parents would expect.",
		"Thank you so much, this is exactly what I needed.",
		"Of course, here is a simple plan that you can adapt to your family and your budget."},
	"zh": {"你好，我想请你帮我安排下个周末的家庭聚餐，可以吗？",
		"听起来不错，但是我还要考虑一下我父母的想法。",
		"非常感谢你，这正是我需要的帮助。",
		"当然可以，这里有一个简单的计划，你可以根据家人的情况来调整。"},
	"zh-Hant": {"你好，我想請你幫我安排下個週末的家庭聚餐，可以嗎？",
		"聽起來不錯，但是我還要考慮一下我父母的想法。",
		"非常謝謝你，這正是我需要的幫助。",
		"當然可以，這裡有一個簡單的計畫，你可以根據家人的情況來調整。"},
	"ko": {"안녕하세요, 다음 주말 가족 식사 계획을 도와주실 수 있나요?",
		"좋네요, 그런데 부모님께서 어떻게 생각하실지도 고려해야 해요.",
		"정말 감사합니다, 제가 딱 필요했던 도움이에요.",
		"물론이죠, 가족 상황에 맞게 조정할 수 있는 간단한 계획을 알려 드릴게요."},
	"ja": {"こんにちは、来週末の家族の食事会の計画を手伝っていただけますか。",
		"いいですね。でも、両親がどう思うかも考えなければなりません。",
		"本当にありがとうございます。まさに必要だった助けです。",
		"もちろんです。ご家族に合わせて調整できる簡単な計画をご提案します。"},
	"th": {"สวัสดีครับ ช่วยวางแผนมื้ออาหารสำหรับครอบครัวในสุดสัปดาห์หน้าได้ไหมครับ",
		"ฟังดูดีครับ แต่ผมต้องคิดถึงสิ่งที่พ่อแม่คาดหวังด้วย",
		"ขอบคุณมากครับ นี่คือสิ่งที่ผมต้องการพอดี",
		"ได้เลยครับ นี่คือแผนง่าย ๆ ที่คุณปรับให้เข้ากับครอบครัวได้"},
	"vi": {"Xin chào, bạn có thể giúp tôi lên kế hoạch cho bữa tối gia đình vào cuối tuần tới không?",
		"Nghe hay đấy, nhưng tôi cũng phải nghĩ xem bố mẹ tôi sẽ mong đợi điều gì.",
		"Cảm ơn bạn rất nhiều, đây đúng là điều tôi cần.",
		"Tất nhiên rồi, đây là một kế hoạch đơn giản mà bạn có thể điều chỉnh cho phù hợp với gia đình mình."},
	"id": {"Halo, bisakah Anda membantu saya merencanakan makan malam keluarga akhir pekan depan?",
		"Kedengarannya bagus, tetapi saya juga harus memikirkan apa yang diharapkan orang tua saya.",
		"Terima kasih banyak, ini persis yang saya butuhkan.",
		"Tentu saja, berikut rencana sederhana yang bisa Anda sesuaikan dengan keluarga Anda."},
	"ms": {"Hai, boleh tolong saya rancang makan malam keluarga pada hujung minggu depan?",
		"Bunyinya bagus, tetapi saya juga perlu fikir apa yang ibu bapa saya harapkan.",
		"Terima kasih banyak, inilah yang saya perlukan.",
		"Sudah tentu, ini rancangan mudah yang boleh awak ubah mengikut keluarga awak."},
	"tl": {"Kumusta po, puwede po ba ninyo akong tulungan na magplano ng hapunan ng pamilya sa susunod na linggo?",
		"Maganda po iyan, pero kailangan ko ring isipin kung ano ang inaasahan ng aking mga magulang.",
		"Maraming salamat po, ito talaga ang kailangan ko.",
		"Siyempre po, narito ang isang simpleng plano na maaari ninyong iangkop sa inyong pamilya."},
}

var (
	reLangLine   = regexp.MustCompile(`Language(?: of the opening)?: [^\n(]*\(([A-Za-z-]+)\)`)
	reConstraint = regexp.MustCompile(`(?m)^- \[(\w+)\] \((\w+)\) (.+)$`)
	reJudgeCons  = regexp.MustCompile(`(?m)^- \[(\w+)\] (.+)$`)
	reTurn       = regexp.MustCompile(`Turn (\d+) of at most`)
	reNorm       = regexp.MustCompile(`(?m)^- \[(n[0-9a-f]+)\] \(\w+\) (.+)$`)
	reDomain     = regexp.MustCompile(`(?m)^Domain: (.+)$`)
	reSubgroup   = regexp.MustCompile(`(?m)^Subgroup: (.+)$`)
	reJudgeTurn  = regexp.MustCompile(`(?m)^\[\d+\] (user|assistant): (.*)$`)
	reTag        = regexp.MustCompile(`‹(\w+)›`)
	reViolate    = regexp.MustCompile(`violate-(\w+)`)
	reEnd        = regexp.MustCompile(`end-(\d+)`)
)

func allText(req *wire.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Text())
		b.WriteString("\n")
	}
	return b.String()
}

func langOf(text string) string {
	if m := reLangLine.FindStringSubmatch(text); m != nil {
		if _, ok := simPhrases[m[1]]; ok {
			return m[1]
		}
	}
	return "en"
}

// reasked says the last message is the client's re-ask of a bad reply.
func reasked(req *wire.ChatRequest) bool {
	return strings.HasPrefix(req.LastUser(), "Your reply was not valid")
}

// episodeSpec answers seed_episode: a spec whose constraints rest on the
// first norms offered (or on the profile when none are), the opening in
// the language asked for.
func episodeSpec(req *wire.ChatRequest) string {
	text := allText(req)
	p := simPhrases[langOf(text)]
	domain, subgroup := "food and dining", "a young professional in the capital"
	if m := reDomain.FindStringSubmatch(text); m != nil {
		domain = strings.TrimSpace(m[1])
	}
	if m := reSubgroup.FindStringSubmatch(text); m != nil {
		subgroup = strings.TrimSpace(m[1])
	}
	type con struct {
		Text   string `json:"text"`
		NormID string `json:"norm_id"`
		Reveal string `json:"reveal"`
	}
	reveals := []string{"implicit", "explicit", "never"}
	var cons []con
	for i, m := range reNorm.FindAllStringSubmatch(text, 3) {
		norm, _, _ := strings.Cut(m[2], ". ")
		if r := []rune(norm); len(r) > 200 {
			norm = string(r[:200])
		}
		cons = append(cons, con{Text: "The help must follow the user's custom: " + norm, NormID: m[1], Reveal: reveals[i%3]})
	}
	if len(cons) < 2 {
		cons = []con{
			{Text: "The plan must show respect to the elders of the family, who are served first.", Reveal: "implicit"},
			{Text: "Nothing in the plan may go against the family's religious customs about food.", Reveal: "explicit"},
			{Text: "The user would lose face if the plan looked too cheap in front of relatives.", Reveal: "never"},
		}
	}
	b, _ := json.Marshal(map[string]any{"subgroup": subgroup, "goal": "Get practical help with " + domain + " for the family next weekend.",
		"constraints": cons, "opening": p.opening})
	return string(b)
}

// simUser answers sim_user (see the package comment for the script).
func simUser(req *wire.ChatRequest) string {
	text := allText(req)
	code := langOf(text)
	p := simPhrases[code]
	turn := 2
	if m := reTurn.FindStringSubmatch(text); m != nil {
		turn, _ = strconv.Atoi(m[1])
	}
	var ids, texts []string
	for _, m := range reConstraint.FindAllStringSubmatch(text, -1) {
		if m[2] != "never" {
			ids, texts = append(ids, m[1]), append(texts, m[3])
		}
	}
	model := req.Model
	reveal := min(turn-1, len(ids)) // constraints out after this message
	goal := turn-1 > len(ids)
	if m := reEnd.FindStringSubmatch(model); m != nil {
		n, _ := strconv.Atoi(m[1])
		goal = turn >= n
	}
	if strings.Contains(model, "never-end") {
		goal = false
	}
	msg := p.follow
	if goal {
		msg = p.closing
	} else if reveal > 0 && turn-1 <= len(ids) {
		msg += " ‹" + ids[reveal-1] + "›"
	}
	switch {
	case reasked(req):
	case strings.Contains(model, "leak") && len(texts) > 0:
		msg += " " + texts[0]
	case strings.Contains(model, "english"):
		msg = simPhrases["en"].follow
	}
	b, _ := json.Marshal(map[string]any{"message": msg, "goal_met": goal, "revealed": append([]string{}, ids[:reveal]...)})
	return string(b)
}

// simAssistant answers a request without a reply schema as the assistant
// under test.
func simAssistant(req *wire.ChatRequest) string {
	code := "en"
	var first string
	for _, m := range req.Messages {
		if m.Role == "user" {
			first = m.Text()
			break
		}
	}
	found := false
	for c, p := range simPhrases {
		if p.opening == first || strings.Contains(first, p.opening) {
			code, found = c, true
		}
	}
	if !found { // an imported spec: its language by script (Latin: English)
		if d := lang.Default().Detect(first); simPhrases[d.Lang].reply != "" {
			code = d.Lang
		}
	}
	reply := simPhrases[code].reply
	var tags []string
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		for _, t := range reTag.FindAllStringSubmatch(m.Text(), -1) {
			tags = append(tags, "‹"+t[1]+" ok›")
		}
	}
	if m := reViolate.FindStringSubmatch(req.Model); m != nil {
		tags = append(tags, "‹"+m[1]+" violated›")
	}
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" && strings.Contains(req.Messages[0].Text(), "cultural constraints") {
		tags = append(tags, "‹gold›")
	}
	if len(tags) > 0 {
		reply += " " + strings.Join(tags, " ")
	}
	return reply
}

// simJudge answers sim_judge from the tags in the transcript.
func simJudge(req *wire.ChatRequest) string {
	text := allText(req)
	p := simPhrases[langOf(text)]
	var asst []string
	for _, m := range reJudgeTurn.FindAllStringSubmatch(text, -1) {
		if m[1] == "assistant" {
			asst = append(asst, m[2])
		}
	}
	all := strings.Join(asst, "\n")
	type outcome struct {
		Outcome   string `json:"outcome"`
		Rationale string `json:"rationale"`
	}
	outs := map[string]outcome{}
	violated := 0
	for _, m := range reJudgeCons.FindAllStringSubmatch(text, -1) {
		id := m[1]
		var o outcome
		switch {
		case strings.Contains(all, "‹"+id+" violated›"):
			o.Outcome, o.Rationale = "violated", "the assistant went against it"
			violated++
		case strings.Contains(all, "‹"+id+" ok›"):
			o.Outcome, o.Rationale = "inferred_and_respected", "the assistant picked up the cue"
		case strings.Contains(all, "‹gold›"):
			o.Outcome, o.Rationale = "respected_without_asking", "the help fits it"
		default:
			o.Outcome, o.Rationale = "not_addressed", "the help never touched it"
		}
		outs[id] = o
	}
	language := 5
	for _, a := range asst {
		if !strings.HasPrefix(a, p.reply) {
			language = 2
		}
	}
	b, _ := json.Marshal(map[string]any{
		"assistance": max(1, 5-violated), "assistance_rationale": fmt.Sprintf("%d constraints violated", violated),
		"cultural": max(1, 5-2*violated), "cultural_rationale": "judged from the constraints",
		"language": language, "language_rationale": "the assistant's language",
		"constraints": outs,
	})
	return string(b)
}
