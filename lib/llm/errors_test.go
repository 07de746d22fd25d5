package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/internal/dialhook"
)

// statusServer answers every request with code, or with a chat completion
// when code is 200, and counts requests.
func statusServer(t *testing.T, code func(body string) int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		body, _ := io.ReadAll(r.Body)
		c := code(string(body))
		if c != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(c)
			fmt.Fprintf(w, `{"error":{"message":"refused with %d","type":"invalid_request_error"}}`, c)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	t.Cleanup(hs.Close)
	return hs, &n
}

// TestConfigStatusesStopAtOnce: 401, 403 and 404 say the configuration is
// wrong, whatever the document: the call fails after one request with a
// *ConfigError (exit code 2) naming the setting to check, not wrapping
// ErrPermanent (which would reject one document and go on), and every
// later call fails the same way without a request.
func TestConfigStatusesStopAtOnce(t *testing.T) {
	t.Setenv("SABER_TEST_LLM_KEY", "sk-wrong")
	for _, tc := range []struct {
		code    int
		setting string
		want    []string
	}{
		{401, "llm.api_key_env", []string{"llm.api_key_env", "$SABER_TEST_LLM_KEY", "was refused", "401"}},
		{403, "llm.model", []string{`llm.model "gpt-x"`, "403", "$SABER_TEST_LLM_KEY"}},
		{404, "llm.model", []string{`llm.model "gpt-x"`, "unknown to the server", "404", "llm.base_url", "refused with 404"}},
	} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			hs, n := statusServer(t, func(string) int { return tc.code })
			c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "gpt-x", APIKeyEnv: "SABER_TEST_LLM_KEY", MaxAttempts: 5}, nil)
			if err != nil {
				t.Fatal(err)
			}
			llm.SetBackoff(c, time.Millisecond, time.Millisecond)
			_, err = c.Chat(context.Background(), userReq("x"))
			var ce *llm.ConfigError
			if !errors.As(err, &ce) || errors.Is(err, llm.ErrPermanent) || errors.Is(err, llm.ErrExhausted) {
				t.Fatalf("err = %v; want a ConfigError, neither permanent nor exhausted", err)
			}
			if ce.Setting != tc.setting || ce.Status != tc.code || ce.ExitCode() != 2 {
				t.Errorf("ConfigError %+v, exit %d; want setting %s, status %d, exit 2", ce, ce.ExitCode(), tc.setting, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "sk-wrong") {
				t.Errorf("message shows the key: %v", err)
			}
			if n.Load() != 1 {
				t.Errorf("%d requests; want 1: no retry can fix %d", n.Load(), tc.code)
			}
			// The client stays stopped: later calls send nothing.
			_, err2 := c.Chat(context.Background(), userReq("y"))
			_, err3 := c.Embed(context.Background(), []string{"z"})
			if !errors.As(err2, &ce) || !errors.As(err3, &ce) || n.Load() != 1 {
				t.Errorf("after the ConfigError: %v, %v after %d requests; want the same error, no request", err2, err3, n.Load())
			}
			if st := c.Stats(); st.ErrorsByKind[fmt.Sprintf("http_%d", tc.code)] != 1 || st.ErrorsByKind["config"] != 2 || st.Failures != 3 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// TestUnauthorizedWithoutKey: a loopback server that wants a key the
// environment does not hold says which variable to set.
func TestUnauthorizedWithoutKey(t *testing.T) {
	t.Setenv("SABER_TEST_UNSET_KEY", "")
	hs, _ := statusServer(t, func(string) int { return 401 })
	c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m", APIKeyEnv: "SABER_TEST_UNSET_KEY"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), userReq("x"))
	var ce *llm.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "$SABER_TEST_UNSET_KEY is unset") || !strings.Contains(err.Error(), "llm.api_key_env") {
		t.Errorf("err = %v; want a ConfigError naming the unset variable and llm.api_key_env", err)
	}
}

