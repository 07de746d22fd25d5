package decl

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/lib/schedule"
)

// Section is judge's part of the run config, `judge:`.
var Section = config.SectionOf[Config]{Name: "judge"}

// Config configures the Swiss tournament of pairwise judgments (paper §3.5,
// App. B.3, prompt F.3).
type Config struct {
	// Options: shards, backend, parse_retries, max_invalid_share, workers
	// (the comparisons in flight) and llm. Backend is lexical (offline:
	// the sample whose statement and solution share more content words
	// with the query's wins; the default) or llm (prompt F.3). An answer
	// with no \boxed{1} or \boxed{2} after the re-asks, or a refusal, is
	// kept as an invalid judgment. max_invalid_share is checked after
	// every round (a judge that never boxes an answer stops after round 1,
	// not after every round was paid for).
	llmstage.Options `yaml:",inline"`
	// Rounds of the tournament (paper: 20).
	Rounds int `yaml:"rounds" json:"rounds"`
	// PositionAudit is the share of the tournament's comparisons, in
	// [0, 1], that are judged a second time with the samples swapped, to
	// measure the judge's position bias (paper App. D.4 validates the
	// judge; Arena-Hard and MT-Bench judge both orders for this reason).
	// The sample is seeded by (run seed, query, round, match), so it does
	// not depend on the shard count. The swapped judgments go to
	// `judge_audit` only: they never change a rating. Default 0 (off).
	PositionAudit float64 `yaml:"position_audit" json:"position_audit"`
	// BothOrders judges every comparison in both sample orders; both
	// judgments are kept in `judgments` (the swapped one as match M+k of a
	// round of M matches) and both feed Bradley–Terry, so orders that
	// disagree are a tie (one win each); the tournament counts a tie as a
	// win for nobody. It doubles the judge's calls. Every comparison is
	// then in `judge_audit` too, and position_audit adds nothing.
	BothOrders bool `yaml:"both_orders" json:"both_orders"`
	// Scheduler chooses which comparisons each round asks for (lib/schedule,
	// issue 24). Unset — or kind swiss with nothing else — it is the
	// paper's Swiss rule over all Rounds, the default, and the config's
	// hash is what it was before the key existed. Kind swiss-adaptive
	// stops a query's tournament once its top-K Bradley–Terry ranking has
	// been stable for stable_rounds rounds; kind active does too, and pairs
	// its rounds after swiss_rounds by how uncertain and how near the top
	// each pair is; kind refine spends a budget of games per candidate on
	// pairs near each other in the ranking; kind swiss-top spends it on
	// Swiss rounds among the top top_share by wins after swiss_rounds Swiss
	// rounds. Rounds still caps every tournament.
	Scheduler *Scheduler `yaml:"scheduler" json:"scheduler,omitempty"`
	// PromptOrder is the order of F.3's parts (backend llm): paper (the
	// default: the paper's text, its three items before its instructions)
	// or shared_first (F.3s: the same lines, the instructions before the
	// items), which makes every request start with what all comparisons
	// share, then the query, so that a server's prefix cache computes only
	// the two samples: on CI's llama-server the share of prompt tokens it
	// serves from its cache goes from about a fifth to over four fifths
	// (issue 41). A model may answer the reordered text differently, and
	// its answers have other cache keys: switching a run's order re-asks
	// every comparison. A pointer, unset for paper, so that the config's
	// hash is what it was before the key existed.
	PromptOrder *string `yaml:"prompt_order" json:"prompt_order,omitempty"`
}

// SharedFirst reports whether the judge sends F.3s (PromptOrder).
func (j *Config) SharedFirst() bool {
	return j.PromptOrder != nil && *j.PromptOrder == PromptOrderSharedFirst
}

// Orders of F.3's parts (PromptOrder).
const (
	PromptOrderPaper       = "paper"
	PromptOrderSharedFirst = "shared_first"
)

// Scheduler is `judge.scheduler`; zero fields take lib/schedule's defaults.
type Scheduler struct {
	// Kind is swiss, swiss-adaptive, active, refine or swiss-top.
	Kind string `yaml:"kind" json:"kind"`
	// TopK is the part of the ranking whose stability stops a tournament
	// (default 10, what nDCG@10 reads).
	TopK int `yaml:"top_k" json:"top_k"`
	// StableRounds is the stable rounds in a row that stop it (default 5).
	StableRounds int `yaml:"stable_rounds" json:"stable_rounds"`
	// Epsilon is the nDCG@top_k the previous round's top K may lose under
	// the current ratings and still count as stable (default 0.002).
	Epsilon float64 `yaml:"epsilon" json:"epsilon"`
	// MinRounds is the fewest rounds before a stop (default 12).
	MinRounds int `yaml:"min_rounds" json:"min_rounds"`
	// SwissRounds (active, refine, swiss-top) is the Swiss rounds before
	// the others (default 5; refine 7, swiss-top 8).
	SwissRounds int `yaml:"swiss_rounds" json:"swiss_rounds"`
	// Matches (active) is the comparisons of an information-driven round
	// (default 40).
	Matches int `yaml:"matches" json:"matches"`
	// PerCandidate (active) is the most comparisons of one candidate in an
	// information-driven round (default 3).
	PerCandidate int `yaml:"per_candidate" json:"per_candidate"`
	// Games (refine, swiss-top) is the call budget: at most ⌊games·n/2⌋
	// comparisons per query, the Swiss opening included (default 9.9,
	// under half of Swiss R = 20's). Games, Window, TopWeight and TopShare
	// are pointers so that the other kinds' configs, and their hashes, do
	// not change.
	Games *float64 `yaml:"games" json:"games,omitempty"`
	// Window (refine) is how far apart in the current ranking two
	// candidates may be to be paired (default 30).
	Window *int `yaml:"window" json:"window,omitempty"`
	// TopWeight (refine) is the extra weight of pairs at the top of the
	// ranking (default 1).
	TopWeight *float64 `yaml:"top_weight" json:"top_weight,omitempty"`
	// TopShare (swiss-top) is the share of the candidates, by wins, that
	// play after the Swiss opening (default 0.5).
	TopShare *float64 `yaml:"top_share" json:"top_share,omitempty"`
}

