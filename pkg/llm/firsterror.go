package llm

import (
	"context"
	"errors"
)

// FirstError is the error that fails a record whose calls ran in
// parallel: a real failure before the cancellations it caused (the first
// of those when nothing else failed), and ErrDeferred (--emit-requests,
// --batch) only when nothing failed.
func FirstError(errs []error) error {
	var deferred, cancelled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, ErrDeferred):
			deferred = err
		case errors.Is(err, context.Canceled):
			if cancelled == nil {
				cancelled = err
			}
		default:
			return err
		}
	}
	if cancelled != nil {
		return cancelled
	}
	return deferred
}
