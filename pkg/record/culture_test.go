package record

import "testing"

// A culture names files (profiles, turns.<culture>.tmpl): only culture
// names pass, never a path or a control character.
func TestCheckCulture(t *testing.T) {
	for _, ok := range []string{"", "korean", "Korean", " thai ", "new-zealand", "korean-busan"} {
		if err := CheckCulture(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"x/../quality", "../quality", "a.b", "a/b", "..", "1korean", "-x", "kor\x1b]0;t\x07", "a b", "x\\y",
		"abcdefghijklmnopqrstuvwxyz0123456"} {
		if err := CheckCulture(bad); err == nil {
			t.Errorf("%q passed", bad)
		}
		r := &Record{ID: "a", Culture: bad}
		if r.Validate() == nil {
			t.Errorf("Validate passed culture %q", bad)
		}
	}
}
