package stage

import (
	"context"
	"errors"
	"net"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/llm"
)

// Exit codes shared by every binary (SPEC §2).
const (
	ExitOK       = 0
	ExitBug      = 1  // a failure that retrying will not fix and input did not cause
	ExitBadInput = 2  // bad flags, config or data: fix the input, then rerun
	ExitTempFail = 75 // EX_TEMPFAIL: interrupted or transient; rerun resumes
)

// BadInputError marks an error caused by the user's input.
type BadInputError struct{ Err error }

func (e *BadInputError) Error() string { return e.Err.Error() }
func (e *BadInputError) Unwrap() error { return e.Err }

// BadInput wraps err as bad input (exit 2); nil stays nil.
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	return &BadInputError{Err: err}
}

// ErrInterrupted is returned when a signal stopped the shard between units
// of work; nothing partial was left and a rerun resumes.
var ErrInterrupted = errors.New("interrupted by signal; no partial output was written, rerun to resume")

// ExitCoder is an error that knows its exit code (a package above this
// one that defines its own kind of failure).
type ExitCoder interface {
	error
	ExitCode() int
}

// ExitCode maps an error to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var coder ExitCoder
	if errors.As(err, &coder) {
		return coder.ExitCode()
	}
	var (
		bad   *BadInputError
		cfg   *config.Error
		sch   *dataset.SchemaError
		notpq *dataset.NotParquetError
		inc   *layout.IncompleteError
		stale *StaleError
		ne    net.Error
	)
	switch {
	case errors.As(err, &bad), errors.As(err, &cfg), errors.As(err, &sch),
		errors.As(err, &notpq), errors.As(err, &inc), errors.As(err, &stale):
		return ExitBadInput
	case errors.Is(err, ErrInterrupted), errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne), errors.Is(err, llm.ErrExhausted):
		return ExitTempFail
	}
	return ExitBug
}
