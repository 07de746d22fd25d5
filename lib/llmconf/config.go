// Package llmconf is the configuration of an LLM client — which
// OpenAI-compatible server and model, with which generation parameters,
// and how hard to push it — apart from the client itself (lib/llm), so
// that a run config, and every stage binary that reads one, can hold and
// check it without linking an HTTP client for LLMs.
package llmconf

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/saber-math/saber/lib/secret"
)

// Defaults applied by llm.New to zero fields of Config.
const (
	DefaultAPIKeyEnv      = "OPENAI_API_KEY"
	DefaultTimeoutSeconds = 120
	DefaultMaxAttempts    = 5
	DefaultConcurrency    = 16
	// BaseURLEnv names the environment variable read when Config.BaseURL is
	// empty, so one config file serves a node whose vLLM port differs.
	BaseURLEnv = "SABER_LLM_BASE_URL"
	// DefaultMaxConsecutiveRejects is how many requests in a row the server
	// may reject before the client stops as misconfigured.
	DefaultMaxConsecutiveRejects = 10
	// MaxTopLogprobs is the largest top_logprobs a request may ask for:
	// OpenAI's limit, which vLLM and llama-server share.
	MaxTopLogprobs = 20
)

// Config says which server and model to call, with which generation
// parameters, and how hard to push it. It never holds the API key itself,
// only the name of the variable that does, so configs and manifests can be
// shared and logged freely.
//
// Fields tagged hash:"-" change how requests are made, never the answers
// (the cache key has neither the server nor the key), so editing them never
// makes a stage's outputs stale.
type Config struct {
	BaseURL         string   `yaml:"base_url" json:"base_url" hash:"-"` // e.g. http://127.0.0.1:8000/v1; empty → $SABER_LLM_BASE_URL
	Model           string   `yaml:"model" json:"model"`
	APIKeyEnv       string   `yaml:"api_key_env" json:"api_key_env" hash:"-"` // NAME of the env var holding the key (default OPENAI_API_KEY)
	Temperature     *float64 `yaml:"temperature" json:"temperature,omitempty"`
	MaxTokens       int      `yaml:"max_tokens" json:"max_tokens,omitempty"`
	ReasoningEffort string   `yaml:"reasoning_effort" json:"reasoning_effort,omitempty"` // low|medium|high (gpt-oss); sent only when set
	Seed            *int64   `yaml:"seed" json:"seed,omitempty"`
	TimeoutSeconds  float64  `yaml:"timeout_seconds" json:"timeout_seconds" hash:"-"` // per request; default 120
	MaxAttempts     int      `yaml:"max_attempts" json:"max_attempts" hash:"-"`       // default 5; bounded retries
	Concurrency     int      `yaml:"concurrency" json:"concurrency" hash:"-"`         // max requests in flight; default 16
	RatePerSecond   float64  `yaml:"rate_per_second" json:"rate_per_second" hash:"-"` // 0 = unlimited
	// MaxConsecutiveRejects is how many requests in a row the server may
	// reject (400, 422, ...: each is one document's reject) before the
	// client stops as misconfigured (ConfigError); default 10.
	MaxConsecutiveRejects int `yaml:"max_consecutive_rejects" json:"max_consecutive_rejects" hash:"-"`
	// AllowInsecureKey lets the API key go over plain http:// to a host
	// that is not loopback (a trusted cluster network); without it such a
	// base_url is refused.
	AllowInsecureKey bool `yaml:"allow_insecure_key" json:"allow_insecure_key" hash:"-"`
	// Settings is where these settings live in the run config, for the
	// messages that name one ("retrievers.e5"); default "llm". Never read
	// from a file.
	Settings string `yaml:"-" json:"-" hash:"-"`
}

// key is the config path of one of these settings, for messages.
// Key is the config path of one of these settings, for messages:
// "llm.model", or "retrievers.e5.model" under Settings.
func (c Config) Key(leaf string) string {
	if c.Settings == "" {
		return "llm." + leaf
	}
	return c.Settings + "." + leaf
}

// envName is what a POSIX environment variable name looks like. Checking it
// catches the easy mistake of pasting the key itself into api_key_env.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reasoningEfforts are the values servers accept; gpt-oss on vLLM takes
// low, medium and high, OpenAI's reasoning models the rest too.
var reasoningEfforts = map[string]bool{
	"none": true, "minimal": true, "low": true, "medium": true, "high": true, "xhigh": true,
}

