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
	if !slices.Equal(names, NormCultures()) {
		t.Errorf("profiles %v, norms for %v", names, NormCultures())
	}
	want := map[string][3]string{ // lang, scenario_lang, norm_lang
		"american": {"en", "en", "en"},
		"chinese":  {"zh", "zh", "en"},
		"korean":   {"ko", "ko", "ko"},
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
lang: th-TH
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
		{validProfile, `lang "th-TH": language "th" is not written in Latin script`},
		{edit("lang: th-TH", "lang: vi"), ""},
		{edit("lang: th-TH", "lang: xx"), `lang "xx": language "xx" is not supported by lingua`},
		{edit("lang: th-TH", "lang: english"), `lang "english" is not a BCP-47 language tag`},
		{edit("lang: th-TH", "lang: ko\nlangauge: ko"), "line 3: field langauge is not a profile key"},
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
		{edit("lang: th-TH", "lang: ko") + "---\nname: other\n", "more than one YAML document"},
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
	write("vietnamese.yml", strings.NewReplacer("name: thai", "name: vietnamese", "lang: th-TH", "lang: vi").Replace(validProfile))
	write("wrongname.yaml", strings.Replace(validProfile, "lang: th-TH", "lang: vi", 1))

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
	if err == nil || !strings.Contains(err.Error(), "american, chinese, korean") || !strings.Contains(err.Error(), filepath.Join(dir, "klingon.yaml")) {
		t.Errorf("unknown culture: %v", err)
	}
	if _, err := Profile("../korean"); err == nil || !strings.Contains(err.Error(), "not a valid culture name") {
		t.Errorf("path as name: %v", err)
	}
	if _, err := LoadProfile(filepath.Join(dir, "none.yaml")); err == nil || !strings.Contains(err.Error(), "none.yaml: no such file") {
		t.Errorf("missing file: %v", err)
	}
}
