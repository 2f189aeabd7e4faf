package normbank

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

func ex(id, scenario, situation string) Exemplar {
	return Exemplar{ID: id, Scenario: scenario, Situation: situation}
}

func ids(es []Exemplar) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestNearestLanguages(t *testing.T) {
	cases := []struct {
		name  string
		pool  []Exemplar
		query string
		want  []string
	}{
		{"korean", []Exemplar{
			ex("k1", "민수가 회의에 늦어서 부장님께 사과한다.", "회의실에 늦게 도착한 민수는 고개를 숙이며 부장님께 죄송하다고 말했다."),
			ex("k2", "지현이 친구의 생일 선물에 고마움을 표현한다.", "지현은 친구가 준 생일 선물을 받고 환하게 웃으며 고맙다고 말했다."),
			ex("k3", "할머니의 장례식에서 조문객이 위로를 전한다.", "장례식장에서 조문객은 상주에게 깊은 위로의 말을 건넸다."),
		}, SeedText("수진이 회의에 늦게 와서 과장님께 사과한다.", "수진은 회의실에 들어서며 과장님께 늦어서 죄송하다고 고개를 숙였다."), []string{"k1", "k2", "k3"}},
		{"chinese", []Exemplar{
			ex("z1", "小李在会议上迟到，向王经理道歉。", "小李走进会议室，低头向王经理道歉，说自己路上堵车了。"),
			ex("z2", "小王收到同事的生日礼物，表示感谢。", "小王打开礼物，笑着对同事说谢谢，心里很感动。"),
			ex("z3", "邻居家老人去世，张阿姨前去吊唁。", "张阿姨来到灵堂，轻声安慰家属，表达哀悼。"),
		}, SeedText("小陈参加生日聚会，收到朋友的礼物后道谢。", "小陈收到礼物，很感动，笑着对朋友说谢谢你。"), []string{"z2"}},
		{"english", []Exemplar{
			ex("e1", "Mike apologizes to his boss for missing the deadline.", "Mike walks into the office and apologizes sincerely for the missed deadline."),
			ex("e2", "Emily thanks her neighbor for watering her plants.", "Emily brings cookies to her neighbor to thank him for watering the plants."),
			ex("e3", "At a funeral, Sarah offers condolences to a grieving friend.", "Sarah hugs her friend at the funeral and offers quiet condolences."),
		}, SeedText("At the memorial service, Jake offers his condolences.", "Jake approaches the widow at the funeral and offers condolences."), []string{"e3"}},
	}
	for _, c := range cases {
		got := ids(Nearest(c.query, c.pool, len(c.want)))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: nearest %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNearestDeterministic(t *testing.T) {
	pool := Exemplars("korean", "apology", "")
	pool = append(pool, Exemplars("korean", "thanks", "")...)
	q := SeedText("민수가 약속에 늦어서 친구에게 사과한다.", "민수는 카페에 도착해서 친구에게 늦어서 미안하다고 말했다.")
	want := NewIndex(pool).Search(q, len(pool))
	if len(want) != len(pool) {
		t.Fatalf("%d matches for a pool of %d", len(want), len(pool))
	}
	rng := rand.New(rand.NewSource(1))
	for range 20 {
		p := slices.Clone(pool)
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		got := NewIndex(p).Search(q, len(p))
		for i := range got {
			if got[i].Exemplar.ID != want[i].Exemplar.ID || got[i].Score != want[i].Score {
				t.Fatalf("shuffled pool: match %d is %s %v, want %s %v", i, got[i].Exemplar.ID, got[i].Score, want[i].Exemplar.ID, want[i].Score)
			}
		}
	}
	for i := 1; i < len(want); i++ {
		if want[i].Score > want[i-1].Score {
			t.Errorf("not sorted: %v after %v", want[i].Score, want[i-1].Score)
		}
	}
}

func TestNearestTiesAndBounds(t *testing.T) {
	pool := []Exemplar{
		ex("b", "Same text.", "Same situation."),
		ex("a", "Same text.", "Same situation."),
		ex("c", "Other words entirely.", "Nothing alike here."),
	}
	ix := NewIndex(pool)
	ms := ix.Search("same text same situation", 3)
	if got := []string{ms[0].Exemplar.ID, ms[1].Exemplar.ID, ms[2].Exemplar.ID}; !slices.Equal(got, []string{"a", "b", "c"}) || ms[0].Score != ms[1].Score {
		t.Errorf("ties: %v %v", got, ms)
	}
	if got := ix.Search(pool[0].Text(), 1); got[0].Score != 1 || got[0].Exemplar.ID != "a" {
		t.Errorf("identical text: %+v", got)
	}
	if got := ix.Nearest("x", 0); got != nil {
		t.Errorf("k=0: %v", got)
	}
	if got := ix.Nearest("x", 10); len(got) != 3 {
		t.Errorf("k>pool: %d", len(got))
	}
	if got := Nearest("x", nil, 3); got != nil {
		t.Errorf("empty pool: %v", got)
	}
	// Nothing in common (or no text): every score 0, ordered by id.
	for _, q := range []string{"", "!!!", "완전히 다른 한국어 문장"} {
		ms := ix.Search(q, 3)
		if ms[0].Score != 0 || ms[2].Score != 0 || ms[0].Exemplar.ID != "a" || ms[1].Exemplar.ID != "b" {
			t.Errorf("query %q: %+v", q, ms)
		}
	}
}

// Each built-in exemplar is its own nearest neighbour in its pool.
func TestNearestBuiltin(t *testing.T) {
	for _, c := range NormCultures() {
		for _, cat := range Categories() {
			pool := Exemplars(c, cat, "")
			ix := NewIndex(pool)
			for _, e := range pool {
				m := ix.Search(e.Text(), 2)
				if m[0].Exemplar.ID != e.ID || math.Abs(m[0].Score-1) > 1e-9 || m[1].Score >= m[0].Score {
					t.Errorf("%s/%s: %s nearest to itself: %+v", c, cat, e.ID, m)
				}
			}
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	pool := Exemplars("chinese", "apology", "")
	ix := NewIndex(pool)
	q := pool[0].Text()
	b.ReportAllocs()
	for b.Loop() {
		ix.Search(q, 3)
	}
}
