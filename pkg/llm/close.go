package llm

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Deferred counts a record left out of the output because its calls went
// to the --emit-requests file (reported in Usage).
func (c *Client) Deferred() { c.deferred.Add(1) }

// Usage reports what the calls so far did.
func (c *Client) Usage() Usage {
	price, priced := priceFor(c.prices, c.cfg.Model)
	u := c.usage.report(price, priced)
	u.Stage, u.Model, u.BaseURL = c.cfg.Stage, c.cfg.Model, RedactURL(c.cfg.BaseURL)
	u.Seconds = roundSeconds(time.Since(c.start))
	u.Deferred = c.deferred.Load()
	_, u.WindowCuts = c.win.current()
	return u
}

// Close ends the run: it commits the --emit-requests file, writes
// --usage-json and prints the usage summary on stderr (unless quiet).
func (c *Client) Close() error {
	errs := []error{c.CloseRequests()}
	u := c.Usage()
	errs = append(errs, u.Report(c.cfg.UsageJSON, c.cfg.Stderr, c.cfg.Quiet, c.cfg.Verbose))
	return errors.Join(errs...)
}

// CloseRequests commits the --emit-requests file, if any.
func (c *Client) CloseRequests() error {
	if c.emit == nil {
		return nil
	}
	return c.emit.close()
}

// EndpointUsage is the client's report with its alias, window and the
// share of the window in use over the run.
func (c *Client) EndpointUsage() Usage {
	u := c.Usage()
	u.Alias, u.Concurrency = c.cfg.Alias, c.cfg.Concurrency
	if secs := time.Since(c.start).Seconds(); secs > 0 && c.cfg.Concurrency > 0 {
		u.Utilisation = float64(int(1000*c.win.busy().Seconds()/(secs*float64(c.cfg.Concurrency)))) / 1000
	}
	return u
}

// EndpointsUsage is the report of a run of stage over several endpoints
// since start: with one endpoint that endpoint's report (with by_role);
// with several, the totals with each endpoint's report in Endpoints.
func EndpointsUsage(stage string, start time.Time, clients []*Client) Usage {
	if len(clients) == 1 {
		return clients[0].EndpointUsage()
	}
	u := Usage{Stage: stage, ByCall: map[string]*CallStats{}, ByRole: map[string]*CallStats{}, Priced: true}
	u.Seconds = roundSeconds(time.Since(start))
	var models, urls []string
	for _, c := range clients {
		e := c.EndpointUsage()
		u.Endpoints = append(u.Endpoints, &e)
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

// Report writes the report to usageJSON (--usage-json; "": not) and,
// unless quiet, its summary on stderr (nil: not): one line, or with
// several endpoints a line per endpoint and, with verbose, per role.
func (u *Usage) Report(usageJSON string, stderr io.Writer, quiet, verbose bool) error {
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
func (u *Usage) writeEndpointsSummary(w io.Writer, verbose bool) {
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

// Abort ends a run that did not start: the --emit-requests file is
// removed, nothing is written.
func (c *Client) Abort() {
	if c.emit != nil {
		c.emit.out.Abort()
	}
}
