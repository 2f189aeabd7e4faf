package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// Text of the cultures beyond the release, written for these tests: two
// scenarios and one situation per culture, each in the profile's
// scenario_lang and within ngseed's sentence bounds.
var newCultureText = map[string]struct {
	norm      string
	scenarios []string
	situation string
}{
	"thai": {
		norm: "Students greet their teachers with a wai.",
		scenarios: []string{
			"นักศึกษาคนหนึ่งเดินสวนกับอาจารย์ที่ปรึกษาในมหาวิทยาลัย เธอจึงยกมือไหว้และทักทายอย่างสุภาพ",
			"พนักงานใหม่ได้รับของขวัญวันเกิดจากหัวหน้า เขาจึงกล่าวขอบคุณด้วยความซาบซึ้ง",
		},
		situation: "ในเช้าวันจันทร์ มาลีเดินเข้าไปในตึกคณะพร้อมกับเพื่อน เธอเห็นอาจารย์วิชัยซึ่งเป็นอาจารย์ที่ปรึกษากำลังเดินมา " +
			"มาลีหยุดเดินแล้วยกมือไหว้พร้อมพูดว่าสวัสดีค่ะอาจารย์ อาจารย์ยิ้มและรับไหว้ก่อนถามถึงรายงานของเธอ",
	},
	"vietnamese": {
		norm: "Former students greet their teachers first and politely.",
		scenarios: []string{
			"Một sinh viên gặp thầy giáo cũ ở quán cà phê. Cậu đứng dậy chào thầy và mời thầy ngồi cùng.",
			"Một nhân viên mới được trưởng phòng tặng quà sinh nhật. Cô cảm ơn và hứa sẽ cố gắng làm việc tốt hơn.",
		},
		situation: "Chiều thứ bảy, Minh ngồi đọc sách trong một quán cà phê gần trường cũ. Anh bỗng thấy thầy Hùng, " +
			"người dạy anh môn văn năm lớp mười hai, bước vào. Minh vội đứng dậy, khoanh tay chào thầy một cách lễ phép. " +
			"Thầy Hùng mỉm cười và hỏi thăm công việc của anh.",
	},
}

// newCultureReplier answers ngseed's calls for the cultures above; the
// first situation call of each scenario is answered in English, which
// ngseed must refuse and ask again.
type newCultureReplier struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (r *newCultureReplier) Reply(req *llmtest.ChatRequest) string {
	user := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Text()
			break
		}
	}
	for _, c := range newCultureText {
		if !strings.Contains(user, c.norm) {
			continue
		}
		switch req.SchemaName() {
		case "seed_scenarios":
			b, _ := json.Marshal(map[string]any{"scenarios": c.scenarios})
			return string(b)
		case "seed_situation":
			r.mu.Lock()
			first := !r.seen[user]
			if r.seen == nil {
				r.seen = map[string]bool{}
			}
			r.seen[user] = true
			r.mu.Unlock()
			s := c.situation
			if first {
				s = "On Monday morning a student walks into the faculty building. She sees her advisor. She greets him politely."
			}
			b, _ := json.Marshal(map[string]string{"situation": s})
			return string(b)
		}
	}
	return `{"error": "no fake reply"}`
}

// ngseed on built-in cultures beyond the release, with the user's norms:
// seeds in the profile's languages, a wrong-language situation asked again.
func TestNgseedNewCultures(t *testing.T) {
	rep := &newCultureReplier{}
	srv := llmtest.New(llmtest.Options{Reply: rep.Reply})
	t.Cleanup(srv.Close)
	for culture, c := range newCultureText {
		t.Run(culture, func(t *testing.T) {
			norms := filepath.Join(t.TempDir(), "norms.jsonl")
			line, _ := json.Marshal(map[string]string{"culture": culture, "category": "greeting", "norm": c.norm})
			if err := os.WriteFile(norms, append(line, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			before := srv.Count()
			code, out, stderr := seedRun(t, srv, nil, "--culture", culture, "--norms", norms, "--per-norm", "2")
			// One scenarios call, and per scenario an English situation
			// refused and the right one.
			if n := srv.Count() - before; n != 5 {
				t.Errorf("%d calls, want 5", n)
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			recs := readJSONL(t, out)
			if len(recs) != 2 {
				t.Fatalf("%d seeds, want 2:\n%s", len(recs), out)
			}
			want := map[string]string{"thai": "th", "vietnamese": "vi"}[culture]
			for _, r := range recs {
				if r.Culture != culture || r.Lang != want || !slices.Contains(c.scenarios, r.Scenario) || r.Situation != c.situation {
					t.Errorf("seed %+v", r)
				}
				if err := r.Validate(); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
