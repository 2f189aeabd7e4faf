package app

import (
	"context"
	"errors"
	"testing"

	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

func echo(fail string) pipeline.Stage {
	return pipeline.StageFunc{StageName: "echo", Fn: func(_ context.Context, r *record.Record) ([]*record.Record, error) {
		if r.Persona["age"] == fail {
			return nil, errors.New("inner failed")
		}
		return []*record.Record{r}, nil
	}}
}

// Each variant goes through the inner stage; its outputs are the input
// record's; one variant failing fails the input record.
func TestPersonaStageVaries(t *testing.T) {
	s, err := persona.NewSampler(nil, []persona.Vary{{Attr: "age", Values: []string{"20-29", "65+"}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := &personaStage{Sampler: s, Inner: echo("")}
	if st.Name() != "echo" {
		t.Errorf("Name %q, want the inner stage's", st.Name())
	}
	out, err := st.Process(context.Background(), &record.Record{ID: "r1"})
	if err != nil || len(out) != 2 {
		t.Fatalf("Process: %d records, %v", len(out), err)
	}
	for _, o := range out {
		if o.VariantOf != "r1" || o.ID == "r1" || o.Persona["age"] == "" {
			t.Errorf("variant id %q variant_of %q persona %v", o.ID, o.VariantOf, o.Persona)
		}
	}
	st.Inner = echo("65+")
	if out, err := st.Process(context.Background(), &record.Record{ID: "r2"}); err == nil || out != nil {
		t.Errorf("a failing variant: %d records, %v", len(out), err)
	}
}
