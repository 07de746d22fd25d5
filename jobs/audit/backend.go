package audit

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/lib/leak"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/prompts"
)

// Verdicts of a pair.
const (
	Equivalent = "equivalent"
	Distinct   = "distinct"
	// Invalid: no usable answer (kept in the data, never a flag).
	Invalid = "invalid"
)

// Reasons a verdict is invalid.
const (
	ReasonUnparseable = "unparseable"
	ReasonRefused     = "refused"
)

// Verdict is one pair's outcome.
type Verdict struct {
	// Verdict is Equivalent, Distinct or Invalid.
	Verdict string
	// Score is the offline rule's shingle Jaccard (0 with the LLM).
	Score float64
	// Reason says why in a few words; for Invalid, ReasonUnparseable or
	// ReasonRefused.
	Reason string
	// Raw is the last answer (the offline rule's evidence offline), hashed
	// into the row; empty for a refusal.
	Raw  string
	Asks int
	// Detail is a refusal's error, for the log only (it may name the
	// server, so no output holds it).
	Detail string
}

// Auditor decides whether a document states a problem equivalent to a
// query's.
type Auditor interface {
	Audit(ctx context.Context, query, doc *readers.Doc) (Verdict, error)
	// Backend, Model and PromptVersion are recorded on every row.
	Backend() string
	Model() string
	PromptVersion() string
}

// boxed finds \boxed{equivalent} and \boxed{distinct} in any case, also
// written \boxed {…}, with doubled braces, or with the word in \text{…}
// (\textbf, \mathrm, …), as models write it.
var boxed = regexp.MustCompile(`(?i)\\boxed\s*\{\s*(?:\{\s*|\\(?:text|textbf|textrm|texttt|mathrm|mathbf|mathtt)\s*\{\s*)?(equivalent|distinct)\s*\}?\s*\}`)

// ParseVerdict returns the last \boxed{equivalent} or \boxed{distinct} of
// an answer, lower-cased, or "" when there is none (the last one decides,
// as the judge's last \boxed{1} or \boxed{2} does).
func ParseVerdict(s string) string {
	m := boxed.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return ""
	}
	return strings.ToLower(m[len(m)-1][1])
}

var errNoVerdict = errors.New(`no \boxed{equivalent} or \boxed{distinct}`)

// LLMAuditor asks a model with prompt A.1; Retries are the re-asks after
// an answer without a verdict.
type LLMAuditor struct {
	*llmcall.Client
}

// Audit renders A.1 and asks until an answer has a verdict (llmcall.Ask: a
// re-ask has its own cache entry, so a cached bad answer is never served
// again). An answer still without one after the re-asks is Invalid
// (unparseable), a refusal of this request (llm.ErrPermanent: 400, 422)
// Invalid (refused): both kept. A transient failure that outlived the
// client's retries is an error (the shard exits 75; the rerun finds the
// answers already paid for in the cache), and so is a configuration error
// (*llm.ConfigError: a refused key, an unknown model, a server refusing
// every request; exit 2).
func (a *LLMAuditor) Audit(ctx context.Context, query, doc *readers.Doc) (Verdict, error) {
	var v Verdict
	data := prompts.AuditData{QueryProblem: query.Statement, QuerySolution: query.Solution,
		DocumentProblem: doc.Statement, DocumentSolution: doc.Solution}
	got, err := llmcall.Ask(ctx, a.Client, data, func(raw string) (string, error) {
		v.Asks++
		v.Raw = raw
		if w := ParseVerdict(raw); w != "" {
			return w, nil
		}
		return "", errNoVerdict
	})
	var un *llmcall.UnparseableError
	switch {
	case err == nil:
		v.Verdict, v.Reason = got, "answered "+got
	case errors.As(err, &un):
		v.Verdict, v.Reason = Invalid, ReasonUnparseable
	case errors.Is(err, llm.ErrPermanent):
		v.Asks++
		v.Verdict, v.Reason, v.Raw, v.Detail = Invalid, ReasonRefused, "", err.Error()
	default:
		return v, err
	}
	return v, nil
}

// LexicalAuditor is the offline backend: lib/leak's deterministic
// near-duplicate test (shingles of the statements, their numbers, the
// solutions' final answers). It needs no model; its limits are in
// lib/leak's package doc and in the report.
type LexicalAuditor struct {
	Rule leak.Rule

	mu    sync.Mutex
	feats map[string]leak.Features
}

func (a *LexicalAuditor) Backend() string       { return "lexical" }
func (a *LexicalAuditor) Model() string         { return "" }
func (a *LexicalAuditor) PromptVersion() string { return "" }

func (a *LexicalAuditor) features(d *readers.Doc) leak.Features {
	a.mu.Lock()
	f, ok := a.feats[d.ID]
	a.mu.Unlock()
	if ok {
		return f
	}
	f = leak.Extract(d.Statement, d.Solution)
	a.mu.Lock()
	if a.feats == nil {
		a.feats = map[string]leak.Features{}
	}
	a.feats[d.ID] = f
	a.mu.Unlock()
	return f
}

// Audit applies the rule; Raw is its evidence.
func (a *LexicalAuditor) Audit(_ context.Context, query, doc *readers.Doc) (Verdict, error) {
	res := a.Rule.Compare(a.features(query), a.features(doc))
	v := Verdict{Verdict: Distinct, Score: res.Score, Reason: res.Reason, Raw: res.Evidence, Asks: 1}
	if res.Equivalent {
		v.Verdict = Equivalent
	}
	return v, nil
}
