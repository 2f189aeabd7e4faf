package app

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/ngkit/ngkit/pkg/pipeline"
)

// Exit statuses shared by all programs.
const (
	ExitOK          = 0   // every record made it
	ExitFailed      = 1   // some records failed; they are in the errors file
	ExitUsage       = 2   // bad usage or unreadable input
	ExitInterrupted = 130 // stopped by a signal; what was done is flushed
	ExitBrokenPipe  = 141 // the reader of stdout left early (| head), as SIGPIPE ends a Unix program; silent
)

// ExitError ends a program with an exit status other than 0 (or with 0
// after --help). Parse, Execute and Run return one; Exit, the one place
// that turns errors into exit statuses, prints Msg and returns Code. Err
// is the cause, when there is one (as restic's Fatal keeps it), so that
// errors.Is and errors.As see through the exit status to it.
type ExitError struct {
	Code int
	// Msg is the line for stderr, led by the program's name; empty when
	// what went wrong is already printed.
	Msg string
	// Err is the cause (nil when the error is only Msg).
	Err error
}

// Unwrap is the cause.
func (e *ExitError) Unwrap() error { return e.Err }

func (e *ExitError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Msg
}

// errHelped stops a program after --help: exit 0, nothing more to print.
var errHelped = &ExitError{Code: ExitOK}

// UsageError is a bad invocation: exit 2.
func UsageError(prog string, err error) error {
	return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("%s: %v", prog, err), Err: err}
}

// InputError is unreadable input (a malformed line, a missing file): exit 2.
func InputError(prog string, err error) error {
	return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("%s: %v", prog, err), Err: err}
}

// FailedError says some records failed (or the run was stopped early):
// exit 1. An empty msg prints nothing.
func FailedError(prog, msg string) error {
	if msg == "" {
		return &ExitError{Code: ExitFailed}
	}
	return &ExitError{Code: ExitFailed, Msg: prog + ": " + msg}
}

// InterruptedError says a signal stopped the run: exit 130.
func InterruptedError(prog, msg string) error {
	return &ExitError{Code: ExitInterrupted, Msg: prog + ": " + msg}
}

// Exit maps a program's error to its exit status, printing its line on
// stderr (whole, never glued to a progress bar line: see
// pipeline.MessageWriter). A nil error is 0; an error that is not an
// *ExitError is a usage error, printed as it is.
func Exit(env Env, err error) int {
	if err == nil {
		return ExitOK
	}
	var e *ExitError
	if !errors.As(err, &e) {
		e = &ExitError{Code: ExitUsage, Msg: err.Error(), Err: err}
	}
	if e.Msg != "" {
		fmt.Fprintln(pipeline.MessageWriter(env.Stderr), e.Msg)
	}
	return e.Code
}

// Main runs a program in this process: main calls
// os.Exit(app.Main(cli.Ngv2r, demo.Endpoint)); demo is Env.Demo, nil for a
// program that calls no model.
func Main(prog func(Env) error, demo func() (baseURL string, client *http.Client)) int {
	env := OSEnv()
	env.Demo = demo
	return Exit(env, prog(env))
}
