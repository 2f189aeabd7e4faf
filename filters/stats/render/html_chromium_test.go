//go:build unix

package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/record"
)

// probeJS runs in the report opened by Chromium. It records CSP
// violations (any attempt to fetch anything is one, since the report's CSP
// allows no source), and at the load event measures every chart and counts
// the resource-timing entries, writing the result into the DOM, which
// --dump-dom prints once the load event has run.
const probeJS = `(function(){
var violations=[];
document.addEventListener('securitypolicyviolation',function(e){violations.push(e.violatedDirective+' '+e.blockedURI);});
addEventListener('load',function(){
var out={charts:[],tables:[],resources:performance.getEntriesByType('resource').length,violations:violations,
pageW:document.documentElement.scrollWidth,viewW:document.documentElement.clientWidth};
document.querySelectorAll('section table').forEach(function(t){out.tables.push({section:t.closest('section').id,w:t.scrollWidth,box:t.parentElement.clientWidth});});
document.querySelectorAll('svg.chart').forEach(function(s){
var r=s.getBoundingClientRect(),b=s.getBBox(),bars=0;
s.querySelectorAll('rect').forEach(function(x){var bb=x.getBBox();if(bb.width>0&&bb.height>0)bars++;});
out.charts.push({label:s.getAttribute('aria-label'),w:r.width,h:r.height,bboxW:b.width,bboxH:b.height,bars:bars});
});
var p=document.createElement('pre');p.id='ngprobe';p.textContent=JSON.stringify(out);document.body.appendChild(p);
});
})();`

type probeResult struct {
	Charts []struct {
		Label              string
		W, H, BBoxW, BBoxH float64
		Bars               int
	}
	// Tables: each table's width and that of its box (the .scroll div
	// that scrolls it sideways when wider).
	Tables []struct {
		Section string
		W, Box  float64
	}
	Resources    int
	Violations   []string
	PageW, ViewW float64
}

// TestHTMLInChromium opens the report in headless Chromium: every chart
// must be laid out with visible bars, and nothing may be fetched. The
// report is opened with one addition, probeJS, allowed by its hash in the
// CSP (which otherwise forbids scripts); the rest of the CSP is unchanged.
// The window is narrow, and the page must fit its width. A second run,
// with an image and a stylesheet from the network added, checks that the
// probe does catch fetches.
func TestHTMLInChromium(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		if os.Getenv("NGKIT_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("NGKIT_REQUIRE_CHROMIUM=1 but no chromium binary found (Debian package chromium, or set NGKIT_CHROMIUM)")
		}
		t.Skip("no chromium binary found: install Debian package chromium (or set NGKIT_CHROMIUM=/path) to run the browser test")
	}
	page := renderHTML(t, htmlTestReport())
	if dom := checkCharts(t, bin, page); !strings.Contains(dom, "Content-Security-Policy") {
		t.Error("CSP meta tag missing from the rendered DOM")
	}

	// The control: a report that does reference the network must be caught.
	leaky := strings.Replace(withProbe(t, page), "</main>",
		`<img src="http://ngkit.invalid/x.png"><link rel="stylesheet" href="https://ngkit.invalid/x.css"></main>`, 1)
	res, _ := runChromium(t, bin, leaky)
	if len(res.Violations) < 2 {
		t.Errorf("probe missed the fetches of the control page: violations %q, resources %d", res.Violations, res.Resources)
	}
}

// withProbe adds probeJS to page, right after its CSP meta tag, allowed
// by its hash (so that it runs under the CSP, which a wrong hash would
// block, and listens before the body is parsed).
func withProbe(t *testing.T, page string) string {
	t.Helper()
	cspAttr := strings.ReplaceAll(htmlCSP, "'", "&#39;")
	meta := `<meta http-equiv="Content-Security-Policy" content="` + cspAttr + `">`
	if strings.Count(page, meta) != 1 {
		t.Fatalf("report lacks its CSP meta tag %s", meta)
	}
	sum := sha256.Sum256([]byte(probeJS))
	hash := base64.StdEncoding.EncodeToString(sum[:])
	return strings.Replace(page, meta,
		`<meta http-equiv="Content-Security-Policy" content="`+cspAttr+`; script-src &#39;sha256-`+hash+`&#39;">`+
			"\n<script>"+probeJS+"</script>", 1)
}

// checkCharts: Chromium laid out every chart of page with visible bars,
// the page fits the window, and nothing was fetched. It returns the DOM.
func checkCharts(t *testing.T, bin, page string) string {
	t.Helper()
	res, dom := runChromium(t, bin, withProbe(t, page))
	want := strings.Count(page, `<svg class="chart `)
	if len(res.Charts) != want || want == 0 {
		t.Errorf("Chromium found %d charts, the HTML has %d", len(res.Charts), want)
	}
	for _, c := range res.Charts {
		if c.W < 100 || c.H < 10 || c.BBoxW < 50 || c.BBoxH < 10 || c.Bars == 0 {
			t.Errorf("chart %q not drawn: %+v", c.Label, c)
		}
	}
	if res.PageW > res.ViewW {
		t.Errorf("page %vpx wide in a %vpx window: something does not wrap or scroll", res.PageW, res.ViewW)
	}
	if res.Resources != 0 || len(res.Violations) != 0 {
		t.Errorf("the report tried to fetch: %d resources, CSP violations %q", res.Resources, res.Violations)
	}
	return dom
}

