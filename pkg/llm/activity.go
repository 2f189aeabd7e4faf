package llm

// Activity is the client's calls so far, for the progress line
// (pipeline.Progress.SetActivity): finished (answered, from the cache,
// or failed for good) and in flight now (holding a slot of the window).
// Both move while a record's calls are under way, before it is written.
func (c *Client) Activity() (done, inFlight int64) {
	return c.tally.Finished(), int64(c.win.InFlight())
}
