// Package release is the release stage, the last step of the final
// reduce (SPEC §1; paper App. A.5, A.8): it reads the finished benchmark —
// queries, candidates, ratings, judgments, the corpus and its annotations,
// the thresholds, the results and runs, the leakage audit — and writes the
// release folder <root>/<run>/release/<version>/ with artifacts/release:
// Parquet tables, BEIR, MTEB and TREC layouts, the dataset card, Croissant
// metadata, the licences, MANIFEST.json and SHA256SUMS, and the `release`
// dataset listing every file.
//
// It refuses a benchmark the audit flagged leaks in, unless release.
// accept_leaks accepts each by id; a text without a licence; a release
// without a date (it never reads the clock, so the same inputs give the
// same bytes, whatever the shard counts upstream).
package release

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	pkg "github.com/saber-math/saber/artifacts/release"
	"github.com/saber-math/saber/artifacts/trec"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/release/decl"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ontology"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"reduce": run})

// readDigest reads every row of a complete input dataset, in key order,
// and records its digest (the rows as one part) for MANIFEST.json.
func readDigest[T any](ctx context.Context, env *stage.Env, name string, digests *[]pkg.DatasetDigest) ([]T, error) {
	rows, err := readAll[T](ctx, env, name)
	if err != nil {
		return nil, err
	}
	sum, err := dataset.Digest(rows)
	if err != nil {
		return nil, fmt.Errorf("digest %s: %w", name, err)
	}
	*digests = append(*digests, pkg.DatasetDigest{Dataset: name, Rows: int64(len(rows)), SHA256: sum})
	return rows, nil
}