func findChromium() string {
	if p := os.Getenv("NGKIT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

var probeRe = regexp.MustCompile(`<pre id="ngprobe">(.*?)</pre>`)

// runChromium loads page from a file in headless Chromium with every host
// name unresolvable, and returns what the probe recorded and the DOM.
func runChromium(t *testing.T, bin, page string) (probeResult, string) {
	t.Helper()
	dom, m := chromiumDOM(t, bin, page)
	var res probeResult
	if err := json.Unmarshal([]byte(html.UnescapeString(m)), &res); err != nil {
		t.Fatalf("probe result %q: %v", m, err)
	}
	return res, dom
}

// chromiumDOM loads page and returns the DOM and the probe's JSON; extra
// flags are added to the command line (a wider window).
func chromiumDOM(t *testing.T, bin, page string, extra ...string) (dom, probe string) {
	t.Helper()
	args := append([]string{"--no-default-browser-check", "--disable-sync",
		"--disable-background-networking", "--disable-component-update", "--disable-default-apps",
		"--window-size=500,800"}, extra...) // about the narrowest window Chromium opens
	start := time.Now()
	stdout, stderr, err := execChromium(t, bin, page, append(args, "--dump-dom")...)
	t.Logf("chromium: %v", time.Since(start).Round(time.Millisecond))
	m := probeRe.FindStringSubmatch(stdout)
	if err != nil || m == nil {
		t.Fatalf("chromium: %v; probe result found: %v\nstderr (tail):\n%s", err, m != nil, tail(stderr, 2000))
	}
	return stdout, m[1]
}

// execChromium opens page, written to a temporary file, in headless
// Chromium with args (the later of a repeated flag wins) and a profile
// and HOME of its own, offline; it returns what Chromium printed.
func execChromium(t *testing.T, bin, page string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	// Generous: a run takes about a second, but the machine may be busy.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--no-first-run", "--disable-extensions",
		"--host-resolver-rules=MAP * ~NOTFOUND"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, "file://"+file)...)
	cmd.Env = append(os.Environ(), "HOME="+dir) // keep Chromium's caches out of the real home
	// Chromium is a tree of processes (and /usr/bin/chromium a wrapper
	// script): on timeout kill the whole group, not only the first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// TestHTMLModelsTableFits: at a desktop window's width the models
// section's tables fit the page, long model names and twelve columns
// included, rather than hide their last columns behind a scroll bar.
func TestHTMLModelsTableFits(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		if os.Getenv("NGKIT_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("NGKIT_REQUIRE_CHROMIUM=1 but no chromium binary found (Debian package chromium, or set NGKIT_CHROMIUM)")
		}
		t.Skip("no chromium binary found: install Debian package chromium (or set NGKIT_CHROMIUM=/path) to run the browser test")
	}
	c := stats.NewCollector()
	for i, m := range []string{"Qwen2.5-Coder-1.5B-Instruct-Q4_K_M", "SmolLM2-135M-Instruct-Q8_0", "gpt-4.1-mini-2025-04-14"} {
		for _, st := range []string{"ngseed", "ngrefine", "ngv2r", "nglabel"} {
			c.Add(&record.Record{ID: fmt.Sprintf("%s-%d", st, i), Culture: "korean",
				Gen: []record.Gen{{Stage: st, Role: "writer", Endpoint: "local-" + m, Model: m, ModelAnswered: m,
					TokensIn: 1234567, TokensOut: 234567, TokensCached: 123456, Retries: 12, CostUSD: 123.4567, CachedSavedUSD: 12.3456}}})
		}
	}
	dom, raw := chromiumDOM(t, bin, withProbe(t, renderHTML(t, c.Report())), "--window-size=1100,800")
	var res probeResult
	if err := json.Unmarshal([]byte(html.UnescapeString(raw)), &res); err != nil {
		t.Fatal(err)
	}
	if res.ViewW < 1000 {
		t.Fatalf("window %vpx wide, want a desktop's 1100", res.ViewW)
	}
	n := 0
	for _, tb := range res.Tables {
		if tb.Section != "models" {
			continue
		}
		n++
		if tb.W > tb.Box+0.5 {
			t.Errorf("a models table is %vpx wide in a %vpx box: its last columns scroll out of sight", tb.W, tb.Box)
		}
	}
	if n == 0 || !strings.Contains(dom, "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M") {
		t.Errorf("no models table laid out (%d)", n)
	}
}

// TestHTMLEvalInChromium: the PACT, simulation and by-persona charts and
// tables render in Chromium, fit a narrow window and fetch nothing.
func TestHTMLEvalInChromium(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		if os.Getenv("NGKIT_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("NGKIT_REQUIRE_CHROMIUM=1 but no chromium binary found (Debian package chromium, or set NGKIT_CHROMIUM)")
		}
		t.Skip("no chromium binary found: install Debian package chromium (or set NGKIT_CHROMIUM=/path) to run the browser test")
	}
	checkCharts(t, bin, renderHTML(t, evalTestReport(t)))
}
