package study

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/lib/stats"
	"github.com/saber-math/saber/lib/summtok"
)

// The alternative judging regimes of the agreement study (paper App. D.4,
// Table 6), run over the labelled items themselves rather than read from
// a run's judgments:
//
//   - Ordinal: prompt F.4 scores each candidate 0–100 against the target
//     on its own; the item's verdict is the higher score, a tie when the
//     two differ by at most AltConfig.OrdinalMargin.
//   - Majority: the pairwise judge (F.3) asked Votes times; a tie when the
//     vote margin is at most VoteTieMargin (paper: 5 votes, margin 1).
//     Odd votes show the item's A first, even votes B, so that a position
//     bias cannot decide the vote alone.
//   - Confidence: F.3 that also states its confidence (prompt C.1, ours);
//     a tie when the confidence is below MinConfidence.

// Names of the alternative judges, as `--alt-judges` takes them.
const (
	AltOrdinal    = "ordinal"
	AltMajority   = "majority"
	AltConfidence = "confidence"
)

// AltConfig tunes the alternative judges.
type AltConfig struct {
	Votes         int     // majority: votes per item (paper 5)
	VoteTieMargin int     // majority: a tie at a margin ≤ this (paper 1)
	OrdinalMargin float64 // ordinal: a tie when the scores differ by ≤ this
	MinConfidence float64 // confidence: a tie below this
	Workers       int     // calls in flight
}

// DefaultAltConfig is the paper's majority vote, ordinal ties only at
// equal scores, and ties below a confidence of 70.
var DefaultAltConfig = AltConfig{Votes: 5, VoteTieMargin: 1, OrdinalMargin: 0, MinConfidence: 70, Workers: 8}

// AltBackend answers the alternative judges' three questions.
type AltBackend interface {
	// Pairwise is vote `vote` (1-based) of the pairwise judge: 1 or 2, 0
	// without a usable answer.
	Pairwise(ctx context.Context, target, s1, s2 *readers.Doc, vote int) (int, error)
	// Ordinal is the 0–100 score of s against target; ok = false without
	// a usable answer.
	Ordinal(ctx context.Context, target, s *readers.Doc) (score float64, ok bool, err error)
	// Confident is the pairwise verdict (0 without one) and its confidence
	// in [50, 100].
	Confident(ctx context.Context, target, s1, s2 *readers.Doc) (winner int, confidence float64, err error)
	// Describe names the backend and model for the report.
	Describe() string
}

// ReasonNoText: an item's document is not in the corpus given.
const ReasonNoText = "document not in corpus"

// Items are the distinct labelled items, in order of first appearance.
func Items(labels []Label) ([]Item, error) {
	ls, err := groupLabels(labels)
	if err != nil {
		return nil, err
	}
	out := make([]Item, len(ls))
	for i, l := range ls {
		out[i] = l.Item
	}
	return out, nil
}

