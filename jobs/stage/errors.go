package stage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"syscall"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/parallel"
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

// BugError marks a failure that only a change to the code fixes (exit 1),
// such as a recovered panic. ExitCode checks it before every other kind: a
// panic whose message mentions a timeout is still a bug, and must not be
// requeued.
type BugError struct {
	Err error
	// Stack is the panicking goroutine's stack, when a panic caused it.
	Stack []byte
}

func (e *BugError) Error() string { return e.Err.Error() }
func (e *BugError) Unwrap() error { return e.Err }

// ExitCode is ExitBug whatever Err wraps.
func (e *BugError) ExitCode() int { return ExitBug }

// recovered turns a value recovered from a panic into a *BugError carrying
// the stack of the goroutine that panicked (debug.Stack, taken in the
// deferred function, still shows the panicking frames).
func recovered(r any, where string, stack []byte) *BugError {
	// %v, not %w: a panic value that is an error must not lend its kind
	// (a net.Error, say) to the failure.
	return &BugError{Err: fmt.Errorf("panic in %s: %v (a bug)", where, r), Stack: stack}
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

// ExitCode maps an error to the process exit code. The kinds are checked
// in this order, the first that matches wins:
//
//  1. an error that knows its code (ExitCoder; a *BugError is always 1);
//  2. a panic recovered in a worker pool (parallel.PanicError): 1;
//  3. the input and config kinds of this module: 2;
//  4. interruption, a deadline, an exhausted LLM retry: 75;
//  5. an operating-system error (syscall.Errno, also inside *fs.PathError
//     or *net.OpError), by errnoKind: 2, 75 or 1;
//  6. any other network error (a timeout, DNS, *url.Error): 75;
//  7. anything else: 1.
//
// The errno step comes before the net.Error one because syscall.Errno
// implements net.Error (Timeout and Temporary): without it a permission
// error passes as a network failure, exits 75, and Slurm requeues it for
// ever.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var coder ExitCoder
	if errors.As(err, &coder) {
		return coder.ExitCode()
	}
	var (
		pan   *parallel.PanicError
		bad   *BadInputError
		cfg   *config.Error
		sch   *dataset.SchemaError
		notpq *dataset.NotParquetError
		inc   *layout.IncompleteError
		stale *StaleError
		errno syscall.Errno
		ne    net.Error
	)
	switch {
	case errors.As(err, &pan):
		return ExitBug
	case errors.As(err, &bad), errors.As(err, &cfg), errors.As(err, &sch),
		errors.As(err, &notpq), errors.As(err, &inc), errors.As(err, &stale):
		return ExitBadInput
	case errors.Is(err, ErrInterrupted), errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded):
		return ExitTempFail
	case errors.Is(err, fs.ErrPermission):
		// EACCES and EPERM (Errno.Is), and the sentinel itself.
		return ExitBadInput
	case errors.As(err, &errno):
		if code, ok := errnoKind[errno]; ok {
			return code
		}
		// An errno not in the table: transient when a network operation
		// failed with it (the first net.Error in the chain is then a
		// *net.OpError, not the bare errno), else a bug.
		if errors.As(err, &ne) {
			if _, bare := ne.(syscall.Errno); !bare {
				return ExitTempFail
			}
		}
		return ExitBug
	case errors.As(err, &ne):
		// Timeouts, DNS failures, *url.Error: the network, not the input.
		return ExitTempFail
	}
	return ExitBug
}

// errnoKind is the exit code of each operating-system error whose kind is
// known. An errno the table does not list is 1 (a bug), unless a network
// operation failed with it.
var errnoKind = map[syscall.Errno]int{
	// The path is wrong or may not be written: fix the root, an input or
	// its permissions. No retry can help.
	syscall.EACCES:       ExitBadInput,
	syscall.EPERM:        ExitBadInput,
	syscall.ENOTDIR:      ExitBadInput,
	syscall.EISDIR:       ExitBadInput,
	syscall.EROFS:        ExitBadInput,
	syscall.ENAMETOOLONG: ExitBadInput,
	syscall.ELOOP:        ExitBadInput,
	syscall.ENOENT:       ExitBadInput,

	// Network and server failures: another attempt, later or on another
	// node, can succeed.
	syscall.ECONNRESET:   ExitTempFail,
	syscall.ECONNREFUSED: ExitTempFail,
	syscall.ECONNABORTED: ExitTempFail,
	syscall.ETIMEDOUT:    ExitTempFail,
	syscall.EPIPE:        ExitTempFail,
	syscall.EHOSTUNREACH: ExitTempFail,
	syscall.EHOSTDOWN:    ExitTempFail,
	syscall.ENETUNREACH:  ExitTempFail,
	syscall.ENETDOWN:     ExitTempFail,
	syscall.ENETRESET:    ExitTempFail,
	// A busy or flaky filesystem: an NFS or Lustre server that restarted
	// (ESTALE, EIO), a resource briefly exhausted.
	syscall.EAGAIN:  ExitTempFail,
	syscall.EINTR:   ExitTempFail,
	syscall.EBUSY:   ExitTempFail,
	syscall.ESTALE:  ExitTempFail,
	syscall.EIO:     ExitTempFail,
	syscall.ENOBUFS: ExitTempFail,
	syscall.EMFILE:  ExitTempFail,
	syscall.ENFILE:  ExitTempFail,
	// A full disk or quota is 75, not 2: nothing in the input or config is
	// wrong, and the same command succeeds unchanged once space is free —
	// often without anyone acting, when other jobs on a shared scratch
	// finish and remove their temporaries. The shard leaves nothing
	// partial, and the Slurm script requeues at most slurm.max_requeues
	// times, so a disk that stays full costs a few restarts and then a
	// failed task whose log says "no space left on device", not a loop.
	syscall.ENOSPC: ExitTempFail,
	syscall.EDQUOT: ExitTempFail,
}
