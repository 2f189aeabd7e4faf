package stats

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/pactstats"
	"github.com/ngkit/ngkit/pkg/record"
)

// BenchmarkPactReport: the PACT section of 10,000 items (2,500 items in
// 2 genders x 2 ages), 2 models, 2 framings: the collector's fold and the
// report (bootstrap intervals of every rate and effect).
func BenchmarkPactReport(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var recs []*record.Record
	for i := range 2500 {
		for _, g := range []string{"female", "male"} {
			for _, a := range []string{"20-29", "65+"} {
				r := &record.Record{ID: strconv.Itoa(i) + g + a, VariantOf: strconv.Itoa(i), Culture: []string{"american", "chinese", "korean"}[i%3],
					Persona: map[string]string{"gender": g, "age": a}}
				for _, m := range []string{"a", "b"} {
					for _, q := range []string{record.PactChoice, record.PactNorm} {
						p := rng.Float64()
						r.Pact = append(r.Pact, record.PactResult{Model: m, Question: q, PFollow: &p, Majority: pactstats.MajorityOf(p)})
					}
				}
				recs = append(recs, r)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		c := NewCollector()
		for _, r := range recs {
			c.pact.Add(r)
		}
		if c.pact.Report() == nil {
			b.Fatal("no report")
		}
	}
}