// AltSystem runs the named alternative judge over items and returns its
// System for Agreements. Texts holds the documents by id.
func AltSystem(ctx context.Context, name, kind string, items []Item, texts map[string]*readers.Doc, b AltBackend, c AltConfig) (System, error) {
	type answer struct {
		v   Verdict
		ok  bool
		why string
	}
	answers := make([]answer, len(items))
	var scoreMu sync.Mutex
	scores := map[[2]string]*struct {
		once  sync.Once
		score float64
		ok    bool
		err   error
	}{}
	ordinal := func(ctx context.Context, target, doc *readers.Doc) (float64, bool, error) {
		// A candidate of several items of one target is scored once.
		scoreMu.Lock()
		k := [2]string{target.ID, doc.ID}
		s := scores[k]
		if s == nil {
			s = &struct {
				once  sync.Once
				score float64
				ok    bool
				err   error
			}{}
			scores[k] = s
		}
		scoreMu.Unlock()
		s.once.Do(func() { s.score, s.ok, s.err = b.Ordinal(ctx, target, doc) })
		return s.score, s.ok, s.err
	}
	err := parallel.For(ctx, len(items), max(1, c.Workers), func(ctx context.Context, i int) error {
		it := items[i]
		t, a, bd := texts[it.Target], texts[it.A], texts[it.B]
		if t == nil || a == nil || bd == nil {
			answers[i] = answer{Tie, false, ReasonNoText}
			return nil
		}
		switch kind {
		case AltOrdinal:
			sa, oka, err := ordinal(ctx, t, a)
			if err != nil {
				return fmt.Errorf("%s: target %s, %s: %w", name, it.Target, it.A, err)
			}
			sb, okb, err := ordinal(ctx, t, bd)
			if err != nil {
				return fmt.Errorf("%s: target %s, %s: %w", name, it.Target, it.B, err)
			}
			if !oka || !okb {
				answers[i] = answer{Tie, false, ReasonInvalid}
				return nil
			}
			answers[i] = answer{verdictOf(it, stats.Prefer(sa, sb, c.OrdinalMargin)), true, ""}
		case AltMajority:
			var va, vb int
			for v := 1; v <= c.Votes; v++ {
				s1, s2 := a, bd
				if v%2 == 0 {
					s1, s2 = bd, a
				}
				w, err := b.Pairwise(ctx, t, s1, s2, v)
				if err != nil {
					return fmt.Errorf("%s: target %s, %s vs %s, vote %d: %w", name, it.Target, s1.ID, s2.ID, v, err)
				}
				switch {
				case w == 1 && s1 == a, w == 2 && s2 == a:
					va++
				case w != 0:
					vb++
				}
			}
			if va+vb == 0 {
				answers[i] = answer{Tie, false, ReasonInvalid}
				return nil
			}
			answers[i] = answer{verdictOf(it, stats.Majority(va, vb, c.VoteTieMargin)), true, ""}
		case AltConfidence:
			w, conf, err := b.Confident(ctx, t, a, bd)
			if err != nil {
				return fmt.Errorf("%s: target %s, %s vs %s: %w", name, it.Target, it.A, it.B, err)
			}
			switch {
			case w == 0:
				answers[i] = answer{Tie, false, ReasonInvalid}
			case conf < c.MinConfidence:
				answers[i] = answer{Tie, true, ""}
			case w == 1:
				answers[i] = answer{it.A, true, ""}
			default:
				answers[i] = answer{it.B, true, ""}
			}
		default:
			return fmt.Errorf("alternative judge %q: want %s, %s or %s", kind, AltOrdinal, AltMajority, AltConfidence)
		}
		return nil
	})
	if err != nil {
		return System{}, err
	}
	byItem := make(map[Item]answer, len(items))
	for i, it := range items {
		byItem[it] = answers[i]
	}
	return System{Name: name, Answer: func(target, a, b string) (Verdict, bool, string) {
		ans, ok := byItem[itemOf(target, a, b)]
		if !ok {
			return Tie, false, ReasonNotJudged
		}
		return ans.v, ans.ok, ans.why
	}}, nil
}

func verdictOf(it Item, p int) Verdict {
	switch p {
	case stats.PreferA:
		return it.A
	case stats.PreferB:
		return it.B
	}
	return Tie
}

// LexicalAlt is the offline backend of the alternative judges, for the
// demo and tests; its verdicts are no evidence about any model. Scores are
// the lexical judge's: the Jaccard similarity of the content words
// (summtok) of statement and solution with the target's. The ordinal score
// is 100 × that, rounded; vote v of the pairwise judge perturbs both
// scores by a seeded uniform noise of ±Noise (seed, target, samples,
// vote), so that votes can differ; the confidence is 50 + 50 × the two
// scores' difference over the larger.
type LexicalAlt struct {
	Seed  uint64
	Noise float64
	mu    sync.Mutex
	sets  map[string][]string
}

func (l *LexicalAlt) Describe() string { return "lexical (offline: content-word overlap, not a model)" }

func (l *LexicalAlt) sim(target, d *readers.Doc) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sets == nil {
		l.sets = map[string][]string{}
	}
	set := func(d *readers.Doc) []string {
		s, ok := l.sets[d.ID]
		if !ok {
			s = summtok.Set(d.Statement + "\n" + d.Solution)
			l.sets[d.ID] = s
		}
		return s
	}
	return summtok.Jaccard(set(target), set(d))
}

func (l *LexicalAlt) Pairwise(_ context.Context, target, s1, s2 *readers.Doc, vote int) (int, error) {
	noise := func(which string) float64 {
		x := seed.Derive(l.Seed, "study", "vote\x00"+target.ID+"\x00"+s1.ID+"\x00"+s2.ID+"\x00"+strconv.Itoa(vote)+"\x00"+which)
		return l.Noise * (2*float64(x>>11)/(1<<53) - 1)
	}
	a, b := l.sim(target, s1)+noise("1"), l.sim(target, s2)+noise("2")
	if a > b || a == b && s1.ID < s2.ID {
		return 1, nil
	}
	return 2, nil
}

func (l *LexicalAlt) Ordinal(_ context.Context, target, s *readers.Doc) (float64, bool, error) {
	return float64(int(100*l.sim(target, s) + 0.5)), true, nil
}