// TestRejectStreak: a 400 or 422 is one request's reject (ErrPermanent)
// until the server has rejected max_consecutive_rejects requests in a row
// with no success between: then it is a ConfigError (exit 2) and nothing
// more is sent. A success resets the count, so a few odd documents among
// good ones never stop the client.
func TestRejectStreak(t *testing.T) {
	for _, tc := range []struct {
		name      string
		code      int
		max       int // 0: the default
		calls     []string
		wantStop  int // index of the call that gets the ConfigError; -1: none
		wantSends int64
	}{
		{"every call refused, default streak", 400, 0, repeat("bad", 12), llm.DefaultMaxConsecutiveRejects - 1, int64(llm.DefaultMaxConsecutiveRejects)},
		{"422 with a streak of 3", 422, 3, repeat("bad", 5), 2, 3},
		{"a success between resets", 400, 3, []string{"bad", "bad", "good", "bad", "bad", "good", "bad", "bad"}, -1, 8},
		{"odd documents among good ones", 400, 0, append(repeat("bad", 9), append([]string{"good"}, repeat("bad", 9)...)...), -1, 19},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SABER_TEST_UNSET_KEY", "")
			hs, n := statusServer(t, func(body string) int {
				if strings.Contains(body, "bad") {
					return tc.code
				}
				return 200
			})
			c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m", APIKeyEnv: "SABER_TEST_UNSET_KEY", MaxConsecutiveRejects: tc.max}, nil)
			if err != nil {
				t.Fatal(err)
			}
			stopped := -1
			for i, text := range tc.calls {
				_, err := c.Chat(context.Background(), userReq(fmt.Sprintf("%s %d", text, i)))
				var ce *llm.ConfigError
				switch {
				case errors.As(err, &ce):
					if stopped < 0 {
						stopped = i
						for _, w := range []string{"rejected", "in a row", "llm.model", "llm.max_consecutive_rejects", fmt.Sprint(tc.code)} {
							if !strings.Contains(err.Error(), w) {
								t.Errorf("message %q lacks %q", err, w)
							}
						}
					}
				case text == "bad" && !errors.Is(err, llm.ErrPermanent):
					t.Errorf("call %d: err = %v, want ErrPermanent", i, err)
				case text == "good" && err != nil:
					t.Errorf("call %d: %v", i, err)
				}
			}
			if stopped != tc.wantStop || n.Load() != tc.wantSends {
				t.Errorf("stopped at call %d after %d requests; want %d after %d", stopped, n.Load(), tc.wantStop, tc.wantSends)
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestInsecureKeyRefused: the API key never goes over plain http:// to a
// host that is not loopback unless llm.allow_insecure_key says so; https,
// and http to this machine (a vLLM on the node), need nothing.
func TestInsecureKeyRefused(t *testing.T) {
	t.Setenv("SABER_TEST_LLM_KEY", "sk-secret")
	for _, tc := range []struct {
		url    string
		allow  bool
		wantOK bool
	}{
		{"http://api.example.com/v1", false, false},
		{"HTTP://10.1.2.3:8000/v1", false, false},
		{"http://gpu-node-7:8000/v1", false, false},
		{"http://api.example.com/v1", true, true},
		{"https://api.example.com/v1", false, true},
		{"http://127.0.0.1:8000/v1", false, true},
		{"http://localhost:8000/v1", false, true},
		{"http://[::1]:8000/v1", false, true},
	} {
		cfg := llm.Config{BaseURL: tc.url, Model: "m", APIKeyEnv: "SABER_TEST_LLM_KEY", AllowInsecureKey: tc.allow}
		_, err := llm.New(cfg, nil)
		if (err == nil) != tc.wantOK {
			t.Errorf("%s allow=%v: err = %v, want ok=%v", tc.url, tc.allow, err, tc.wantOK)
		}
		if err != nil && (!strings.Contains(err.Error(), "llm.allow_insecure_key") || !strings.Contains(err.Error(), "https://") || strings.Contains(err.Error(), "sk-secret")) {
			t.Errorf("%s: message %q should name llm.allow_insecure_key and https, never the key", tc.url, err)
		}
		if verr := cfg.Validate(); (verr == nil) != tc.wantOK {
			t.Errorf("%s allow=%v: Validate = %v, want ok=%v (refused at config load, not at the first call)", tc.url, tc.allow, verr, tc.wantOK)
		}
	}
	// The base URL from the environment is checked the same way.
	t.Setenv(llm.BaseURLEnv, "http://api.example.com/v1")
	if _, err := llm.New(llm.Config{Model: "m", APIKeyEnv: "SABER_TEST_LLM_KEY"}, nil); err == nil || !strings.Contains(err.Error(), "llm.allow_insecure_key") {
		t.Errorf("$%s over plain http: err = %v", llm.BaseURLEnv, err)
	}
}

// TestHostThatDoesNotResolve: a base_url whose host name does not resolve
// is a ConfigError (exit 2) naming base_url at the first attempt, not a
// connection failure retried max_attempts times and requeued as 75.
func TestHostThatDoesNotResolve(t *testing.T) {
	t.Setenv("SABER_TEST_KEY", "k")
	c, err := llm.New(llm.Config{BaseURL: "https://no-such-host.invalid/v1", Model: "m", APIKeyEnv: "SABER_TEST_KEY", MaxAttempts: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dials atomic.Int64
	dialhook.SetDial(c, func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "no-such-host.invalid", IsNotFound: true}}
	})
	_, err = c.Chat(context.Background(), userReq("x"))
	var ce *llm.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "llm.base_url" || !strings.Contains(err.Error(), "does not resolve") {
		t.Fatalf("err = %v; want a ConfigError naming llm.base_url", err)
	}
	if dials.Load() != 1 {
		t.Errorf("%d dials, want 1: no retry fixes a name that does not resolve", dials.Load())
	}
	// A failure to reach the resolver is not the name's: it is retried.
	c2, _ := llm.New(llm.Config{BaseURL: "https://no-such-host.invalid/v1", Model: "m", APIKeyEnv: "SABER_TEST_KEY", MaxAttempts: 2, TimeoutSeconds: 1}, nil)
	dialhook.SetDial(c2, func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "i/o timeout", Name: "no-such-host.invalid", IsTimeout: true}}
	})
	if _, err := c2.Chat(context.Background(), userReq("x")); !errors.Is(err, llm.ErrExhausted) {
		t.Errorf("resolver timeout: %v, want retries exhausted", err)
	}
}
