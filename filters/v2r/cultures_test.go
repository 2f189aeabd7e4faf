package v2r

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// A Singaporean dialogue may be in any of English, Chinese, Malay and
// Tamil; a turn in Thai is still wrong, and a Korean culture's dialogue
// is still Korean only.
func TestCheckForSeveralLanguages(t *testing.T) {
	r := Rules{MinTurns: 4, MaxTurns: 15, MinLangShare: 1}
	mixed := turns("Wei Ming||Auntie, good morning! You had your breakfast already?",
		"Auntie||吃了吃了，你呢？今天不用上班吗？",
		"Wei Ming||Today I take leave, so I bring my mother to the market.",
		"Siti||Selamat pagi, mak cik. Saya nak beli nasi lemak dua bungkus.",
		"Kumar||வணக்கம், நீங்கள் எப்படி இருக்கிறீர்கள்?")
	rec, err := r.CheckFor(&Dialogue{Turns: mixed}, record.TypeAdherence, "singaporean", "en")
	if err != nil {
		t.Fatalf("Singapore, four languages: %v", err)
	}
	if rec.Checks.LangExpected != "en" || rec.Checks.LangShare != 1 || rec.Turns[1].Lang != "zh" || rec.Turns[4].Lang != "ta" {
		t.Errorf("checks %+v, turn langs %s %s", rec.Checks, rec.Turns[1].Lang, rec.Turns[4].Lang)
	}
	thai := append(append([]record.Turn(nil), mixed...), record.Turn{Speaker: "Somchai", Text: "สวัสดีครับ คุณสบายดีไหมครับ"})
	if _, err := r.CheckFor(&Dialogue{Turns: thai}, record.TypeAdherence, "singaporean", "en"); err == nil || !strings.Contains(err.Error(), "turn 6 (Somchai) is in Thai") {
		t.Errorf("a Thai turn in a Singaporean dialogue: %v", err)
	}
	// The same turns without the culture (Check), or for a culture of one
	// language, must all be English.
	if _, err := r.Check(&Dialogue{Turns: mixed}, record.TypeAdherence, "en"); err == nil || !strings.Contains(err.Error(), "turn 2 (Auntie) is in Chinese") {
		t.Errorf("without the culture: %v", err)
	}
	if _, err := r.CheckFor(&Dialogue{Turns: mixed}, record.TypeAdherence, "american", "en"); err == nil {
		t.Error("american dialogue in four languages accepted")
	}
}
