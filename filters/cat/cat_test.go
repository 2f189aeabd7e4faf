package cat

import (
	"strconv"
	"testing"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

type mem struct {
	ids    []string
	closed bool
}

func (m *mem) Write(r *record.Record) error { m.ids = append(m.ids, r.ID); return nil }
func (m *mem) Close() error                 { m.closed = true; return nil }
func (m *mem) Abort()                       {}

func TestParseSplits(t *testing.T) {
	s, err := ParseSplits("train=0.8, dev=0.1,test=0.1")
	if err != nil || len(s) != 3 || s[1].Name != "dev" {
		t.Fatalf("%v %v", s, err)
	}
	for _, bad := range []string{"train=0.5", "train=1.1", "a=0.5,a=0.5", "=1", "train", "a=x,b=1", "a=-0.5,b=1.5"} {
		if _, err := ParseSplits(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestAssignShares(t *testing.T) {
	s, _ := ParseSplits("train=0.9,test=0.1")
	n := map[string]int{}
	for i := 0; i < 20000; i++ {
		n[Assign(s, record.NewID(strconv.Itoa(i)))]++
	}
	if n["test"] < 1800 || n["test"] > 2200 {
		t.Errorf("test share %d of 20000", n["test"])
	}
	// Pinned: a split must not move between versions.
	if a, b := Assign(s, "e3782b806605f052"), Assign(s, "0b918943df0962bc"); a != "train" || b != "test" {
		t.Errorf("Assign = %s, %s", a, b)
	}
}

func TestSampleIsOrderIndependent(t *testing.T) {
	pick := func(order []int) map[string]bool {
		m := &mem{}
		s := &Sample{Sink: m, N: 25, Seed: 3}
		for _, i := range order {
			s.Write(&record.Record{ID: strconv.Itoa(i)})
		}
		if err := s.Close(); err != nil || !m.closed || len(m.ids) != 25 {
			t.Fatalf("%v %v %d", err, m.closed, len(m.ids))
		}
		out := map[string]bool{}
		for _, id := range m.ids {
			out[id] = true
		}
		return out
	}
	fwd, rev := make([]int, 500), make([]int, 500)
	for i := range fwd {
		fwd[i], rev[i] = i, 499-i
	}
	a, b := pick(fwd), pick(rev)
	for id := range a {
		if !b[id] {
			t.Fatalf("sample depends on input order: %s", id)
		}
	}
}

func TestHeadStops(t *testing.T) {
	m := &mem{}
	h := &Head{Sink: m, N: 2}
	if h.Write(&record.Record{ID: "a"}) != nil || h.Write(&record.Record{ID: "b"}) != pipeline.ErrStop || len(m.ids) != 2 {
		t.Errorf("head: %v", m.ids)
	}
}
