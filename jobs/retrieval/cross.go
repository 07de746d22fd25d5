package retrieval

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/parallel"
)

// crossEncoder scores (query, document) pairs jointly over /rerank (kind
// rerank) or vLLM's /score (kind score). Documents longer than max_input
// words (if set) are split into chunks as for embeddings
// (retrievers.Chunks), and a document's score is the mean of its chunks'
// scores, as an embedding's vector is the mean of its chunks' vectors:
// without it a long document is an input the server truncates silently (vLLM, TEI) or refuses every
// time (llama.cpp's "input is too large to process"). The query is not
// chunked: each request pairs it whole with every piece. The pieces go in
// slices of batch_size (default 16) per request, in_flight/batch_size
// requests at a time: with the defaults and no long document, 150
// candidates take ⌈150/16⌉ = 10 sequential requests. Scores are the
// server's, per pair, so slicing does not change them.
type crossEncoder struct {
	httpBase
	// call is the client's method of the kind's endpoint: Rerank (kind
	// rerank) or Score (kind score).
	call func(c *llm.Client, ctx context.Context, path, query string, docs []string) ([]float64, error)
}

func (c *crossEncoder) Score(ctx context.Context, query string, docs []string) ([]float64, error) {
	query, err := c.rewrite(ctx, query)
	if err != nil {
		return nil, err
	}
	q := c.f.Query(query)
	var fd []string
	var owner []int
	for i, d := range docs {
		for _, ch := range retrievers.Chunks(d, c.spec.MaxInput) {
			fd = append(fd, c.f.Doc(ch))
			owner = append(owner, i)
		}
	}
	pieces := make([]float64, len(fd))
	todo, finish, err := c.recall(ctx, q, fd, pieces)
	if err != nil {
		return nil, err
	}
	bs := c.spec.BatchSize
	n := (len(todo) + bs - 1) / bs
	err = parallel.For(ctx, n, max(1, c.spec.InFlight/bs), func(ctx context.Context, i int) error {
		idx := todo[i*bs : min((i+1)*bs, len(todo))]
		texts := make([]string, len(idx))
		for k, j := range idx {
			texts[k] = fd[j]
		}
		s, err := c.call(c.client, ctx, c.spec.Endpoint, q, texts)
		if err != nil {
			return err
		}
		for k, j := range idx {
			pieces[j] = s[k]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := finish(); err != nil {
		return nil, err
	}
	scores := make([]float64, len(docs))
	counts := make([]int, len(docs))
	for k, s := range pieces {
		scores[owner[k]] += s
		counts[owner[k]]++
	}
	for i := range scores {
		scores[i] /= float64(counts[i]) // every document has ≥ 1 piece
	}
	return scores, nil
}

// recall fills pieces from the memo (see the generic recall) and returns
// the pieces left to score, each distinct text once.
func (c *crossEncoder) recall(ctx context.Context, q string, fd []string, pieces []float64) (todo []int, finish func() error, err error) {
	keys := func() []string {
		ks := make([]string, len(fd))
		for i, d := range fd {
			ks[i] = memoKey("cross/v1", c.spec.Kind, c.spec.Endpoint, c.spec.Model, q, d)
		}
		return ks
	}
	return recall(ctx, c.memo, keys, pieces, decodeFloat64, encodeFloat64)
}

// chatReranker is a generative reranker: one chat completion per (query,
// document), in_flight (default 16) at a time, with the prompt's {query},
// {doc} and {instruction} filled, scored by the spec's parser:
//
//   - yes_no: at the first answer token that is a yes or no token (after
//     trimming white space and lower-casing), score = P(yes) / (P(yes) +
//     P(no)), where P(yes) sums exp(logprob) over that position's top
//     alternatives that are yes tokens, and likewise P(no). A token absent
//     from the alternatives counts 0. An answer with no yes or no token is
//     an error.
//   - number: the last number in the answer (after any </think>), so a
//     model that reasons first and ends "… Score: 7" gives 7; an answer
//     without a number is an error.
type chatReranker struct{ httpBase }

func (c *chatReranker) Score(ctx context.Context, query string, docs []string) ([]float64, error) {
	query, err := c.rewrite(ctx, query)
	if err != nil {
		return nil, err
	}
	q := c.f.Query(query)
	prompts := make([]string, len(docs))
	for i, d := range docs {
		prompts[i] = strings.NewReplacer(retrievers.PlaceholderQuery, q, retrievers.PlaceholderDoc, c.f.Doc(d),
			retrievers.PlaceholderInstruction, c.f.InstructionField()).Replace(c.spec.Prompt)
	}
	scores := make([]float64, len(docs))
	keys := func() []string {
		ks := make([]string, len(docs))
		for i, p := range prompts {
			ks[i] = c.promptKey(p)
		}
		return ks
	}
	todo, finish, err := recall(ctx, c.memo, keys, scores, decodeFloat64, encodeFloat64)
	if err != nil {
		return nil, err
	}
	err = parallel.For(ctx, len(todo), c.spec.InFlight, func(ctx context.Context, k int) error {
		i := todo[k]
		var err error
		scores[i], err = c.ask(ctx, i, prompts[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	return scores, finish()
}

// promptKey is the memo key of a prompt's score: the model, what shapes
// its answer and how the answer is read.
func (c *chatReranker) promptKey(prompt string) string {
	temp := "default"
	if c.spec.Temperature != nil {
		temp = strconv.FormatFloat(*c.spec.Temperature, 'g', -1, 64)
	}
	return memoKey("chat/v1", c.spec.Model, c.spec.System, prompt, c.spec.Parser,
		strings.Join(c.spec.YesTokens, "\x00"), strings.Join(c.spec.NoTokens, "\x00"),
		strconv.Itoa(c.spec.TopLogprobs), strconv.Itoa(c.spec.MaxTokens), temp)
}

// ask scores document i's prompt.
func (c *chatReranker) ask(ctx context.Context, i int, prompt string) (float64, error) {
	var msgs []llm.Message
	if c.spec.System != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: c.spec.System})
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: prompt})
	req := llm.Request{PromptVersion: "rerank:" + c.name, Messages: msgs, NoCache: true}
	if c.spec.Parser == retrievers.ParserYesNo {
		req.TopLogprobs = c.spec.TopLogprobs
	}
	resp, err := c.client.Chat(ctx, req)
	if err != nil {
		return 0, err
	}
	var s float64
	if c.spec.Parser == retrievers.ParserYesNo {
		s, err = YesNoScore(resp.Logprobs, c.spec.YesTokens, c.spec.NoTokens)
	} else {
		s, err = LastNumber(resp.Content)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: document %d: %w", c.name, i, err)
	}
	return s, nil
}

func tokenIn(tok string, set []string) bool {
	t := strings.ToLower(strings.TrimSpace(tok))
	for _, s := range set {
		if t == strings.ToLower(strings.TrimSpace(s)) {
			return true
		}
	}
	return false
}

// YesNoScore is the yes_no parser (see chatReranker).
func YesNoScore(lp []llm.TokenLogprob, yes, no []string) (float64, error) {
	for _, t := range lp {
		if !tokenIn(t.Token, yes) && !tokenIn(t.Token, no) {
			continue
		}
		alts := t.Top
		if len(alts) == 0 {
			alts = []llm.TopLogprob{{Token: t.Token, Logprob: t.Logprob}}
		}
		var py, pn float64
		for _, a := range alts {
			switch {
			case tokenIn(a.Token, yes):
				py += math.Exp(a.Logprob)
			case tokenIn(a.Token, no):
				pn += math.Exp(a.Logprob)
			}
		}
		if py+pn == 0 {
			return 0, fmt.Errorf("yes/no probabilities underflow at token %q", t.Token)
		}
		return py / (py + pn), nil
	}
	var ans []string
	for _, t := range lp {
		ans = append(ans, t.Token)
	}
	return 0, fmt.Errorf("the answer %q has no yes or no token (%s / %s)", preview(strings.Join(ans, ""), 80),
		strings.Join(yes, ","), strings.Join(no, ","))
}

var number = regexp.MustCompile(`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`)

// LastNumber is the number parser (see chatReranker).
func LastNumber(answer string) (float64, error) {
	a := stripThink(answer)
	all := number.FindAllString(a, -1)
	for i := len(all) - 1; i >= 0; i-- {
		if x, err := strconv.ParseFloat(all[i], 64); err == nil && !math.IsInf(x, 0) {
			return x, nil
		}
	}
	return 0, fmt.Errorf("the answer %q has no number", preview(a, 80))
}

// preview shortens s for an error message.
func preview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