// Validate reports the first invalid field. An empty BaseURL is valid: llm.New
// takes it from $SABER_LLM_BASE_URL.
func (c Config) Validate() error {
	if strings.TrimSpace(c.Model) == "" {
		return fmt.Errorf("llm: config: model is required")
	}
	if c.BaseURL != "" {
		if err := checkBaseURL(c.BaseURL); err != nil {
			return fmt.Errorf("llm: config: base_url: %w", err)
		}
		// Every host but loopback needs a key (New), so plain http to one
		// would send the key in clear text over the network.
		if strings.HasPrefix(strings.ToLower(c.BaseURL), "http:") && !IsLoopback(c.BaseURL) && !c.AllowInsecureKey {
			return fmt.Errorf("llm: config: base_url %s is plain http:// to a host that is not loopback, so the API key would cross the network unencrypted: use https://, or set %s: true if the network is trusted", c.BaseURL, c.Key("allow_insecure_key"))
		}
	}
	// A name-shaped token (hf_…, AKIA…, ghp_…) passes the name check: ask
	// what it looks like too, since the name is printed when it is unset.
	if c.APIKeyEnv != "" && (!envName.MatchString(c.APIKeyEnv) || secret.Looks(c.APIKeyEnv) != "") {
		// Never echo the value: it may be the key itself.
		return fmt.Errorf("llm: config: api_key_env must be the NAME of an environment variable (letters, digits, _), not a key; the value is not shown")
	}
	if t := c.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 2) {
		return fmt.Errorf("llm: config: temperature %v is outside [0, 2]", *t)
	}
	if c.MaxTokens < 0 {
		return fmt.Errorf("llm: config: max_tokens %d is negative", c.MaxTokens)
	}
	if c.ReasoningEffort != "" && !reasoningEfforts[c.ReasoningEffort] {
		return fmt.Errorf("llm: config: reasoning_effort %q is not one of low, medium, high (or none, minimal, xhigh)", c.ReasoningEffort)
	}
	if !finiteNonNeg(c.TimeoutSeconds) {
		return fmt.Errorf("llm: config: timeout_seconds %v must be a finite number >= 0 (0 = default %d)", c.TimeoutSeconds, DefaultTimeoutSeconds)
	}
	if c.MaxAttempts < 0 {
		return fmt.Errorf("llm: config: max_attempts %d is negative (0 = default %d)", c.MaxAttempts, DefaultMaxAttempts)
	}
	if c.Concurrency < 0 {
		return fmt.Errorf("llm: config: concurrency %d is negative (0 = default %d)", c.Concurrency, DefaultConcurrency)
	}
	if c.MaxConsecutiveRejects < 0 {
		return fmt.Errorf("llm: config: max_consecutive_rejects %d is negative (0 = default %d)", c.MaxConsecutiveRejects, DefaultMaxConsecutiveRejects)
	}
	if !finiteNonNeg(c.RatePerSecond) {
		return fmt.Errorf("llm: config: rate_per_second %v must be a finite number >= 0 (0 = unlimited)", c.RatePerSecond)
	}
	return nil
}

func finiteNonNeg(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 }

// WithDefaults fills the zero fields llm.New gives defaults to, and BaseURL
// from the environment.
func (c Config) WithDefaults() Config {
	if c.BaseURL == "" {
		c.BaseURL = strings.TrimSpace(os.Getenv(BaseURLEnv))
	}
	if c.APIKeyEnv == "" {
		c.APIKeyEnv = DefaultAPIKeyEnv
	}
	if c.TimeoutSeconds == 0 {
		c.TimeoutSeconds = DefaultTimeoutSeconds
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.MaxConsecutiveRejects == 0 {
		c.MaxConsecutiveRejects = DefaultMaxConsecutiveRejects
	}
	return c
}

// Timeout is the per-request timeout.
func (c Config) Timeout() time.Duration {
	return time.Duration(c.TimeoutSeconds * float64(time.Second))
}

func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("cannot parse it: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme must be http or https, got %q", u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("no host in %q", raw)
	}
	if u.User != nil {
		// Credentials in the URL would end up in errors and logs.
		return fmt.Errorf("must not carry user info; put the key in the variable named by api_key_env")
	}
	return nil
}

// IsLoopback reports whether the base URL points at this machine, where a
// local vLLM usually runs without a key.
func IsLoopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
