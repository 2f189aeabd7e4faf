package llm

import (
	"errors"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/usage"
)

// Deferred counts a record left out of the output because its calls went
// to the --emit-requests file (reported in Usage).
func (c *Client) Deferred() { c.deferred.Add(1) }

// Usage reports what the calls so far did.
func (c *Client) Usage() usage.Report {
	price, priced := c.prices.For(c.cfg.Model)
	u := c.tally.Report(price, priced)
	u.Stage, u.Model, u.BaseURL = c.cfg.Stage, c.cfg.Model, RedactURL(c.cfg.BaseURL)
	u.Seconds = roundSeconds(time.Since(c.start))
	u.Deferred = c.deferred.Load()
	_, u.WindowCuts = c.win.Current()
	return u
}

// Close ends the run: it commits the --emit-requests file, writes
// --usage-json and prints the usage summary on stderr (unless quiet).
func (c *Client) Close() error {
	errs := []error{c.CloseRequests()}
	u := c.Usage()
	errs = append(errs, u.Write(c.cfg.UsageJSON, c.cfg.Stderr, c.cfg.Quiet, c.cfg.Verbose))
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
func (c *Client) EndpointUsage() usage.Report {
	u := c.Usage()
	u.Alias, u.Concurrency = c.cfg.Alias, c.cfg.Concurrency
	if secs := time.Since(c.start).Seconds(); secs > 0 && c.cfg.Concurrency > 0 {
		u.Utilisation = float64(int(1000*c.win.Busy().Seconds()/(secs*float64(c.cfg.Concurrency)))) / 1000
	}
	return u
}

// EndpointsUsage is the report of a run of stage over several endpoints
// since start: with one endpoint that endpoint's report (with by_role);
// with several, the totals with each endpoint's report in Endpoints.
func EndpointsUsage(stage string, start time.Time, clients []*Client) usage.Report {
	if len(clients) == 1 {
		return clients[0].EndpointUsage()
	}
	reports := make([]usage.Report, len(clients))
	for i, c := range clients {
		reports[i] = c.EndpointUsage()
	}
	return usage.Combine(stage, roundSeconds(time.Since(start)), reports)
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Milliseconds()) / 1000
}

// Abort ends a run that did not start: the --emit-requests file is
// removed, nothing is written.
func (c *Client) Abort() {
	if c.emit != nil {
		c.emit.out.Abort()
	}
}
