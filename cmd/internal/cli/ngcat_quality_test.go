package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/stats"
)

// failReader fails the test if the program reads its input.
type failReader struct{ t *testing.T }

func (r failReader) Read([]byte) (int, error) {
	r.t.Error("input read before the flags were checked")
	return 0, os.ErrClosed
}

// An unknown field in --where is refused before anything is read (the
// filter itself: testdata/cli/ngcat/quality.yaml).
func TestNgcatWhereCheckedFirst(t *testing.T) {
	var errb strings.Builder
	code := exit(Ngcat, app.Env{Args: []string{"--where", "quality.nrom >= 4"}, Stdin: failReader{t}, Stdout: &strings.Builder{}, Stderr: &errb})
	if code != 2 || !strings.Contains(errb.String(), `quality has no field "nrom"`) || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("unknown field: exit %d, %q", code, errb.String())
	}
}

// ngcat --dedup near drops exactly the records ngstats lists in its
// near-duplicate clusters, and keeps each cluster's first record; across
// scripts (English, Korean, Chinese) and cultures.
func TestNgcatDedupMatchesNgstats(t *testing.T) {
	dlg := func(id, culture string, texts ...string) string {
		var turns []string
		for i, s := range texts {
			turns = append(turns, fmt.Sprintf(`{"index":%d,"speaker":"%c","text":%q}`, i, 'A'+i%2, s))
		}
		return fmt.Sprintf(`{"id":%q,"culture":%q,"dialogue_type":"adherence","turns":[%s]}`, id, culture, strings.Join(turns, ","))
	}
	en := []string{"Hi Sarah. I just wanted to say I am really sorry for your loss.", "Thank you, Mike. That means a lot to me.", "If you need anything at all, just let me know, okay?", "I will. Thanks for saying something."}
	en2 := append([]string{"Hey Emily. I just wanted to say I am really sorry for your loss."}, en[1:]...)
	ko := []string{"부장님, 보고서가 늦어서 정말 죄송합니다.", "괜찮아요, 다음부터는 미리 말해 줘요.", "네, 앞으로는 꼭 미리 말씀드리겠습니다.", "그래요, 수고했어요."}
	ko2 := []string{"부장님, 보고서가 늦어져서 정말 죄송합니다.", "괜찮아요, 다음부터는 미리 말해 줘요.", "네, 앞으로는 꼭 미리 말씀드리겠습니다.", "그래요, 수고했어요."}
	zh := []string{"陈经理，报告晚交了，真的很抱歉。", "没关系，下次提前告诉我就行。", "好的，以后我一定提前说。", "嗯，辛苦了。"}
	zh2 := []string{"陈经理，报告晚交了，实在很抱歉。", "没关系，下次提前告诉我就行。", "好的，以后我一定提前说。", "嗯，辛苦了。"}
	other := []string{"Did you watch the game last night?", "No, I was working late again.", "You missed a great finish, honestly.", "I will catch the highlights later."}
	in := strings.Join([]string{
		dlg("en1", "american", en...), dlg("ko1", "korean", ko...), dlg("en2", "american", en2...),
		dlg("zh1", "chinese", zh...), dlg("ko2", "korean", ko2...), dlg("other", "american", other...),
		dlg("zh2", "chinese", zh2...), dlg("en3", "korean", en...), // a copy in another culture
	}, "\n") + "\n"

	code, rep, stderr := run(t, Ngstats, in, "--json")
	if code != 0 {
		t.Fatalf("ngstats: %s", stderr)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(rep), &r); err != nil {
		t.Fatal(err)
	}
	clusters := map[string]string{} // member -> cluster
	for _, c := range r.NearDuplicates.Dialogues.List {
		for _, m := range c.Members {
			clusters[m.ID] = c.ID
		}
	}
	want := map[string]string{"en2": "en1", "en3": "en1", "ko2": "ko1", "zh2": "zh1"}
	if fmt.Sprint(clusters) != fmt.Sprint(want) || r.NearDuplicates.Threshold != stats.DefaultDupThreshold {
		t.Errorf("ngstats clusters %v, want %v", clusters, want)
	}

	code, out, stderr := run(t, Ngcat, in, "--dedup", "near")
	if code != 0 {
		t.Fatalf("ngcat: %s", stderr)
	}
	var kept []string
	for _, rec := range readJSONL(t, out) {
		kept = append(kept, rec.ID)
	}
	if strings.Join(kept, " ") != "en1 ko1 zh1 other" || !strings.Contains(stderr, "4 of 8 records dropped") {
		t.Errorf("kept %v; stderr %q", kept, stderr)
	}
	// exact: only the verbatim copy goes.
	_, out, _ = run(t, Ngcat, in, "--dedup", "exact")
	if n := len(readJSONL(t, out)); n != 7 {
		t.Errorf("--dedup exact kept %d of 8", n)
	}
	if code, _, stderr := run(t, Ngcat, in, "--dedup", "exact", "--dup-threshold", "0.5"); code != 2 || !strings.Contains(stderr, "--dup-threshold goes with --dedup near") {
		t.Errorf("--dup-threshold without near: exit %d %q", code, stderr)
	}
}
