package pactstats

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/pkg/record"
)

// The PACT human study as its authors summarise it
// (section5_metrics.py's summarize_human_group): per framing (personal,
// norm), the human culture rate overall, by respondent country and by
// the relation of the respondent's country to the scenario's (same,
// close, far: the authors' table, country_relation), and the majority
// agreement of each group, max(rate, 1 - rate) of its rate. From the
// items' human.answers, one per respondent.

// HumanGroup is one group of the human study's rows, one row per
// respondent and item (summarize_human_group, S5:107-129). Judgments,
// Respondents and Items count every row of the group, a blank answer in
// this framing too, as the authors count len(grp); Answered are the rows
// with an answer in this framing, over which the culture rate is taken
// (pandas' mean skips the blanks). An item's answers count once however
// many persona variants carry them.
type HumanGroup struct {
	Framing     string            `json:"framing"`  // personal, norm
	Grouping    string            `json:"grouping"` // overall, respondent_country, relation, respondent_country+relation ("country / relation"), scenario_country, receiver_age, receiver_gender, respondent_demo, scenario_theme
	Value       string            `json:"value"`
	Judgments   int64             `json:"judgments"`
	Respondents int64             `json:"respondents"`
	Items       int64             `json:"items"`
	Answered    int64             `json:"answered"`
	CultureRate evalmath.Interval `json:"culture_rate"` // Wilson over the answered rows; n 0 when none
	Agreement   *float64          `json:"majority_agreement"`
}

// countryRelations is the authors' COUNTRY_RELATIONS: for a respondent's
// country, the scenario countries close to it and far from it; any other
// is same when equal, else far.
var countryRelations = map[string]map[string][]string{
	"Brazil":                   {"close": {"Myanmar", "Singapore"}},
	"India":                    {"close": {"Bangladesh", "Nepal", "Pakistan"}, "far": {"Canada", "United States of America"}},
	"South Africa":             {"close": {"Zimbabwe", "Ethiopia"}, "far": {"Argentina", "Bangladesh", "Iran"}},
	"United Kingdom":           {"close": {"Ireland"}, "far": {"Argentina", "Bangladesh", "Iran"}},
	"United States of America": {"close": {"Canada", "Mexico"}, "far": {"Afghanistan", "Bangladesh", "Pakistan"}},
}

// countryAliases spell the study's countries as the authors' table does.
var countryAliases = map[string]string{
	"usa": "United States of America", "us": "United States of America", "united states": "United States of America",
	"america": "United States of America", "uk": "United Kingdom", "britain": "United Kingdom", "great britain": "United Kingdom",
}

func studyCountry(c string) string {
	c = strings.TrimSpace(c)
	if a, ok := countryAliases[strings.ToLower(c)]; ok {
		return a
	}
	return c
}

// countryRelation is the authors' country_relation(respondent, scenario).
func countryRelation(respondent, scenario string) string {
	r, s := studyCountry(respondent), studyCountry(scenario)
	for _, label := range []string{"same", "close", "far"} {
		if slices.Contains(countryRelations[r][label], s) {
			return label
		}
	}
	if r == s {
		return "same"
	}
	return "far"
}

type humanGroupAcc struct {
	follow, answered, n int64
	respondents         map[string]bool
	items               map[string]bool
}

// addHumanAnswers folds an item's answers in, once per item: the
// persona variants of an item (one group) carry the same answers.
func (a *pactAcc) addHumanAnswers(rec *record.Record, group string) {
	if a.humanSeen == nil {
		a.humanSeen = map[string]bool{}
	}
	if a.humanSeen[group] {
		return
	}
	a.humanSeen[group] = true
	it := rec.PactItem
	scenario := it.ReceiverCountry
	if scenario == "" {
		scenario = rec.Culture
	}
	if a.human == nil {
		a.human = map[[3]string]*humanGroupAcc{}
	}
	theme := scenarioTheme(rec.Scenario)
	sub := map[string]map[[2]string]*[2]float64{} // framing -> (country, demo) -> follow, answered
	all := map[string]*[2]float64{}               // framing -> follow, answered: the item's profile
	for _, ans := range it.Human.Answers {
		for framing, c := range map[string]string{record.PactPersonal: ans.Personal, record.PactNorm: ans.Norm} {
			if c == record.PactFollow || c == record.PactAllow {
				if all[framing] == nil {
					all[framing] = &[2]float64{}
				}
				all[framing][1]++
				if c == record.PactFollow {
					all[framing][0]++
				}
			}
			if ans.Country == "" || ans.Demo == "" || (c != record.PactFollow && c != record.PactAllow) {
				continue
			}
			if sub[framing] == nil {
				sub[framing] = map[[2]string]*[2]float64{}
			}
			k := [2]string{ans.Country, ans.Demo}
			if sub[framing][k] == nil {
				sub[framing][k] = &[2]float64{}
			}
			sub[framing][k][1]++
			if c == record.PactFollow {
				sub[framing][k][0]++
			}
		}
		rel := countryRelation(ans.Country, scenario)
		a.addRegressionRows(ans, it, scenario, rel)
		for _, g := range [][2]string{{"overall", ""}, {"respondent_country", ans.Country}, {"relation", rel},
			{"respondent_country+relation", ans.Country + " / " + rel}, {"scenario_country", scenario}, {"receiver_age", it.ReceiverAge},
			{"receiver_gender", it.ReceiverGender}, {"respondent_demo", ans.Demo}, {"scenario_theme", theme}} {
			for framing, c := range map[string]string{record.PactPersonal: ans.Personal, record.PactNorm: ans.Norm} {
				k := [3]string{framing, g[0], g[1]}
				acc := a.human[k]
				if acc == nil {
					acc = &humanGroupAcc{respondents: map[string]bool{}, items: map[string]bool{}}
					a.human[k] = acc
				}
				acc.n++
				acc.respondents[ans.Respondent] = true
				acc.items[group] = true
				if c == record.PactFollow || c == record.PactAllow {
					acc.answered++
					if c == record.PactFollow {
						acc.follow++
					}
				}
			}
		}
	}
	for framing, v := range all {
		if a.itemShares == nil {
			a.itemShares = map[[2]string]float64{}
		}
		a.itemShares[[2]string{group, framing}] = v[0] / v[1]
	}
	for framing, m := range sub {
		if a.subgroups == nil {
			a.subgroups = map[[2]string]map[[2]string]float64{}
		}
		shares := map[[2]string]float64{}
		for k, v := range m {
			shares[k] = v[0] / v[1]
		}
		a.subgroups[[2]string{group, framing}] = shares
	}
}

