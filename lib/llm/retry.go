package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// attemptFunc makes one HTTP request under ctx and leaves the raw response
// (if any) in *res, so failures are classified by status and headers even
// when the error body could not be decoded.
type attemptFunc func(ctx context.Context, res **http.Response) error

// retry runs do until it succeeds, fails permanently, ctx ends, or
// MaxAttempts requests have been made. Each attempt holds a concurrency slot
// and a rate token, and runs under its own timeout inside ctx, so the
// caller's deadline always wins. It returns the number of requests made.
func (c *Client) retry(ctx context.Context, op string, do attemptFunc) (int, error) {
	for attempt := 1; ; attempt++ {
		// A configuration error seen by any call stops every call: no
		// request is sent that the server is known to refuse.
		if ce := c.broken.Load(); ce != nil {
			c.countKind("config")
			return attempt - 1, ce
		}
		if err := c.acquire(ctx); err != nil {
			c.countKind("canceled")
			return attempt - 1, fmt.Errorf("llm: %s: waiting to send request %d: %w", op, attempt, err)
		}
		actx, cancel := context.WithTimeout(ctx, c.timeout)
		var res *http.Response
		c.sent.Add(1)
		c.busyClock.start(time.Now())
		err := do(actx, &res)
		c.busyClock.end(time.Now())
		timedOut := err != nil && actx.Err() != nil
		cancel()
		<-c.sem
		if err == nil {
			c.rejectStreak.Store(0)
			return attempt, nil
		}
		if ctx.Err() != nil {
			c.countKind("canceled")
			return attempt, fmt.Errorf("llm: %s: request %d: %w", op, attempt, ctx.Err())
		}

		f := c.classify(err, res, timedOut)
		c.countKind(f.kind)
		if f.permanent {
			if ce := c.permanentIsConfig(op, f); ce != nil {
				return attempt, ce
			}
			return attempt, fmt.Errorf("llm: %s: %s: %w (%w)", op, f.kind, f.err, ErrPermanent)
		}
		if attempt >= c.cfg.MaxAttempts {
			return attempt, fmt.Errorf("llm: %s: giving up after %d attempts, last: %s: %w (%w)", op, attempt, f.kind, f.err, ErrExhausted)
		}
		wait := c.backoff(attempt)
		if f.retryAfter > wait {
			wait = f.retryAfter
		}
		c.retries.Add(1)
		zerolog.Ctx(ctx).Debug().Str("op", op).Str("model", c.cfg.Model).Str("kind", f.kind).
			Int("attempt", attempt).Int64("wait_ms", wait.Milliseconds()).Msg("llm: retrying")
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				c.countKind("canceled")
				return attempt, fmt.Errorf("llm: %s: waiting to retry after %s: %w", op, f.kind, ctx.Err())
			}
		}
	}
}

// permanentIsConfig decides whether a permanent HTTP failure is the
// configuration's, not the request's: 401, 403 and 404 always are (no
// document changes the key or the model); any other status is once it has
// been the answer to MaxConsecutiveRejects requests in a row. The first
// ConfigError is kept, and every later call returns it unsent.
func (c *Client) permanentIsConfig(op string, f failure) *ConfigError {
	var ce *ConfigError
	switch {
	case f.kind == "dns_not_found":
		k := c.cfg.Key("base_url")
		ce = &ConfigError{Setting: k, Op: op, Err: f.err,
			Msg: fmt.Sprintf("the host of %s does not resolve (no such host): check %s (or $SABER_LLM_BASE_URL), and that this node can resolve it", c.cfg.BaseURL, k)}
	case f.status == 0:
		return nil
	default:
		ce = c.configError(op, f, f.err)
	}
	if ce == nil {
		if n := c.rejectStreak.Add(1); n >= int64(c.cfg.MaxConsecutiveRejects) {
			ce = c.rejectStreakError(op, f.status, n, f.err)
		}
	}
	if ce == nil {
		return nil
	}
	if c.broken.CompareAndSwap(nil, ce) {
		return ce
	}
	return c.broken.Load()
}

// acquire takes a concurrency slot, then a rate token.
func (c *Client) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if c.limit != nil {
		if err := c.limit.Wait(ctx); err != nil {
			<-c.sem
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
	}
	return nil
}

