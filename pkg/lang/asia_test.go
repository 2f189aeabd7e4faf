package lang

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pemistahl/lingua-go"
)

// The sentences below are written for these tests (none is quoted from a
// corpus): everyday turns of the kind the dialogues hold, in the languages
// of the East and Southeast Asian culture profiles.

// allAsia is a detector for every language of the built-in profiles.
func allAsia(t testing.TB) *Detector {
	t.Helper()
	d, err := For("en", "zh", "zh-Hant", "ja", "ko", "vi", "th", "id", "ms", "tl", "ta")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDetectVietnamese(t *testing.T) {
	runDetectCases(t, allAsia(t), []detectCase{
		{text: "Lan: Xin lỗi, tôi đến muộn. Anh có đợi lâu không?", want: "vi", minConf: 0.9},
		{text: "Cảm ơn chị rất nhiều, em sẽ gọi lại cho chị vào ngày mai.", want: "vi", minConf: 0.9},
		{text: "Hôm nay trời đẹp quá, chúng ta đi dạo nhé.", want: "vi", minConf: 0.7},
		{text: "Dạ, cháu chào bà ạ.", want: "vi", minConf: 0.5},
		{text: "Bác sĩ Minh: (mỉm cười) Không sao đâu, bà cứ nghỉ ngơi cho khỏe.", want: "vi", minConf: 0.7},
	})
}

func TestDetectThai(t *testing.T) {
	runDetectCases(t, allAsia(t), []detectCase{
		{text: "มาลี: ขอโทษนะคะ ฉันมาสาย", want: "th", minConf: 0.99},
		{text: "สวัสดีครับ คุณสบายดีไหมครับ", want: "th", minConf: 0.99},
		{text: "พรุ่งนี้เราจะไปกินข้าวด้วยกันที่บ้านคุณยาย", want: "th", minConf: 0.99},
		{text: "ขอบคุณมากค่ะ", want: "th", minConf: 0.99},
		// Thai with an English loanword in Latin letters is Thai.
		{text: "ฉันจะส่ง email ให้คุณพรุ่งนี้นะคะ", want: "th", minConf: 0.7},
	})
}

func TestDetectIndonesianMalay(t *testing.T) {
	d := allAsia(t)
	runDetectCases(t, d, []detectCase{
		// Indonesian: karena, bisa, besok, kalian, nggak are Indonesian usage.
		{text: "Rina: Maaf, saya terlambat karena jalannya macet sekali.", want: "id", minConf: 0.5},
		{text: "Kalian mau makan di mana nanti malam?", want: "id", minConf: 0.3}, // Italian "di" opposes the vote: lingua
		{text: "Terima kasih banyak, Bu. Saya tidak bisa datang besok.", want: "id", minConf: 0.5},
		{text: "Aduh, aku nggak tahu, Mas. Coba tanya Pak Budi saja.", want: "id", minConf: 0.5},
		// Malay: kerana, tak, faham, awak, nak, encik are Malaysian usage.
		{text: "Aisyah: Maaf, saya lambat kerana jalan sesak tadi.", want: "ms", minConf: 0.5},
		{text: "Awak nak makan apa malam ni?", want: "ms", minConf: 0.5},
		{text: "Terima kasih, encik. Saya tak faham soalan itu.", want: "ms", minConf: 0.5},
		{text: "Sila tunggu sebentar, doktor akan jumpa puan sekejap lagi.", want: "ms", minConf: 0.5},
	})
	// Neither list decides these; lingua does, on vocabulary the lists do
	// not hold (Indonesian rumah sakit and apotek; Malay hospital, farmasi).
	for _, c := range []struct{ text, want string }{
		{"Ibu saya sedang dirawat di rumah sakit, jadi saya harus pergi ke apotek dulu untuk membeli obat.", "id"},
		{"Emak saya masih di hospital, jadi saya perlu singgah di farmasi dahulu untuk membeli ubat.", "ms"},
	} {
		if r := d.Detect(c.text); r.Lang != c.want || r.Method != ByLingua {
			t.Errorf("Detect(%q) = %+v, want %s by lingua", c.text, r, c.want)
		}
	}
}

func TestDetectTagalog(t *testing.T) {
	runDetectCases(t, allAsia(t), []detectCase{
		{text: "Maria: Salamat po sa tulong ninyo kahapon.", want: "tl", minConf: 0.7},
		{text: "Hindi ko alam kung saan siya pumunta kahapon.", want: "tl", minConf: 0.7},
		{text: "Kumain ka na ba?", want: "tl", minConf: 0.3}, // Portuguese "na" opposes the vote: lingua
		{text: "Magandang umaga po, Lola!", want: "tl", minConf: 0.5},
		{text: "Pasensya na po, Ma'am, hindi ko po sinasadya.", want: "tl", minConf: 0.7},
	})
}

func TestDetectTamil(t *testing.T) {
	runDetectCases(t, allAsia(t), []detectCase{
		{text: "வணக்கம், நீங்கள் எப்படி இருக்கிறீர்கள்?", want: "ta", minConf: 0.99},
		{text: "குமார்: மன்னிக்கவும், நான் தாமதமாக வந்தேன்.", want: "ta", minConf: 0.99},
		{text: "நன்றி", want: "ta", minConf: 0.7}, // three letters
		// Tamil with an English word, as Singapore Tamil speakers say it.
		{text: "நாளைக்கு meeting இருக்கு, மறக்காதீங்க.", want: "ta", minConf: 0.5},
	})
}

// TestDetectHanForms: the same sentences in Traditional (Taiwan) and
// Simplified (mainland, Singapore) characters.
func TestDetectHanForms(t *testing.T) {
	pairs := [][2]string{ // Traditional, Simplified
		{"謝謝你們的幫忙，我們下次再見。", "谢谢你们的帮忙，我们下次再见。"},
		{"這個週末要不要一起去夜市吃東西？", "这个周末要不要一起去夜市吃东西？"},
		{"老師，對不起，我遲到了。", "老师，对不起，我迟到了。"},
		{"志明：（點頭）沒問題，我明天會把報告寄給您。", "志明：（点头）没问题，我明天会把报告寄给您。"},
		{"阿嬤，您的身體還好嗎？", "阿嬷，您的身体还好吗？"},
	}
	d := allAsia(t)
	for _, p := range pairs {
		if r := d.Detect(p[0]); r.Lang != "zh-Hant" || r.Confidence < 0.9 {
			t.Errorf("Traditional %q: %+v", p[0], r)
		}
		if r := d.Detect(p[1]); r.Lang != "zh" || r.Confidence < 0.9 {
			t.Errorf("Simplified %q: %+v", p[1], r)
		}
		// A detector that knows only one form takes any Han text for it,
		// as before zh-Hant existed.
		if r := Default().Detect(p[0]); r.Lang != "zh" || r.Confidence < 0.9 {
			t.Errorf("Default, Traditional %q: %+v", p[0], r)
		}
	}
	runDetectCases(t, d, []detectCase{
		// Characters both forms write: Chinese, but which form cannot be told.
		{text: "好的。", want: "zh", maxConf: MinConfidence - 0.01},
		{text: "我是王大明。", want: "zh", maxConf: MinConfidence - 0.01},
		// One distinguishing character settles a short turn.
		{text: "謝謝。", want: "zh-Hant", minConf: 0.5},
		{text: "谢谢。", want: "zh", minConf: 0.5},
		// A Traditional turn quoting a Simplified name stays Traditional.
		{text: "這是我同事张伟，他們說明天會來開會。", want: "zh-Hant", minConf: 0.5},
		// Kana still means Japanese, whatever the kanji.
		{text: "會議の資料は明日までに準備します。", want: "ja", minConf: 0.9},
	})
}

func TestDetectSingaporeEnglish(t *testing.T) {
	// Singapore English with Malay and Hokkien words is English.
	runDetectCases(t, allAsia(t), []detectCase{
		{text: "Eh, you want to go makan later or not?", want: "en", minConf: 0.7},
		{text: "Wah, the queue at the hawker centre is so long today.", want: "en", minConf: 0.7},
		{text: "Uncle, can I have one kopi siew dai, thank you.", want: "en", minConf: 0.5},
	})
}

func TestCheckAnySingapore(t *testing.T) {
	d := allAsia(t)
	turns := []string{
		"Wei Ming: Auntie, good morning! You had your breakfast already?",
		"Auntie: 吃了吃了，你呢？今天不用上班吗？",
		"Siti: Selamat pagi, mak cik. Saya nak beli nasi lemak dua bungkus.",
		"Kumar: வணக்கம், நீங்கள் எப்படி இருக்கிறீர்கள்?",
		"Wei Ming: OK", // too short: neutral
		"Wei Ming: Thank you so much for helping me carry the bags up.",
	}
	v := d.CheckAny(turns, "en", "zh", "ms", "ta")
	if v.Share != 1 || v.Confident != 5 {
		t.Errorf("share %v of %d confident turns, want 1 of 5 (langs %q)", v.Share, v.Confident, v.Langs)
	}
	if got := fmt.Sprint(v.Found); got != "[en zh ms ta]" {
		t.Errorf("found %s, want [en zh ms ta] (en twice, the others once, ties in the order accepted)", got)
	}
	if got := fmt.Sprint(v.Langs); got != "[en zh ms ta en en]" {
		t.Errorf("langs %s", got)
	}
	// Accepting only English, the other three turns are wrong.
	if v := d.CheckAny(turns, "en"); v.Share != 2.0/5 || fmt.Sprint(v.Found) != "[en]" {
		t.Errorf("English only: %+v", v)
	}
	// A Thai turn is in none of Singapore's languages.
	v = d.CheckAny([]string{"สวัสดีครับ คุณสบายดีไหมครับ", "Thank you so much for helping me."}, "en", "zh", "ms", "ta")
	if v.Share != 0.5 || fmt.Sprint(v.Found) != "[en]" {
		t.Errorf("with a Thai turn: %+v", v)
	}
	// Nothing accepted, nothing found.
	if v := d.CheckAny(turns); v.Share != 0 || v.Found != nil {
		t.Errorf("no accepted language: %+v", v)
	}
}

func TestFor(t *testing.T) {
	for _, c := range []struct {
		expected []string
		extra    string // languages beyond the defaults
	}{
		{nil, ""},
		{[]string{"ko"}, ""},
		{[]string{"th", "ta", "zh"}, ""},
		{[]string{"ms"}, "id ms"},
		{[]string{"id"}, "id ms"},
		{[]string{"zh-TW"}, "zh-Hant"},
		{[]string{"tl", "vi"}, "tl vi"},
		{[]string{"vi", "tl"}, "tl vi"},
	} {
		d, err := For(c.expected...)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(d.Languages()[len(DefaultLanguages):], " "); got != c.extra {
			t.Errorf("For(%q) adds %q, want %q", c.expected, got, c.extra)
		}
		if c.extra == "" && d != Default() {
			t.Errorf("For(%q) is not the Default detector", c.expected)
		}
	}
	a, _ := For("vi", "tl")
	b, _ := For("tl", "vi")
	if a != b {
		t.Error("For in another order built another detector")
	}
	if _, err := For("english"); err == nil {
		t.Error("For(english) succeeded")
	}
	if _, err := For("xx"); err == nil {
		t.Error("For(xx) succeeded")
	}
	if !slices.Contains(Default().Languages(), "th") || !slices.Contains(Default().Languages(), "ta") {
		t.Error("Thai and Tamil (script only) are not default candidates")
	}
}

// TestScriptAgreesWithLingua: where the script fast path or the word vote
// decides, lingua (all these languages loaded, scripts included) agrees on
// every sample sentence but the forms of Chinese, which lingua does not
// tell apart (it says Chinese for both), and the Indonesian/Malay pairs,
// where it is checked against the vote's answer too.
func TestScriptAgreesWithLingua(t *testing.T) {
	if testing.Short() {
		t.Skip("loads lingua models of eight more languages")
	}
	samples := map[string][]string{
		"vi": {"Xin lỗi, tôi đến muộn. Anh có đợi lâu không?", "Cảm ơn chị rất nhiều, em sẽ gọi lại cho chị vào ngày mai.", "Hôm nay trời đẹp quá, chúng ta đi dạo nhé."},
		"th": {"ขอโทษนะคะ ฉันมาสาย", "สวัสดีครับ คุณสบายดีไหมครับ", "พรุ่งนี้เราจะไปกินข้าวด้วยกันที่บ้านคุณยาย"},
		"ta": {"வணக்கம், நீங்கள் எப்படி இருக்கிறீர்கள்?", "மன்னிக்கவும், நான் தாமதமாக வந்தேன்."},
		"tl": {"Salamat po sa tulong ninyo kahapon.", "Hindi ko alam kung saan siya pumunta kahapon."},
		"id": {"Maaf, saya terlambat karena jalannya macet sekali.", "Terima kasih banyak, Bu. Saya tidak bisa datang besok."},
		"ms": {"Maaf, saya lambat kerana jalan sesak tadi.", "Terima kasih, encik. Saya tak faham soalan itu."},
		"ja": {"すみません、遅れてしまって本当に申し訳ありません。"},
		"ko": {"사장님, 여기 매출 수치가 지난 분기랑 일치하지 않네요."},
	}
	lg := linguaFor(t, "vi", "th", "ta", "tl", "id", "ms", "ja", "ko", "en")
	d := allAsia(t)
	for want, ss := range samples {
		for _, s := range ss {
			r := d.Detect(s)
			l := lg(s)
			if r.Lang != want || l != want {
				t.Errorf("%q: fast path %s (%v), lingua %s, want %s", s, r.Lang, r.Method, l, want)
			}
		}
	}
}

// linguaFor returns lingua's answer (an ISO 639-1 code) among codes,
// with its full models.
func linguaFor(t testing.TB, codes ...string) func(string) string {
	t.Helper()
	var ll []lingua.Language
	for _, c := range codes {
		l := lingua.GetLanguageFromIsoCode639_1(lingua.GetIsoCode639_1FromValue(c))
		if l == lingua.Unknown {
			t.Fatalf("lingua knows no %q", c)
		}
		ll = append(ll, l)
	}
	fillModels(t, ll...) // this process's lingua maps hold only what askLingua put there
	ld := lingua.NewLanguageDetectorBuilder().FromLanguages(ll...).Build()
	return func(s string) string {
		l, ok := ld.DetectLanguageOf(s)
		if !ok {
			return ""
		}
		return strings.ToLower(l.IsoCode639_1().String())
	}
}

func TestDetectShortAsia(t *testing.T) {
	// Short Latin turns are too short to tell whatever the language; short
	// Thai, Tamil and Han turns are told by their script.
	runDetectCases(t, allAsia(t), []detectCase{
		{text: "Dạ.", want: "en", maxConf: MinConfidence - 0.01},
		{text: "Opo.", want: "en", maxConf: MinConfidence - 0.01},
		{text: "Ya.", want: "en", maxConf: MinConfidence - 0.01},
		{text: "Tak.", want: "en", maxConf: MinConfidence - 0.01},
		{text: "ค่ะ", want: "th", minConf: 0.5},
		{text: "ครับ", want: "th", minConf: 0.7},
		{text: "சரி", want: "ta", minConf: 0.5},
		{text: "謝謝", want: "zh-Hant", minConf: 0.5},
		{text: "嗯", want: "zh", maxConf: MinConfidence - 0.01},
		{text: "๑๒๓", want: "", maxConf: 0}, // Thai digits are no letters
	})
}
