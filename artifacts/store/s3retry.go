package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddle "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go/middleware"
	"github.com/rs/zerolog"
)

// Defaults of the S3 retry policy. With them a request is tried 10 times
// over about 20–40 s (waits of 0.125–0.25 s, doubling, capped at 4–8 s):
// long enough to outlast a server restart or a burst of SlowDown, short
// enough that a dead endpoint fails the shard in minutes, not hours.
const (
	defaultAttempts   = 10
	defaultTimeout    = 30 * time.Second
	defaultMaxBackoff = 8 * time.Second
	backoffBase       = 250 * time.Millisecond
)

// Stats counts the S3 requests made under one context (see WithStats):
// the calls themselves and the reads and uploads of the Objects and
// Writers opened with it.
type Stats struct {
	Requests atomic.Int64 // HTTP attempts, retries included
	Retries  atomic.Int64 // failed attempts that were tried again
	Timeouts atomic.Int64 // of those, attempts on which no byte moved for timeout_seconds
}

type statsKey struct{}

// WithStats makes every S3 request under ctx count in s. A jobs/stage
// shard attaches one and records it in its manifest.
func WithStats(ctx context.Context, s *Stats) context.Context {
	return context.WithValue(ctx, statsKey{}, s)
}

func statsOf(ctx context.Context) *Stats {
	s, _ := ctx.Value(statsKey{}).(*Stats)
	return s
}

// retryPolicy is one store's attempts and backoff, shared by the SDK's
// retryer and the store's own retries of interrupted GetObject bodies.
type retryPolicy struct {
	attempts   int
	timeout    time.Duration
	maxBackoff time.Duration
	minRate    float64 // bytes per second of an object body
}

// defaultMinRate is storage.s3.min_bytes_per_second's default.
const defaultMinRate = 16 << 10

func newRetryPolicy(o S3Options) retryPolicy {
	p := retryPolicy{attempts: o.MaxAttempts, timeout: defaultTimeout, maxBackoff: defaultMaxBackoff, minRate: defaultMinRate}
	if o.MinBytesPerSecond > 0 {
		p.minRate = o.MinBytesPerSecond
	}
	if p.attempts == 0 {
		p.attempts = defaultAttempts
	}
	if o.TimeoutSeconds > 0 {
		p.timeout = time.Duration(o.TimeoutSeconds * float64(time.Second))
	}
	if o.MaxBackoffSeconds > 0 {
		p.maxBackoff = time.Duration(o.MaxBackoffSeconds * float64(time.Second))
	}
	return p
}

// backoff is the wait after failed attempt n (n ≥ 1): "equal jitter", half
// of min(maxBackoff, base·2ⁿ⁻¹) plus a random part of the other half, so
// that the retry window has a floor (a fixed restart time is outlasted
// every time, not on average) while parallel shards still spread out.
func (p retryPolicy) backoff(n int) time.Duration {
	d := p.maxBackoff
	if n-1 < 32 {
		if e := backoffBase << (n - 1); e < d {
			d = e
		}
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d-d/2)
}

// retryer is the SDK's standard retryer with this policy's attempts and
// backoff, no retry quota (a batch job would rather keep trying than fail
// a burst outright), more errors retried (any 429 and 5xx but 501, and
// stalls), credential failures never retried, and each attempt and retry
// counted in the context's Stats and each retry logged.
type retryer struct {
	*retry.Standard
	p retryPolicy
}

func newRetryer(p retryPolicy) *retryer {
	return &retryer{p: p, Standard: retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = p.attempts
		so.RateLimiter = ratelimit.None
		so.Backoff = retry.BackoffDelayerFunc(func(n int, _ error) (time.Duration, error) { return p.backoff(n), nil })
		so.Retryables = append([]retry.IsErrorRetryable{retry.IsErrorRetryableFunc(retryable)}, so.Retryables...)
	})}
}

// retryable decides first, before the SDK's defaults: configuration
// failures are final, other server errors and stalls are worth a retry.
func retryable(err error) aws.Ternary {
	// The SDK marks a signature refused for clock skew retryable once it
	// has corrected its clock: let that retry happen.
	var marked interface{ RetryableError() bool }
	if errors.As(err, &marked) && marked.RetryableError() {
		return aws.TrueTernary
	}
	switch kind, _ := s3Kind(err); {
	case kind == Config:
		return aws.FalseTernary
	case httpStatus(err) == 429 || httpStatus(err) >= 500:
		return aws.TrueTernary
	}
	var stall *stallError
	if errors.As(err, &stall) {
		return aws.TrueTernary
	}
	return aws.UnknownTernary
}

func (r *retryer) GetAttemptToken(ctx context.Context) (func(error) error, error) {
	if s := statsOf(ctx); s != nil {
		s.Requests.Add(1)
	}
	if op, ok := ctx.Value(opKey{}).(*opState); ok {
		op.attempt++
	}
	return r.Standard.GetAttemptToken(ctx)
}

