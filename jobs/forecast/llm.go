package forecast

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/kvcache"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llmconf"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/seed"
)

// charsPerToken is the estimate of prompt tokens when the server has no
// tokenizer endpoint: about 4 characters per token, the usual figure for
// English with BPE tokenizers. LaTeX-heavy text tokenizes denser (≈3.5),
// so the estimate runs 10–15% low on formula-heavy corpora; a vLLM server
// (/tokenize) or --measure gives the real count.
const charsPerToken = 4.0

// inFlight is the requests a shard of the stage keeps at the server: its
// workers (llmstage.Workers), at most the client's llm.concurrency.
func inFlight(workers int, lcfg llmconf.Config) int {
	limit := lcfg.Concurrency
	if limit <= 0 {
		limit = llm.DefaultConcurrency
	}
	return min(llmstage.Workers(workers, true, lcfg), limit)
}

// LLM fills out.LLM for calls calls of w's prompt, sent in phases,
// measuring on the sample what it can: prompt tokens with the server's
// tokenizer (else the estimate), completion tokens from the done shards'
// manifests (else --measure, llm.max_tokens, or w's guess), the cached
// share, the time a call takes at the stage's concurrency (--measure).
func (in *Input) LLM(ctx context.Context, out *Step, calls float64, phases []plan.Phase, w *stage.LLMWork) error {
	lcfg := w.LLM
	c := &LLMCost{Calls: calls, Phases: phases, Concurrency: inFlight(w.Workers, lcfg)}
	out.LLM = c
	// llm_calls counts every call, those the cache answered included.
	out.Metrics = append(out.Metrics, Metric{Name: "llm calls", Value: calls, Stats: []string{"llm_calls"},
		Basis: "one call per scheduled prompt (re-asks of unparseable answers add to it)"})
	msgs, err := samplePrompts(ctx, in, w)
	if err != nil {
		return err
	}
	promptPer, promptBasis := 0.0, ""
	if len(msgs) > 0 {
		var chars float64
		for _, m := range msgs {
			for _, x := range m {
				chars += float64(len(x.Content))
			}
		}
		promptPer = chars / float64(len(msgs)) / charsPerToken
		promptBasis = fmt.Sprintf("%d sampled prompts at %.0f characters per token (estimate: the server has no /tokenize)", len(msgs), charsPerToken)
		if client, err := llm.New(lcfg, nil); err == nil {
			if n, err := tokenized(ctx, client, msgs); err == nil {
				promptPer, promptBasis = n, fmt.Sprintf("%d sampled prompts, counted by the server's /tokenize", len(msgs))
			} else if !errors.Is(err, llm.ErrNoTokenizer) {
				promptBasis += fmt.Sprintf("; /tokenize failed: %v", err)
			}
		}
	}
	complPer, complBasis := w.CompletionGuess, "a typical well-formed answer (no done shard, --measure or llm.max_tokens says)"
	if lcfg.MaxTokens > 0 {
		complPer, complBasis = float64(lcfg.MaxTokens), "llm.max_tokens (an upper bound)"
	}
	done := in.Stats(ctx, in.step.Outputs[0])
	if done == nil {
		done = partialStats(ctx, in, out.Shards)
	}
	// Tokens per call over every call, those the cache answered (no
	// tokens) included: times the calls, the tokens the server will see.
	if n := done["llm_calls"]; n > 0 && done["llm_completion_tokens"] > 0 {
		complPer, complBasis = float64(done["llm_completion_tokens"])/float64(n), "the done shards' answers"
		promptPer = float64(done["llm_prompt_tokens"]) / float64(n)
		promptBasis = "the done shards' calls, as the server counted them"
	}
	if in.opt.Measure {
		m, err := in.measureOnce(ctx, w, c.Concurrency)
		if err != nil {
			return fmt.Errorf("--measure: %w", err)
		}
		if m.calls > m.cached {
			// Per call, the cached ones included, as above.
			promptPer, complPer = m.prompt/m.calls, m.completion/m.calls
			promptBasis = fmt.Sprintf("--measure: %d calls on %d sampled rows (%d answered by the cache), as the server counted them", int(m.calls), m.rows, int(m.cached))
			complBasis = promptBasis
		}
		if m.callSeconds > 0 {
			c.CallSeconds, c.Measured = m.callSeconds, true
			c.CallsPerSecond = float64(c.Concurrency) / c.CallSeconds
		}
		if m.calls > 0 {
			c.CachedShare = m.cached / m.calls
			c.SavedCalls = calls * c.CachedShare
		}
	} else {
		// A rebuild (a source added, a step rerun) asks the server only
		// for what the run's cache lacks: look the sample up there.
		look, err := in.lookOnce(ctx, w)
		if err != nil {
			return err
		}
		switch {
		case look != nil:
			c.CachedShare = look.share()
			c.SavedCalls = calls * c.CachedShare
			note := fmt.Sprintf("cached share: the run's LLM cache answers %d of %d sampled documents (looked up, no server call)", look.Cached, look.Rows)
			if look.scale > 0 {
				note += fmt.Sprintf(", sampled from the last run's corpus, %.0f%% of the rebuild's", 100*look.scale)
			}
			out.Notes = append(out.Notes, note)
		case w.NoLookup != "":
			out.Notes = append(out.Notes, "cached share not looked up: "+w.NoLookup+" (--measure, or done shards, say)")
		}
	}
	c.PromptTokens, c.CompletionTokens = calls*promptPer, calls*complPer
	c.TokensBasis = "prompt: " + promptBasis + "; completion: " + complBasis
	out.Metrics = append(out.Metrics,
		Metric{Name: "prompt tokens", Value: c.PromptTokens, Stats: []string{"llm_prompt_tokens"}, Basis: promptBasis},
		Metric{Name: "completion tokens", Value: c.CompletionTokens, Stats: []string{"llm_completion_tokens"}, Basis: complBasis})
	return nil
}

