package judge

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/summtok"
)

// Verdict is one comparison's outcome.
type Verdict struct {
	// Winner is 1 or 2 (the sample shown first or second), 0 when invalid.
	Winner int
	// Reason is why a verdict is invalid: ReasonUnparseable or ReasonRefused.
	Reason string
	// Raw is the last answer (the lexical judge's two scores offline).
	Raw  string
	Asks int
	// Tokens of the answers used; Latency, Cached and Attempts describe
	// this run's calls (timings, not results).
	PromptTokens, CompletionTokens int
	Latency                        time.Duration
	Cached                         bool
	Attempts                       int
}

// Reasons a judgment is invalid.
const (
	ReasonUnparseable = "unparseable"
	ReasonRefused     = "refused"
)

// Judge compares two samples against a target.
type Judge interface {
	Compare(ctx context.Context, target, s1, s2 *readers.Doc) (Verdict, error)
	// Backend, Model and PromptVersion are recorded on every judgment.
	Backend() string
	Model() string
	PromptVersion() string
}

// errNoWinner is what a re-ask tells the model was wrong.
var errNoWinner = errors.New(`no \boxed{1} or \boxed{2}`)

// boxed finds \boxed{1} and \boxed{2}, also written \boxed {1} or with the
// doubled braces of the prompt's source text.
var boxed = regexp.MustCompile(`\\boxed\s*\{\s*\{?\s*([12])\s*\}?\s*\}`)

// ParseAnswer returns the last \boxed{1} or \boxed{2} of an answer: 1, 2,
// or 0 when there is none (SPEC §3: the last one decides).
func ParseAnswer(s string) int {
	m := boxed.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return 0
	}
	return int(m[len(m)-1][1][0] - '0')
}

// LLMJudge asks a model with prompt F.3; Retries are the re-asks after
// an answer without a verdict.
type LLMJudge struct {
	*llmcall.Client
}

// Compare renders F.3 and asks until an answer names a sample. A re-ask
// is the conversation llmcall.Reask makes (the bad answer, then a
// correction), so a deterministic server answers it anew, and it carries
// its number in the prompt version: its own cache entry, and a cached bad
// answer is never served again. A refusal of this request
// (llm.ErrPermanent: 400, 422) and an answer still unparseable after the
// re-asks are invalid verdicts, kept; a transient failure that outlived
// the client's retries is an error (the shard exits 75 and resumes), and
// so is a configuration error (*llm.ConfigError: a refused key, an unknown
// model, a server refusing every request; exit 2).
func (j *LLMJudge) Compare(ctx context.Context, target, s1, s2 *readers.Doc) (Verdict, error) {
	msgs, err := j.Prompt.Render(prompts.JudgeData{
		TargetProblem: target.Statement, TargetSolution: target.Solution,
		Sample1Problem: s1.Statement, Sample1Solution: s1.Solution,
		Sample2Problem: s2.Statement, Sample2Solution: s2.Solution,
	})
	if err != nil {
		return Verdict{}, err
	}
	var v Verdict
	v.Cached = true
	ask := msgs
	for attempt := 0; attempt <= j.Retries; attempt++ {
		if attempt > 0 {
			ask = llmcall.Reask(ask, v.Raw, errNoWinner) // the conversation so far (llmcall.Ask)
		}
		resp, err := j.Client.Chat(ctx, llm.Request{PromptVersion: llmcall.ReaskVersion(j.Prompt.Version, attempt), Messages: ask})
		v.Asks++
		v.Latency += resp.Latency
		v.Attempts += resp.Attempts
		if err != nil {
			if errors.Is(err, llm.ErrPermanent) {
				v.Cached = false
				v.Winner, v.Reason, v.Raw = 0, ReasonRefused, err.Error()
				return v, nil
			}
			return v, err
		}
		v.Cached = v.Cached && resp.Cached
		v.PromptTokens += resp.PromptTokens
		v.CompletionTokens += resp.CompletionTokens
		v.Raw = resp.Content
		if w := ParseAnswer(resp.Content); w != 0 {
			v.Winner = w
			return v, nil
		}
	}
	v.Reason = ReasonUnparseable
	return v, nil
}

// LexicalJudge is the offline judge of the demo and of tests: the sample
// whose statement and solution share the larger fraction of content words
// (summtok tokens, Jaccard) with the target's wins; on equal scores the
// sample with the smaller document id. It is deterministic and needs no
// model; it is not a relevance judge anyone should publish ratings from.
type LexicalJudge struct {
	mu     sync.Mutex
	tokens map[string][]string
}

func (j *LexicalJudge) Backend() string       { return "lexical" }
func (j *LexicalJudge) Model() string         { return "" }
func (j *LexicalJudge) PromptVersion() string { return "" }

func (j *LexicalJudge) set(d *readers.Doc) []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.tokens == nil {
		j.tokens = map[string][]string{}
	}
	t, ok := j.tokens[d.ID]
	if !ok {
		t = summtok.Set(d.Statement + "\n" + d.Solution)
		j.tokens[d.ID] = t
	}
	return t
}

func (j *LexicalJudge) Compare(_ context.Context, target, s1, s2 *readers.Doc) (Verdict, error) {
	t := j.set(target)
	a, b := summtok.Jaccard(t, j.set(s1)), summtok.Jaccard(t, j.set(s2))
	v := Verdict{Asks: 1, Raw: fmt.Sprintf("%.17g %.17g", a, b), Winner: 2}
	if a > b || a == b && s1.ID < s2.ID {
		v.Winner = 1
	}
	return v, nil
}
