package llm

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// EmbedOptions are the per-call parameters of an embeddings request.
type EmbedOptions struct {
	// Dimensions > 0 asks for vectors of that length (OpenAI's
	// text-embedding-3 models, vLLM's Matryoshka models); 0 sends nothing
	// and the server uses the model's full dimension.
	Dimensions int
	// Extra are additional top-level fields of the request body, for
	// servers with parameters the OpenAI API lacks (e.g. a task type). The
	// values are sent as JSON.
	Extra map[string]any
}

// EmbedWith returns one embedding per input from the /embeddings endpoint of
// the configured model, in input order, with the options o. It shares
// Chat's retries, concurrency limit, rate limit and statistics, and is never
// cached: retrieval is timed with caches off (paper App. C.5).
func (c *Client) EmbedWith(ctx context.Context, inputs []string, o EmbedOptions) ([][]float32, error) {
	c.calls.Add(1)
	if len(inputs) == 0 {
		return nil, nil
	}
	if o.Dimensions < 0 {
		c.fail("invalid_request")
		return nil, fmt.Errorf("llm: embed: dimensions %d is negative: %w", o.Dimensions, ErrPermanent)
	}
	// The extra keys (a model's task type, ...) go beside the standard
	// ones, which they may not replace.
	params := map[string]any{}
	for k, v := range o.Extra {
		params[k] = v
	}
	params["model"] = c.cfg.Model
	params["input"] = inputs
	params["encoding_format"] = "float"
	if o.Dimensions > 0 {
		params["dimensions"] = o.Dimensions
	}
	var out *embeddingResponse
	start := time.Now()
	_, err := c.retry(ctx, "embed", func(actx context.Context, res **http.Response) error {
		out = nil
		err := c.postJSON(actx, "embeddings", params, &out, res)
		if err == nil {
			err = checkEmbeddings(out, len(inputs))
		}
		return err
	})
	c.latency.Add(int64(time.Since(start)))
	if err != nil {
		c.failures.Add(1)
		return nil, err
	}
	c.promptTokens.Add(max(0, int64(out.Usage.PromptTokens)))
	vecs := make([][]float32, len(inputs))
	for i, d := range out.Data {
		idx := int(d.Index)
		if idx < 0 || idx >= len(vecs) || vecs[idx] != nil {
			idx = i // a server that numbers badly: trust the order
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		vecs[idx] = v
	}
	for i, v := range vecs {
		if v == nil {
			c.failures.Add(1)
			return nil, fmt.Errorf("llm: embeddings response has no vector for input %d", i)
		}
		// Some servers accept `dimensions` and ignore it (llama.cpp, TEI):
		// vectors of another length than configured would be compared as
		// if they were the model's truncated ones.
		if o.Dimensions > 0 && len(v) != o.Dimensions {
			c.failures.Add(1)
			ce := &ConfigError{Setting: c.cfg.Key("dimensions"), Op: "embed",
				Msg: fmt.Sprintf("%s is %d but the server at %s returned vectors of %d dimensions (it ignores `dimensions`): set %s to %d, or to 0 for the model's full size",
					c.cfg.Key("dimensions"), o.Dimensions, c.cfg.BaseURL, len(v), c.cfg.Key("dimensions"), len(v))}
			c.broken.CompareAndSwap(nil, ce)
			return nil, ce
		}
	}
	return vecs, nil
}

// checkEmbeddings says whether out, as decoded from a 200 answer, holds
// one vector per input. A body of `null` decodes as a nil response and an
// item whose embedding is missing as an empty vector, both without an
// error: they are invalid answers, retried like a malformed body.
func checkEmbeddings(out *embeddingResponse, n int) error {
	if out == nil {
		return fmt.Errorf("llm: embeddings answer is JSON null: %w", errEmptyChoices)
	}
	if len(out.Data) != n {
		return fmt.Errorf("llm: %d embeddings for %d inputs: %w", len(out.Data), n, errEmptyChoices)
	}
	for i, d := range out.Data {
		if len(d.Embedding) == 0 {
			return fmt.Errorf("llm: embedding %d is empty or not an array of numbers: %w", i, errMalformedAnswer)
		}
	}
	return nil
}
