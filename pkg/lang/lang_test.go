package lang

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"sync"
	"testing"
)

// Turns marked "release" are quoted from the NormGenesis release (Hong,
// Choi, Kim, EMNLP 2025; CC BY-SA 4.0), with their speaker prefix.

type detectCase struct {
	text    string
	want    string
	minConf float64 // want Confidence >= minConf
	maxConf float64 // want Confidence <= maxConf (0: no bound)
}

func runDetectCases(t *testing.T, d *Detector, cases []detectCase) {
	t.Helper()
	for _, c := range cases {
		r := d.Detect(c.text)
		if r.Lang != c.want {
			t.Errorf("Detect(%q) = %q (%.2f, %v), want %q", c.text, r.Lang, r.Confidence, r.Method, c.want)
			continue
		}
		if r.Confidence < c.minConf || (c.maxConf > 0 && r.Confidence > c.maxConf) {
			t.Errorf("Detect(%q) confidence %.2f, want in [%.2f, %.2f]", c.text, r.Confidence, c.minConf, c.maxConf)
		}
	}
}

func TestDetectKorean(t *testing.T) {
	runDetectCases(t, Default(), []detectCase{
		// release
		{text: "지후: 아, 그런 말 하지 마. 너 원래 잘하는 애잖아. 그냥 긴장한 거뿐이야.", want: "ko", minConf: 0.99},
		{text: "사장님: 민수 씨, 여기 매출 수치가 지난 분기랑 일치하지 않네요. 이유가 뭔가요?", want: "ko", minConf: 0.99},
		{text: "민수: (살짝 미소 지으며) 아, 사실 어제까지 자료가 계속 업데이트되고 있었어요.", want: "ko", minConf: 0.99},
		{text: "미정: ……. 그냥 좀 심심해.", want: "ko", minConf: 0.99},
		{text: "지영: (조심스럽게) 선배, 혹시 보고서 파일… 백업 안 해 두셨어요?\\n민재: (모니터를 급히 살피며) 어? 파일이 아예 없는데…?", want: "ko", minConf: 0.99},
	})
}

func TestDetectChinese(t *testing.T) {
	runDetectCases(t, Default(), []detectCase{
		// release
		{text: "小明: （低着头，小声）王叔叔，对不起，我不小心把茶洒到您的衣服上了，真的很抱歉。", want: "zh", minConf: 0.99},
		{text: "张伟: （皱眉）为什么是我？不是说大家一起讨论决定的吗？", want: "zh", minConf: 0.99},
		{text: "小李: 哎呀，累死我了，今天真算顺利，哈哈。等下发个朋友圈！", want: "zh", minConf: 0.99},
		{text: "王老师: 没关系，小明，下次注意点就好了。", want: "zh", minConf: 0.99},
		// Traditional characters are Han too.
		{text: "謝謝你們的幫忙，我們下次再見。", want: "zh", minConf: 0.99},
	})
}

func TestDetectJapanese(t *testing.T) {
	// The release has no Japanese; Japanese matters as the near neighbour of
	// Chinese (a model asked for Chinese may answer in Japanese).
	runDetectCases(t, Default(), []detectCase{
		{text: "田中: すみません、遅れてしまって本当に申し訳ありません。", want: "ja", minConf: 0.9},
		{text: "部長、この資料を確認していただけますか？", want: "ja", minConf: 0.9},
		{text: "ありがとうございます！", want: "ja", minConf: 0.9},
		{text: "コーヒーをください。", want: "ja", minConf: 0.9},
		// Kanji-heavy, still a quarter kana.
		{text: "会議の資料は明日までに準備します。", want: "ja", minConf: 0.9},
	})
}

func TestDetectEnglish(t *testing.T) {
	runDetectCases(t, Default(), []detectCase{
		// release
		{text: "Emily: (softly, making eye contact) Dr. Patel, can I talk to you for a second?", want: "en", minConf: 0.9},
		{text: "Sarah: It’s okay, Mike. No big deal.", want: "en"}, // lingua, ~0.45
		{text: "Mr. Johnson: (smiles and gathers his papers) Thank you, Ms. Carter. I’ll get started.", want: "en", minConf: 0.9},
		{text: "Samantha: (laughs) Thanks, Maria! Yeah, I tried out those beachy waves you told me about.", want: "en", minConf: 0.9},
		{text: "Martha: (awkwardly pats Anna’s shoulder) Really, dear, no need for all that.", want: "en", minConf: 0.5},
		// No function words: decided by lingua.
		{text: "Wonderful presentation, congratulations!", want: "en", minConf: 0.5},
	})
}