// readAll reads every row of a complete input dataset, in key order.
func readAll[T any](ctx context.Context, env *stage.Env, name string) ([]T, error) {
	parts, err := env.Upstream(ctx, name)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(rows []T) error {
			out = append(out, rows...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func run(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	if cfg.Date == "" {
		return stage.BadInput(fmt.Errorf("release.date: required (YYYY-MM-DD): the release never reads the clock, so that a rerun gives the same bytes"))
	}
	c, err := contents(ctx, env, cfg)
	if err != nil {
		return err
	}
	files, err := pkg.Build(c)
	if err != nil {
		var le *pkg.LicenceError
		var me *pkg.MetaError
		if errors.As(err, &le) || errors.As(err, &me) {
			return stage.BadInput(err)
		}
		return err
	}
	// Files of an earlier release under this version that this one does
	// not have would make the folder fail verification: remove them first.
	prefix := layout.ReleasePrefix(env.Config.Run, cfg.Version)
	infos, err := env.Out.List(ctx, prefix)
	if err != nil {
		return fmt.Errorf("list %s: %w", env.Out.URI(prefix), err)
	}
	keep := map[string]bool{}
	for _, f := range files {
		keep[prefix+f.Path] = true
	}
	for _, in := range infos {
		if !keep[in.Key] {
			if err := env.Out.Delete(ctx, in.Key); err != nil {
				return fmt.Errorf("remove %s: %w", env.Out.URI(in.Key), err)
			}
		}
	}
	var rows []dataset.ReleaseFile
	var total int64
	for _, f := range files {
		o, err := stage.WriteReleaseFile(ctx, env, cfg.Version, f.Path, f.Data)
		if err != nil {
			return err
		}
		rows = append(rows, dataset.ReleaseFile{Path: f.Path, SHA256: o.SHA256, Size: o.Size, Rows: f.Rows, Kind: f.Kind})
		total += o.Size
	}
	env.Count("files", int64(len(files)))
	env.Count("bytes", total)
	env.Count("queries", int64(len(c.Queries)))
	env.Count("corpus", int64(len(c.Corpus)))
	env.Count("leaks_accepted", int64(len(c.Leaks)))
	env.Log.Info().Str("release", env.Out.URI(prefix)).Int("files", len(files)).Int64("bytes", total).Msg("release written")
	return stage.WriteOutput(ctx, env, dataset.Release, rows)
}

// contents reads the run into the release's tables.
func contents(ctx context.Context, env *stage.Env, cfg *Config) (*pkg.Contents, error) {
	var digests []pkg.DatasetDigest
	qs, err := readers.Queries(ctx, env)
	if err != nil {
		return nil, err
	}
	if sum, err := dataset.Digest(qs); err == nil {
		digests = append(digests, pkg.DatasetDigest{Dataset: dataset.Queries.Name, Rows: int64(len(qs)), SHA256: sum})
	} else {
		return nil, fmt.Errorf("digest %s: %w", dataset.Queries.Name, err)
	}
	cands, err := readDigest[dataset.Candidate](ctx, env, dataset.Candidates.Name, &digests)
	if err != nil {
		return nil, err
	}
	docs, err := readDigest[dataset.Document](ctx, env, dataset.Corpus.Name, &digests)
	if err != nil {
		return nil, err
	}
	ratings, err := readDigest[dataset.Rating](ctx, env, dataset.Ratings.Name, &digests)
	if err != nil {
		return nil, err
	}
	judgments, err := readDigest[dataset.Judgment](ctx, env, dataset.Judgments.Name, &digests)
	if err != nil {
		return nil, err
	}
	topics, err := readDigest[dataset.TopicRow](ctx, env, dataset.Topics.Name, &digests)
	if err != nil {
		return nil, err
	}
	summaries, err := readDigest[dataset.Summary](ctx, env, dataset.Summaries.Name, &digests)
	if err != nil {
		return nil, err
	}
	thresholds, err := readDigest[dataset.Threshold](ctx, env, dataset.Thresholds.Name, &digests)
	if err != nil {
		return nil, err
	}
	results, err := readDigest[dataset.Result](ctx, env, dataset.Results.Name, &digests)
	if err != nil {
		return nil, err
	}
	runs, err := readDigest[dataset.RunRow](ctx, env, dataset.Runs.Name, &digests)
	if err != nil {
		return nil, err
	}
	audit, err := readDigest[dataset.AuditRow](ctx, env, dataset.Audit.Name, &digests)
	if err != nil {
		return nil, err
	}
	leaks, err := readDigest[dataset.Leak](ctx, env, dataset.Leaks.Name, &digests)
	if err != nil {
		return nil, err
	}
	dag, tree, err := readers.OntologyDAG(ctx, env)
	if err != nil {
		return nil, err
	}

	order, err := readers.DomainOrderOf(tree, config.BenchmarkDomains.Get(env.Config))
	if err != nil {
		return nil, err
	}
	c := &pkg.Contents{Settings: cfg.Settings, Domains: order}
	conf, err := env.Config.ReproduceYAML()
	if err != nil {
		return nil, fmt.Errorf("render the run's config for %s: %w", pkg.ReproduceConfig, err)
	}
	c.Meta = pkg.Meta{
		Name: cfg.Name, Version: cfg.Version, Date: cfg.Date, License: cfg.License, Homepage: cfg.Homepage, Creators: cfg.Creators,
		Citation: cfg.Citation, CodeVersion: stage.CodeVersion(), ConfigHash: env.ConfigHash(), Seed: env.RunSeed(),
		ExcludeNoTraining: cfg.ExcludeNoTraining, Config: conf,
	}
	byID := make(map[string]*dataset.Document, len(docs))
	for i := range docs {
		byID[docs[i].ID] = &docs[i]
	}
	topicsOf := make(map[string][]string, len(topics))
	for _, t := range topics {
		topicsOf[t.ID] = t.Topics
	}
	for _, q := range qs {
		d := byID[q.ID]
		if d == nil {
			return nil, stage.BadInput(fmt.Errorf("query %s is not in the corpus (was the corpus rebuilt after select?)", q.ID))
		}
		c.Queries = append(c.Queries, pkg.Query{ID: q.ID, Statement: d.Statement, Solution: d.Solution, Domain: q.Domain, Topics: topicsOf[q.ID],
			Source: d.Source, License: d.License, Origin: d.Origin, NoTraining: d.NoTraining,
			TopicOnly: q.TopicOnly, SummaryOnly: q.SummaryOnly, Both: q.Both})
	}
	inSet := map[string]bool{}
	for _, k := range cands {
		inSet[k.Doc] = true
		c.Candidates = append(c.Candidates, pkg.Candidate{Query: k.Query, Doc: k.Doc, Category: k.Category, SimTopic: k.SimTopic, SimSumm: k.SimSumm})
	}
	for _, d := range docs {
		if inSet[d.ID] {
			c.Corpus = append(c.Corpus, pkg.Doc{ID: d.ID, Statement: d.Statement, Solution: d.Solution, Subject: d.Subject,
				Source: d.Source, License: d.License, Origin: d.Origin, NoTraining: d.NoTraining})
		}
	}
	for id := range inSet {
		if byID[id] == nil {
			return nil, stage.BadInput(fmt.Errorf("candidate %s is not in the corpus (was the corpus rebuilt after select?)", id))
		}
	}
	for _, r := range ratings {
		lv, err := trec.Level(r.Rating)
		if err != nil {
			return nil, stage.BadInput(fmt.Errorf("ratings: query %s doc %s: %w", r.Query, r.Doc, err))
		}
		c.Qrels = append(c.Qrels, pkg.Qrel{Query: r.Query, Doc: r.Doc, Rating: r.Rating, Level: int32(lv), Theta: r.Theta, Games: r.Games, Wins: r.Wins})
	}
	for _, j := range judgments {
		c.Judgments = append(c.Judgments, pkg.Judgment{Query: j.Query, Round: j.Round, Match: j.Match, Sample1: j.Sample1, Sample2: j.Sample2,
			Winner: j.Winner, Valid: !j.Invalid, Reason: j.Reason, Backend: j.Backend, Model: j.Model, Prompt: j.PromptVersion})
	}
	// Topics and summaries only of the released documents: a row of any
	// other would come with no text, source or licence in the release.
	released := make(map[string]bool, len(c.Corpus)+len(c.Queries))
	for _, d := range c.Corpus {
		released[d.ID] = true
	}
	for _, q := range c.Queries {
		released[q.ID] = true
	}
	for _, t := range topics {
		if !released[t.ID] {
			continue
		}
		c.Topics = append(c.Topics, pkg.Topic{ID: t.ID, Topics: t.Topics, Scores: t.Scores, Domains: t.Domains, Domain: t.Domain,
			Backend: t.Backend, Model: t.Model, Prompt: t.PromptVersion})
	}
	for _, s := range summaries {
		if !released[s.ID] {
			continue
		}
		c.Summaries = append(c.Summaries, pkg.Summary{ID: s.ID, NoCoreIdea: s.NoCoreIdea, CoreIdea: s.CoreIdea, SupportingIdeas: s.SupportingIdeas,
			Keywords: s.Keywords, Confidence: s.Confidence, Backend: s.Backend, Model: s.Model, Prompt: s.PromptVersion})
	}
	c.Nodes, c.Edges, c.Tree = ontologyTables(dag, tree)
	for _, t := range thresholds {
		c.Thresholds = append(c.Thresholds, pkg.Threshold{Scope: t.Scope, TauTopic: t.TauTopic, TauSumm: t.TauSumm, Eligible: t.Eligible,
			AtFinal: t.EligibleAtFinal, Feasible: t.Feasible, K: t.K, MinEligible: t.MinEligible})
	}
	for _, r := range results {
		c.Results = append(c.Results, pkg.Result{Retriever: r.Retriever, Setting: r.Setting, Gain: r.Gain, Scope: r.Scope, Queries: r.Queries,
			NDCG: r.NDCG, Lo: r.Lo, Hi: r.Hi})
	}
	c.Runs = map[pkg.System][]trec.RunLine{}
	for _, r := range runs {
		s := pkg.System{Retriever: r.Retriever, Setting: r.Setting}
		c.Runs[s] = append(c.Runs[s], trec.RunLine{Query: r.Query, Doc: r.Doc, Rank: int(r.Rank), Score: r.Score, Tag: trec.RunTag(r.Retriever, r.Setting)})
	}
	if c.Leaks, err = acceptLeaks(leaks, cfg.AcceptLeaks); err != nil {
		return nil, err
	}
	c.Audit = auditFigures(audit, len(c.Leaks))
	judgeAudit, _, err := readers.ReadAudit(ctx, env)
	if err != nil {
		return nil, err
	}
	c.JudgeAudit = judgeAuditFigures(readers.SummarizeAudit(judgeAudit, c.Domains))
	c.Labellers = labellers(slices.DeleteFunc(topics, func(t dataset.TopicRow) bool { return !released[t.ID] }),
		slices.DeleteFunc(summaries, func(s dataset.Summary) bool { return !released[s.ID] }), judgments, audit)
	if cfg.ExcludeNoTraining {
		if err := excludeNoTraining(c, env); err != nil {
			return nil, err
		}
	}
	if c.Meta.Upstream, c.Meta.Sources, err = lineage(ctx, env); err != nil {
		return nil, err
	}
	c.Meta.Datasets = digests
	return c, nil
}

// acceptLeaks refuses flagged pairs the config does not accept, and
// accepted ids the audit did not flag (a typo would hide a future leak).
func acceptLeaks(leaks []dataset.Leak, accepted []string) ([]pkg.Leak, error) {
	ok := map[string]bool{}
	for _, id := range accepted {
		ok[id] = true
	}
	var out []pkg.Leak
	var open, docs []string
	flagged := map[string]bool{}
	for _, l := range leaks {
		id := dataset.LeakID(l.Query, l.Doc)
		flagged[id] = true
		if !ok[id] {
			open = append(open, fmt.Sprintf("%s (rank %d, %s)", id, l.Rank, l.Reason))
			if !slices.Contains(docs, l.Doc) {
				docs = append(docs, l.Doc)
			}
			continue
		}
		out = append(out, pkg.Leak{Query: l.Query, Doc: l.Doc, Rank: l.Rank, Rating: l.Rating, Score: l.Score, Reason: l.Reason, Backend: l.Backend, Accepted: true})
	}
	if len(open) > 0 {
		return nil, stage.BadInput(fmt.Errorf("the leakage audit flagged %d pair(s) whose document states a problem equivalent to its query: %s — review them in reports/audit.md, then either drop the documents with ingest.exclude: [%s] and rerun with --rerun-stale, or accept each pair with release.accept_leaks: [%s]",
			len(open), strings.Join(open, "; "), strings.Join(docs, ", "), strings.Join(ids(open), ", ")))
	}
	for _, id := range accepted {
		if !flagged[id] {
			return nil, stage.BadInput(fmt.Errorf("release.accept_leaks: %q is not a pair the audit flagged (a typo would hide a real one)", id))
		}
	}
	return out, nil
}

func ids(open []string) []string {
	out := make([]string, len(open))
	for i, o := range open {
		out[i], _, _ = strings.Cut(o, " ")
	}
	return out
}

func auditFigures(rows []dataset.AuditRow, accepted int) pkg.Audit {
	a := pkg.Audit{Accepted: int64(accepted)}
	backends := map[string]bool{}
	for _, r := range rows {
		a.Audited++
		if r.Flagged {
			a.Flagged++
		}
		if r.Verdict == "invalid" {
			a.Invalid++
		}
		a.Top = max(a.Top, int(r.Rank))
		backends[r.Backend] = true
	}
	names := make([]string, 0, len(backends))
	for b := range backends {
		names = append(names, b)
	}
	sort.Strings(names)
	a.Backend = strings.Join(names, "+")
	if a.Backend == "" {
		a.Backend = "—"
	}
	return a
}

// labellers lists the backends and models that produced each kind of label.
func labellers(topics []dataset.TopicRow, summaries []dataset.Summary, judgments []dataset.Judgment, audit []dataset.AuditRow) []pkg.Labeller {
	var out []pkg.Labeller
	group := func(what string, n int, key func(i int) [3]string) {
		count := map[[3]string]int64{}
		for i := 0; i < n; i++ {
			count[key(i)]++
		}
		var keys [][3]string
		for k := range count {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b [3]string) int {
			return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]), strings.Compare(a[2], b[2]))
		})
		for _, k := range keys {
			out = append(out, pkg.Labeller{What: what, Backend: k[0], Model: k[1], Prompt: k[2], Rows: count[k]})
		}
	}
	group("topics", len(topics), func(i int) [3]string { return [3]string{topics[i].Backend, topics[i].Model, topics[i].PromptVersion} })
	group("summaries", len(summaries), func(i int) [3]string {
		return [3]string{summaries[i].Backend, summaries[i].Model, summaries[i].PromptVersion}
	})
	group("judgments", len(judgments), func(i int) [3]string {
		return [3]string{judgments[i].Backend, judgments[i].Model, judgments[i].PromptVersion}
	})
	group("leakage audit", len(audit), func(i int) [3]string { return [3]string{audit[i].Backend, audit[i].Model, audit[i].PromptVersion} })
	return out
}

