package lang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The function-word fast path.
//
// lingua-go costs 100-200 µs per call on a dialogue turn whatever the
// settings (it starts one goroutine per n-gram order, runs per-character
// regular expressions in its rule engine and sums probabilities with
// arbitrary-precision decimals): seven times the whole per-turn budget
// (100k turns/s on two cores is 20 µs of CPU per turn).
// Most Latin turns, however, are settled by their function words: "I don't
// know what you mean" has six English ones and no others. So before lingua,
// Latin text is put to a vote of short lists of frequent, distinctive words
// (function words, plus for English the greetings and fillers that make up
// many short turns: "Goodnight, Sarah!"). A clear winner decides; anything
// else (few listed words, a close vote) goes to lingua. On the release the
// vote settles 98% of the English turns that reach this stage, leaving
// lingua 0.7% of all turns, and lingua disagrees with it on 0.3% of those
// it settles, all short turns where lingua is wrong ("Hi, Sarah." -> de;
// see TestWordsAgreeWithLingua).
//
// Lists exist for the default Latin candidates (en, fr, es, de), for the
// Latin languages of the Southeast Asian cultures (vi, tl, id, ms; none of
// their words is in an older list, so the older lists vote as before), and
// for the Latin languages most likely to be confused with them (it, pt, nl), which
// take part in the vote even when they are not candidates: a clear win for a
// non-candidate makes the result "none of the candidates" (lingua, asked
// instead, would force the nearest candidate, and calls Dutch English), and
// their hits count against the winner's margin. A word that appears in
// two lists is dropped from both at init: it carries no evidence. The fast
// path is used only when every Latin candidate has a list; a detector for,
// say, en and pl always asks lingua.

var functionWordLists = map[string]string{
	"en": `the and you your yours i me my mine we our us it its is are was were
		be been being have has had having do does did don didn doesn isn aren
		wasn weren won wouldn couldn shouldn haven hasn can could would should
		will shall just this that these those what which who whom whose when
		where why how to of for with about from at by into out up down not yes
		yeah so but or if then than because all any some there here they them
		their he him his she her hers very really think know get got going
		like well sorry thank thanks please let want need right sure much more
		maybe something anything nothing everything everyone one time good t s
		m ll ve re mean said say tell only too also still again back now today
		tomorrow yesterday hello hi bye goodbye goodnight morning night take
		care see talk soon never mind alright agreed welcome great absolutely
		anytime whatever anyway happy safe wait uh`,
	"fr": `le la les des du et est je tu il elle nous vous ils elles ne pas que
		qui quoi ce cette ces j l qu mais ou où avec dans sur très bien merci
		oui non ma mes tes sa ses notre votre nos vos leur leurs suis sont
		avons avez ont était été fait faire être avoir aussi moins comme tout
		tous toute rien déjà peut veux sais au aux une y à ça parce alors donc
		bonjour monsieur madame chez quand vraiment beaucoup peu cela ceci
		voilà désolé pourquoi en s t m`,
	"es": `el la los las y que de es en un una por para con pero muy sí qué cómo
		está están estoy estás eres soy somos yo tú usted ustedes él ella
		nosotros mi mis tu su lo le les del al como cuando donde dónde porque
		también gracias hola bueno bien nada todo todos hay tengo tiene puedo
		puede quiero hace ahora aquí señor señora nos este esta eso esto ese
		esa sobre hasta desde más pues vale entonces siempre nunca algo mucho
		poco perdón claro me o`,
	"de": `der die das und ich du sie wir ihr ist sind bist nicht ein eine einen
		einem einer zu mit auf für von dem den des im auch aber oder wenn dass
		wie wer wo warum ja nein danke bitte mein meine dein deine haben habe
		hatte wird werden kann können muss noch schon nur sehr hier jetzt doch
		mal es uns euch gibt heute immer bei nach aus über was so will also
		vielleicht natürlich entschuldigung als`,
	"it": `il che non sono della delle degli nel nella questo questa perché anche
		molto ciao grazie io lui lei noi voi loro è hai cosa più già siamo
		siete gli uno mio mia tuo tua suo sua allora essere ci mi la un lo le
		di da ma se te su no bene e con`,
	"pt": `não você vocês uma é eu ele ela nós eles elas mas muito obrigado
		obrigada sim também isso isto está estou são tem tenho fazer ser meu
		minha seu sua do da das na ao pelo pela já aqui agora então porque
		quando onde bem tudo nada para por mais de que se te o os e no como`,
	"nl": `het een niet ik jij wij zij hij wat voor maar ook wel naar heb hebt
		heeft zijn ben dit deze mijn jouw onze hoe waar waarom goed dank
		bedankt alsjeblieft nee moet gaan gaat uit als alleen veel kunnen zou
		worden je die ja dat is was`,
	// Vietnamese: nearly every word carries its tone marks, so the list
	// is distinctive by spelling alone.
	"vi": `không của và là có được này tôi anh chị với những một người đã sẽ
		đang rất cảm ơn xin lỗi vâng dạ gì thế nào nhé nhỉ ở đây đó bạn mình
		chúng họ cũng nhưng vì nếu thì khi còn lắm quá ông bà cô chú bác ơi
		nhiều hôm biết muốn làm nói ạ cho rồi đến về ra vào lại phải`,
	// Tagalog (Filipino).
	"tl": `ang ng mga ako ikaw ka siya tayo kayo ko mo niya namin
		natin ninyo nila ito iyan iyon hindi oo opo po ho lang naman din rin
		ba kasi kung salamat bakit paano saan kailan sino nga talaga sige
		wala meron mayroon yung dito doon diyan ngayon bukas kahapon lahat
		maraming isang akin nang pala muna ninyong inyo kanila`,
	// Indonesian and Malay share most function words (saya, tidak, yang,
	// ini, itu, dengan, sudah...), which are left out: listed in both they
	// would cancel. What remains are the words one writes and the other
	// does not (Indonesian bisa, karena, mau, nggak, kalian; Malay boleh,
	// kerana, mahu, tak, awak); text with none of them goes to lingua.
	"id": `bisa karena mau nggak enggak gak banget dong sih kok aja kalian
		gimana makasih besok silakan paham uang kantor mobil bilang ketemu
		bapak udah bikin nih tuh emang gitu gini kayak deh lho ngga toko`,
	"ms": `boleh kerana mahu tak nak hendak awak sila faham wang pejabat
		cakap tengok beritahu sahaja encik puan cik esok kat dah takde kedai
		seronok tahniah jemput teksi polis`,
}

