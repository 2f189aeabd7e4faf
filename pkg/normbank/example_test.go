package normbank_test

import (
	"fmt"

	"github.com/ngkit/ngkit/pkg/normbank"
)

// How ngseed and ngrefine use the package: the norms and profile of a
// culture, and the exemplars nearest to a seed.
func Example() {
	norms := normbank.Norms("korean", []string{"apology"})
	// ngseed calls Profile, which reads a user's korean.yaml first.
	c, err := normbank.BuiltinProfile("korean")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(norms), "norms;", "dialogues in", c.Lang+", scenarios in", c.ScenarioLang)

	// No Korean V2R exemplars in the release: those of the other types.
	pool := normbank.Exemplars("korean", "apology", "v2r")
	ix := normbank.NewIndex(pool) // once per culture and category
	seed := normbank.SeedText("민수가 회의에 늦어서 부장님께 사과한다.",
		"민수는 회의실에 늦게 들어와 부장님께 고개를 숙이며 변명 없이 죄송하다고 말했다. 부장님은 잠시 말이 없다가 다음부터 조심하라고 했다. 민수는 다시 한 번 사과했다.")
	for _, m := range ix.Search(seed, 2) {
		fmt.Printf("%s %s %.2f\n", m.Exemplar.ID, m.Exemplar.Source, m.Score)
	}
	// Output:
	// 9 norms; dialogues in ko, scenarios in ko
	// 2614baa993c7a3ee korean_adherence.json#82 0.13
	// b731e7e5c12cdc30 korean_violation.json#83 0.08
}