// Schedule is the lib/schedule config of the judge's scheduler.
func (j *Config) Schedule() schedule.Config {
	s := j.Scheduler
	if s == nil {
		return schedule.Config{Kind: schedule.Swiss}
	}
	c := schedule.Config{Kind: s.Kind, TopK: s.TopK, StableRounds: s.StableRounds, Epsilon: s.Epsilon, MinRounds: s.MinRounds,
		SwissRounds: s.SwissRounds, Matches: s.Matches, PerCandidate: s.PerCandidate}
	if s.Games != nil {
		c.Games = *s.Games
	}
	if s.Window != nil {
		c.Window = *s.Window
	}
	if s.TopWeight != nil {
		c.TopWeight = *s.TopWeight
	}
	if s.TopShare != nil {
		c.TopShare = *s.TopShare
	}
	return c
}

// Defaults implements config.Section.
func (j *Config) Defaults(*config.Config) {
	j.SetDefaults("lexical")
	if o := j.PromptOrder; o != nil && (*o == "" || *o == PromptOrderPaper) {
		j.PromptOrder = nil // the default written out: the same hash as no key
	}
	if j.Rounds == 0 {
		j.Rounds = 20
	}
	if s := j.Scheduler; s != nil {
		if (*s == Scheduler{} || *s == Scheduler{Kind: schedule.Swiss}) {
			// The default written out: the same tournament, and so the
			// same hash, as no key at all.
			j.Scheduler = nil
		} else if s.Kind != "" && s.Kind != schedule.Swiss {
			d := j.Schedule().WithDefaults()
			*s = Scheduler{Kind: d.Kind, TopK: d.TopK, StableRounds: d.StableRounds, Epsilon: d.Epsilon, MinRounds: d.MinRounds,
				SwissRounds: d.SwissRounds, Matches: d.Matches, PerCandidate: d.PerCandidate, Games: s.Games, Window: s.Window, TopWeight: s.TopWeight, TopShare: s.TopShare}
			// Written out, as the other parameters are, so that the config
			// says (and hashes) the budget it ran with.
			switch d.Kind {
			case schedule.Refine:
				s.Games, s.Window, s.TopWeight = &d.Games, &d.Window, &d.TopWeight
			case schedule.SwissTop:
				s.Games, s.TopShare = &d.Games, &d.TopShare
			}
		}
	}
}

// Validate implements config.Section.
func (j *Config) Validate(core *config.Config, bad func(string, ...any)) {
	j.Check(core, Section.Name, []string{"lexical", llmstage.BackendLLM}, bad)
	if j.Rounds < 1 || j.Rounds > 1000 {
		bad("judge.rounds: %d must be in [1, 1000]", j.Rounds)
	}
	if o := j.PromptOrder; o != nil && *o != PromptOrderPaper && *o != PromptOrderSharedFirst {
		bad("judge.prompt_order: %q is not %s or %s", *o, PromptOrderPaper, PromptOrderSharedFirst)
	}
	if !(j.PositionAudit >= 0 && j.PositionAudit <= 1) {
		bad("judge.position_audit: %v must be a share in [0, 1] (0: no audit)", j.PositionAudit)
	}
	if s := j.Scheduler; s != nil {
		switch {
		case s.Kind == "" || s.Kind == schedule.Swiss:
			bad("judge.scheduler: kind swiss takes no parameters (they tune swiss-adaptive and active); set kind or remove them")
		case s.Kind != schedule.Refine && (s.Window != nil || s.TopWeight != nil):
			bad("judge.scheduler: window and top_weight tune kind refine only, not %s", s.Kind)
		case s.Kind != schedule.Refine && s.Kind != schedule.SwissTop && s.Games != nil:
			bad("judge.scheduler: games tunes kinds refine and swiss-top only, not %s", s.Kind)
		case s.Kind != schedule.SwissTop && s.TopShare != nil:
			bad("judge.scheduler: top_share tunes kind swiss-top only, not %s", s.Kind)
		default:
			if err := j.Schedule().Validate(); err != nil {
				bad("%v", err)
			}
		}
	}
}
