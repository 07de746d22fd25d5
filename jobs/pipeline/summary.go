package pipeline

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	releasedecl "github.com/saber-math/saber/jobs/release/decl"
	tagdecl "github.com/saber-math/saber/jobs/tag/decl"
)

// fewQueries is the per-domain query count under which a domain's nDCG
// interval is wide: the bootstrap over 30 queries spans about ±0.05 on
// the demo's scores, the paper's 200 about ±0.02.
const fewQueries = 30

// Summary is what a run produced, read from the manifests' statistics of
// its complete datasets, and what a user should not miss.
type Summary struct {
	Lines    []string
	Warnings []string
}

// Summarize reads the summary of cfg's run. A dataset that is not complete
// (a stage not selected, or not run yet) is left out.
func Summarize(ctx context.Context, cfg *config.Config) (*Summary, error) {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, err
	}
	sm := &summarizer{cfg: cfg, root: root, s: &Summary{}}
	sm.corpus(ctx)
	if err := sm.thresholds(ctx); err != nil {
		return nil, err
	}
	sm.benchmark(ctx)
	sm.ratings(ctx)
	sm.line("reports", "%s", root.URI(layout.ReportsPrefix(cfg.Run)))
	if off := offline(cfg); len(off) > 0 {
		sm.warn("offline backends in use (" + strings.Join(off, ", ") + "): the labels are a smoke test, not the paper's; set <stage>.backend: llm with an llm: server")
	}
	return sm.s, nil
}

// summarizer builds a Summary from the datasets' manifests.
type summarizer struct {
	cfg  *config.Config
	root store.Store
	s    *Summary
}

// stats are a dataset's statistics summed over its complete manifests;
// nil when it is not complete.
func (sm *summarizer) stats(ctx context.Context, ds string) map[string]int64 {
	st, err := layout.SumStats(ctx, sm.root, sm.cfg.Run, ds)
	if err != nil {
		return nil
	}
	return st
}

func (sm *summarizer) line(name, format string, a ...any) {
	sm.s.Lines = append(sm.s.Lines, fmt.Sprintf("%-20s %s", name, fmt.Sprintf(format, a...)))
}

func (sm *summarizer) warn(w string) {
	if w != "" {
		sm.s.Warnings = append(sm.s.Warnings, w)
	}
}

func (sm *summarizer) where(ds string) string {
	return sm.root.URI(layout.DatasetPrefix(sm.cfg.Run, ds))
}

// corpus: the rows ingest read, dedup's clusters, the topics, summaries
// and pairs.
func (sm *summarizer) corpus(ctx context.Context) {
	if st := sm.stats(ctx, dataset.Problems.Name); st != nil {
		sm.line("rows in", "%s (%s)", RowsInOf(st), sm.where(dataset.Rejects.Name))
	}
	if st := sm.stats(ctx, dataset.Corpus.Name); st != nil {
		sm.line("deduplicated", "%d duplicate clusters, %d dropped, %d kept (%s)", st["clusters"], st["dropped"], st["kept"], sm.where(dataset.Corpus.Name))
	}
	if st := sm.stats(ctx, dataset.Topics.Name); st != nil && st["documents"] > 0 {
		sm.line("topics", "%.2f per document, %d documents without (%s)", float64(st["topics_total"])/float64(st["documents"]), st["no_topics"], sm.where(dataset.Topics.Name))
		sm.warn(topicWarning(st))
	}
	if st := sm.stats(ctx, dataset.Summaries.Name); st != nil {
		mean := 0.0
		if n := st["summaries"]; n > 0 {
			mean = float64(st["core_idea_words_total"]) / float64(n)
		}
		sm.line("summaries", "%d, mean %.1f words, %d without a core idea (%s)", st["summaries"], mean, st["no_core_idea"], sm.where(dataset.Summaries.Name))
	}
	if st := sm.stats(ctx, dataset.Pairs.Name); st != nil {
		sm.line("pairs", "%d (topic %d, summary %d, both %d)", st["pairs"], st["pairs_topic"], st["pairs_summary"], st["pairs_both"])
	}
}

