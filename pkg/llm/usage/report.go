// Package usage is the accounting of a client's calls: what each call
// name and role did (CallStats, gathered by a Tally), the run's report
// (--usage-json and the summary on stderr), the price table and the cost
// of tokens (--prices), the spend limit (--budget), and the token
// estimates of --estimate. It knows nothing of how calls are made: the
// client (pkg/llm) records into it.
package usage

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// CallStats count what the calls of one name (or all) did.
type CallStats struct {
	Calls     int64 `json:"calls"`      // answered
	Failed    int64 `json:"failed"`     // given up
	CacheHits int64 `json:"cache_hits"` // answered from the cache
	Replayed  int64 `json:"replayed"`   // answered from --responses
	Emitted   int64 `json:"emitted"`    // written to --emit-requests
	// Attempts are the requests tried; Requests those that reached the
	// server (not a refused connection or a failed dial). Retries and
	// Reasks count the calls' retries and re-asks, failed calls too.
	Attempts  int64 `json:"attempts"`
	Requests  int64 `json:"requests"`
	Retries   int64 `json:"retries"`
	Reasks    int64 `json:"reasks"` // invalid structured replies asked again
	TokensIn  int64 `json:"tokens_in"`
	TokensOut int64 `json:"tokens_out"`
	// TokensCached are the prompt tokens of TokensIn the provider served
	// from its prompt cache.
	TokensCached int64 `json:"tokens_cached,omitempty"`
	// Batched counts the calls answered by the Batch API (--batch).
	Batched int64 `json:"batched,omitempty"`
	// Faults counts failed attempts by kind (429, 5xx, timeout,
	// connection, refused (never reached), malformed, empty, length, content_filter, reasoning,
	// invalid, check, ...).
	Faults  map[string]int64 `json:"faults,omitempty"`
	CostUSD float64          `json:"cost_usd"`
	// The cost's components (Cost): at list price, and what the prompt
	// cache and the Batch API took off it.
	ListCostUSD    float64 `json:"list_cost_usd,omitempty"`
	CachedSavedUSD float64 `json:"cached_saved_usd,omitempty"`
	BatchSavedUSD  float64 `json:"batch_saved_usd,omitempty"`
}

// price sets the cost fields from the tokens.
func (s *CallStats) price(p Price) {
	c := p.Costs(s.TokensIn, s.TokensCached, s.TokensOut, s.Batched > 0 && s.Batched == s.Calls-s.CacheHits)
	if s.Batched > 0 && s.Batched != s.Calls-s.CacheHits {
		// Mixed: price the batched share at the batch rate.
		on, bt := p.Costs(s.TokensIn, s.TokensCached, s.TokensOut, false), p.Costs(s.TokensIn, s.TokensCached, s.TokensOut, true)
		f := float64(s.Batched) / float64(max(s.Calls-s.CacheHits, 1))
		c = Cost{USD: on.USD*(1-f) + bt.USD*f, ListUSD: on.ListUSD, CachedSavedUSD: on.CachedSavedUSD, BatchSavedUSD: (on.USD - bt.USD) * f}
	}
	s.CostUSD, s.ListCostUSD, s.CachedSavedUSD, s.BatchSavedUSD = c.USD, c.ListUSD, c.CachedSavedUSD, c.BatchSavedUSD
}

// Fault counts a failed attempt of kind.
func (s *CallStats) Fault(kind string) {
	if s.Faults == nil {
		s.Faults = map[string]int64{}
	}
	s.Faults[kind]++
}

func (s *CallStats) add(o *CallStats) {
	s.Calls += o.Calls
	s.Failed += o.Failed
	s.CacheHits += o.CacheHits
	s.Replayed += o.Replayed
	s.Emitted += o.Emitted
	s.Attempts += o.Attempts
	s.Requests += o.Requests
	s.Retries += o.Retries
	s.Reasks += o.Reasks
	s.TokensIn += o.TokensIn
	s.TokensOut += o.TokensOut
	s.TokensCached += o.TokensCached
	s.Batched += o.Batched
	s.CostUSD += o.CostUSD
	s.ListCostUSD += o.ListCostUSD
	s.CachedSavedUSD += o.CachedSavedUSD
	s.BatchSavedUSD += o.BatchSavedUSD
	for k, v := range o.Faults {
		if s.Faults == nil {
			s.Faults = map[string]int64{}
		}
		s.Faults[k] += v
	}
}

