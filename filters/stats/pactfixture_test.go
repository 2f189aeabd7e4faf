package stats

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// pactAwkwardFile is the PACT run with every case where a careless
// reading of the authors' scripts goes wrong: distributions (logprobs,
// K samples, ties at 0.5), invalid answers, a family (mistral) that only
// answered items without receiver attributes, persona variants of 1 to 4
// per item, human answers with blanks, a country in no region. Both the
// Go test below and scripts/pact-authors.sh (the authors' own Python)
// read it; -write-pact-fixture writes it again.
const pactAwkwardFile = "../../testdata/pact/awkward.jsonl"

var writePactFixture = flag.Bool("write-pact-fixture", false, "write "+pactAwkwardFile)

var awkwardModels = []struct {
	name    string
	method  string
	k       int  // samples; 0 for logprobs
	base    bool // asked as a base model
	onlyNoR bool // answers only the items without receiver attributes
	shift   float64
}{
	{"llama-3-8b-base", "logprobs", 0, true, false, 0.1},
	{"llama-3-8b-instruct", "sample", 4, false, false, -0.1},
	{"qwen-2.5-7b-instruct", "logprobs", 0, false, false, -0.2},
	{"mistral-7b-instruct", "sample", 1, false, true, 0},
}

func awkwardRecords() []*record.Record {
	rng := rand.New(rand.NewPCG(40, 2026))
	countries := []string{"Brazil", "India", "South Africa", "United Kingdom", "Japan", "Mexico", "Egypt", "Russia", "Australia", "Atlantis"}
	respondents := []string{"United States of America", "India", "Brazil", "United Kingdom", "South Africa"}
	pick := func(a, b string) string {
		if rng.IntN(2) == 0 {
			return a
		}
		return b
	}
	var recs []*record.Record
	for i := range 60 {
		country := countries[i%len(countries)]
		noReceiver := i%5 == 4
		// the human study: 3 to 7 respondents, some answers blank, at
		// least one answer per framing
		var answers []record.HumanAnswer
		truth := 0.3 + 0.5*rng.Float64()
		for r := range 3 + rng.IntN(5) {
			a := record.HumanAnswer{Respondent: fmt.Sprintf("r%d", rng.IntN(25)), Country: respondents[(i+r)%len(respondents)]}
			for _, c := range []*string{&a.Personal, &a.Norm} {
				switch {
				case r > 0 && rng.Float64() < 0.2:
				case rng.Float64() < truth:
					*c = record.PactFollow
				default:
					*c = record.PactAllow
				}
			}
			answers = append(answers, a)
		}
		human := &record.HumanShare{Answers: answers, N: len(answers)}
		var pf, nf, pn, nn float64
		for _, a := range answers {
			for _, x := range []struct {
				c      string
				f, all *float64
			}{{a.Personal, &pf, &pn}, {a.Norm, &nf, &nn}} {
				if x.c != "" {
					*x.all++
					if x.c == record.PactFollow {
						*x.f++
					}
				}
			}
		}
		human.Personal, human.Norm = fp(pf/pn), fp(nf/nn)
		human.FollowCulture = (pf + nf) / (pn + nn)
		base := fmt.Sprintf("it-%02d", i)
		for v := range 1 + i%4 {
			id, variantOf := base, ""
			if v > 0 {
				id, variantOf = fmt.Sprintf("%s-v%d", base, v), base
			}
			it := &record.PactItem{Actor: "the actor", Receiver: "the receiver", ActorCountry: country, ReceiverCountry: country,
				ActorAge: pick("younger", "older"), ActorGender: pick("female", "male"),
				Expectation: "e", Preference: "p", FollowOption: "f", AllowOption: "a", Human: human}
			if !noReceiver {
				it.ReceiverAge, it.ReceiverGender = pick("younger", "older"), pick("female", "male")
			}
			rec := &record.Record{ID: id, VariantOf: variantOf, Culture: strings.ReplaceAll(strings.ToLower(country), " ", "-"), DialogueType: "pact",
				Scenario: fmt.Sprintf("Scenario %d: a dinner at a colleague's home.", i), PactItem: it}
			for _, m := range awkwardModels {
				if m.onlyNoR && !noReceiver {
					continue
				}
				for _, q := range []string{record.PactPersonal, record.PactNorm} {
					follow := math.Min(1, math.Max(0, truth-m.shift+0.25*rng.NormFloat64()))
					res := record.PactResult{Model: m.name, Question: q, Method: m.method, Samples: max(m.k, 1), Base: m.base}
					switch {
					case rng.Float64() < 0.1: // no valid answer
						res.Error = "no option named"
					case m.k == 0:
						p := math.Round(follow*1000) / 1000
						if rng.Float64() < 0.08 {
							p = 0.5 // a tie: the authors' rule makes it culture
						}
						res.PFollow, res.Valid = fp(p), 1
					default:
						k := 0
						for range m.k {
							if rng.Float64() < follow {
								k++
							}
						}
						res.PFollow, res.Valid = fp(float64(k)/float64(m.k)), m.k
					}
					rec.Pact = append(rec.Pact, res)
				}
			}
			recs = append(recs, rec)
		}
	}
	return recs
}


func readAwkward(t *testing.T) []*record.Record {
	t.Helper()
	if *writePactFixture {
		var buf bytes.Buffer
		for _, r := range awkwardRecords() {
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(append(b, '\n'))
		}
		if err := os.WriteFile(pactAwkwardFile, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(pactAwkwardFile)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*record.Record
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r record.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, &r)
	}
	return recs
}

func TestPactAwkwardFixture(t *testing.T) {
	recs := readAwkward(t)
	if len(recs) != 150 {
		t.Errorf("%d records", len(recs))
	}
}