func (l *LexicalAlt) Confident(_ context.Context, target, s1, s2 *readers.Doc) (int, float64, error) {
	a, b := l.sim(target, s1), l.sim(target, s2)
	w := 2
	if a > b || a == b && s1.ID < s2.ID {
		w = 1
	}
	conf := 50.0
	if m := max(a, b); m > 0 {
		conf = 50 + 50*(max(a, b)-min(a, b))/m
	}
	return w, conf, nil
}

// LLMAlt asks a model: F.3 for the votes, F.4 for the ordinal scores, C.1
// for the confidence. Vote v > 1 carries "+vote<v>" in its prompt version,
// so every vote has a cache entry of its own (a rerun replays each), and
// vote 1 shares the tournament's own cache entry for the same order;
// votes differ only if the model samples (llm.temperature > 0). Answers
// without a verdict are asked again up to Retries times, as in judge.
type LLMAlt struct {
	Client  *llm.Client
	ModelID string
	Retries int
}

func (l *LLMAlt) Describe() string { return "llm, model " + l.ModelID }

// ask renders p and asks until parse accepts an answer; ok = false after
// the re-asks or on a refusal (llm.ErrPermanent), an error otherwise.
func (l *LLMAlt) ask(ctx context.Context, name, version string, data any, parse func(string) bool) (bool, error) {
	p, err := prompts.Get(name)
	if err != nil {
		return false, err
	}
	msgs, err := p.Render(data)
	if err != nil {
		return false, err
	}
	if version == "" {
		version = p.Version
	}
	for attempt := 0; attempt <= l.Retries; attempt++ {
		v := version
		if attempt > 0 {
			v = fmt.Sprintf("%s+reask%d", version, attempt)
		}
		resp, err := l.Client.Chat(ctx, llm.Request{PromptVersion: v, Messages: msgs})
		if errors.Is(err, llm.ErrPermanent) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if parse(resp.Content) {
			return true, nil
		}
	}
	return false, nil
}

func judgeData(target, s1, s2 *readers.Doc) prompts.JudgeData {
	return prompts.JudgeData{TargetProblem: target.Statement, TargetSolution: target.Solution,
		Sample1Problem: s1.Statement, Sample1Solution: s1.Solution, Sample2Problem: s2.Statement, Sample2Solution: s2.Solution}
}

func (l *LLMAlt) Pairwise(ctx context.Context, target, s1, s2 *readers.Doc, vote int) (int, error) {
	p, err := prompts.Get(prompts.Judge)
	if err != nil {
		return 0, err
	}
	version := p.Version
	if vote > 1 {
		version = fmt.Sprintf("%s+vote%d", p.Version, vote)
	}
	w := 0
	_, err = l.ask(ctx, prompts.Judge, version, judgeData(target, s1, s2), func(s string) bool { w = judge.ParseAnswer(s); return w != 0 })
	return w, err
}

func (l *LLMAlt) Ordinal(ctx context.Context, target, s *readers.Doc) (float64, bool, error) {
	score := 0
	ok, err := l.ask(ctx, prompts.Ordinal, "", prompts.OrdinalData{TargetProblem: target.Statement, TargetSolution: target.Solution,
		SampleProblem: s.Statement, SampleSolution: s.Solution}, func(a string) bool {
		var ok bool
		score, ok = ParseOrdinal(a)
		return ok
	})
	return float64(score), ok, err
}

func (l *LLMAlt) Confident(ctx context.Context, target, s1, s2 *readers.Doc) (int, float64, error) {
	w, conf := 0, 0
	_, err := l.ask(ctx, prompts.JudgeConfidence, "", judgeData(target, s1, s2), func(a string) bool {
		var ok bool
		w = judge.ParseAnswer(a)
		conf, ok = ParseConfidence(a)
		return w != 0 && ok
	})
	if err != nil || w == 0 {
		return 0, 0, err
	}
	return w, float64(conf), nil
}

var (
	boxedScore = regexp.MustCompile(`\\boxed\s*\{\s*\{?\s*(\d{1,3})\s*\}?\s*\}`)
	confidence = regexp.MustCompile(`(?i)confidence\s*:\s*\**\s*(\d{1,3})`)
)

// ParseOrdinal returns the last \boxed{N} of an F.4 answer with N an
// integer in [0, 100]; ok = false when there is none or it is out of range.
func ParseOrdinal(s string) (int, bool) {
	m := boxedScore.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(m[len(m)-1][1])
	return n, err == nil && n >= 0 && n <= 100
}

// ParseConfidence returns the last "Confidence: N" of a C.1 answer, N in
// [0, 100] (the prompt asks for 50 to 100; a lower one is kept, and is
// below any threshold worth using).
func ParseConfidence(s string) (int, bool) {
	m := confidence.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(m[len(m)-1][1])
	return n, err == nil && n >= 0 && n <= 100
}