func TestDetectLatinNeighbours(t *testing.T) {
	// Wrong-language turns in an English dialogue must not pass as English.
	runDetectCases(t, Default(), []detectCase{
		{text: "Claire: Je ne sais pas ce que tu veux dire, mais merci beaucoup.", want: "fr", minConf: 0.7},
		{text: "Bonjour madame, est-ce que vous avez réservé une table ?", want: "fr", minConf: 0.7},
		{text: "Lucía: No sé qué está pasando, pero gracias por tu ayuda.", want: "es", minConf: 0.7},
		{text: "¿Dónde está la estación de tren? Tengo que irme ahora.", want: "es", minConf: 0.7},
		{text: "Jonas: Ich weiß nicht, was du meinst, aber danke für deine Hilfe.", want: "de", minConf: 0.7},
		{text: "Entschuldigung, können Sie mir bitte helfen? Ich habe mich verlaufen.", want: "de", minConf: 0.7},
	})
	// A Latin language outside the candidates that wins the function-word
	// vote is "none of the candidates" (lingua would call the Dutch English).
	for _, s := range []string{
		"Non lo so, ma io penso che sia molto importante per tutti noi.",   // it
		"Eu não sei o que você quer dizer, mas muito obrigado pela ajuda.", // pt
		"Ik weet het niet, maar het is heel goed dat je hier bent.",        // nl
	} {
		r := Default().Detect(s)
		if r.Lang != "" || r.Method != ByWords || r.Confidence < 0.7 {
			t.Errorf("Detect(%q) = %+v, want \"\" via words with confidence >= 0.7", s, r)
		}
	}
}

func TestDetectMixedScript(t *testing.T) {
	runDetectCases(t, Default(), []detectCase{
		// release: Chinese with English names and acronyms.
		{text: "小张: （意识到失礼）陈经理，对不起，我刚才太冲动了。也请您和Smith先生见谅。", want: "zh", minConf: 0.7},
		{text: "方律师: 陈总，Thompson先生，确实是我的工作疏忽，文件还在打印室。", want: "zh", minConf: 0.7},
		{text: "王经理: 你的PPT结构也很清晰，信息层次分明，大家理解起来很顺畅。", want: "zh", minConf: 0.7},
		{text: "我昨天在Starbucks见到了Michael和Jennifer。", want: "zh", minConf: 0.5},
		// release: Korean with English words.
		{text: "세진: 긴장한 것 치고는 거의 TED 강연처럼 보여서 놀랐어! 마이크만 있었으면 완벽했겠다.", want: "ko", minConf: 0.7},
		{text: "보람: 안녕, 진수야! 요즘 SNS에서 자주 보는데, 요즘 어떻게 지내?", want: "ko", minConf: 0.7},
		{text: "민정: 그 부분은 괜찮아. “I go to there” 대신 “I go there”라고 말하면 더 자연스러워.", want: "ko", minConf: 0.5},
		// Korean with Hanja.
		{text: "이번 회의는 大韓民國 역사에 관한 발표입니다.", want: "ko", minConf: 0.5},
		// English with a CJK name.
		{text: "I met 王小明 at the station yesterday, and he said hello.", want: "en", minConf: 0.5},
		{text: "김민수 씨, could you please send me the report by tomorrow?", want: "en", minConf: 0.5},
		// release: a Chinese-file turn spoken in English (a real mismatch).
		{text: "(疑惑地看向Ms. Chen) What happened?", want: "en"},
		// Japanese with a stray Han-only clause is still Japanese; Chinese
		// with one の is still Chinese.
		{text: "我们去那家の店吃饭吧，听说味道很好。", want: "zh", minConf: 0.5},
	})
}

func TestDetectShort(t *testing.T) {
	// Very short text must not flip: it gets the script answer with a
	// confidence that keeps it out of Check, or "" with confidence 0.
	runDetectCases(t, Default(), []detectCase{
		{text: "OK", want: "en", maxConf: MinConfidence - 0.01},
		{text: "Hi.", want: "en", maxConf: MinConfidence - 0.01},
		{text: "Oui.", want: "en", maxConf: MinConfidence - 0.01},
		{text: "Sure.", want: "en", maxConf: MinConfidence - 0.01},
		{text: "嗯……", want: "zh", maxConf: MinConfidence - 0.01},
		{text: "好的。", want: "zh", minConf: 0.5, maxConf: 0.5},
		{text: "네.", want: "ko", minConf: 0.5},
		{text: "응", want: "ko", minConf: 0.5}, // Hangul is unambiguous
		{text: "はい", want: "ja", minConf: 0.9},
		{text: "……", want: "", maxConf: 0},
		{text: "", want: "", maxConf: 0},
		{text: "(pauses)", want: "", maxConf: 0},
		{text: "[END]", want: "", maxConf: 0},
		{text: "[끝]", want: "", maxConf: 0},
		{text: "Anna: 123!!", want: "", maxConf: 0},
	})
}