// GetRetryToken is called once the SDK has decided to retry opErr.
func (r *retryer) GetRetryToken(ctx context.Context, opErr error) (func(error) error, error) {
	attempt := 0
	if op, ok := ctx.Value(opKey{}).(*opState); ok {
		attempt = op.attempt
	}
	noteRetry(ctx, awsmiddle.GetOperationName(ctx), attempt, r.p.attempts, opErr)
	return r.Standard.GetRetryToken(ctx, opErr)
}

// noteRetry counts and logs one retry (the SDK's or the store's own).
func noteRetry(ctx context.Context, op string, attempt, attempts int, err error) {
	var stall *stallError
	var slow *slowError
	timedOut := errors.As(err, &stall) || errors.As(err, &slow)
	if s := statsOf(ctx); s != nil {
		s.Retries.Add(1)
		if timedOut {
			s.Timeouts.Add(1)
		}
	}
	zerolog.Ctx(ctx).Info().Str("op", op).Int("attempt", attempt).Int("max_attempts", attempts).
		Bool("timeout", timedOut).Str("error", err.Error()).Msg("s3: retrying")
}

// opState numbers the attempts of one SDK operation, for the log.
type opState struct{ attempt int }
type opKey struct{}

// countAttempts gives each operation its opState.
func countAttempts(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("SaberAttemptCount",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			return next.HandleInitialize(context.WithValue(ctx, opKey{}, &opState{}), in)
		}), middleware.Before)
}

// stallError is an attempt on which no byte moved for the timeout. It is a
// net.Error timeout, so the SDK (and anything else) treats it as one.
type stallError struct{ timeout time.Duration }

func (e *stallError) Error() string {
	return fmt.Sprintf("no data moved for %s (storage.s3.timeout_seconds)", e.timeout)
}
func (e *stallError) Timeout() bool   { return true }
func (e *stallError) Temporary() bool { return true }

// slowError is an object body that came slower than
// storage.s3.min_bytes_per_second. Like a stall it is a net.Error timeout:
// transient, retried, and in the end exit 75.
type slowError struct {
	rate, min float64
	after     time.Duration
}

func (e *slowError) Error() string {
	return fmt.Sprintf("body came at %.0f bytes/s over %s, below %.0f (storage.s3.min_bytes_per_second)", e.rate, e.after.Round(time.Millisecond), e.min)
}
func (e *slowError) Timeout() bool   { return true }
func (e *slowError) Temporary() bool { return true }

// rateReader fails a body whose average rate since start is below min
// once window has passed. A stall (no byte at all) is the connection's to
// catch (stallConn); this catches the trickle that is never silent for
// long. Judging from the first window on, not per read, lets a body
// that starts slow (a cold server) catch up.
type rateReader struct {
	r      io.Reader
	min    float64
	window time.Duration
	start  time.Time
	n      int64
}

func (r *rateReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += int64(n)
	if err == nil && r.min > 0 {
		if el := time.Since(r.start); el >= r.window {
			if rate := float64(r.n) / el.Seconds(); rate < r.min {
				return n, &slowError{rate: rate, min: r.min, after: el}
			}
		}
	}
	return n, err
}

// stallConn fails a connection on which no byte has moved, in either
// direction, for timeout: every Read or Write pushes both deadlines
// forward. A server that accepts and never answers, one that stops in the
// middle of a body, and one that stops reading an upload all fail one
// attempt, while a slow transfer that keeps moving (a large part on a slow
// link, a CompleteMultipartUpload that sends keep-alive spaces) does not.
// Reads alone would not do: the transport's reader waits all through an
// upload, and an upload longer than the timeout would fail.
type stallConn struct {
	net.Conn
	timeout time.Duration
}

func (c *stallConn) Read(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.timeout))
	n, err := c.Conn.Read(p)
	return n, c.wrap(err)
}

func (c *stallConn) Write(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.timeout))
	n, err := c.Conn.Write(p)
	return n, c.wrap(err)
}

func (c *stallConn) wrap(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &stallError{timeout: c.timeout}
	}
	return err
}

// stallDialer dials connections that fail on stalls; connecting itself is
// bounded by the same timeout.
func stallDialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &stallConn{Conn: c, timeout: timeout}, nil
	}
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// truncatedError is a GetObject body that ended before the bytes its
// Content-Range promised: the connection broke, so it is worth a retry.
type truncatedError struct{ err error }

func (e *truncatedError) Error() string   { return e.err.Error() }
func (e *truncatedError) Unwrap() error   { return e.err }
func (e *truncatedError) Timeout() bool   { return false }
func (e *truncatedError) Temporary() bool { return true }
