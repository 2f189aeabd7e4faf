// Command mkfixture writes synthetic ngkit records with pkg/recio's
// columnar writers, for the interop check (check.mjs) and for measuring the
// writers' memory on a corpus-sized conversion.
//
//	mkfixture -dir DIR [-n 300]
//	    writes DIR/records.parquet, DIR/records.arrows (IPC stream),
//	    DIR/records.arrow (IPC file), the same records as DIR/records.jsonl,
//	    and DIR/expect.json
//	mkfixture -gen-jsonl FILE [-mb 230]
//	    writes about that many MB of synthetic JSONL records
//	mkfixture -convert FILE.jsonl -o OUT.parquet|OUT.arrows|OUT.arrow [-rowgroup-mb 64]
//	    streams JSONL into the columnar writer and reports rows, time and
//	    peak RSS (VmHWM) on stderr
//	mkfixture -read FILE.parquet|FILE.arrows|FILE.arrow
//	    reads a columnar file with pkg/recio's readers and reports rows,
//	    turns, time and peak RSS on stderr
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

func main() {
	dir := flag.String("dir", "", "write the interop fixture files into `DIR`")
	n := flag.Int("n", 2500, "number of records in the fixture (over 1024, so the Arrow files have several batches)")
	genJSONL := flag.String("gen-jsonl", "", "write synthetic JSONL to `FILE`")
	mb := flag.Int("mb", 230, "size of the synthetic JSONL in MB")
	convert := flag.String("convert", "", "convert JSONL `FILE` to the format of -o")
	out := flag.String("o", "", "output `FILE` of -convert (.parquet, .arrows, .arrow)")
	rowGroupMB := flag.Int64("rowgroup-mb", 0, "Parquet row group target in MB (0: the default)")
	read := flag.String("read", "", "read columnar `FILE` and report rows, time and peak RSS")
	flag.StringVar(&memProfile, "memprofile", "", "with -convert, write a heap profile to `FILE` every 10000 rows")
	flag.Parse()
	var err error
	switch {
	case *dir != "":
		err = fixture(*dir, *n)
	case *genJSONL != "":
		err = writeJSONL(*genJSONL, int64(*mb)<<20)
	case *read != "":
		err = readColumnar(*read)
	case *convert != "" && *out != "":
		err = convertJSONL(*convert, *out, *rowGroupMB<<20)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkfixture:", err)
		os.Exit(1)
	}
}

var texts = []string{
	"Thanks so much for coming — it means a lot to me.",
	"정말 감사합니다. 덕분에 큰 도움이 됐어요!",
	"谢谢你特意过来，真的帮了我大忙。",
	"Sorry, I didn't mean to interrupt you. Please, go on.",
	"아, 제가 먼저 인사를 드렸어야 했는데 죄송해요.",
	"没关系，下次注意就好。我们继续吧。",
	"\"Quotes\", <tags> & back\\slashes\tand tabs",
	"A line\nwith a newline and an emoji 🙇",
}

var (
	speakers = []string{"민수", "Alice", "王芳", "Bob", "지현"}
	stages   = []string{"context", "violation", "recognition", "repair", "resolution"}
	cultures = []string{"korean", "american", "chinese"}
	langs    = []string{"ko", "en", "zh"}
)

// vocab is a synthetic lexicon of English-like, Hangul and Han words,
// drawn with a Zipf law by sentence, so that the text compresses about as
// well as natural language does (repeating a few fixed sentences would
// compress 20x and understate the writers' memory).
var vocab = func() []string {
	rng := rand.New(rand.NewPCG(1, 2))
	const cons, vows = "bcdfghjklmnprstvwyz", "aeiou"
	words := make([]string, 6000)
	for i := range words {
		var b strings.Builder
		n := 1 + rng.IntN(3)
		for k := 0; k < n; k++ {
			switch i % 3 {
			case 0:
				b.WriteByte(cons[rng.IntN(len(cons))])
				b.WriteByte(vows[rng.IntN(len(vows))])
				if rng.IntN(2) == 0 {
					b.WriteByte(cons[rng.IntN(len(cons))])
				}
			case 1:
				b.WriteRune(rune(0xAC00 + rng.IntN(600)*7)) // Hangul syllables
			default:
				b.WriteRune(rune(0x4E00 + rng.IntN(1500))) // CJK ideographs
			}
		}
		words[i] = b.String()
	}
	return words
}()

