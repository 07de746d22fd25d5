package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/saber-math/saber/lib/llm"
)

// goodChat is a well-formed answer whose content is "ok".
const goodChat = `{"id":"c1","object":"chat.completion","model":"fake-model","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`

// adversarialChats are 200 answers that are not chat completions, each
// of which once panicked the client or passed as an answer.
var adversarialChats = []string{
	`null`,
	`{}`,
	`{"choices": null}`,
	`{"choices": []}`,
	`{"choices": "x"}`,
	`{"choices": {"0": {}}}`,
	`{"choices": [null]}`,
	`{"choices": [{}]}`,
	`{"choices": [{"message": null}]}`,
	`{"choices": [{"message": "ok"}]}`,
	`{"choices": [{"message": []}]}`,
	`{"choices": [{"message": {"content": 5}}]}`,
	`{"choices": [{"message": {"content": {"text": "ok"}}}]}`,
	`{"choices": [{"message": {"content": true}}]}`,
	`[]`,
	`"ok"`,
	`42`,
	``,
	`{"choices": [{"message": {"content": "ok"`,
}

// rawServer answers every request with 200 and a body from next; a body
// cut > 0 announces its full length but sends only its first cut bytes
// and closes the connection, like a server killed mid-answer.
func rawServer(t testing.TB, next func() (body string, cut int)) *httptest.Server {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, cut := next()
		if cut <= 0 || cut >= len(body) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write([]byte(body))
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:cut])
		_ = buf.Flush()
	}))
	t.Cleanup(hs.Close)
	return hs
}

func rawClient(t testing.TB, url string, attempts int) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: url + "/v1", Model: "fake-model", APIKeyEnv: "SABER_TEST_UNSET_KEY", MaxAttempts: attempts, TimeoutSeconds: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	llm.SetBackoff(c, 0, 0)
	return c
}

// invalidAnswerKinds are the kinds an invalid 200 answer is counted as.
var invalidAnswerKinds = map[string]bool{"malformed_json": true, "empty_choices": true, "truncated": true}

// An invalid answer among good ones is retried and counted, and the call
// gets the good answer: never a panic, never an answer made of nothing.
func TestInvalidAnswerIsRetriedAndCounted(t *testing.T) {
	bodies := append(append([]string(nil), adversarialChats...), goodChat) // the last one cut
	for i, bad := range bodies {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			hs := rawServer(t, func() (string, int) {
				mu.Lock()
				defer mu.Unlock()
				n++
				if n == 1 {
					if bad == goodChat {
						return bad, len(bad) / 2
					}
					return bad, 0
				}
				return goodChat, 0
			})
			c := rawClient(t, hs.URL, 3)
			resp, err := c.Chat(context.Background(), userReq("hi"))
			if err != nil {
				t.Fatalf("body %q: Chat: %v", bad, err)
			}
			if resp.Content != "ok" || resp.Attempts != 2 {
				t.Errorf("body %q: resp = %+v, want ok after 2 attempts", bad, resp)
			}
			st := c.Stats()
			var counted int64
			for k, v := range st.ErrorsByKind {
				if !invalidAnswerKinds[k] {
					t.Errorf("body %q: counted as %s", bad, k)
				}
				counted += v
			}
			if counted != 1 || st.Retries != 1 || st.Failures != 0 {
				t.Errorf("body %q: stats = %+v, want one invalid answer retried", bad, st)
			}
		})
	}
}

// An invalid answer on every attempt is a transient failure that outlived
// the retries (stages exit 75), not a permanent one and not a bug.
func TestInvalidAnswerEveryTimeIsExhausted(t *testing.T) {
	for _, bad := range adversarialChats {
		hs := rawServer(t, func() (string, int) { return bad, 0 })
		c := rawClient(t, hs.URL, 2)
		_, err := c.Chat(context.Background(), userReq("hi"))
		if !errors.Is(err, llm.ErrExhausted) {
			t.Errorf("body %q: err = %v, want ErrExhausted", bad, err)
		}
	}
}

func TestInvalidEmbeddingsAnswerIsRetried(t *testing.T) {
	good := `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,0.25]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`
	for _, bad := range []string{`null`, `{}`, `{"data": null}`, `{"data": [null]}`, `{"data": [{"index": 0}]}`, `{"data": [{"index": 0, "embedding": "x"}]}`} {
		var mu sync.Mutex
		n := 0
		hs := rawServer(t, func() (string, int) {
			mu.Lock()
			defer mu.Unlock()
			n++
			if n == 1 {
				return bad, 0
			}
			return good, 0
		})
		c := rawClient(t, hs.URL, 3)
		vecs, err := c.Embed(context.Background(), []string{"a"})
		if err != nil || len(vecs) != 1 || len(vecs[0]) != 2 {
			t.Errorf("body %q: Embed = %v, %v; want one vector after a retry", bad, vecs, err)
		}
	}
}

// FuzzChatAnswer feeds the client's decoding of a 200 answer arbitrary
// bodies, whole or cut: whatever the server sends, Chat returns an answer
// or a counted transient failure, never a panic, never a permanent or
// configuration error, and never an answer from a body that was not
// complete JSON. `go test` runs the seed corpus below (as CI does);
// `go test -fuzz FuzzChatAnswer ./lib/llm/` searches further.
func FuzzChatAnswer(f *testing.F) {
	for _, b := range adversarialChats {
		f.Add([]byte(b), 0)
	}
	f.Add([]byte(goodChat), 0)
	f.Add([]byte(goodChat), len(goodChat)/2)
	f.Add([]byte(goodChat), 1)
	f.Add([]byte(`{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":-7,"completion_tokens":"x"}}`), 0)
	f.Add([]byte(`{"choices":[{"message":{"content":"ok"},"logprobs":5}],"usage":null}`), 0)
	f.Add([]byte(`{"choices":[{"message":{"content":null}}]}`), 0)
	f.Add([]byte(`{"choices":[{"message":{"content":"a"}},{"message":null}]}`), 0)
	f.Add([]byte("\xff\xfe{"), 0)

	var mu sync.Mutex
	var body string
	var cut int
	hs := rawServer(f, func() (string, int) {
		mu.Lock()
		defer mu.Unlock()
		return body, cut
	})
	c := rawClient(f, hs.URL, 1)

	f.Fuzz(func(t *testing.T, b []byte, n int) {
		mu.Lock()
		body, cut = string(b), n
		mu.Unlock()
		before := c.Stats()
		resp, err := c.Chat(context.Background(), userReq("hi"))
		after := c.Stats()
		whole := n <= 0 || n >= len(b)
		if err == nil {
			if !whole || !json.Valid(b) {
				t.Fatalf("body %q cut at %d: Chat answered %q from an incomplete or invalid body", b, n, resp.Content)
			}
			if resp.PromptTokens < 0 || resp.CompletionTokens < 0 {
				t.Fatalf("body %q: negative token counts %+v", b, resp)
			}
			return
		}
		if !errors.Is(err, llm.ErrExhausted) {
			t.Fatalf("body %q cut at %d: err = %v, want a transient failure (ErrExhausted)", b, n, err)
		}
		var counted int64
		for k, v := range after.ErrorsByKind {
			if d := v - before.ErrorsByKind[k]; d != 0 {
				if !invalidAnswerKinds[k] {
					t.Fatalf("body %q cut at %d: counted as %s: %v", b, n, k, err)
				}
				counted += d
			}
		}
		if counted != 1 || after.Failures-before.Failures != 1 {
			t.Fatalf("body %q cut at %d: %d kinds and %d failures counted, want 1", b, n, counted, after.Failures-before.Failures)
		}
	})
}
