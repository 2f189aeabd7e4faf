package normbank

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/lang"
)

func TestBuiltinProfiles(t *testing.T) {
	names := BuiltinCultures()
	for _, c := range NormCultures() {
		if !slices.Contains(names, c) {
			t.Errorf("norms for %s, which has no profile", c)
		}
	}
	want := map[string][3]string{ // lang, scenario_lang, norm_lang
		"american":    {"en", "en", "en"},
		"chinese":     {"zh", "zh", "en"},
		"korean":      {"ko", "ko", "ko"},
		"japanese":    {"ja", "ja", ""},
		"vietnamese":  {"vi", "vi", ""},
		"thai":        {"th", "th", ""},
		"indonesian":  {"id", "id", ""},
		"malaysian":   {"ms", "ms", ""},
		"filipino":    {"tl", "tl", ""},
		"singaporean": {"en", "en", ""},
		"taiwanese":   {"zh-Hant", "zh-Hant", ""},
		// the PACT human study's other four countries
		"british":       {"en", "en", ""},
		"brazilian":     {"pt", "en", ""},
		"indian":        {"en", "en", ""},
		"south-african": {"en", "en", ""},
	}
	if len(names) != len(want) {
		t.Errorf("built-in cultures %v, want the %d of the test", names, len(want))
	}
	for _, name := range names {
		c, err := BuiltinProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name != name || c.Source != "builtin:"+name+".yaml" {
			t.Errorf("%s: name %q, source %q", name, c.Name, c.Source)
		}
		if w := want[name]; [3]string{c.Lang, c.ScenarioLang, c.NormLang} != w {
			t.Errorf("%s: languages %s/%s/%s, want %v", name, c.Lang, c.ScenarioLang, c.NormLang, w)
		}
		// norm_lang says what the built-in norms are written in.
		for _, n := range Norms(name, nil) {
			if r := lang.Default().Detect(n.Text); r.Lang != c.NormLang {
				t.Errorf("%s: norm %s detected as %s, profile says norm_lang %s", name, n.ID, r.Lang, c.NormLang)
				break
			}
		}
	}
}

const validProfile = `name: thai
lang: ru-RU
scenario_lang: en
names:
  order: given-family
  given: [Somchai, Malee]
  family: [Srisuk]
titles: [Khun]
honorifics: Add khrap or kha.
relational_distance: Seniority matters.
`

func TestParseProfileErrors(t *testing.T) {
	edit := func(from, to string) string { return strings.Replace(validProfile, from, to, 1) }
	cases := []struct{ body, want string }{
		{validProfile, `lang "ru-RU": language "ru" is not written in Latin script`},
		{edit("lang: ru-RU", "lang: vi"), ""},
		{edit("lang: ru-RU", "lang: xx"), `lang "xx": language "xx" is not supported by lingua`},
		{edit("lang: ru-RU", "lang: english"), `lang "english" is not a BCP-47 language tag`},
		{edit("lang: ru-RU", "lang: ko\nlangauge: ko"), "line 3: field langauge is not a profile key"},
		{edit("lang: ru-RU", "lang: vi\nother_langs: [en, th, ta, zh-Hant]"), ""},
		{edit("lang: ru-RU", "lang: vi\nother_langs: [en, ru]"), `other_langs[1] "ru": language "ru" is not written in Latin script`},
		{edit("lang: ru-RU", "lang: vi\nother_langs: [en, \"\"]"), `other_langs[1] is missing`},
		{edit("name: thai", "name: Thai Culture"), `name "Thai Culture": want lower-case letters`},
		{edit("name: thai\n", ""), "name is missing"},
		{edit("scenario_lang: en\n", ""), "scenario_lang is missing"},
		{edit("order: given-family", "order: surname first"), `names.order "surname first": want given-family or family-given`},
		{edit("given: [Somchai, Malee]", "given: [Somchai]"), "names.given: want at least 2, got 1"},
		{edit("family: [Srisuk]", "family: []"), "names.family: want at least 1, got 0"},
		{edit("titles: [Khun]", `titles: [Khun, " "]`), "titles[1] is empty"},
		{edit("honorifics: Add khrap or kha.\n", ""), "honorifics is missing"},
		{edit("relational_distance: Seniority matters.\n", ""), "relational_distance is missing"},
		{edit("titles: [Khun]", "titles: Khun"), "line 8: cannot unmarshal"},
		{"", "empty profile"},
		{"# only a comment\n", "empty profile"},
		{edit("lang: ru-RU", "lang: ko") + "---\nname: other\n", "more than one YAML document"},
		{"name: [unclosed\n", "t.yaml: "},
	}
	for _, c := range cases {
		p, err := ParseProfile("t.yaml", []byte(c.body))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.body, err)
		case c.want == "":
			if p.Lang != "vi" || p.Source != "t.yaml" {
				t.Errorf("parsed %+v", p)
			}
		case err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "t.yaml: "):
			t.Errorf("%q: error %v, want one starting t.yaml: with %q", c.body, err, c.want)
		}
	}
	// Every problem is reported at once.
	_, err := ParseProfile("t.yaml", []byte("name: x\nlang: en\n"))
	if err == nil || strings.Count(err.Error(), "\nt.yaml: ") < 4 {
		t.Errorf("want all problems, one per line: %v", err)
	}
}

