package llmcall

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/lib/llm"
)

// AnswerHash names a raw answer in rejects without storing it.
func AnswerHash(raw string) string {
	h := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(h[:])
}

// UnparseableError is an answer that stayed invalid after every re-ask.
type UnparseableError struct {
	Raw string
	Err error
}

func (e *UnparseableError) Error() string {
	return fmt.Sprintf("answer %s unparseable: %v", AnswerHash(e.Raw)[:12], e.Err)
}

// Ask renders c's prompt with data, sends it and parses the answer,
// re-asking up to c.Retries times when parse fails. A re-ask is a different request (Reask: the bad answer
// and a correction as new turns), so a deterministic server does not
// repeat its answer, and its messages and the "+reaskN" prompt version
// give it its own cache entry (a cached bad answer is not served again).
func Ask[T any](ctx context.Context, c *Client, data any, parse func(string) (T, error)) (T, error) {
	var zero T
	msgs, err := c.Prompt.Render(data)
	if err != nil {
		return zero, err
	}
	var last *UnparseableError
	ask := msgs
	for attempt := 0; attempt <= c.Retries; attempt++ {
		if attempt > 0 {
			// The conversation so far, not the first ask: a greedy server
			// gives the same bad answer to both, and two re-asks that
			// differ only in it would be byte-identical.
			ask = Reask(ask, last.Raw, last.Err)
		}
		resp, err := c.Chat(ctx, llm.Request{PromptVersion: ReaskVersion(c.Prompt.Version, attempt), Messages: ask})
		if err != nil {
			return zero, err
		}
		v, perr := parse(resp.Content)
		if perr == nil {
			return v, nil
		}
		last = &UnparseableError{Raw: resp.Content, Err: perr}
	}
	return zero, last
}

// ReaskVersion is the prompt version of attempt n (0: the first ask).
func ReaskVersion(version string, n int) string {
	if n == 0 {
		return version
	}
	return fmt.Sprintf("%s+reask%d", version, n)
}

// maxReaskAnswer bounds the bad answer quoted back in a re-ask: enough
// for the model to see what it did, not a second document.
const maxReaskAnswer = 2000

// Reask is the conversation of a re-ask after the answer raw failed to
// parse with perr: the messages asked (the first ask, or the conversation
// of the re-ask before), raw as the assistant's turn, and a short
// correction as a new user turn. Sending the first request again
// would be byte-identical, and a server that decodes greedily or with a
// fixed seed (vLLM and llama.cpp at temperature 0) answers it identically:
// every re-ask wasted. The conversation changes what the model sees and
// tells it what was wrong.
func Reask(msgs []llm.Message, raw string, perr error) []llm.Message {
	if len(raw) > maxReaskAnswer {
		cut := maxReaskAnswer
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		raw = raw[:cut]
	}
	why := "it is not in the format asked for"
	if perr != nil {
		why = perr.Error()
		if len(why) > 200 {
			why = why[:200]
			for len(why) > 0 && !utf8.ValidString(why) {
				why = why[:len(why)-1]
			}
		}
	}
	out := make([]llm.Message, 0, len(msgs)+2)
	out = append(out, msgs...)
	return append(out,
		llm.Message{Role: llm.RoleAssistant, Content: raw},
		llm.Message{Role: llm.RoleUser, Content: "That answer could not be used: " + why + ". Answer again, in exactly the format the instructions above ask for."})
}

// Reject turns a per-document failure into a reject row, or returns the
// error when it must stop the shard: interrupted, a transient failure that
// outlived the client's retries (exit 75, and the rerun resumes from the
// cache), or an *llm.ConfigError — a refused key, an unknown model, a
// server rejecting every request — which no document deserves (exit 2; it
// does not wrap llm.ErrPermanent, so it falls through to the error).
func Reject(stageName, id string, err error) (*dataset.Reject, error) {
	var un *UnparseableError
	switch {
	case errors.As(err, &un):
		return &dataset.Reject{Input: stageName, ID: id, Reason: dataset.ReasonUnparseable,
			Detail: "answer sha256 " + AnswerHash(un.Raw) + ": " + un.Err.Error()}, nil
	case errors.Is(err, llm.ErrPermanent):
		return &dataset.Reject{Input: stageName, ID: id, Reason: dataset.ReasonLLMFailed, Detail: err.Error()}, nil
	}
	return nil, err
}

// Excerpt quotes the start of a model's answer for a message or a log
// line: enough to see what the model does instead of answering.
func Excerpt(s string) string {
	const n = 160
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}