// wordLang maps a function word to the index (into wordLangs) of the only
// list that contains it.
var (
	wordLangs []string
	wordLang  map[string]int
)

func init() {
	seen := map[string]int{} // word -> list index, or -1 when in several
	for _, l := range []string{"en", "fr", "es", "de", "it", "pt", "nl", "vi", "tl", "id", "ms"} {
		idx := len(wordLangs)
		wordLangs = append(wordLangs, l)
		for _, w := range strings.Fields(functionWordLists[l]) {
			if prev, ok := seen[w]; ok && prev != idx {
				seen[w] = -1
				continue
			}
			seen[w] = idx
		}
	}
	wordLang = make(map[string]int, len(seen))
	for w, i := range seen {
		if i >= 0 {
			wordLang[w] = i
		}
	}
}

// hasWordList reports whether code has a function-word list.
func hasWordList(code string) bool {
	_, ok := functionWordLists[code]
	return ok
}

// Thresholds of the vote.
const (
	// minWordHits: a single function word ("the", "si") is not enough,
	// except in a text of at most shortWords words ("Thanks.", "Yeah, take
	// care!"), where one unopposed hit is all there is and lingua, on so
	// little text, is no better (it calls "Uh, yeah, no problem." German).
	minWordHits = 2
	shortWords  = 4
	// wordMargin: the winner needs more than this many times the hits of
	// the runner-up (any list, candidate or not).
	wordMargin = 3
	// minWordCoverage: the winner's hits must cover this share of the Latin
	// words, so that a long text in a language without a list (Polish "to",
	// Dutch-like Afrikaans) does not win on a few stray homographs.
	minWordCoverage = 0.2
)

// wordVote counts function-word hits per list over the Latin words of s and
// returns the winning language code, its hits and the runner-up's hits; win
// is "" when the vote is not decisive.
//
// A capitalised word inside a sentence ("Ben", "Em", "Van") is taken for a
// name: it neither votes nor counts as a word. Sentence-initial words, "I"
// and all-caps words vote normally.
func wordVote(s string) (win string, h1, h2 int) {
	var hits [16]int
	words := 0
	var buf [32]byte
	sentenceStart := true
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if classify(r) != clsLatin {
			switch r {
			case '.', '!', '?', '…', ':', ';', '"', '“', '«', '—', '。', '！', '？', '：':
				sentenceStart = true
			}
			i += w
			continue
		}
		// A maximal run of Latin letters (and combining marks), lower-cased
		// into buf; runs longer than buf are no function words.
		titled := unicode.IsUpper(r)
		lowerSeen := false
		j := i
		n := 0
		long := false
		for first := true; j < len(s); first = false {
			r, w := utf8.DecodeRuneInString(s[j:])
			cls := classify(r)
			if cls != clsLatin && cls != -1 {
				break
			}
			if !first && unicode.IsLower(r) {
				lowerSeen = true
			}
			if !long {
				if r < 0x80 {
					if n < len(buf) {
						buf[n] = byte(r) | 0x20
						n++
					} else {
						long = true
					}
				} else {
					r = unicode.ToLower(r)
					if n+utf8.RuneLen(r) <= len(buf) {
						n += utf8.EncodeRune(buf[n:], r)
					} else {
						long = true
					}
				}
			}
			j += w
		}
		i = j
		name := titled && lowerSeen && !sentenceStart
		sentenceStart = false
		if name {
			continue
		}
		words++
		if long {
			continue
		}
		if k, ok := wordLang[string(buf[:n])]; ok { // no allocation: map lookup with converted key
			hits[k]++
		}
	}
	best, second := -1, 0
	for k := range wordLangs {
		switch {
		case best < 0 || hits[k] > hits[best]:
			if best >= 0 {
				second = hits[best]
			}
			best = k
		case hits[k] > second:
			second = hits[k]
		}
	}
	h1, h2 = hits[best], second
	enough := h1 >= minWordHits || (h1 == 1 && h2 == 0 && words <= shortWords)
	if !enough || h1 <= wordMargin*h2 || float64(h1) < minWordCoverage*float64(words) {
		return "", h1, h2
	}
	return wordLangs[best], h1, h2
}
