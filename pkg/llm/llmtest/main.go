package llmtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"
)

// Main is the fakellm command: it serves a fake endpoint on --addr,
// prints its base URL on stdout (and to --url-file), and runs until
// SIGINT or SIGTERM, then prints how many requests it served.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("fakellm", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt Options
	addr := fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	urlFile := fs.String("url-file", "", "also write the base URL to `FILE` (for scripts)")
	faults := fs.String("faults", "", "fault kinds, comma-separated (default all: "+faultNames()+")")
	script := fs.String("script", "", "scripted replies: JSONL `FILE` of {\"contains\", \"content\", \"finish_reason\", \"status\"}")
	keyEnv := fs.String("api-key-env", "", "require the API key held by environment variable `VAR`")
	fs.DurationVar(&opt.Latency, "latency", 0, "delay every reply by `D`")
	fs.Float64Var(&opt.FaultRate, "fault-rate", 0, "share of requests that get a fault, `R` in [0,1]")
	fs.Uint64Var(&opt.Seed, "seed", 0, "seed of the fault draw")
	fs.DurationVar(&opt.RetryAfter, "retry-after", 0, "Retry-After of 429 and 503 replies (default 10ms)")
	fs.DurationVar(&opt.SlowFor, "slow-for", 0, "how long a slow reply takes (default 10s)")
	fs.BoolVar(&opt.RejectJSONSchema, "reject-json-schema", false, "answer 400 to response_format json_schema")
	upstream := fs.String("upstream", "", "record mode: forward every request to the real server at base `URL` (needs --record)")
	recordTo := fs.String("record", "", "record mode: append each {request, status, response} to JSONL `FILE`")
	replay := fs.String("replay", "", "replay mode: answer each request with its reply recorded in `FILE` (599 when there is none)")
	fs.BoolVar(&opt.PromptCache, "prompt-cache", false, "report cached_tokens as the providers' prompt cache does (a prefix of 1,024+ tokens seen before, in 128-token steps)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *faults != "" {
		for _, f := range strings.Split(*faults, ",") {
			opt.Faults = append(opt.Faults, Fault(strings.TrimSpace(f)))
		}
		for _, f := range opt.Faults {
			if !knownFault(f) {
				fmt.Fprintf(stderr, "fakellm: unknown fault %q (known: %s)\n", f, faultNames())
				return 2
			}
		}
	}
	if (*upstream == "") != (*recordTo == "") {
		fmt.Fprintln(stderr, "fakellm: --upstream and --record go together")
		return 2
	}
	if *upstream != "" && *replay != "" {
		fmt.Fprintln(stderr, "fakellm: --upstream and --replay exclude each other")
		return 2
	}
	opt.NoRecord = true // the command never shows the log
	if *keyEnv != "" {
		opt.APIKey = os.Getenv(*keyEnv)
	}
	if *script != "" {
		rules, err := readRules(*script)
		if err != nil {
			fmt.Fprintf(stderr, "fakellm: %v\n", err)
			return 2
		}
		opt.Rules = rules
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "fakellm: %v\n", err)
		return 2
	}
	url := "http://" + l.Addr().String() + "/v1"
	h, done, closeRec, err := handler(opt, *upstream, *recordTo, *replay, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "fakellm: %v\n", err)
		return 2
	}
	defer closeRec()
	hs := &http.Server{Handler: h}
	go hs.Serve(l)
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(url+"\n"), 0o644); err != nil {
			fmt.Fprintf(stderr, "fakellm: %v\n", err)
			return 2
		}
	}
	fmt.Fprintln(stdout, url)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	hs.Close()
	done()
	return 0
}

// handler is the command's server: the recorder (--upstream, --record),
// the replayer (--replay), or the fake; done prints what it did, and
// closeRec closes the recording.
func handler(opt Options, upstream, recordTo, replay string, stderr io.Writer) (_ http.Handler, done, closeRec func(), _ error) {
	switch {
	case upstream != "":
		f, err := os.OpenFile(recordTo, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, nil, err
		}
		rec := NewRecorder(upstream, f)
		done = func() { fmt.Fprintf(stderr, "fakellm: recorded %d exchanges in %s\n", rec.Count(), recordTo) }
		return rec, done, func() { f.Close() }, nil
	case replay != "":
		exs, err := ReadRecording(replay)
		if err != nil {
			return nil, nil, nil, err
		}
		rp := NewReplayer(exs)
		done = func() {
			n, miss := rp.Stats()
			fmt.Fprintf(stderr, "fakellm: replayed %d requests, %d had no recording\n", n, miss)
		}
		return rp, done, func() {}, nil
	default:
		s := newServer(opt)
		done = func() { fmt.Fprintf(stderr, "fakellm: served %d requests\n", s.Count()) }
		return s, done, func() {}, nil
	}
}

func faultNames() string {
	var n []string
	for _, f := range AllFaults {
		n = append(n, string(f))
	}
	return strings.Join(n, ",")
}

func knownFault(f Fault) bool {
	for _, k := range AllFaults {
		if k == f {
			return true
		}
	}
	return false
}

func readRules(path string) ([]Rule, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rules []Rule
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r Rule
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		rules = append(rules, r)
	}
	return rules, sc.Err()
}
