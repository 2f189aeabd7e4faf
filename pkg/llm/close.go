package llm

import (
	"errors"
	"fmt"
	"time"
)

// Deferred counts a record left out of the output because its calls went
// to the --emit-requests file (reported in Usage).
func (c *Client) Deferred() { c.deferred.Add(1) }

// Usage reports what the calls so far did.
func (c *Client) Usage() Usage {
	price, priced := priceFor(c.prices, c.cfg.Model)
	u := c.usage.report(price, priced)
	u.Stage, u.Model, u.BaseURL = c.cfg.Stage, c.cfg.Model, redactURL(c.cfg.BaseURL)
	u.Seconds = roundSeconds(time.Since(c.start))
	u.Deferred = c.deferred.Load()
	_, u.WindowCuts = c.win.current()
	return u
}

// Close ends the run: it commits the --emit-requests file, writes
// --usage-json and prints the usage summary on stderr (unless quiet).
func (c *Client) Close() error {
	var errs []error
	if c.emit != nil {
		errs = append(errs, c.emit.close())
	}
	u := c.Usage()
	if c.cfg.UsageJSON != "" {
		if err := u.writeJSON(c.cfg.UsageJSON); err != nil {
			errs = append(errs, fmt.Errorf("--usage-json: %w", err))
		}
	}
	if !c.cfg.Quiet && c.cfg.Stderr != nil && (u.Total.Calls+u.Total.Failed+u.Total.Emitted > 0) {
		u.writeSummary(c.cfg.Stderr)
	}
	return errors.Join(errs...)
}

// Abort ends a run that did not start: the --emit-requests file is
// removed, nothing is written.
func (c *Client) Abort() {
	if c.emit != nil {
		c.emit.out.Abort()
	}
}