// Report is the usage report of a run: --usage-json writes it, and its
// summary goes to stderr.
type Report struct {
	Stage string `json:"stage"`
	// Alias is the endpoint's alias (DefaultAlias: the flags' endpoint);
	// "" in the report of a run over several endpoints, whose Endpoints
	// hold each one's report.
	Alias   string  `json:"alias,omitempty"`
	Model   string  `json:"model"`
	BaseURL string  `json:"base_url"`
	Seconds float64 `json:"seconds"`
	// Priced is false when the model has no price (a local model, or one
	// missing from the table: see --prices); CostUSD is then 0.
	Priced bool   `json:"priced"`
	Price  *Price `json:"price_per_mtok,omitempty"`
	// Deferred counts records left for the Batch replies (--emit-requests).
	Deferred int64                 `json:"deferred_records,omitempty"`
	Total    CallStats             `json:"total"`
	ByCall   map[string]*CallStats `json:"by_call"`
	// ByRole is the same by model role (writer, judge, labeller, ...).
	ByRole map[string]*CallStats `json:"by_role,omitempty"`
	// Endpoints, in a run over several endpoints, are each one's report
	// (with its own ByRole: calls by role and endpoint).
	Endpoints []*Report `json:"endpoints,omitempty"`
	// Concurrency is the endpoint's window ceiling, and Utilisation the
	// mean share of it in flight over the run (calls' time in flight /
	// (Concurrency × Seconds)).
	Concurrency int     `json:"concurrency,omitempty"`
	Utilisation float64 `json:"utilisation,omitempty"`
	// WindowCuts counts the times congestion (429s, timeouts) halved the
	// concurrency window.
	WindowCuts int `json:"window_cuts,omitempty"`
}

// Tally accumulates CallStats by call name and by role.
type Tally struct {
	mu     sync.Mutex
	byCall map[string]*CallStats
	byRole map[string]*CallStats
	// finished counts the calls recorded, for the progress line.
	finished atomic.Int64
}

// Record adds the stats of a call of name call (and role, if any).
func (u *Tally) Record(call, role string, s *CallStats) {
	u.finished.Add(1)
	u.mu.Lock()
	defer u.mu.Unlock()
	addTo(&u.byCall, call, s)
	if role != "" {
		addTo(&u.byRole, role, s)
	}
}

func addTo(m *map[string]*CallStats, name string, s *CallStats) {
	if *m == nil {
		*m = map[string]*CallStats{}
	}
	c := (*m)[name]
	if c == nil {
		c = &CallStats{}
		(*m)[name] = c
	}
	c.add(s)
}

// Finished is the number of calls recorded so far.
func (u *Tally) Finished() int64 { return u.finished.Load() }

// Reset forgets the stats recorded (a new pass of --batch); Finished
// still counts them.
func (u *Tally) Reset() {
	u.mu.Lock()
	u.byCall, u.byRole = nil, nil
	u.mu.Unlock()
}

// Report totals the stats and prices them (priced: the model has a price).
func (u *Tally) Report(price Price, priced bool) Report {
	u.mu.Lock()
	defer u.mu.Unlock()
	r := Report{ByCall: map[string]*CallStats{}, Priced: priced}
	if priced {
		r.Price = &price
	}
	for name, c := range u.byCall {
		cp := *c
		if priced {
			cp.price(price)
		}
		r.ByCall[name] = &cp
		r.Total.add(&cp)
	}
	for name, c := range u.byRole {
		cp := *c
		if priced {
			cp.price(price)
		}
		if r.ByRole == nil {
			r.ByRole = map[string]*CallStats{}
		}
		r.ByRole[name] = &cp
	}
	return r
}

// writeSummary prints the report in one line; verbose (-v) adds a line per
// call and says why a cost is not estimated. Every stage of a pipeline
// prints its summary, so the default is the line that matters.
func (r *Report) writeSummary(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "%s: llm %s at %s, %.1fs: %s%s\n", r.Stage, r.Model, r.BaseURL, r.Seconds, r.Total.line(r), r.unpriced(verbose))
	// The demo's calls cost nothing and say nothing per call.
	if verbose && len(r.ByCall) > 1 && r.Model != record.DemoModel {
		for _, n := range slices.Sorted(maps.Keys(r.ByCall)) {
			fmt.Fprintf(w, "%s:   call %s: %s\n", r.Stage, n, r.ByCall[n].line(r))
		}
	}
	writeDeferred(w, r.Stage, r.Deferred)
}

// writeDeferred says how to go on when records wait for Batch replies.
func writeDeferred(w io.Writer, stage string, n int64) {
	if n > 0 {
		fmt.Fprintf(w, "%s: %s wait for the replies to the requests written: send the file to the Batch API, then run again with --responses <output file>\n", stage, count(n, "record", "records"))
	}
}