func TestParseProfileJSON(t *testing.T) {
	body := `{"name":"thai","lang":"en","scenario_lang":"en","names":{"order":"given-family","given":["A","B"],"family":["C"]},
		"titles":["Khun"],"honorifics":"h","relational_distance":"d"}`
	c, err := ParseProfile("thai.json", []byte(body))
	if err != nil || c.Name != "thai" || c.Display() != "thai" || len(c.Names.Given) != 2 {
		t.Errorf("%+v, %v", c, err)
	}
}

func TestProfileUserDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NG_CULTURES_DIR", dir)
	if UserCultureDir() != dir {
		t.Fatalf("UserCultureDir() = %q", UserCultureDir())
	}
	ko, _ := cultureFiles.ReadFile("cultures/korean.yaml")
	custom := strings.Replace(string(ko), "display_name: Korean", "display_name: Korean (ours)", 1)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("korean.yaml", custom)
	write("vietnamese.yml", strings.NewReplacer("name: thai", "name: vietnamese", "lang: ru-RU", "lang: vi").Replace(validProfile))
	write("wrongname.yaml", strings.Replace(validProfile, "lang: ru-RU", "lang: vi", 1))

	c, err := Profile("Korean")
	if err != nil || c.DisplayName != "Korean (ours)" || c.Source != filepath.Join(dir, "korean.yaml") {
		t.Errorf("user korean: %+v, %v", c, err)
	}
	if c, err := Profile("vietnamese"); err != nil || c.Lang != "vi" {
		t.Errorf("user vietnamese: %+v, %v", c, err)
	}
	if c, err := Profile("chinese"); err != nil || c.Source != "builtin:chinese.yaml" {
		t.Errorf("built-in chinese: %+v, %v", c, err)
	}
	if _, err := Profile("wrongname"); err == nil || !strings.Contains(err.Error(), `name is "thai", want "wrongname"`) {
		t.Errorf("name mismatch: %v", err)
	}
	_, err = Profile("klingon")
	if err == nil || !strings.Contains(err.Error(), "american, brazilian, british, chinese, filipino, indian, indonesian, japanese, korean, malaysian, singaporean, south-african, taiwanese, thai, vietnamese") || !strings.Contains(err.Error(), filepath.Join(dir, "klingon.yaml")) {
		t.Errorf("unknown culture: %v", err)
	}
	if _, err := Profile("../korean"); err == nil || !strings.Contains(err.Error(), "not a valid culture name") {
		t.Errorf("path as name: %v", err)
	}
	if _, err := LoadProfile(filepath.Join(dir, "none.yaml")); err == nil || !strings.Contains(err.Error(), "none.yaml: no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestProfilesScripts: each profile's names and titles are written in the
// script of its dialogue language, so the prompts hand the model names it
// can use as they are: Traditional characters for Taiwan (none that only
// Simplified writes), Simplified for the mainland, Thai script for Thailand.
func TestProfilesScripts(t *testing.T) {
	d, err := lang.For("zh", "zh-Hant", "ja", "th", "vi")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"chinese": "zh", "taiwanese": "zh-Hant", "japanese": "ja", "thai": "th", "korean": "ko"} {
		c, err := BuiltinProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range [][]string{c.Names.Given, c.Names.Family, c.Titles} {
			// Japanese names alone are often kanji only: judge them with the titles.
			text := strings.Join(list, "、")
			if name == "japanese" {
				text += "、" + strings.Join(c.Titles, "、")
			}
			if r := d.Detect(text); r.Lang != want || r.Confidence < lang.MinConfidence {
				t.Errorf("%s: %q detected as %s (%.2f), want %s", name, text, r.Lang, r.Confidence, want)
			}
		}
	}
	// Taiwan: no character of the profile is one only Simplified writes.
	tw, _ := BuiltinProfile("taiwanese")
	all := strings.Join(append(append(append([]string{}, tw.Names.Given...), tw.Names.Family...), tw.Titles...), "") + tw.Honorifics + tw.Distance
	for _, r := range all {
		if s := string(r); d.Detect(s+s+s+s).Lang == "zh" && d.Detect(s+s+s+s).Confidence >= lang.MinConfidence {
			t.Errorf("taiwanese profile has the Simplified-only character %s", s)
		}
	}
	cn, _ := BuiltinProfile("chinese")
	all = strings.Join(append(append(append([]string{}, cn.Names.Given...), cn.Names.Family...), cn.Titles...), "") + cn.Honorifics + cn.Distance
	for _, r := range all {
		if s := string(r); d.Detect(s+s+s+s).Lang == "zh-Hant" && d.Detect(s+s+s+s).Confidence >= lang.MinConfidence {
			t.Errorf("chinese profile has the Traditional-only character %s", s)
		}
	}
}

func TestProfileLangs(t *testing.T) {
	for name, want := range map[string]string{
		"singaporean": "en zh ms ta", "taiwanese": "zh-Hant", "malaysian": "ms", "korean": "ko", "filipino": "tl",
	} {
		c, err := BuiltinProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(c.Langs(), " "); got != want {
			t.Errorf("%s: Langs() = %q, want %q", name, got, want)
		}
	}
	c := &Culture{Lang: "zh-TW", OtherLangs: []string{"zh-Hant", "EN", "en-SG"}}
	if got := strings.Join(c.Langs(), " "); got != "zh-Hant en" {
		t.Errorf("Langs() = %q, want normalized without repeats", got)
	}
}
