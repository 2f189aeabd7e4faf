package llm

import "context"

// Caller is what a stage needs of the client: one call, with retries,
// re-asks and the cache behind it. *Client is a Caller; tests of a stage
// may pass another.
type Caller interface {
	Call(ctx context.Context, req Request) (*Response, error)
}