// sentence returns n words of the lexicon, Zipf-distributed.
func sentence(rng *rand.Rand, n int) string {
	z := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	var b strings.Builder
	for k := 0; k < n; k++ {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocab[z.Uint64()])
	}
	b.WriteByte('.')
	return b.String()
}

// synth returns synthetic record i: most records are labelled dialogues of
// 0 to 11 turns; every seventh is a bare seed without turns.
func synth(i int) record.Record {
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	c := i % 3
	r := record.Record{
		ID:           fmt.Sprintf("rec-%07d", i),
		ParentID:     fmt.Sprintf("seed-%07d", i/3),
		Culture:      cultures[c],
		Lang:         langs[c],
		Category:     []string{"apology", "thanks", "greeting", "request"}[i%4],
		NormID:       fmt.Sprintf("norm-%03d", i%97),
		Norm:         "Apologise sincerely when you inconvenience someone. 남에게 폐를 끼치면 진심으로 사과한다.",
		DialogueType: []string{record.TypeAdherence, record.TypeViolation, record.TypeV2R}[i%3],
		Scenario:     sentence(rng, 12),
		Situation:    texts[rng.IntN(len(texts))] + " " + sentence(rng, 40),
	}
	addEval(&r, i, rng)
	if i%7 == 6 {
		return r
	}
	nt := rng.IntN(12)
	for k := 0; k < nt; k++ {
		t := record.Turn{
			Index:   k,
			Speaker: speakers[(i+k)%len(speakers)],
			Text:    fmt.Sprintf("%s %s (%d.%d)", texts[rng.IntN(len(texts))], sentence(rng, 5+rng.IntN(25)), i, k),
			Lang:    langs[c],
			Stage:   stages[k%len(stages)],
			Labels: &record.Labels{
				Norm: "adhered", Intent: "APO", Emotion: "neutral", Explanation: sentence(rng, 10),
				Rots:     []string{"It's good to apologise."},
				NormDist: map[string]float64{"adhered": 0.67, "violated": 0.33},
			},
		}
		if k%3 == 0 {
			t.Action = "(bows)"
		}
		r.Turns = append(r.Turns, t)
	}
	// Narration now with its places (0, before the first turn, is a value,
	// not a null), now without (a record written before narration_at),
	// now none.
	switch i % 4 {
	case 0:
		r.Narration = []string{sentence(rng, 8), "문 앞에서 만난다."}
		r.NarrationAt = []int{0, len(r.Turns)}
	case 1:
		r.Narration = []string{sentence(rng, 6)}
	}
	r.Quality = &record.Quality{Consistency: 5, Naturalness: 4, Norm: 3, Explanations: map[string]string{"norm": "violated then resolved"}}
	r.Checks = &record.Checks{LangExpected: langs[c], LangOK: new(bool), LangShare: 0.5}
	r.Gen = []record.Gen{{Stage: "ngv2r", Model: "gpt-4o", TokensIn: 900 + i%100, TokensOut: 300, Seconds: 3.5}}
	if i%2 == 0 {
		r.Extra = map[string]json.RawMessage{
			"source": json.RawMessage(`"synthetic"`),
			"meta":   json.RawMessage(fmt.Sprintf(`{"i":%d,"tags":["a","가"]}`, i)),
		}
	}
	return r
}

