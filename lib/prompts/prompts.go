// Package prompts holds the LLM prompts of the SABER-Math pipeline as
// versioned templates embedded in the binary, so a run's answers can always
// be traced to the exact text that produced them.
//
// The texts F.1–F.3 are the paper's (App. F): F.1 topic assignment, F.2
// solution summaries and F.3 pairwise judging, copied word for word. F.3 was a Python
// format string: its "{{1}}" and "$\\ boxed" are the literal "$\boxed{1}$"
// the model sees, and its placeholders {target_problem} ... became fields. The paper's extraction lost the line
// breaks, which are restored at its markdown headings and numbered items;
// the only other changes are "&lt;"/"&gt;" → "<"/">", "<truefalse>" →
// "<true|false>" (the "|" was lost) and the stray closing quote after
// F.2's {solution}. Placeholders ({problem} ...) became {{.Field}} fields.
//
// A.1, the duplicate-leakage audit (paper App. A.5, which gives no prompt),
// is ours: the two problems with their solutions, the definition
// of equivalent (the same mathematical content up to renaming, rewording
// or notation) spelled out with what does and does not make problems
// distinct, reasoning first and a final \boxed{equivalent} or
// \boxed{distinct}.
//
// B.4, the rewrite of the deduplication experiment (paper App. B.4, which
// names the model and the goal but gives no prompt), is ours: the same
// mathematical content, renamed variables, restated story, reformulated
// notation, no solving and no hints, the answer between <rewrite> tags.
//
// F.5, the equation formatting of the maths-vs-words analysis (App. D.10),
// is the paper's text with the spaces and the dollar signs its extraction
// lost restored ("Use $$...$$ for display equations", "Apply math mode
// ($...$)"), the Python format string's doubled braces made single, and
// an "Input:" line with the text appended after the example.
//
// F.3s is F.3 with its parts in another order, every line unchanged: the
// instructions (STEP 1 to OUTPUT FORMAT, 885 of its 1,060 fixed tokens)
// before the three items rather than after them, so that every judge
// request starts with the same ~980 tokens and then the target, and a
// server's prefix cache computes only the two samples (issue 41). It is
// judge.prompt_order: shared_first; F.3 stays the default, since a model
// may answer the reordered text differently and the cache keys differ.
//
// A template's Version goes into every cache key (llm.Request.PromptVersion).
// Changing a template's text therefore means a new file and a new version,
// never an edit: the tests pin each version's SHA-256.
//
// docs/algorithms.md says which stage sends each prompt, and when:
// docs/algorithms.md#topics-and-summaries-tag-summarize (tag, summarize:
// F.1, F.2), docs/algorithms.md#relevance-ratings-judge-rate (judge: F.3,
// and the validation studies' F.4 and C.1), docs/algorithms.md#neural-retrievers
// (rewrite: B.4; analyze: F.5); docs/release.md#the-audits-settings (audit:
// A.1).
package prompts

import (
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/saber-math/saber/lib/llm"
)

// Prompt names.
const (
	Topics  = "topics"  // F.1 ontology topic assignment
	Summary = "summary" // F.2 short solution summaries
	Judge   = "judge"   // F.3 pairwise relevance judging
	Audit   = "audit"   // A.1 (ours) duplicate-leakage audit of a query–document pair
	Rewrite = "rewrite" // B.4 (ours) a query restated for the deduplication experiment
	Format  = "format"  // F.5 mathematical equation formatting (every expression delimited)
	// Ordinal is F.4, the ordinal judge of the agreement study (App. D.4):
	// a 0–100 similarity score of one sample to the target.
	Ordinal = "ordinal"
	// JudgeConfidence is C.1 (ours; the paper gives no text for its
	// confidence-based judge): F.3 word for word but for its output
	// format, which also asks for "Confidence: N", N from 50 to 100.
	JudgeConfidence = "judge_confidence"
	// JudgeSharedFirst is F.3s: F.3's lines, the instructions moved
	// before the items, so the part shared by every comparison comes
	// first.
	JudgeSharedFirst = "judge_shared_first"
)

//go:embed templates/*.txt
var files embed.FS

// registry maps a name to its current template file and version.
var registry = map[string]struct{ file, version string }{
	Topics:           {"templates/f1-topic-assignment.v1.txt", "f1.v1"},
	Summary:          {"templates/f2-summary.v1.txt", "f2.v1"},
	Judge:            {"templates/f3-pairwise-judge.v1.txt", "f3.v1"},
	Audit:            {"templates/a1-leakage-audit.v1.txt", "a1.v1"},
	Rewrite:          {"templates/b4-rewrite.v1.txt", "b4.v1"},
	Format:           {"templates/f5-math-format.v1.txt", "f5.v1"},
	Ordinal:          {"templates/f4-ordinal-judge.v1.txt", "f4.v1"},
	JudgeConfidence:  {"templates/c1-pairwise-confidence.v1.txt", "c1.v1"},
	JudgeSharedFirst: {"templates/f3-pairwise-judge-shared-first.v1.txt", "f3s.v1"},
}

