package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
)

// Kind says what fixes a failed storage call. Only failures whose cause is
// certain get one; the rest (a missing object, a lost write-once race, a
// server answering nonsense) are left to the caller, who knows what the
// object meant.
type Kind int

const (
	// Transient: the service was unavailable, throttled or silent on every
	// attempt. A rerun resumes (exit 75).
	Transient Kind = iota + 1
	// Config: the credentials, the bucket or the endpoint are wrong, and no
	// retry can fix them (exit 2).
	Config
)

func (k Kind) String() string {
	switch k {
	case Transient:
		return "transient"
	case Config:
		return "config"
	}
	return "unknown"
}

// Exit codes of SPEC §2, repeated here because jobs/stage (which defines
// them) imports this package.
const (
	exitBadInput = 2
	exitTempFail = 75
)

// Error is a storage failure of a known Kind. Its message names the call,
// the URI and what to check; it carries no credentials.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ExitCode makes Error a jobs/stage ExitCoder: the kind decides the exit
// code, whatever the stage wrapped around it (a 503 while reading an input
// is still worth a rerun).
func (e *Error) ExitCode() int {
	if e.Kind == Config {
		return exitBadInput
	}
	return exitTempFail
}

// KindOf returns the Kind of the first *Error in err's chain, or 0.
func KindOf(err error) Kind {
	var se *Error
	if errors.As(err, &se) {
		return se.Kind
	}
	return 0
}

// authCodes are the S3 error codes of refused credentials or permissions.
var authCodes = map[string]bool{
	"AccessDenied": true, "AllAccessDisabled": true, "AccountProblem": true,
	"InvalidAccessKeyId": true, "SignatureDoesNotMatch": true, "InvalidSecurity": true,
	"InvalidToken": true, "ExpiredToken": true, "TokenRefreshRequired": true,
	"RequestTimeTooSkewed": true, "Forbidden": true, "Unauthorized": true,
	"MissingSecurityHeader": true, "CredentialsNotSupported": true, "InvalidClientTokenId": true,
	// versitygw answers an unknown access key with 404 XAdminUserNotFound.
	"XAdminUserNotFound": true,
}

// s3Kind is the one place that decides what an S3 failure means, from the
// SDK's error code and HTTP status; hint says what to do about it.
// Cancellation is left unclassified: the caller's context ended, which
// the stage reports as an interruption.
func s3Kind(err error) (kind Kind, hint string) {
	if isCredentialsErr(err) {
		// First: a failed probe for an instance role also says "deadline exceeded".
		return Config, "no S3 credentials found: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE / storage.s3.profile with a shared credentials file) where the job runs"
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return 0, ""
	}
	code := ""
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	status := httpStatus(err)
	var dns *net.DNSError
	switch {
	case code == "NoSuchBucket":
		return Config, "the bucket does not exist: check the bucket in root (saber never creates buckets)"
	case authCodes[code] || status == 401 || status == 403:
		return Config, "access refused: check the S3 credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE or storage.s3.profile), the bucket's policy and the host's clock"
	case code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed" || code == "IllegalLocationConstraintException":
		return Config, "the bucket lives in another region: set storage.s3.region"
	case code == "NotImplemented" || status == 501:
		return Config, "the S3 server does not implement this request: saber needs conditional writes (If-None-Match) and ranged reads; use a server that has them"
	case errors.As(err, &dns) && dns.IsNotFound:
		return Config, "the S3 endpoint's host name does not resolve: check storage.s3.endpoint / AWS_ENDPOINT_URL_S3"
	case status == 429 || status >= 500 || transientErr(err):
		return Transient, "S3 still failing after the retries (storage.s3.max_attempts, each waiting up to storage.s3.timeout_seconds for data): rerun the shard, it resumes"
	}
	return 0, ""
}

// transientErr reports failures of the connection or a silent server:
// stalls, resets, refused connections, throttling and timeout codes.
func transientErr(err error) bool {
	var stall *stallError
	if errors.As(err, &stall) {
		return true
	}
	if (retry.RetryableConnectionError{}).IsErrorRetryable(err) == aws.TrueTernary {
		return true
	}
	var code interface{ ErrorCode() string }
	if errors.As(err, &code) {
		c := code.ErrorCode()
		if _, ok := retry.DefaultThrottleErrorCodes[c]; ok {
			return true
		}
		if _, ok := retry.DefaultRetryableErrorCodes[c]; ok {
			return true
		}
		if c == "InternalError" || c == "ServiceUnavailable" {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isCredentialsErr reports that the SDK found no usable credentials before
// sending anything. The SDK has no type for it, only these messages (from
// its identity resolution and credential cache).
func isCredentialsErr(err error) bool {
	msg := err.Error()
	for _, s := range []string{"get identity: ", "failed to retrieve credentials", "failed to refresh cached credentials", "static credentials are empty"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// kindErr wraps err as "what: err", with a Kind and its hint when s3Kind
// knows one.
func kindErr(what string, err error) error {
	kind, hint := s3Kind(err)
	if kind == 0 {
		return fmt.Errorf("%s: %w", what, err)
	}
	return &Error{Kind: kind, Err: fmt.Errorf("%s: %w; %s", what, err, hint)}
}