// addEval gives record i a persona (most records; variant_of on some) and
// the evaluation fields, with their optional parts now set, now null: a
// PACT item with or without a human distribution and results with or
// without p_follow (every fifth record), or an episode and its simulation
// with or without a judge verdict (every fifth, offset by one).
func addEval(r *record.Record, i int, rng *rand.Rand) {
	if i%4 != 3 {
		r.Persona = map[string]string{"age": []string{"20-29", "30-49", "65+"}[i%3], "gender": []string{"female", "male"}[i%2]}
		if i%8 == 1 {
			r.Persona["hierarchy"] = "senior 상사"
		}
	}
	if i%6 == 2 {
		r.VariantOf = fmt.Sprintf("rec-%07d", i-1)
	}
	switch i % 5 {
	case 0:
		r.PactItem = &record.PactItem{Actor: "guest 손님", Expectation: "remove shoes at the door", Preference: "keep shoes on",
			FollowOption: "Remove the shoes", AllowOption: "Keep them on"}
		if i%10 == 0 {
			r.PactItem.Receiver = "host"
			r.PactItem.ScenarioID, r.PactItem.MetadataSource = fmt.Sprintf("sc-%d", i/20), "CultureAtlas"
			r.PactItem.ActorCountry, r.PactItem.ReceiverCountry = "Brazil", "India"
			r.PactItem.ActorAge, r.PactItem.ActorGender, r.PactItem.ReceiverAge, r.PactItem.ReceiverGender = "younger", "female", "older", "male"
			r.PactItem.Human = &record.HumanShare{FollowCulture: float64(i%11) / 10, N: 20 + i%7}
			// the human study's answers with the respondent's group, age
			// and gender (some blank), and the persona-prompted run's
			// persona on half of these items
			r.PactItem.Human.Answers = []record.HumanAnswer{
				{Respondent: "r1", Country: "India", Demo: "younger female", Age: "18-29", Gender: "female", Personal: record.PactFollow, Norm: record.PactAllow},
				{Respondent: "r2 응답자", Country: "Brazil", Personal: record.PactAllow},
			}
			if i%20 == 0 {
				r.PactItem.PersonaCountry, r.PactItem.PersonaDemo = "India", "younger female"
			}
		}
		p := rng.Float64()
		h := 1 - (p*p + (1-p)*(1-p))
		r.Pact = []record.PactResult{
			{Model: "model-a", Question: record.PactChoice, Method: "sample", PFollow: &p, Samples: 10, Valid: 10, Majority: record.PactFollow, Entropy: &h},
			{Model: "model-b", Question: record.PactNorm, Method: "logprobs", Samples: 1, Valid: 0, Error: "no option token in the logprobs"},
		}
	case 1:
		r.Episode = &record.Episode{Subgroup: "Bangkok office worker", Domain: "food and dining", Goal: "plan a team dinner",
			Constraints: []record.Constraint{{ID: "c1", Text: "no beef", NormID: "norm-001", Reveal: "implicit"}, {ID: "c2", Text: "elders order first"}},
			Opening:     "ช่วยแนะนำร้านอาหารหน่อยครับ"}
		r.Sim = &record.Sim{Assistant: "gpt-x", Mode: "benchmark", End: "max_turns"}
		if i%10 == 1 {
			r.Sim.Mode, r.Sim.End, r.Sim.Revealed = "gold", "goal_met", []string{"c1"}
			r.Sim.Judge = &record.SimJudge{Assistance: 4, AssistanceRationale: "helpful", Cultural: 3, Language: 5,
				Constraints: []record.ConstraintOutcome{{ID: "c1", Outcome: record.OutcomeInferred, Rationale: "asked"}, {ID: "c2", Outcome: record.OutcomeUnaddressed}}}
		}
	}
}

type sample struct {
	ID        string `json:"id"`
	TurnIndex int    `json:"turn_index"` // 0-based position in turns
	Speaker   string `json:"speaker"`
	Text      string `json:"text"`
}

type expect struct {
	Rows    int      `json:"rows"`
	Turns   int      `json:"turns"`
	Samples []sample `json:"samples"`
}

