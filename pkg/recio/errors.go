package recio

import (
	"fmt"
	"strings"
)

// recoverAs turns a panic into *err, for libraries that panic on bad input
// or unsupported types. It must be deferred directly.
func recoverAs(err *error, format string, args ...any) {
	if p := recover(); p != nil {
		msg := fmt.Sprintf(format, args...)
		*err = oneLine(fmt.Errorf("%s: %v", msg, p))
	}
}

// oneLine keeps error messages on one line: some library errors and panic
// values span several.
func oneLine(err error) error {
	if err == nil || !strings.ContainsAny(err.Error(), "\r\n") {
		return err
	}
	return &oneLineError{err}
}

type oneLineError struct{ err error }

func (e *oneLineError) Error() string {
	return strings.Join(strings.Fields(e.err.Error()), " ")
}

func (e *oneLineError) Unwrap() error { return e.err }