func TestDetectOtherScripts(t *testing.T) {
	// Text in a script no candidate uses is confidently "none of them".
	runDetectCases(t, Default(), []detectCase{
		{text: "Я не знаю, что ты имеешь в виду, но спасибо.", want: "", minConf: 0.9},
		{text: "मुझे नहीं पता कि आपका क्या मतलब है।", want: "", minConf: 0.9}, // Hindi
	})
	// And so is Korean for a detector without "ko".
	d, err := New("zh", "en", "fr")
	if err != nil {
		t.Fatal(err)
	}
	runDetectCases(t, d, []detectCase{
		{text: "그냥 좀 심심해. 오늘은 집에 있을래.", want: "", minConf: 0.9},
		{text: "ありがとうございます！", want: "", minConf: 0.9},
		{text: "没关系，小明，下次注意点就好了。", want: "zh", minConf: 0.9},
	})
	// Han-only text without zh: weakly Japanese.
	dj, err := New("ja", "en")
	if err != nil {
		t.Fatal(err)
	}
	if r := dj.Detect("没关系，小明，下次注意点就好了。"); r.Lang != "ja" || r.Confidence >= 0.6 {
		t.Errorf("Han-only for {ja,en}: %+v, want weak ja", r)
	}
}

func TestMethods(t *testing.T) {
	d := Default()
	for _, c := range []struct {
		text string
		want Method
	}{
		{"没关系，小明。", ByScript},
		{"I don't know what you mean.", ByWords},
		{"Wonderful presentation, congratulations!", ByLingua},
		{"OK", ByScript},
	} {
		if r := d.Detect(c.text); r.Method != c.want {
			t.Errorf("Detect(%q).Method = %v, want %v", c.text, r.Method, c.want)
		}
	}
}

