//go:build unix

package render

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// browseProbeJS measures the dialogue browser once loaded: articles, turns
// laid out with a size, and each label chip's text and colours.
const browseProbeJS = `(function(){
addEventListener('load',function(){
var out={articles:document.querySelectorAll('article.dlg').length,turns:0,flat:0,chips:[],resources:performance.getEntriesByType('resource').length,
pageW:document.documentElement.scrollWidth,viewW:document.documentElement.clientWidth};
document.querySelectorAll('ol.turns li:not(.narr)').forEach(function(li){out.turns++;var r=li.getBoundingClientRect();if(r.height<10||r.width<100)out.flat++;});
document.querySelectorAll('ol.turns .chip').forEach(function(c){var s=getComputedStyle(c);out.chips.push({text:c.textContent,bg:s.backgroundColor,fg:s.color});});
var p=document.createElement('pre');p.id='ngprobe';p.textContent=JSON.stringify(out);document.body.appendChild(p);
});
})();`

// TestBrowserInChromium opens the dialogue browser in headless Chromium:
// every dialogue and turn is laid out, the chips say their label in text
// and violated and adhered differ in colour too, nothing is fetched, and
// the narrow window needs no sideways scrolling. Screenshots go to
// $NGKIT_SCREENSHOT_DIR (default: ngkit-screenshots in the temp dir).
func TestBrowserInChromium(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		if os.Getenv("NGKIT_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("NGKIT_REQUIRE_CHROMIUM=1 but no chromium binary found")
		}
		t.Skip("no chromium binary found: install Debian package chromium (or set NGKIT_CHROMIUM=/path)")
	}
	page := renderHTML(t, browseReport(t))
	cspAttr := strings.ReplaceAll(htmlCSP, "'", "&#39;")
	meta := `<meta http-equiv="Content-Security-Policy" content="` + cspAttr + `">`
	sum := sha256.Sum256([]byte(browseProbeJS))
	probed := strings.Replace(page, meta, `<meta http-equiv="Content-Security-Policy" content="`+cspAttr+`; script-src &#39;sha256-`+
		base64.StdEncoding.EncodeToString(sum[:])+`&#39;">`+"\n<script>"+browseProbeJS+"</script>", 1)
	_, raw := chromiumDOM(t, bin, probed)
	var res struct {
		Articles, Turns, Flat, Resources int
		Chips                            []struct{ Text, Bg, Fg string }
		PageW, ViewW                     float64
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(raw)), &res); err != nil {
		t.Fatal(err)
	}
	// v1 and v2 (4 turns each), ko (2) and solo (1) as examples, solo
	// again under --show-defect.
	if res.Articles != 5 || res.Turns != 4*2+2+1+1 || res.Flat != 0 {
		t.Errorf("laid out: %d articles, %d turns, %d without a size", res.Articles, res.Turns, res.Flat)
	}
	bg := map[string]string{}
	for _, c := range res.Chips {
		bg[c.Text] = c.Bg
	}
	if bg["norm: violated"] == "" || bg["norm: adhered"] == "" || bg["norm: violated"] == bg["norm: adhered"] || bg["writer's stage: repair"] == bg["writer's stage: violation"] {
		t.Errorf("chip colours %v", bg)
	}
	if res.Resources != 0 || res.PageW > res.ViewW {
		t.Errorf("%d resources fetched; page %v wide in %v", res.Resources, res.PageW, res.ViewW)
	}

	dir := os.Getenv("NGKIT_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "ngkit-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"500", "1100"} {
		shot := filepath.Join(dir, "browser-"+w+".png")
		os.Remove(shot)
		chromiumScreenshot(t, bin, page, shot, w+",5200")
		if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
			t.Errorf("screenshot %s: %v", shot, err)
		} else {
			t.Logf("screenshot: %s (%d bytes)", shot, st.Size())
		}
	}
}

// chromiumScreenshot saves a screenshot of page at window size "W,H".
func chromiumScreenshot(t *testing.T, bin, page, out, size string) {
	t.Helper()
	if stdout, stderr, err := execChromium(t, bin, page, "--hide-scrollbars", "--window-size="+size, "--screenshot="+out); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, tail(stdout+stderr, 2000))
	}
}