// partialStats sums the stats of the done shards of the step's first
// output when the dataset is not complete.
func partialStats(ctx context.Context, in *Input, count int) map[string]int64 {
	ms, err := doneManifests(ctx, in, in.step.Outputs[0], count)
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	for _, m := range ms {
		for k, v := range m.Stats {
			out[k] += v
		}
	}
	return out
}

// tokenized is the mean token count of msgs by the server's tokenizer.
func tokenized(ctx context.Context, c *llm.Client, msgs [][]llm.Message) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var sum float64
	for _, m := range msgs {
		n, err := c.Tokenize(ctx, m)
		if err != nil {
			return 0, err
		}
		sum += float64(n)
	}
	return sum / float64(len(msgs)), nil
}

// sampleDocs reads a seeded sample of up to plan.sample corpus documents
// from one part (chosen by the seed), or nil when corpus is not complete.
//
// A stale corpus (a rebuild's: say, a source was added) is sampled too: it
// is what the last run tagged and summarized, and most of the rebuild's
// documents.
func sampleDocs(ctx context.Context, in *Input) ([]dataset.Document, error) {
	return sampleOf(ctx, in, in.cfg.Plan.Sample)
}

// Sample is a seeded sample of up to plan.sample corpus documents
// (sampleDocs).
func (in *Input) Sample(ctx context.Context) ([]dataset.Document, error) { return sampleDocs(ctx, in) }