// TopicsData fills the "topics" prompt (F.1).
type TopicsData struct {
	ProblemAndSolution string
	Tags               string // comma-separated; see JoinTags
}

// SummaryData fills the "summary" prompt (F.2).
type SummaryData struct {
	Problem, Solution string
}

// JudgeData fills the "judge" prompt (F.3): the target (the query) and
// the two samples, each with its statement and solution.
type JudgeData struct {
	TargetProblem, TargetSolution   string
	Sample1Problem, Sample1Solution string
	Sample2Problem, Sample2Solution string
}

// RewriteData fills the "rewrite" prompt (B.4): the statement to restate.
type RewriteData struct {
	Problem string
}

// FormatData fills the "format" prompt (F.5): the text to normalise.
type FormatData struct {
	Text string
}

// OrdinalData fills the "ordinal" prompt (F.4): the target and one sample.
type OrdinalData struct {
	TargetProblem, TargetSolution string
	SampleProblem, SampleSolution string
}

// AuditData fills the "audit" prompt (A.1): a query and one of its top
// documents, each with its statement and solution.
type AuditData struct {
	QueryProblem, QuerySolution       string
	DocumentProblem, DocumentSolution string
}

// JoinTags writes tags the one way the topics prompt takes them, ", "
// between names, so that equal tag lists give equal prompts (and cache keys)
// whoever builds them.
func JoinTags(tags []string) string { return strings.Join(tags, ", ") }

// Prompt is one version of a prompt. System and User are templates whose
// only actions are {{.Field}} placeholders (see fill.go); System is empty
// for a prompt that is a single user message.
type Prompt struct {
	Name, Version string
	System, User  string
}

// Names lists the known prompt names.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the current version of the named prompt.
func Get(name string) (Prompt, error) {
	r, ok := registry[name]
	if !ok {
		return Prompt{}, fmt.Errorf("prompts: no prompt %q (have %s)", name, strings.Join(Names(), ", "))
	}
	raw, err := files.ReadFile(r.file)
	if err != nil {
		return Prompt{}, fmt.Errorf("prompts: reading %s: %w", r.file, err)
	}
	system, user, err := split(string(raw))
	if err != nil {
		return Prompt{}, fmt.Errorf("prompts: %s: %w", r.file, err)
	}
	return Prompt{Name: name, Version: r.version, System: system, User: user}, nil
}

// split reads a template file: either "[SYSTEM]\n...\n[USER]\n..." or a
// single user message with no markers.
func split(s string) (system, user string, err error) {
	const sysMark, userMark = "[SYSTEM]\n", "\n[USER]\n"
	if !strings.HasPrefix(s, sysMark) {
		if strings.Contains(s, "[USER]\n") {
			return "", "", fmt.Errorf("[USER] without [SYSTEM] first")
		}
		return "", strings.TrimSpace(s), nil
	}
	rest := s[len(sysMark):]
	i := strings.Index(rest, userMark)
	if i < 0 {
		return "", "", fmt.Errorf("[SYSTEM] without [USER]")
	}
	return strings.TrimSpace(rest[:i]), strings.TrimSpace(rest[i+len(userMark):]), nil
}

// parsed caches parsed templates by source text.
var parsed sync.Map // string → *template

func parse(src string) (*template, error) {
	if t, ok := parsed.Load(src); ok {
		return t.(*template), nil
	}
	t, err := parseTemplate(src)
	if err != nil {
		return nil, err
	}
	parsed.Store(src, t)
	return t, nil
}

// Render fills the templates with data's fields (TopicsData, SummaryData, or
// any struct or map with the same fields) and returns the messages: a system
// message when the prompt has one, then the user message. A missing field is
// an error.
func (p Prompt) Render(data any) ([]llm.Message, error) {
	if p.User == "" {
		return nil, fmt.Errorf("prompts: %s %s has no user message", p.Name, p.Version)
	}
	msgs := make([]llm.Message, 0, 2)
	for _, part := range []struct{ role, src string }{{llm.RoleSystem, p.System}, {llm.RoleUser, p.User}} {
		if part.src == "" {
			continue
		}
		t, err := parse(part.src)
		if err != nil {
			return nil, fmt.Errorf("prompts: parsing %s %s %s template: %w", p.Name, p.Version, part.role, err)
		}
		text, err := t.fill(data)
		if err != nil {
			return nil, fmt.Errorf("prompts: rendering %s %s %s message: %w", p.Name, p.Version, part.role, err)
		}
		msgs = append(msgs, llm.Message{Role: part.role, Content: text})
	}
	return msgs, nil
}
