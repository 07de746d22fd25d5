package llm

import (
	"fmt"
	"net/http"
)

// ConfigError is a failure that neither a retry nor another document can
// fix, because the configuration is wrong: the server refused the API key
// (401), denied the key the model (403), does not know the model or the
// endpoint (404), or rejected request after request (400, 422, ...) with
// no success in between. Setting names the config key to check. It does
// not wrap ErrPermanent: callers that turn a permanent failure into a
// rejected document must not reject the whole corpus one document at a
// time; they return it, and the shard stops with exit 2 (ExitCode).
//
// Once a client has returned a ConfigError it sends nothing more: every
// later call returns the same error at once, so a shard's other workers
// stop without a request each.
type ConfigError struct {
	// Setting is the config key to check, e.g. "llm.api_key_env" (under
	// Config.Settings when set).
	Setting string
	// Status is the HTTP status that showed the problem (0 when none did).
	Status int
	// Op is the endpoint: chat, embed, rerank or score.
	Op string
	// Msg says what is wrong and what to do; Err is the last failure
	// (redacted: the key never appears in it).
	Msg string
	Err error
}

func (e *ConfigError) Error() string {
	s := fmt.Sprintf("llm: %s: %s", e.Op, e.Msg)
	if e.Err != nil {
		s += " (last: " + e.Err.Error() + ")"
	}
	return s
}

func (e *ConfigError) Unwrap() error { return e.Err }

// ExitCode is 2 (SPEC §2: fix the configuration, then rerun); stage.ExitCode
// honours it.
func (e *ConfigError) ExitCode() int { return 2 }

// configError says which setting a failure's status points at, or nil
// when the status is one a single request can deserve (400, 422, ...).
func (c *Client) configError(op string, f failure, err error) *ConfigError {
	status := f.status
	e := &ConfigError{Op: op, Status: status, Err: err}
	keyEnv, model, baseURL := c.cfg.Key("api_key_env"), c.cfg.Key("model"), c.cfg.Key("base_url")
	if f.tooLarge {
		// The server's limit (llama.cpp's physical batch, -ub; a context
		// length) is below what the inputs need: shorter inputs or a
		// larger limit, both configuration.
		hint := "shorten the inputs"
		if op != "chat" { // a retriever's texts are split by its max_input
			e.Setting = c.cfg.Key("max_input")
			hint = "lower " + e.Setting + " (words per piece of a long text)"
		}
		e.Msg = fmt.Sprintf("the server at %s says an input is too large to process (HTTP %d), which no retry changes: %s, or start the server with a larger batch or context (llama-server -b/-ub/-c, vLLM --max-model-len)",
			c.cfg.BaseURL, status, hint)
		return e
	}
	switch status {
	case http.StatusNotImplemented:
		e.Setting = baseURL
		e.Msg = fmt.Sprintf("the server at %s does not serve the %s endpoint (501 Not Implemented): point %s at a server that does, or start it with the endpoint enabled (llama-server --embeddings or --reranking; vLLM with a model of that task)",
			c.cfg.BaseURL, op, baseURL)
	case http.StatusUnauthorized:
		e.Setting = keyEnv
		if c.apiKey == "" {
			e.Msg = fmt.Sprintf("the server at %s wants an API key (401 Unauthorized) and $%s is unset or empty: put the key in $%s, or name its variable in %s",
				c.cfg.BaseURL, c.cfg.APIKeyEnv, c.cfg.APIKeyEnv, keyEnv)
		} else {
			e.Msg = fmt.Sprintf("%s: the key in $%s was refused by %s (401 Unauthorized): check the key, or which variable %s names",
				keyEnv, c.cfg.APIKeyEnv, c.cfg.BaseURL, keyEnv)
		}
	case http.StatusForbidden:
		e.Setting = model
		e.Msg = fmt.Sprintf("%s %q is forbidden to the key in $%s (403 Forbidden): check %s, and the key's access to it (%s)",
			model, c.cfg.Model, c.cfg.APIKeyEnv, model, keyEnv)
	case http.StatusNotFound:
		e.Setting = model
		e.Msg = fmt.Sprintf("%s %q or the %s endpoint is unknown to the server at %s (404 Not Found): check %s, and %s (most servers want it to end in /v1)",
			model, c.cfg.Model, op, c.cfg.BaseURL, model, baseURL)
	default:
		return nil
	}
	return e
}

// rejectStreakError is the ConfigError of a server that rejected n
// requests in a row.
func (c *Client) rejectStreakError(op string, status int, n int64, err error) *ConfigError {
	k := c.cfg.Key
	return &ConfigError{
		Setting: k("max_consecutive_rejects"), Op: op, Status: status, Err: err,
		Msg: fmt.Sprintf("the server rejected %d requests in a row (last: HTTP %d) and accepted none in between: a setting it refuses, not a few odd documents; check %s, %s, %s, %s and %s against what %s accepts (or raise %s, default %d)",
			n, status, k("model"), k("max_tokens"), k("temperature"), k("reasoning_effort"), k("seed"), c.cfg.BaseURL, k("max_consecutive_rejects"), DefaultMaxConsecutiveRejects),
	}
}