// sampleOf is sampleDocs of up to n documents.
func sampleOf(ctx context.Context, in *Input, n int) ([]dataset.Document, error) {
	ms, err := in.completeOrStale(ctx, dataset.Corpus.Name)
	if err != nil {
		return nil, nil
	}
	var parts []layout.Object
	for _, m := range ms {
		parts = append(parts, m.Objects(dataset.Corpus.Name)...)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	// One part, chosen by the seed, then the next ones until the sample
	// is full: a part is a shard's documents, and a sample from one part
	// would miss what others hold (a rebuild's new documents, in the
	// cache look-up's share), when the sample is larger than a part.
	r := seed.Rand(in.cfg.Seed, "plan", dataset.Corpus.Name)
	first := r.IntN(len(parts))
	var docs []dataset.Document
	for k := 0; k < len(parts) && (k == 0 || len(docs) < n); k++ {
		part := parts[(first+k)%len(parts)]
		rows, err := dataset.Read[dataset.Document](ctx, in.root, part.Key)
		if err != nil {
			return nil, fmt.Errorf("read a sample of %s: %w", dataset.Corpus.Name, err)
		}
		docs = append(docs, rows...)
	}
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	return docs[:min(len(docs), n)], nil
}

// samplePrompts renders w's prompt for a sample of rows, each filled by
// w.Data (a document, or a document against the next ones).
func samplePrompts(ctx context.Context, in *Input, w *stage.LLMWork) ([][]llm.Message, error) {
	docs, err := sampleDocs(ctx, in)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return promptsOf(w, docs)
}

// promptsOf renders w's prompt for each of docs, as samplePrompts does.
func promptsOf(w *stage.LLMWork, docs []dataset.Document) ([][]llm.Message, error) {
	if w.Data == nil {
		return nil, nil
	}
	p, err := prompts.Get(w.Prompt)
	if err != nil {
		return nil, err
	}
	var out [][]llm.Message
	for i := range docs {
		msgs, err := p.Render(w.Data(docs, i))
		if err != nil {
			return nil, err
		}
		out = append(out, msgs)
	}
	return out, nil
}

// measureOnce measures the step's prompt once per step (tag's calls per
// document and its tokens come from the same traversal), with conc
// requests in flight, as the stage's shards send them.
func (in *Input) measureOnce(ctx context.Context, w *stage.LLMWork, conc int) (measured, error) {
	if in.measured != nil {
		return *in.measured, nil
	}
	m, err := measure(ctx, in, w, conc)
	if err != nil {
		return m, err
	}
	in.measured = &m
	return m, nil
}

// Measured is what --measure saw of w's sample: the calls a row took and
// the rows sent (measureOnce, at the stage's concurrency).
func (in *Input) Measured(ctx context.Context, w *stage.LLMWork) (perRow float64, rows int, err error) {
	m, err := in.measureOnce(ctx, w, inFlight(w.Workers, w.LLM))
	return m.perRow, m.rows, err
}

// measured is what --measure saw: calls (the cached ones included) and
// tokens; callSeconds the time a worker spent per call (perRow calls a
// row: tag's traversal, one otherwise).
type measured struct {
	rows                              int
	calls, cached, prompt, completion float64
	callSeconds, perRow               float64
}

// measure sends the sample to the configured server with the step's own
// prompt and parse rules — w.Row's whole work per document (tag's
// traversal), else one call — conc at a time, as a shard does, and times
// each row from its first call to its last answer: the time a worker
// spends per call at the stage's concurrency — the server's latency under
// that load, and what the worker does between calls (rendering, parsing,
// the cache) — is what the forecast's waves are made of (serverSeconds).
// Answers already in the run's cache are served from it (and counted as
// cached, their time next to nothing, as in the run); new ones go to a
// scratch cache, never the run's storage.
func measure(ctx context.Context, in *Input, w *stage.LLMWork, conc int) (measured, error) {
	var m measured
	// Whole waves, two at least (the first is not timed, below): a last
	// wave of a few calls is answered faster than the full ones a shard
	// keeps sending, and would make the time a call, and the forecast,
	// short.
	docs, err := sampleOf(ctx, in, max((in.cfg.Plan.Sample+conc-1)/conc, 2)*conc)
	if err != nil || len(docs) == 0 {
		return m, err
	}
	scratch, err := os.MkdirTemp("", "saber-plan-measure-")
	if err != nil {
		return m, err
	}
	defer os.RemoveAll(scratch)
	top, err := store.Open(ctx, scratch, store.Options{})
	if err != nil {
		return m, err
	}
	client, err := llm.New(w.LLM, kvcache.Layered(in.root, top, layout.LLMCachePrefix(in.cfg.Run)))
	if err != nil {
		return m, stage.BadInput(err)
	}
	p, err := prompts.Get(w.Prompt)
	if err != nil {
		return m, err
	}
	// ask sends row i's calls and returns how many it made.
	var ask func(ctx context.Context, i int) (int, error)
	if w.Row != nil {
		lc := &llmcall.Client{Client: client, Prompt: p, Retries: w.ParseRetries}
		chat := func(ctx context.Context, data any, parse func(string) error) error {
			_, err := llmcall.Ask(ctx, lc, data, func(raw string) (struct{}, error) { return struct{}{}, parse(raw) })
			return err
		}
		ask = func(ctx context.Context, i int) (int, error) {
			n, err := w.Row(ctx, docs[i], chat)
			return n, ignoreRowError(err)
		}
	} else {
		msgs, err := promptsOf(w, docs)
		if err != nil {
			return m, err
		}
		ask = func(ctx context.Context, i int) (int, error) {
			_, err := client.Chat(ctx, llm.Request{PromptVersion: p.Version, Messages: msgs[i]})
			return 1, ignoreRowError(err)
		}
	}
	var mu sync.Mutex
	var calls int
	var timed, first []rowTime
	err = parallel.For(ctx, len(docs), conc, func(ctx context.Context, i int) error {
		start := time.Now()
		n, err := ask(ctx, i)
		d := time.Since(start)
		mu.Lock()
		defer mu.Unlock()
		calls += n
		// The first wave opens the client's connections, once a shard
		// and over thousands of calls in the run, but over a few waves
		// here: it is counted, not timed. A row after it starts on a
		// worker that has finished one.
		switch {
		case n == 0:
		case i >= conc:
			timed = append(timed, rowTime{d.Seconds() / float64(n), n})
		default:
			first = append(first, rowTime{d.Seconds() / float64(n), n})
		}
		return err
	})
	if err != nil {
		return m, err
	}
	s := client.Stats()
	m.rows, m.calls, m.cached = len(docs), float64(s.Calls), float64(s.Cached)
	m.prompt, m.completion = float64(s.PromptTokens), float64(s.CompletionTokens)
	m.perRow = float64(calls) / float64(len(docs))
	if len(timed) == 0 {
		// A corpus smaller than two waves: the first is all there is.
		timed = first
	}
	m.callSeconds = medianCallSeconds(timed)
	return m, nil
}

// rowTime is a timed row's time per call, and its calls.
type rowTime struct {
	perCall float64
	calls   int
}

// medianCallSeconds is the median time a call over the timed rows, each
// row weighing its calls: a row slowed by a pause of the machine (a
// garbage collection, a stolen CPU) moves a mean of a few dozen rows by
// more than the 25% the forecast is held to, and the median by little.
func medianCallSeconds(rows []rowTime) float64 {
	if len(rows) == 0 {
		return 0
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].perCall < rows[j].perCall })
	total := 0
	for _, r := range rows {
		total += r.calls
	}
	seen := 0
	for _, r := range rows {
		seen += r.calls
		if 2*seen >= total {
			return r.perCall
		}
	}
	return rows[len(rows)-1].perCall
}