// addRegressionRows adds one answer's rows to the human regressions' data:
// one row per answered framing, as the authors' human_long_for_regression.
func (a *pactAcc) addRegressionRows(ans record.HumanAnswer, it *record.PactItem, scenario, rel string) {
	row := pactRegRow{f: [regFactors]string{regRespondentCountry: regNA(ans.Country), regRespondentAge: regNA(ans.Age),
		regRespondentGender: regNA(ans.Gender), regReceiverAge: regNA(it.ReceiverAge), regReceiverGender: regNA(it.ReceiverGender),
		regRelation: rel, regScenarioCountry: regNA(scenario)}}
	for _, x := range []struct {
		c, q string
		to   *[]pactRegRow
	}{{ans.Personal, record.PactPersonal, &a.regPersonal}, {ans.Norm, record.PactNorm, &a.regNorm}} {
		if x.c == record.PactFollow || x.c == record.PactAllow {
			r := row
			r.f[regQuestion] = x.q
			if x.c == record.PactFollow {
				r.y = 1
			}
			*x.to = append(*x.to, r)
		}
	}
}

var humanGroupingOrder = map[string]int{"overall": 0, "respondent_country": 1, "relation": 2, "respondent_country+relation": 3,
	"scenario_country": 4, "receiver_age": 5, "receiver_gender": 6, "respondent_demo": 7, "scenario_theme": 8}

// themeKeywords is the authors' THEME_KEYWORDS (S5:50-57): a scenario's
// theme is the first whose keywords one occurs in its text, in lower
// case, else "other" (scenario_theme, S5:88-93).
var themeKeywords = []struct {
	theme    string
	keywords []string
}{
	{"food_hospitality", []string{"food", "meal", "dinner", "host", "home", "eat", "restaurant", "sweets"}},
	{"greetings_respect", []string{"greet", "hand", "elder", "older", "bow", "respect"}},
	{"workplace_education", []string{"meeting", "colleague", "work", "office", "study", "class", "document"}},
	{"public_etiquette", []string{"queue", "market", "public", "bus", "train", "line"}},
	{"privacy_helping", []string{"privacy", "help", "phone", "charger", "personal items", "share"}},
	{"gift_giving", []string{"gift", "present", "offer"}},
}

func scenarioTheme(text string) string {
	s := strings.ToLower(text)
	for _, t := range themeKeywords {
		for _, k := range t.keywords {
			if strings.Contains(s, k) {
				return t.theme
			}
		}
	}
	return "other"
}

func (a *pactAcc) humanReport() []HumanGroup {
	out := []HumanGroup{}
	keys := slices.Collect(maps.Keys(a.human))
	slices.SortFunc(keys, func(x, y [3]string) int {
		return cmp.Or(cmp.Compare(questionOrder(x[0]), questionOrder(y[0])), cmp.Compare(humanGroupingOrder[x[1]], humanGroupingOrder[y[1]]), cmp.Compare(x[2], y[2]))
	})
	for _, k := range keys {
		acc := a.human[k]
		g := HumanGroup{Framing: k[0], Grouping: k[1], Value: k[2], Judgments: acc.n, Answered: acc.answered,
			Respondents: int64(len(acc.respondents)), Items: int64(len(acc.items)), CultureRate: evalmath.ShareWilson(acc.follow, acc.answered)}
		g.Agreement = evalmath.OptFloat(agreementOf(g.CultureRate.Mean), acc.answered > 0)
		out = append(out, g)
	}
	return out
}