func (s *CallStats) line(r *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s answered", count(s.Calls, "call", "calls"))
	var parts []string
	if s.CacheHits > 0 {
		parts = append(parts, fmt.Sprintf("%d from the cache", s.CacheHits))
	}
	if s.Replayed > 0 {
		parts = append(parts, fmt.Sprintf("%d from --responses", s.Replayed))
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	if s.Emitted > 0 {
		fmt.Fprintf(&b, ", %d written to --emit-requests", s.Emitted)
	}
	if s.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed", s.Failed)
	}
	fmt.Fprintf(&b, "; %s", count(s.Requests, "request", "requests"))
	if s.Attempts > s.Requests {
		fmt.Fprintf(&b, " (of %d attempts: %d did not reach the server)", s.Attempts, s.Attempts-s.Requests)
	}
	if s.Retries > 0 || s.Reasks > 0 {
		fmt.Fprintf(&b, ", %s, %s", count(s.Retries, "retry", "retries"), count(s.Reasks, "re-ask", "re-asks"))
	}
	if len(s.Faults) > 0 {
		kinds := make([]string, 0, len(s.Faults))
		for k := range s.Faults {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for i, k := range kinds {
			kinds[i] = fmt.Sprintf("%s %d", k, s.Faults[k])
		}
		fmt.Fprintf(&b, " (faults: %s)", strings.Join(kinds, ", "))
	}
	if s.Batched > 0 {
		fmt.Fprintf(&b, ", %d by the Batch API", s.Batched)
	}
	fmt.Fprintf(&b, "; tokens %d in, %d out", s.TokensIn, s.TokensOut)
	if s.TokensCached > 0 {
		fmt.Fprintf(&b, " (%d in from the provider's prompt cache, %.0f%%)", s.TokensCached, 100*float64(s.TokensCached)/float64(max(s.TokensIn, 1)))
	}
	if r.Priced {
		fmt.Fprintf(&b, "; est. cost $%.4f", s.CostUSD)
		if s.CachedSavedUSD > 0 || s.BatchSavedUSD > 0 {
			fmt.Fprintf(&b, " (list $%.4f", s.ListCostUSD)
			if s.BatchSavedUSD > 0 {
				fmt.Fprintf(&b, ", batch -$%.4f", s.BatchSavedUSD)
			}
			if s.CachedSavedUSD > 0 {
				fmt.Fprintf(&b, ", cached input -$%.4f", s.CachedSavedUSD)
			}
			b.WriteString(")")
		}
	}
	return b.String()
}

// unpriced is the note of a summary whose model has no price, said once
// on its first line (not on each call's or role's line under it); why,
// with -v.
func (r *Report) unpriced(verbose bool) string {
	switch {
	case r.Priced || r.Model == record.DemoModel: // canned text has no price to estimate
		return ""
	case !verbose:
		return "; cost not estimated (see --prices)"
	}
	return fmt.Sprintf("; cost not estimated (no price for %s here: the built-in prices are OpenAI's, used only at %s; see --prices)", r.Model, OpenAIHost)
}

// writeJSON writes the report to path as every output is written
// (atomically onto a file, into a device or a pipe).
func (r *Report) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return recio.WriteFile(path, append(b, '\n'))
}

// count is n with the noun in its number: "1 call", "2 calls".
func count[N int | int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Combine is the report of a run of stage over several endpoints, of the
// given seconds: the totals, with each endpoint's report in Endpoints.
func Combine(stage string, seconds float64, endpoints []Report) Report {
	u := Report{Stage: stage, Seconds: seconds, ByCall: map[string]*CallStats{}, ByRole: map[string]*CallStats{}, Priced: true}
	var models, urls []string
	for i := range endpoints {
		e := &endpoints[i]
		u.Endpoints = append(u.Endpoints, e)
		u.Total.add(&e.Total)
		u.Priced = u.Priced && e.Priced
		u.Deferred += e.Deferred
		u.WindowCuts += e.WindowCuts
		for k, v := range e.ByCall {
			addTo(&u.ByCall, k, v)
		}
		for k, v := range e.ByRole {
			addTo(&u.ByRole, k, v)
		}
		models, urls = append(models, e.Model), append(urls, e.BaseURL)
	}
	u.Model, u.BaseURL = strings.Join(models, ","), strings.Join(urls, ",")
	return u
}

// Write writes the report to usageJSON (--usage-json; "": not) and,
// unless quiet, its summary on stderr (nil: not): one line, or with
// several endpoints a line per endpoint and, with verbose, per role.
func (u *Report) Write(usageJSON string, stderr io.Writer, quiet, verbose bool) error {
	var err error
	if usageJSON != "" {
		if werr := u.writeJSON(usageJSON); werr != nil {
			err = fmt.Errorf("--usage-json: %w", werr)
		}
	}
	if !quiet && stderr != nil && u.Total.Calls+u.Total.Failed+u.Total.Emitted > 0 {
		if len(u.Endpoints) == 0 {
			u.writeSummary(stderr, verbose)
		} else {
			u.writeEndpointsSummary(stderr, verbose)
		}
	}
	return err
}

// writeEndpointsSummary prints, for several endpoints, a line per
// endpoint and, under it, a line per role it served.
func (u *Report) writeEndpointsSummary(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "%s: llm over %d endpoints, %.1fs: %s\n", u.Stage, len(u.Endpoints), u.Seconds, u.Total.line(u))
	for _, e := range u.Endpoints {
		fmt.Fprintf(w, "%s:   endpoint %s (%s at %s, %.0f%% of its %d-call window in use): %s%s\n", u.Stage, e.Alias, e.Model, e.BaseURL,
			100*e.Utilisation, e.Concurrency, e.Total.line(e), e.unpriced(verbose))
		if !verbose {
			continue
		}
		for _, r := range slices.Sorted(maps.Keys(e.ByRole)) {
			fmt.Fprintf(w, "%s:     role %s: %s\n", u.Stage, r, e.ByRole[r].line(e))
		}
	}
	writeDeferred(w, u.Stage, u.Deferred)
}