// ignoreRowError keeps a row's own failure (an unparseable answer, a
// permanent refusal, a row the stage rejects) from stopping the
// measurement, as the stage turns it into a reject; what would stop the
// stage stops the measurement.
func ignoreRowError(err error) error {
	if err == nil {
		return nil
	}
	if _, rerr := llmcall.Reject("plan", "", err); rerr == nil {
		return nil
	}
	if errors.Is(err, stage.ErrRowRejected) {
		return nil
	}
	return err
}

// cacheLook is what the run's LLM cache answers of a step's sample, read
// without a server call: the look-up behind a plain forecast's
// cached_share and saved_calls, which make a rebuild's forecast (a source
// added to a finished run) count only the calls still to make.
type cacheLook struct {
	stage.CacheLook
	// scale is the share of the rebuild's rows the sample stands for:
	// below 1 when it is of a stale corpus the rebuild adds to (0: 1).
	scale float64
}

// share is the share of the step's rows the cache answers.
func (l *cacheLook) share() float64 {
	s := float64(l.Cached) / float64(l.Rows)
	if l.scale > 0 {
		s *= l.scale
	}
	return s
}

// errNotCached ends a cache-only row at the first prompt the cache has no
// answer for.
var errNotCached = errors.New("not in the run's LLM cache")

