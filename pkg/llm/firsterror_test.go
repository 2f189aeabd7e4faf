package llm

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestFirstError(t *testing.T) {
	real := errors.New("boom")
	c1, c2 := fmt.Errorf("a: %w", context.Canceled), fmt.Errorf("b: %w", context.Canceled)
	d := fmt.Errorf("x: %w", ErrDeferred)
	for _, c := range []struct {
		errs []error
		want error
	}{
		{nil, nil},
		{[]error{nil, nil}, nil},
		{[]error{d, c1, real, c2}, real},
		{[]error{d, c1, c2}, c1},
		{[]error{nil, d, nil}, d},
	} {
		if got := FirstError(c.errs); got != c.want {
			t.Errorf("FirstError(%v) = %v, want %v", c.errs, got, c.want)
		}
	}
}