// ontologyTables are the ontology's DAG nodes and edges and its tree.
func ontologyTables(dag *ontology.DAG, tree *ontology.Tree) ([]pkg.OntologyNode, []pkg.OntologyEdge, []pkg.OntologyTreeNode) {
	var nodes []pkg.OntologyNode
	for _, n := range dag.Nodes {
		nodes = append(nodes, pkg.OntologyNode{ID: n.ID, Label: n.Label, Keywords: n.Keywords})
	}
	slices.SortFunc(nodes, func(a, b pkg.OntologyNode) int { return strings.Compare(a.ID, b.ID) })
	var edges []pkg.OntologyEdge
	for _, e := range dag.Edges {
		edges = append(edges, pkg.OntologyEdge{Parent: e.Parent, Child: e.Child})
	}
	slices.SortFunc(edges, func(a, b pkg.OntologyEdge) int {
		return cmp.Or(strings.Compare(a.Parent, b.Parent), strings.Compare(a.Child, b.Child))
	})
	edges = slices.Compact(edges)
	var tr []pkg.OntologyTreeNode
	for i := 1; i < tree.Len(); i++ {
		parent := ""
		if p := tree.Parent(i); p > 0 {
			parent = tree.Path(p)
		}
		tr = append(tr, pkg.OntologyTreeNode{Path: tree.Path(i), ID: tree.ID(i), Label: tree.Label(i), Parent: parent, Depth: int32(tree.Depth(i))})
	}
	slices.SortFunc(tr, func(a, b pkg.OntologyTreeNode) int { return strings.Compare(a.Path, b.Path) })
	return nodes, edges, tr
}

// judgeAuditFigures is the position audit for the card.
func judgeAuditFigures(s readers.AuditSummary) pkg.JudgeAudit {
	out := pkg.JudgeAudit{Source: s.Source}
	for _, sc := range s.Scopes {
		out.Scopes = append(out.Scopes, pkg.JudgeAuditScope{Scope: sc.Scope, Comparisons: sc.Comparisons, Answered: sc.Answered,
			Consistency: pkg.Ratio(sc.Consistent.P), ConsistencyLo: pkg.Ratio(sc.Consistent.Lo), ConsistencyHi: pkg.Ratio(sc.Consistent.Hi),
			FirstWins: pkg.Ratio(sc.FirstWins.P), FirstWinsLo: pkg.Ratio(sc.FirstWins.Lo), FirstWinsHi: pkg.Ratio(sc.FirstWins.Hi)})
	}
	return out
}