// cacheAsk is a stage.Ask that reads the run's cache only: the same
// prompt bytes and parsing as the stage's, so the plan finds what the
// stage cached. A miss, or an answer parse refuses (the stage would
// re-ask), is errNotCached.
func cacheAsk(lcfg llmconf.Config, cache llm.Cache, p prompts.Prompt) stage.Ask {
	return func(ctx context.Context, data any, parse func(string) error) error {
		msgs, err := p.Render(data)
		if err != nil {
			return err
		}
		resp, ok, err := llm.Lookup(ctx, lcfg, cache, llm.Request{PromptVersion: p.Version, Messages: msgs})
		if err != nil {
			return err
		}
		if !ok || (parse != nil && parse(resp.Content) != nil) {
			return errNotCached
		}
		return nil
	}
}

// Cached looks w's sample up in the run's cache (lookOnce).
func (in *Input) Cached(ctx context.Context, w *stage.LLMWork) (*stage.CacheLook, error) {
	look, err := in.lookOnce(ctx, w)
	if look == nil || err != nil {
		return nil, err
	}
	return &look.CacheLook, nil
}

// lookOnce looks the step's sample up in the run's cache once per step
// (tag's calls per document and its cached share come from the same
// traversals); nil when the corpus is not complete or the prompt's
// requests cannot be rebuilt from a document alone (w.NoLookup: judge,
// audit, whose prompts depend on pairings and answers the plan cannot
// replay).
func (in *Input) lookOnce(ctx context.Context, w *stage.LLMWork) (*cacheLook, error) {
	if in.looked != nil {
		return in.looked, nil
	}
	docs, err := sampleDocs(ctx, in)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	cache := kvcache.New(in.root, layout.LLMCachePrefix(in.cfg.Run))
	p, err := prompts.Get(w.Prompt)
	if err != nil {
		return nil, err
	}
	if w.NoLookup != "" || (w.Row == nil && w.Data == nil) {
		return nil, nil
	}
	ask := cacheAsk(w.LLM, cache, p)
	// hit asks the cache for document i's calls: how many, and whether it
	// answers them all.
	hit := func(ctx context.Context, i int) (int, bool, error) {
		if w.Row == nil {
			err := ask(ctx, w.Data(docs, i), nil)
			if errors.Is(err, errNotCached) {
				return 1, false, nil
			}
			return 1, err == nil, err
		}
		n, err := w.Row(ctx, docs[i], ask)
		if errors.Is(err, errNotCached) || errors.Is(err, stage.ErrRowRejected) {
			return 0, false, nil
		}
		return n, err == nil, err
	}
	look := &cacheLook{CacheLook: stage.CacheLook{Rows: len(docs)}}
	var mu sync.Mutex
	var calls int
	err = parallel.For(ctx, len(docs), 8, func(ctx context.Context, i int) error {
		n, ok, err := hit(ctx, i)
		if err != nil {
			return fmt.Errorf("look up document %s in the LLM cache: %w", docs[i].ID, err)
		}
		if ok {
			mu.Lock()
			look.Cached++
			calls += n
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if look.Cached > 0 {
		look.PerRow = float64(calls) / float64(look.Cached)
	}
	if in.stale[dataset.Corpus.Name] {
		// The sample is of the last run's corpus; the rebuild's is its
		// writer's forecast (the inputs' rows: before dedup, so this
		// errs towards more calls). The documents beyond the last run's
		// are new: none of them cached.
		ms, _ := in.completeOrStale(ctx, dataset.Corpus.Name)
		var last int64
		for _, m := range ms {
			last += m.Rows
		}
		if now, _, err := in.Rows(ctx, dataset.Corpus.Name); err == nil && now > float64(last) {
			look.scale = float64(last) / now
		}
	}
	in.looked = look
	return look, nil
}
