// Package cli holds what every command of this project shares: exit codes and the error
// that carries one, so that each main stays `if err := run(...); err != nil { exit }`.
package cli

import (
	"errors"
	"fmt"
)

// Exit codes of every command (DESIGN.md).
const (
	// ExitOK means the job was done and found nothing wrong (a conforming run, a clean lint).
	ExitOK = 0
	// ExitFail means the job was done and found something wrong (not conforming, lint errors,
	// breaking changes).
	ExitFail = 1
	// ExitUnable means the job could not be done: bad flags, unreachable target, unreadable spec.
	ExitUnable = 2
)

// ExitError is an error that carries the exit code the command should end with. Its message
// is the one line printed on stderr; an empty message prints nothing (the report said it).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Failed returns the error for "the job was done and the verdict is negative" (exit 1). The
// report already explains why, so the message may be empty.
func Failed(format string, args ...any) error {
	if format == "" {
		return &ExitError{Code: ExitFail}
	}
	return &ExitError{Code: ExitFail, Err: fmt.Errorf(format, args...)}
}

// Usagef returns an exit-2 error with a one-line message (bad flag, unreadable input).
func Usagef(format string, args ...any) error {
	return &ExitError{Code: ExitUnable, Err: fmt.Errorf(format, args...)}
}

// Code returns the exit code for err: 0 for nil, the carried code for an *ExitError, and 2
// (the job could not be done) for any other error.
func Code(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *ExitError
	if errors.As(err, &e) {
		return e.Code
	}
	return ExitUnable
}