// backoff is the full-jitter wait before retry n (n ≥ 1).
func (c *Client) backoff(n int) time.Duration {
	d := c.backoffCap
	if n-1 < 40 {
		if e := c.backoffBase << (n - 1); e > 0 && e < d {
			d = e
		}
	}
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

// failure is a classified failed attempt.
type failure struct {
	kind       string
	permanent  bool
	retryAfter time.Duration
	status     int   // the HTTP status; 0 when there was no response
	tooLarge   bool  // a 5xx whose message says the input is too large
	err        error // safe to show: redacted
}

// classify names a failed attempt and says whether retrying can help.
// Everything not known to be the caller's fault is retried: 429, 5xx,
// timeouts, broken connections, truncated or malformed bodies, and answers
// without choices.
func (c *Client) classify(err error, res *http.Response, timedOut bool) failure {
	switch {
	case timedOut:
		return failure{kind: "timeout", err: fmt.Errorf("no answer within %s", c.timeout)}
	case res != nil && res.StatusCode >= 400:
		f := failure{kind: "http_" + strconv.Itoa(res.StatusCode), status: res.StatusCode, permanent: permanentStatus(res.StatusCode)}
		f.err = c.statusError(err, res.StatusCode)
		// A 500 that says the input is too large repeats on every attempt
		// (llama.cpp: "input (525 tokens) is too large to process. increase
		// the physical batch size"): retrying only turns exit 2 into 75.
		if res.StatusCode == http.StatusInternalServerError && inputTooLarge.MatchString(serverMessage(err)) {
			f.permanent, f.tooLarge = true, true
		}
		if !f.permanent {
			f.retryAfter = retryAfter(res.Header, time.Now())
		}
		return f
	case errors.Is(err, errEmptyChoices):
		return failure{kind: "empty_choices", err: err}
	case errors.Is(err, errMalformedAnswer):
		return failure{kind: "malformed_json", err: err}
	}
	f := failure{kind: "other", err: c.redact(err)}
	// A host name that does not resolve is a typo in base_url, not a
	// server that is down: no retry or requeue fixes it (as S3's endpoint).
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		f.kind, f.permanent = "dns_not_found", true
		return f
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var ue *url.Error
	var ne net.Error
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "error reading response body"), errors.Is(err, io.ErrUnexpectedEOF):
		f.kind = "truncated"
	case strings.HasPrefix(msg, "error parsing response json"), errors.As(err, &syn), errors.As(err, &typ):
		f.kind = "malformed_json"
	case errors.As(err, &ue), errors.As(err, &ne), errors.Is(err, io.EOF):
		f.kind = "connection"
	}
	return f
}

// permanentStatus says which HTTP statuses no retry can fix: the client
// errors, except timeout (408), conflict (409), too early (425) and too many
// requests (429); and 501 Not Implemented, which a server answers for an
// endpoint it was not started with (llama-server without --embeddings or
// --reranking), every time.
func permanentStatus(code int) bool {
	if code == http.StatusNotImplemented {
		return true
	}
	if code < 400 || code >= 500 {
		return false
	}
	switch code {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooEarly, http.StatusTooManyRequests:
		return false
	}
	return true
}

// inputTooLarge matches a server's message for an input longer than it can
// process in one batch or context: llama.cpp's "input (N tokens) is too
// large to process", and the same said otherwise.
var inputTooLarge = regexp.MustCompile(`(?i)too (large|long) to process|input .*(too (large|long)|exceeds)`)

// serverMessage is the message of the server's error body, "" when it had
// none saber could read.
func serverMessage(err error) string {
	var apiErr *apiError
	if errors.As(err, &apiErr) {
		return apiErr.Message
	}
	return ""
}

// statusError describes an HTTP error with the server's message, which says
// what was wrong (context too long, unknown model...). Not for 401 and 403:
// OpenAI quotes part of the key there.
func (c *Client) statusError(err error, code int) error {
	text := fmt.Sprintf("HTTP %d %s", code, http.StatusText(code))
	var apiErr *apiError
	if code != http.StatusUnauthorized && code != http.StatusForbidden && errors.As(err, &apiErr) && apiErr.Message != "" {
		m := apiErr.Message
		if len(m) > 300 {
			m = m[:300] + "…"
		}
		text += ": " + m
	}
	return errors.New(c.scrub(text))
}

// scrub replaces the API key in s.
func (c *Client) scrub(s string) string {
	if c.apiKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.apiKey, "[REDACTED]")
}

// retryAfter reads how long the server asks us to wait: Retry-After-Ms
// (OpenAI), else Retry-After in seconds or as an HTTP date. It is bounded
// by maxRetryAfter; absent or unreadable means 0.
func retryAfter(h http.Header, now time.Time) time.Duration {
	var d time.Duration
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			d = time.Duration(min(ms, float64(maxRetryAfter/time.Millisecond)) * float64(time.Millisecond))
		}
	} else if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			if s > 0 {
				d = time.Duration(min(s, maxRetryAfter.Seconds()) * float64(time.Second))
			}
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	return max(0, min(d, maxRetryAfter))
}

// redact replaces the API key in err's message, in case a server or a
// library ever echoes it. The original stays reachable through Unwrap for
// errors.Is and errors.As.
func (c *Client) redact(err error) error {
	if err == nil || c.apiKey == "" || !strings.Contains(err.Error(), c.apiKey) {
		return err
	}
	return &redactedError{msg: c.scrub(err.Error()), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