// thresholds: the final thresholds calibrate chose, which every row of
// its output carries.
func (sm *summarizer) thresholds(ctx context.Context) error {
	ms, err := layout.Complete(ctx, sm.root, sm.cfg.Run, dataset.Thresholds.Name)
	if err != nil {
		return nil // not complete: no line
	}
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Thresholds.Name) {
			th, err := dataset.Read[dataset.Threshold](ctx, sm.root, o.Key)
			if err != nil {
				return fmt.Errorf("read %s: %w", sm.root.URI(o.Key), err)
			}
			if len(th) > 0 {
				t := th[0]
				sm.line("thresholds", "τ_topic %.6g, τ_summ %.6g, feasible %t", t.TauTopic, t.TauSumm, t.Feasible)
				if !t.Feasible {
					sm.warn("the thresholds are not feasible: some domain has fewer eligible queries than calibrate.min_eligible (reports/calibrate.md)")
				}
			}
		}
	}
	return nil
}

// benchmark: the queries and candidates select chose, per domain, with a
// warning for a domain too small for narrow intervals.
func (sm *summarizer) benchmark(ctx context.Context) {
	st := sm.stats(ctx, dataset.Candidates.Name)
	if st == nil {
		return
	}
	var doms, few []string
	for k, v := range st {
		if d, ok := strings.CutPrefix(k, "selected_"); ok {
			doms = append(doms, fmt.Sprintf("%s %d", d, v))
			if v < fewQueries {
				few = append(few, fmt.Sprintf("%s %d (%d eligible)", d, v, st["eligible_"+d]))
			}
		}
	}
	sort.Strings(doms)
	sort.Strings(few)
	if len(few) > 0 {
		sm.warn(fmt.Sprintf("domains with fewer than %d queries, whose intervals are wide: %s (more: select.per_domain, a larger corpus or lower thresholds)", fewQueries, strings.Join(few, ", ")))
	}
	sm.line("benchmark", "%d queries, %d candidates; per domain: %s", st["queries"], st["candidates"], strings.Join(doms, ", "))
	sm.warn(shortfall(sm.cfg, st))
}

// ratings: the judgments, ratings, evaluated systems and the leakage
// audit.
func (sm *summarizer) ratings(ctx context.Context) {
	if st := sm.stats(ctx, dataset.Judgments.Name); st != nil && st["judgments"] > 0 {
		share := float64(st["invalid"]) / float64(st["judgments"])
		sm.line("judgments", "%d over %d queries, %d invalid (%.1f%%)", st["judgments"], st["queries"], st["invalid"], 100*share)
		if share > 0.05 {
			sm.warn(fmt.Sprintf("%.1f%% of judgments are invalid (no \\boxed{1} or \\boxed{2}): check the judge model and prompt (judge.max_invalid_share bounds it)", 100*share))
		}
	}
	if st := sm.stats(ctx, dataset.Ratings.Name); st != nil {
		sm.line("ratings", "%d, %d never played (%s)", st["ratings"], st["never_played"], sm.where(dataset.Ratings.Name))
	}
	if st := sm.stats(ctx, dataset.Results.Name); st != nil {
		sm.line("evaluated", "%d systems over %d queries", st["systems"], st["queries"])
	}
	// The audit's reduce counts the rows of audit and leaks that
	// reports/audit.md and index.html list; its map's manifests have no
	// flagged count.
	if st := sm.stats(ctx, dataset.Leaks.Name); st != nil {
		a := LeakageOf(st)
		sm.line("leakage audit", "%s (%s)", a, sm.root.URI(layout.ReportsPrefix(sm.cfg.Run)+"audit.md"))
		sm.warn(leakWarning(a, len(releasedecl.Section.Of(sm.cfg).AcceptLeaks)))
	}
}

// RowsIn is what ingest made of its sources' rows, from its reduce's
// statistics: every row read was filtered out by a where: condition,
// rejected (rows excluded by hand with ingest.exclude among them) or
// accepted, so Read = Filtered + Rejected + Accepted.
type RowsIn struct {
	Read, Filtered, Rejected, Excluded, Accepted int64
}