func fixture(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name string
		open func(io.Writer) (recio.Writer[record.Record], error)
	}{
		{"records.parquet", func(w io.Writer) (recio.Writer[record.Record], error) {
			// Small row groups, so readers cross row group boundaries.
			return recio.NewParquetWriter[record.Record](w, recio.WriteOptions{RowGroupBytes: 64 << 10})
		}},
		{"records.arrows", func(w io.Writer) (recio.Writer[record.Record], error) {
			return recio.NewArrowWriter[record.Record](w, false)
		}},
		{"records.arrow", func(w io.Writer) (recio.Writer[record.Record], error) {
			return recio.NewArrowWriter[record.Record](w, true)
		}},
		// What every reader of the columnar files must agree with (compare.mjs).
		{"records.jsonl", func(w io.Writer) (recio.Writer[record.Record], error) {
			return recio.NewJSONLWriter[record.Record](w), nil
		}},
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), n, f.open); err != nil {
			return err
		}
	}
	var e expect
	for i := 0; i < n; i++ {
		r := synth(i)
		e.Rows++
		e.Turns += len(r.Turns)
		if len(r.Turns) > 0 && (i%37 == 0 || i == n-1 || i%101 == 1) {
			k := (i * 7) % len(r.Turns)
			e.Samples = append(e.Samples, sample{r.ID, k, r.Turns[k].Speaker, r.Turns[k].Text})
		}
	}
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "expect.json"), append(b, '\n'), 0o644)
}

func writeFile(path string, n int, open func(io.Writer) (recio.Writer[record.Record], error)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := open(bw)
	if err == nil {
		for i := 0; i < n && err == nil; i++ {
			r := synth(i)
			err = w.Write(&r)
		}
		err = errors.Join(err, w.Close())
	}
	err = errors.Join(err, bw.Flush(), f.Close())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func writeJSONL(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var written int64
	for i := 0; written < size; i++ {
		r := synth(i)
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		n, _ := bw.Write(append(b, '\n'))
		written += int64(n)
	}
	return errors.Join(bw.Flush(), f.Close())
}

var memProfile string

func writeHeapProfile() {
	f, err := os.Create(memProfile)
	if err != nil {
		return
	}
	runtime.GC()
	pprof.WriteHeapProfile(f)
	f.Close()
}

func convertJSONL(in, out string, rowGroupBytes int64) error {
	start := time.Now()
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(o, 1<<20)
	var w recio.Writer[record.Record]
	switch strings.ToLower(filepath.Ext(out)) {
	case ".parquet":
		w, err = recio.NewParquetWriter[record.Record](bw, recio.WriteOptions{RowGroupBytes: rowGroupBytes})
	case ".arrows":
		w, err = recio.NewArrowWriter[record.Record](bw, false)
	case ".arrow":
		w, err = recio.NewArrowWriter[record.Record](bw, true)
	default:
		err = fmt.Errorf("%s: want .parquet, .arrows or .arrow", out)
	}
	if err != nil {
		o.Close()
		return err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	rows := 0
	for {
		var r record.Record
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			o.Close()
			return fmt.Errorf("%s: record %d: %w", in, rows+1, err)
		}
		if err := w.Write(&r); err != nil {
			o.Close()
			return err
		}
		rows++
		if memProfile != "" && rows%10000 == 0 {
			writeHeapProfile()
		}
	}
	if err := errors.Join(w.Close(), bw.Flush(), o.Close()); err != nil {
		return err
	}
	st, _ := os.Stat(in)
	ost, _ := os.Stat(out)
	secs := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "%d rows, %.1f MB JSONL -> %.1f MB %s in %.1fs (%.0f rows/s, %.1f MB/s); peak RSS %s\n",
		rows, float64(st.Size())/(1<<20), float64(ost.Size())/(1<<20), filepath.Ext(out), secs,
		float64(rows)/secs, float64(st.Size())/(1<<20)/secs, peakRSS())
	return nil
}

func readColumnar(path string) error {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	var r recio.Reader
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		r, err = recio.NewParquetReader(path, f, st.Size())
	case ".arrows":
		r, err = recio.NewArrowReader(path, bufio.NewReaderSize(f, 1<<20))
	case ".arrow":
		r, err = recio.NewArrowFileReader(path, f, st.Size())
	default:
		err = fmt.Errorf("%s: want .parquet, .arrows or .arrow", path)
	}
	if err != nil {
		return err
	}
	rows, turns := 0, 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		rows++
		turns += len(rec.Turns)
	}
	if err := r.Close(); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "%s: %d rows, %d turns in %.1fs (%.0f rows/s); peak RSS %s\n", path, rows, turns, secs, float64(rows)/secs, peakRSS())
	return nil
}

// peakRSS reads the process's peak resident set size from /proc.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "n/a"
}