func TestNewAndCache(t *testing.T) {
	a, err := New("en", "zh-Hans", "ko-KR", "EN")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(a.Languages()); got != "[en zh ko]" {
		t.Errorf("Languages() = %s", got)
	}
	b, _ := New("en", "zh", "ko")
	if a != b {
		t.Error("New with the same normalized set did not return the cached detector")
	}
	if d1, d2 := Default(), Default(); d1 != d2 {
		t.Error("Default is not a singleton")
	}
	// A single Latin candidate needs no lingua: Latin text is that language.
	if a.ld != nil {
		t.Error("lingua built for a single Latin candidate")
	}
	if r := a.Detect("Je ne sais pas ce que tu veux dire, mais merci beaucoup."); r.Lang != "en" || r.Method != ByScript {
		t.Errorf("single-Latin detector: %+v", r)
	}
	for _, bad := range [][]string{{}, {""}, {"english"}, {"xx"}, {"ru"}, {"en", "ar"}, {"e1"}} {
		if _, err := New(bad...); err == nil {
			t.Errorf("New(%q) succeeded, want error", bad)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"en": "en", "EN-us": "en", " ko ": "ko", "fil": "fil",
		"zh_Hant": "zh-Hant", "zh-Hant-TW": "zh-Hant", "zh-TW": "zh-Hant", "zh-hk": "zh-Hant", "zh-MO": "zh-Hant",
		"zh": "zh", "zh-Hans": "zh", "zh-CN": "zh", "zh-SG": "zh", "zh-Hans-TW": "zh", "ZH": "zh", "ja-JP": "ja",
		"": "", "e": "", "engl": "", "1a": "", "-en": "",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	turns := []string{
		"사장님: 민수 씨, 여기 매출 수치가 지난 분기랑 일치하지 않네요.",
		"민수: (살짝 미소 지으며) 아, 사실 어제까지 자료가 계속 업데이트되고 있었어요.",
		"사장님: (무표정하게) 알겠습니다.",
		"(회의실이 잠시 조용해지고, 민수는 말없이 모니터를 바라본다.)", // stripped to nothing: neutral
		"민수: OK", // too short: neutral
		"민수: I was embarrassed because I couldn't answer the question properly.",
	}
	share, langs := Check(turns, "ko-KR")
	if want := 3.0 / 4; share != want {
		t.Errorf("share = %v, want %v (langs %q)", share, want, langs)
	}
	if got := fmt.Sprint(langs); got != "[ko ko ko  en en]" {
		t.Errorf("langs = %s", got)
	}
	if share, _ := Check([]string{"(pauses)", "[END]"}, "en"); share != 0 {
		t.Errorf("share without confident turns = %v, want 0", share)
	}
	// "" is not a language: unknown-script turns must not match it.
	if share, _ := Check([]string{"Я не знаю, что ты имеешь в виду."}, ""); share != 0 {
		t.Errorf("share for expected \"\" = %v, want 0", share)
	}
	if share, langs := Check(nil, "en"); share != 0 || len(langs) != 0 {
		t.Errorf("Check(nil) = %v, %q", share, langs)
	}
}

// TestConcurrent hammers one detector (and the first build of another) from
// many goroutines; run with -race.
func TestConcurrent(t *testing.T) {
	texts := []string{
		"Emily: (softly) Dr. Patel, can I talk to you for a second?",
		"Wonderful presentation, congratulations!",
		"小明: 王老师，对不起，刚才是我没注意，碰到您了。",
		"지후: 아, 그런 말 하지 마. 너 원래 잘하는 애잖아.",
		"Jonas: Ich weiß nicht, was du meinst, aber danke.",
		"Eu não sei o que você quer dizer, mas muito obrigado.",
		"Prego, signora, si accomodi pure.",
		"はい、わかりました。",
		"OK",
	}
	want := make([]Result, len(texts))
	for i, s := range texts {
		want[i] = Default().Detect(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			// Detectors for a new set are built concurrently on first use.
			d2, err := New("en", "fr", "ko")
			if err != nil {
				errs <- err.Error()
				return
			}
			for k := 0; k < 200; k++ {
				i := rng.Intn(len(texts))
				// lingua's confidences differ in the last bits from call to
				// call (it sums over Go map iteration order): compare with a
				// tolerance.
				if got := Default().Detect(texts[i]); got.Lang != want[i].Lang || got.Method != want[i].Method || math.Abs(got.Confidence-want[i].Confidence) > 1e-9 {
					errs <- fmt.Sprintf("Detect(%q) = %+v, want %+v", texts[i], got, want[i])
					return
				}
				d2.Detect(texts[i])
			}
		}(int64(g))
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestWordVote(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{"I don't know what you mean", "en"},
		{"je ne sais pas ce que tu veux dire", "fr"},
		{"no sé qué está pasando pero gracias", "es"},
		{"ich weiß nicht was du meinst", "de"},
		{"non lo so ma io penso che sia molto importante", "it"},
		{"eu não sei o que você quer dizer", "pt"},
		{"ik weet het niet maar het is goed", "nl"},
		{"Wonderful presentation", ""},                                // no function words
		{"the", "en"},                                                 // one unopposed hit in a very short text
		{"Wonderful presentation the committee approved quickly", ""}, // one hit in six words
		{"Merry Christmas, Ben!", ""},                                 // "Ben" is a name, not Dutch "ben"
		{"ben je er klaar voor", "nl"},
		{"c'est la vie, I told you so, and she", "en"}, // foreign phrase in English
		// Polish: stray "to" does not make it English.
		{"to jest bardzo dobry pomysł na dzisiejszy wieczór i jutro też to zrobimy razem z przyjaciółmi", ""},
	} {
		if got, _, _ := wordVote(c.text); got != c.want {
			t.Errorf("wordVote(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	// Every list keeps enough distinctive words after overlap removal.
	per := map[int]int{}
	for _, i := range wordLang {
		per[i]++
	}
	for i, l := range wordLangs {
		if per[i] < 25 {
			t.Errorf("list %s has only %d distinctive words", l, per[i])
		}
	}
}

func BenchmarkDetectShortEnglish(b *testing.B) {
	d := Default()
	for i := 0; i < b.N; i++ {
		d.Detect("Emily: (softly, making eye contact) Dr. Patel, can I talk to you for a second?")
	}
}

func BenchmarkDetectLingua(b *testing.B) {
	d := Default()
	for i := 0; i < b.N; i++ {
		d.Detect("Wonderful presentation, congratulations!")
	}
}

func BenchmarkDetectChinese(b *testing.B) {
	d := Default()
	for i := 0; i < b.N; i++ {
		d.Detect("小明: （低着头，小声）王叔叔，对不起，我不小心把茶洒到您的衣服上了，真的很抱歉。")
	}
}

// TestConcurrentLinguaCalls: Latin texts the word vote leaves open go to
// lingua from many goroutines at once, under -race in CI. (lingua's
// decimal dependency had a data race in ExpTaylor's shared cache before
// shopspring/decimal v1.6.0, seen in ngseed's tests; this test did not
// reproduce it, the fix is the version bump.)
func TestConcurrentLinguaCalls(t *testing.T) {
	d := Default()
	texts := []string{"Merci beaucoup, mon ami.", "Gracias por todo.", "Danke schön, Herr Müller.",
		strings.Repeat("The quick brown fox jumps over the lazy dog again and again. ", 40),
		strings.Repeat("Il pleut sur la ville comme il pleut sur mon coeur. ", 40)}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				s := texts[(g+i)%len(texts)]
				d.Detect(s)
				d.askLingua(s) // what Detect does for what the vote leaves open
			}
		})
	}
	wg.Wait()
}