// RowsInOf reads RowsIn from the statistics of ingest's reduce. Its
// rows_read counts the rows the map shards staged, which where: had
// already dropped; filtered counts those apart.
func RowsInOf(st map[string]int64) RowsIn {
	r := RowsIn{Filtered: st["filtered"], Excluded: st["rejected_"+dataset.ReasonExcluded], Accepted: st["problems_total"]}
	for k, v := range st {
		if strings.HasPrefix(k, "rejected_") {
			r.Rejected += v
		}
	}
	r.Read = st["rows_read"] + r.Filtered
	return r
}

func (r RowsIn) String() string {
	s := fmt.Sprintf("%d read: %d filtered out by where:, %d rejected", r.Read, r.Filtered, r.Rejected)
	if r.Excluded > 0 {
		s += fmt.Sprintf(" (%d of them by ingest.exclude)", r.Excluded)
	}
	return s + fmt.Sprintf(", %d accepted", r.Accepted)
}

// Leakage is the leakage audit's outcome, from its reduce's statistics:
// the pairs audited, those flagged as stating the query's problem (each a
// row of leaks) and those without a usable answer (kept, never flagged).
type Leakage struct {
	Pairs, Flagged, Invalid int64
}

// LeakageOf reads Leakage from the statistics of the audit's reduce.
func LeakageOf(st map[string]int64) Leakage {
	return Leakage{Pairs: st["pairs"], Flagged: st["leaks"], Invalid: st["invalid"]}
}

func (a Leakage) String() string {
	return fmt.Sprintf("%d pairs audited, %d flagged, %d without a usable answer", a.Pairs, a.Flagged, a.Invalid)
}

// leakWarning tells what the release will do with the flagged pairs: it
// refuses every one neither dropped nor accepted after review.
func leakWarning(a Leakage, accepted int) string {
	if a.Flagged == 0 {
		return ""
	}
	return fmt.Sprintf("the leakage audit flagged %d pair(s) as the same problem as their query (reports/audit.md): the release refuses each one until its document is dropped (ingest.exclude, then --rerun-stale) or the pair is accepted after review (release.accept_leaks: %d listed now)", a.Flagged, accepted)
}

// topicWarning is the warning of tag's implausible_topics count: a topic on more of a shard's documents than the
// ontology's size makes plausible is a scorer matching words every text
// has, and the log alone is where nobody looks.
func topicWarning(st map[string]int64) string {
	n := st[tagdecl.StatImplausibleTopics]
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d topic(s) on more documents than the ontology's size makes plausible (tag's log names them and their shares): the offline tagger may be matching words every text has; use tag.backend: llm or give the ontology's nodes keywords (tag.max_topic_share sets a fixed share instead)", n)
}

// shortfall names the domains whose selection fell short of what was
// wanted (select.allow_shortfall let it through).
func shortfall(cfg *config.Config, st map[string]int64) string {
	vals := cfg.Values("select")
	want := vals["select.per_domain"]
	var short []string
	for k, n := range st {
		if d, ok := strings.CutPrefix(k, "selected_"); ok && want != "" && fmt.Sprint(n) != want {
			var w int64
			fmt.Sscan(want, &w)
			for k, override := range vals {
				if dom, ok := strings.CutPrefix(k, "select.domain_counts."); ok && strings.ReplaceAll(strings.ToLower(dom), " ", "_") == d {
					fmt.Sscan(override, &w)
				}
			}
			if n < w {
				short = append(short, fmt.Sprintf("%s %d of %d", d, n, w))
			}
		}
	}
	if len(short) == 0 {
		return ""
	}
	sort.Strings(short)
	return "selection fell short of select.per_domain: " + strings.Join(short, ", ")
}

// offline lists the stages whose backend is an offline one.
func offline(cfg *config.Config) []string {
	var out []string
	for _, st := range []struct{ stage, online string }{{"tag", "llm"}, {"summarize", "llm"}, {"judge", "llm"}, {"audit", "llm"}} {
		if b := strings.Trim(cfg.Values(st.stage)[st.stage+".backend"], `"`); b != "" && b != st.online {
			out = append(out, st.stage+" "+b)
		}
	}
	return out
}

// Print writes the summary, then the warnings.
func (s *Summary) Print(w io.Writer) {
	fmt.Fprintln(w, "\nSummary")
	for _, l := range s.Lines {
		fmt.Fprintln(w, "  "+l)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintln(w, "warning: "+warn)
	}
}
