package refine

import (
	"testing"

	"github.com/ngkit/ngkit/pkg/lang"
)

// A Simplified scenario is never weak for lack of a distinguishing
// character; a Taiwanese one is checked for the Traditional form.
func TestDetectorForChineseForms(t *testing.T) {
	zh, err := detectorFor("zh")
	if err != nil {
		t.Fatal(err)
	}
	hant, err := detectorFor("zh-TW")
	if err != nil {
		t.Fatal(err)
	}
	neither := "王大明在公司里工作。" // no character only one form writes
	if r := zh.Detect(neither); r.Lang != "zh" || r.Confidence < lang.MinConfidence {
		t.Errorf("zh scenario of shared characters: %+v", r)
	}
	for _, c := range []struct{ text, want string }{
		{"小李在会议上向经理道歉，说自己没有准备好报告。", "zh"},
		{"小李在會議上向經理道歉，說自己沒有準備好報告。", "zh-Hant"},
	} {
		if r := hant.Detect(c.text); r.Lang != c.want || r.Confidence < lang.MinConfidence {
			t.Errorf("zh-Hant detector on %q: %+v, want %s", c.text, r, c.want)
		}
	}
	for _, l := range []string{"th", "ta", "ko"} {
		d, err := detectorFor(l)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Languages()) != 6 {
			t.Errorf("detectorFor(%s) has %v: want the script languages and English only (no lingua model)", l, d.Languages())
		}
	}
}
