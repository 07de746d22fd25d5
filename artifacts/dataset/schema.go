// Package dataset defines every Parquet dataset saber writes — one Go struct
// per dataset, all in this file — and reads and writes them byte-for-byte
// reproducibly.
package dataset

import (
	"cmp"
	"strings"
)

// Problem is a row of `problems`, written by ingest. Key: ID.
type Problem struct {
	ID string `parquet:"id"`
	// Source is official, numina, aops or other (it sets dedup priority).
	Source    string `parquet:"source"`
	Statement string `parquet:"statement"`
	Solution  string `parquet:"solution"`
	Subject   string `parquet:"subject"`
	License   string `parquet:"license"`
	// Origin names the input the row came from (dataset, competition).
	Origin string `parquet:"origin"`
	// NoTraining: the source's terms forbid training on the row
	// (ingest.sources[].no_training; App. A.8). The release flags it.
	NoTraining bool `parquet:"no_training"`
}

// Sources are the values of a problem's Source, in dedup's default priority.
var Sources = []string{"official", "numina", "aops", "other"}

// Reject is a row of `rejects`, written by ingest: an input row that could
// not be used, and why. Key: (File, Line).
type Reject struct {
	// Input is the name of the configured source.
	Input string `parquet:"input"`
	File  string `parquet:"file"`
	// Line is the 1-based line of a JSONL file or the 1-based row of a Parquet file.
	Line int64 `parquet:"line"`
	// ID is the row's id when one could be read.
	ID string `parquet:"id"`
	// Field names the offending field, if one.
	Field string `parquet:"field"`
	// Reason is one of the Reason* constants.
	Reason string `parquet:"reason"`
	Detail string `parquet:"detail"`
}

// Reasons a row is rejected.
const (
	ReasonMalformed    = "malformed_json"
	ReasonMissingField = "missing_field"
	ReasonWrongType    = "wrong_type"
	ReasonEmpty        = "empty_field"
	ReasonInvalidUTF8  = "invalid_utf8"
	ReasonOversize     = "oversize"
	ReasonDuplicateID  = "duplicate_id"
	ReasonBadSource    = "bad_source"
	ReasonUnparseable  = "unparseable_answer"
	ReasonLLMFailed    = "llm_failed"
	// ReasonExcluded: the id is listed in ingest.exclude.
	ReasonExcluded = "excluded"
	// ReasonNotObject: a JSONL line that is valid JSON but not an object
	// (null, an array, a string, a number).
	ReasonNotObject = "not_object"
	// ReasonDuplicateKey: a key appears twice in one row's object.
	ReasonDuplicateKey = "duplicate_key"
	// ReasonControlChar: a NUL or other control character in a field
	// (statement and solution may hold tab, line feed, carriage return).
	ReasonControlChar = "control_char"
	// ReasonMissingFile: a side file a row names (ingest files:) does not
	// exist or cannot be opened.
	ReasonMissingFile = "missing_file"
	// ReasonPlaceholder: a statement or solution that is a placeholder
	// (NONE, N/A, null, -; ingest.placeholders), not text.
	ReasonPlaceholder = "placeholder"
	// ReasonPathOnly: a statement or solution that is only a file path or
	// a URL: the text lives elsewhere (ingest files: reads side files).
	ReasonPathOnly = "path_only"
)

// IngestRow is a row of `ingest_rows`, the staging dataset ingest's map
// shards write and its reduce reads: one input row of the shard's share,
// accepted (Reject.Reason empty) or rejected, with where it was read, so
// that the reduce settles duplicate ids in source order. Key: (ID, File,
// Start, Line, Elem): the reduce merges the shards' parts by id. An
// accepted row has its problem's ID alone: the shard writes the problem
// to ingest_problems, and the reduce copies it from there. (Version 2 held
// a whole Problem, all but its ID empty: seven columns more to write and
// read for every row.)
type IngestRow struct {
	// File is the input's index in the sources' expanded file list.
	File int32 `parquet:"file"`
	// Start is the first byte of the span of the file the row was read in
	// (0 but for a byte range of a large JSONL file).
	Start int64 `parquet:"start"`
	// Line is the row's 1-based line (Parquet row, array element) within
	// its span; the reduce adds the lines of the file's earlier spans.
	Line int64 `parquet:"line"`
	// Elem is the 1-based element of a list exploded into rows
	// (lists: explode); 0 for a row read as one.
	Elem int32 `parquet:"elem"`
	// ID is an accepted row's problem id ("" for a reject): its problem is
	// in ingest_problems, the first of each id.
	ID     string `parquet:"id"`
	Reject Reject `parquet:"reject"`
}

// IngestSpan is a row of `ingest_spans`, written by ingest's map shards:
// one span of one input a shard read (a whole file or a byte range of a
// large JSONL file), with what the reduce needs of it besides its rows.
// Key: (File, Start).
type IngestSpan struct {
	// Source is the index of the input's source in ingest.sources.
	Source int32  `parquet:"source"`
	File   int32  `parquet:"file"`
	Name   string `parquet:"name"`
	// Start and End are the bytes the span owns: from its first line's
	// first byte to its last line's end (the whole file when not split).
	Start int64 `parquet:"start"`
	End   int64 `parquet:"end"`
	// Size is the file's size in bytes.
	Size int64 `parquet:"size"`
	// Lines counts its lines, blank ones too (rows, array elements).
	Lines int64 `parquet:"lines"`
	// Rows counts the rows staged (an exploded list gives one per
	// element; filtered rows none), Objects the input rows whose fields
	// could be read.
	Rows    int64 `parquet:"rows"`
	Objects int64 `parquet:"objects"`
	// Filtered counts the rows where: dropped, in no dataset.
	Filtered int64 `parquet:"filtered"`
	// Mapped are the mapped input fields some row has; Seen the input
	// fields rows have (at most 64), for the source's verdict.
	Mapped []string `parquet:"mapped,list"`
	Seen   []string `parquet:"seen,list"`
	// Subjects are the subject values rows have that are subject_map keys
	// (all of them) and others (at most 64), so that a key no row has is
	// found (a typo in the map).
	Subjects []string `parquet:"subjects,list"`
	// WhereHits are the where: values some row's field equals, as
	// "<condition>.<value>" indices; WhereCase those only a case variant
	// of matched, as "<condition>.<value>=<the row's text>" (the first
	// seen), so that a value in the wrong case is an error, not a filter
	// that silently keeps or drops every row.
	WhereHits []string `parquet:"where_hits,list"`
	WhereCase []string `parquet:"where_case,list"`
}

// Document is a row of `corpus`, written by dedup's reduce: the problems
// that survive deduplication. Key: ID.
type Document struct {
	ID        string `parquet:"id"`
	Source    string `parquet:"source"`
	Statement string `parquet:"statement"`
	Solution  string `parquet:"solution"`
	Subject   string `parquet:"subject"`
	License   string `parquet:"license"`
	Origin    string `parquet:"origin"`
	// Duplicates is how many problems were dropped in favour of this one.
	Duplicates int32 `parquet:"duplicates"`
	// NoTraining is the problem's flag: its source forbids training on it.
	NoTraining bool `parquet:"no_training"`
}

// Duplicate is a row of `duplicates`: one dropped problem. Key: (Cluster, Dropped).
type Duplicate struct {
	// Cluster is the id of the kept member, which names the cluster.
	Cluster       string `parquet:"cluster"`
	Kept          string `parquet:"kept"`
	Dropped       string `parquet:"dropped"`
	DroppedSource string `parquet:"dropped_source"`
	// Similarity is the MinHash-estimated Jaccard between Dropped and Kept.
	Similarity float64 `parquet:"similarity"`
}

// Signature is a row of `signatures`, dedup's intermediate dataset: the
// MinHash signature of one problem's normalised statement. Key: ID.
type Signature struct {
	ID     string `parquet:"id"`
	Source string `parquet:"source"`
	// Shingles is the number of distinct word n-grams; 0 means the statement
	// normalised to nothing and the problem cannot be deduplicated.
	Shingles int32    `parquet:"shingles"`
	MinHash  []uint64 `parquet:"minhash"`
}

// TopicRow is a row of `topics`, written by tag: the most specific ontology
// topics assigned to one corpus document. Key: ID.
type TopicRow struct {
	ID string `parquet:"id"`
	// Topics are tree paths (ontology ids joined by " > "), in tree order.
	Topics []string `parquet:"topics,list"`
	// Scores are each topic's normalised score when it was kept.
	Scores []float64 `parquet:"scores,list"`
	// Domains are the distinct top-level domains of the topics, in tree order.
	Domains []string `parquet:"domains,list"`
	// Domain is the main domain: the one holding most topics (SPEC §3).
	Domain string `parquet:"domain"`
	// Backend is lexical or llm; Model and PromptVersion are empty offline.
	Backend       string `parquet:"backend"`
	Model         string `parquet:"model"`
	PromptVersion string `parquet:"prompt_version"`
	// Calls is the number of scorer calls the traversal made.
	Calls int32 `parquet:"calls"`
}

// Summary is a row of `summaries`, written by summarize: the core idea of
// one document's solution (prompt F.2). Key: ID.
type Summary struct {
	ID         string `parquet:"id"`
	NoCoreIdea bool   `parquet:"no_core_idea"`
	// CoreIdea is the Jaccard text of SPEC §3; empty when NoCoreIdea.
	CoreIdea      string `parquet:"core_idea"`
	CoreIdeaWords int32  `parquet:"core_idea_words"`
	// TooLong flags a core idea that is not whole within the word limit:
	// cut to it (marked "…"), or a model's over it, kept as answered.
	TooLong         bool     `parquet:"too_long"`
	SupportingIdeas []string `parquet:"supporting_ideas,list"`
	Keywords        []string `parquet:"keywords,list"`
	Confidence      float64  `parquet:"confidence"`
	Backend         string   `parquet:"backend"`
	Model           string   `parquet:"model"`
	PromptVersion   string   `parquet:"prompt_version"`
}

// Pair is a row of `pairs`, written by the pairs stage: a query and a
// document whose topic or summary similarity passes its floor threshold,
// with both similarities. Key: (Query, Doc).
//
// Every column but doc is dictionary-encoded: a query's id repeats over
// its ~1,000 pairs, category has three values, and the similarities few
// (BMA over a few hundred topic sets, Jaccard of small sets). Measured on
// ~550K pairs of a 12K-document corpusdist corpus (BenchmarkPairsEncoding,
// zstd's better level): 6.65 bytes and 690 CPU-ns a pair to write, against
// 7.24 bytes and 780 ns plain; zstd's default level would take 360 ns for
// 7.34 bytes and snappy 225–260 ns for 14–17, but pairs are only written
// under pairs.keep_all, whose users keep them for their size.
type Pair struct {
	Query    string  `parquet:"query,dict"`
	Doc      string  `parquet:"doc"`
	SimTopic float64 `parquet:"sim_topic,dict"`
	SimSumm  float64 `parquet:"sim_summ,dict"`
	// Category is topic, summary or both, under the floor thresholds.
	Category string `parquet:"category,dict"`
}

// PairCount is a row of `pair_counts`, written by pairs unless
// pairs.keep_all: one query's pairs counted over the threshold grid
// instead of listed — everything calibrate and select's eligibility need,
// in O(grid) per query rather than O(pairs), so the dataset grows with N
// and not N². Only queries with at least one pair have a row. Key: Query.
type PairCount struct {
	Query string `parquet:"query"`
	// Edges are the thresholds the cells are counted over: the τ_topic
	// values, a "|", the τ_summ values, each space-separated and ascending
	// (calibrate's grid and select's fixed thresholds). The same for every
	// row of a run.
	Edges string `parquet:"edges,dict"`
	// Pairs is the query's pairs (over either floor).
	Pairs int64 `parquet:"pairs"`
	// Cells are the non-empty cells, ascending; Counts the pairs in each.
	// Cell a·(len(τ_summ)+1) + b holds the pairs passing exactly the
	// first a τ_topic and the first b τ_summ values (sim > τ).
	Cells  []int32 `parquet:"cells,list"`
	Counts []int32 `parquet:"counts,list"`
	// HistTopic and HistSumm count the pairs' similarities in 20 bins of
	// width 0.05 over [0, 1] (bin min(19, ⌊20·sim⌋)), for select's report.
	HistTopic []int32 `parquet:"hist_sim_topic,list"`
	HistSumm  []int32 `parquet:"hist_sim_summ,list"`
}

// Threshold is a row of `thresholds`, written by calibrate: the final pair
// of thresholds (Scope "final") and each domain's own pick (Scope the
// domain's label). Key: Scope, "final" first.
type Threshold struct {
	Scope    string  `parquet:"scope"`
	TauTopic float64 `parquet:"tau_topic"`
	TauSumm  float64 `parquet:"tau_summ"`
	// Eligible is the scope's eligible queries at these thresholds; for the
	// final row, the smallest count over the domains.
	Eligible int64 `parquet:"eligible"`
	// EligibleAtFinal is a domain's eligible queries at the final thresholds.
	EligibleAtFinal int64 `parquet:"eligible_at_final"`
	// Feasible: every domain (final) or this domain has at least
	// MinEligible eligible queries at these thresholds.
	Feasible    bool  `parquet:"feasible"`
	K           int32 `parquet:"k"`
	MinEligible int32 `parquet:"min_eligible"`
}

// GridPoint is a row of `calibration`, written by calibrate: one domain's
// eligible queries at one point of the threshold grid, the counts the
// thresholds were chosen from (App. B.2), kept so that reports can show
// the whole grid (a heat map per domain) without recounting the pairs.
// Key: (Scope, TauTopic, TauSumm).
type GridPoint struct {
	// Scope is the domain.
	Scope    string  `parquet:"scope"`
	TauTopic float64 `parquet:"tau_topic"`
	TauSumm  float64 `parquet:"tau_summ"`
	Eligible int64   `parquet:"eligible"`
}

// Query is a row of `queries`, written by select: one benchmark query with
// its category counts at the final thresholds. Key: ID.
type Query struct {
	ID     string `parquet:"id"`
	Domain string `parquet:"domain"`
	// TopicOnly, SummaryOnly and Both count the query's pairs per category
	// at the final thresholds (each ≥ K: that is what made it eligible).
	TopicOnly   int32   `parquet:"topic_only"`
	SummaryOnly int32   `parquet:"summary_only"`
	Both        int32   `parquet:"both"`
	TauTopic    float64 `parquet:"tau_topic"`
	TauSumm     float64 `parquet:"tau_summ"`
}

// Candidate is a row of `candidates`, written by select: one of a query's
// 3K documents. Key: (Query, Doc).
type Candidate struct {
	Query string `parquet:"query"`
	Doc   string `parquet:"doc"`
	// Category is topic, summary or both at the final thresholds.
	Category string  `parquet:"category"`
	SimTopic float64 `parquet:"sim_topic"`
	SimSumm  float64 `parquet:"sim_summ"`
}

// Judgment is a row of `judgments`, written by judge: one pairwise
// comparison of a query's Swiss tournament. Key: (Query, Round, Match).
type Judgment struct {
	Query string `parquet:"query"`
	Round int32  `parquet:"round"`
	// Match is the comparison's index in its round, in pairing order. With
	// judge.both_orders a round of M matches has 2M rows: match M+k is
	// match k judged again with the samples swapped, and the two rows
	// naming different winners are a tie (one win each in Bradley–Terry).
	Match int32 `parquet:"match"`
	// Sample1 is the document shown first (chosen by a seeded coin flip).
	Sample1 string `parquet:"sample1"`
	Sample2 string `parquet:"sample2"`
	// Winner is Sample1 or Sample2, or empty when Invalid.
	Winner string `parquet:"winner"`
	// Invalid: no usable answer after the re-asks (never a win for either).
	Invalid bool `parquet:"invalid"`
	// Reason says why a judgment is invalid: unparseable or refused.
	Reason string `parquet:"reason"`
	// AnswerSHA256 is the hash of the last raw answer (the lexical judge's
	// scores for the offline backend).
	AnswerSHA256  string `parquet:"answer_sha256"`
	Asks          int32  `parquet:"asks"`
	Backend       string `parquet:"backend"`
	Model         string `parquet:"model"`
	PromptVersion string `parquet:"prompt_version"`
	// Token counts of the answers used (cached answers keep their first call's).
	PromptTokens     int32 `parquet:"prompt_tokens"`
	CompletionTokens int32 `parquet:"completion_tokens"`
}

// JudgeTiming is a row of `judge_timings`, written by judge beside
// `judgments`: how long each comparison took in this run. Timings are
// measurements, not results: a rerun that reads answers from the cache
// records other values, so they live apart from `judgments`, whose bytes a
// rerun reproduces. Key: (Query, Round, Match).
type JudgeTiming struct {
	Query     string  `parquet:"query"`
	Round     int32   `parquet:"round"`
	Match     int32   `parquet:"match"`
	LatencyMS float64 `parquet:"latency_ms"`
	Cached    bool    `parquet:"cached"`
	Attempts  int32   `parquet:"attempts"`
}

// JudgeAuditRow is a row of `judge_audit`, written by judge: one
// comparison of the tournament judged in both sample orders, to measure
// the judge's position bias (judge.position_audit: a seeded sample of the
// comparisons re-judged with the samples swapped, which only this dataset
// records; judge.both_orders: every comparison, both orders also in
// `judgments`). Key: (Query, Round, Match).
type JudgeAuditRow struct {
	Query  string `parquet:"query"`
	Domain string `parquet:"domain"`
	Round  int32  `parquet:"round"`
	// Match is the comparison's index in its round, as in `judgments`.
	Match int32 `parquet:"match"`
	// Sample1 and Sample2 are the samples in the tournament's order.
	Sample1 string `parquet:"sample1"`
	Sample2 string `parquet:"sample2"`
	// Winner is the verdict with Sample1 shown first, SwappedWinner the
	// verdict with Sample2 shown first; each empty when that order gave no
	// usable answer.
	Winner        string `parquet:"winner"`
	SwappedWinner string `parquet:"swapped_winner"`
	// Consistent: both orders answered and named the same document. Both
	// answered and named different ones: a tie, which is what Bradley–Terry
	// gets from the two judgments under judge.both_orders.
	Consistent bool `parquet:"consistent"`
	// Source is "sample" (judge.position_audit) or "both_orders".
	Source string `parquet:"source"`
	// SwappedAnswerSHA256 is the hash of the swapped order's last answer.
	SwappedAnswerSHA256 string `parquet:"swapped_answer_sha256"`
	SwappedAsks         int32  `parquet:"swapped_asks"`
	PromptTokens        int32  `parquet:"prompt_tokens"`
	CompletionTokens    int32  `parquet:"completion_tokens"`
}

// Sources of `judge_audit` rows: the seeded sample of
// judge.position_audit, or every comparison under judge.both_orders.
const (
	JudgeAuditSample     = "sample"
	JudgeAuditBothOrders = "both_orders"
)

// Rating is a row of `ratings`, written by rate: a candidate's
// Bradley–Terry strength and its rating in [0, 5] — the benchmark's
// relevance labels. Key: (Query, Doc).
type Rating struct {
	Query  string  `parquet:"query"`
	Doc    string  `parquet:"doc"`
	Theta  float64 `parquet:"theta"`
	Rating float64 `parquet:"rating"`
	// Games counts valid judgments the candidate took part in; Wins those
	// it won; Invalid the invalid ones it was part of.
	Games   int32 `parquet:"games"`
	Wins    int32 `parquet:"wins"`
	Invalid int32 `parquet:"invalid"`
}

// RunRow is a row of `runs`, written by evaluate: one retriever's score and
// rank for one candidate of a query in one text setting. Ranks are 1-based,
// by score descending with ties broken by document id ascending (SPEC §3).
// Key: (Retriever, Setting, Query, Rank).
type RunRow struct {
	Retriever string  `parquet:"retriever"`
	Setting   string  `parquet:"setting"`
	Query     string  `parquet:"query"`
	Doc       string  `parquet:"doc"`
	Score     float64 `parquet:"score"`
	Rank      int32   `parquet:"rank"`
}

// Timing is a row of `timings`, written by evaluate: wall time from handing
// a query's candidates to the retriever to its sorted ranking. A
// measurement: `saber verify` does not compare it. Key: (Retriever,
// Setting, Query).
type Timing struct {
	Retriever  string  `parquet:"retriever"`
	Setting    string  `parquet:"setting"`
	Query      string  `parquet:"query"`
	Candidates int32   `parquet:"candidates"`
	Seconds    float64 `parquet:"seconds"`
}

// AuditRow is a row of `audit`, written by audit's map (paper App. A.5):
// one of a query's top documents under the final ratings, inspected for a
// statement of an equivalent problem. Key: (Query, Rank).
type AuditRow struct {
	Query string `parquet:"query"`
	Doc   string `parquet:"doc"`
	// Rank is the document's 1-based rank by rating (ties by document id).
	Rank   int32   `parquet:"rank"`
	Rating float64 `parquet:"rating"`
	// Verdict is equivalent, distinct or invalid (no usable answer after
	// the re-asks: kept, never a flag).
	Verdict string `parquet:"verdict"`
	Flagged bool   `parquet:"flagged"`
	// Score is the offline backend's similarity in [0, 1] (0 with the LLM).
	Score float64 `parquet:"score"`
	// Reason says why, in a few words.
	Reason string `parquet:"reason"`
	// AnswerSHA256 is the hash of the last raw answer (the offline
	// backend's evidence offline).
	AnswerSHA256  string `parquet:"answer_sha256"`
	Asks          int32  `parquet:"asks"`
	Backend       string `parquet:"backend"`
	Model         string `parquet:"model"`
	PromptVersion string `parquet:"prompt_version"`
}

// Leak is a row of `leaks`, written by audit's reduce: a flagged pair of
// the audit, which release refuses unless the config accepts it by id
// (Query + "/" + Doc). Key: (Query, Doc).
type Leak struct {
	Query   string  `parquet:"query"`
	Doc     string  `parquet:"doc"`
	Rank    int32   `parquet:"rank"`
	Rating  float64 `parquet:"rating"`
	Score   float64 `parquet:"score"`
	Reason  string  `parquet:"reason"`
	Backend string  `parquet:"backend"`
}

// LeakID is the id a config accepts a leak by.
func LeakID(query, doc string) string { return query + "/" + doc }

// ReleaseFile is a row of `release`, written by the release stage: one
// file of the release folder. Key: Path.
type ReleaseFile struct {
	// Path is relative to the release folder (data/corpus.parquet).
	Path   string `parquet:"path"`
	SHA256 string `parquet:"sha256"`
	Size   int64  `parquet:"size"`
	// Rows of a table (Parquet, JSONL, TSV data rows); 0 otherwise.
	Rows int64 `parquet:"rows"`
	// Kind is data, beir, mteb, trec, card, croissant, licenses or manifest.
	Kind string `parquet:"kind"`
}

// Result is a row of `results`, written by report: one retriever's
// nDCG@10 in one setting, gain and scope (a domain or "overall"), with its
// bootstrap interval. Key: (Retriever, Setting, Gain, Scope).
type Result struct {
	Retriever string  `parquet:"retriever"`
	Setting   string  `parquet:"setting"`
	Gain      string  `parquet:"gain"`
	Scope     string  `parquet:"scope"`
	Queries   int32   `parquet:"queries"`
	NDCG      float64 `parquet:"ndcg"`
	Lo        float64 `parquet:"ci_lo"`
	Hi        float64 `parquet:"ci_hi"`
}

// ScopeOverall is the Scope of a Result over all queries; other scopes are
// domains.
const ScopeOverall = "overall"

// RewriteRow is a row of `rewrites`, written by rewrite (paper App. B.4):
// a query's statement restated with the same mathematical content and a
// different surface form. Every query has a row; an invalid rewrite (empty,
// identical to the original, outside the length ratio, refused) is kept
// with Valid false and its Reason, and the deduplication experiment leaves
// its query out. Key: Query.
type RewriteRow struct {
	Query     string `parquet:"query"`
	Statement string `parquet:"statement"`
	Valid     bool   `parquet:"valid"`
	// Reason is "" for a valid rewrite, else empty, identical,
	// length_ratio or refused.
	Reason string `parquet:"reason"`
	// Ratio is the rewrite's length in runes over the original's.
	Ratio float64 `parquet:"ratio"`
	// Backend is offline (lib/rewrite) or llm; Model and PromptVersion
	// are the llm backend's.
	Backend       string `parquet:"backend"`
	Model         string `parquet:"model"`
	PromptVersion string `parquet:"prompt_version"`
	AnswerSHA256  string `parquet:"answer_sha256"`
}

// PoolEmbedding is a row of `pool_embeddings`, written by embed: one
// document of the deduplication pool (every unique query and candidate)
// embedded as a document by one bi-encoder, computed once per model and
// reused by every later ranking. Key: (Retriever, Doc).
type PoolEmbedding struct {
	// Retriever is the configured name, Model the server's model id.
	Retriever string    `parquet:"retriever"`
	Model     string    `parquet:"model"`
	Doc       string    `parquet:"doc"`
	Vector    []float32 `parquet:"vector"`
}

// DedupRank is a row of `dedup_ranks`, written by downstream's map (paper
// §4.3, B.4, D.11): where one retriever, given a query's rewrite, ranks the
// query's original. Scale is pool (every unique benchmark document) or
// candidates (the query's own candidates and the original). Key:
// (Retriever, Scale, Query).
type DedupRank struct {
	Retriever string `parquet:"retriever"`
	Scale     string `parquet:"scale"`
	Query     string `parquet:"query"`
	// Rank is the original's 1-based rank (ties by document id).
	Rank int32 `parquet:"rank"`
	// Pool is the number of documents ranked.
	Pool  int32   `parquet:"pool"`
	Score float64 `parquet:"score"`
}

// DedupResult is a row of `dedup_results`, written by downstream's reduce
// (Tables 2, 11, 12): one retriever's deduplication measures at one scale
// beside its SABER-Math nDCG@10. Key: (Scale, Retriever).
type DedupResult struct {
	Scale     string `parquet:"scale"`
	Retriever string `parquet:"retriever"`
	Queries   int32  `parquet:"queries"`
	// NDCG is the retriever's overall nDCG@10 from `results`
	// (statement-full, the report's gain); HasNDCG is false when report
	// did not score it.
	NDCG    float64 `parquet:"ndcg"`
	HasNDCG bool    `parquet:"has_ndcg"`
	Median  float64 `parquet:"median_rank"`
	// TopK are the percentages of queries with the original in the top k.
	Top1  float64 `parquet:"top1"`
	Top4  float64 `parquet:"top4"`
	Top16 float64 `parquet:"top16"`
	Top64 float64 `parquet:"top64"`
}

// MathTextRow is a row of `mathtext`, written by analyze (paper §4.2, App.
// D.10): one retriever's mean score of one query's maths-only part and of
// its words-only part against the full text of the query's best-rated
// candidates. Key: (Retriever, Query).
type MathTextRow struct {
	Retriever string `parquet:"retriever"`
	Query     string `parquet:"query"`
	Domain    string `parquet:"domain"`
	// MathRatio is the share of the query's tokens that are maths.
	MathRatio float64 `parquet:"math_ratio"`
	MathScore float64 `parquet:"math_score"`
	TextScore float64 `parquet:"text_score"`
	// MathWins: MathScore > TextScore (a tie is no win).
	MathWins bool `parquet:"math_wins"`
	// Docs is the candidates scored (analyze.top, fewer when the query
	// has fewer).
	Docs int32 `parquet:"docs"`
}

// The datasets, by name, with the order their rows are sorted in, their
// key (the columns that order rows and identify one), their format version
// and what a row is. FORMAT.md in artifacts/layout is generated from these
// (and from the structs above) by `go test ./jobs/pipeline -update-format`.
var (
	Problems = Dataset[Problem]{Name: "problems", Version: 2, Text: true, Key: "id", Doc: "the problems read from the sources, one per distinct id",
		Compare: func(a, b *Problem) int { return strings.Compare(a.ID, b.ID) }}
	Rejects = Dataset[Reject]{Name: "rejects", Version: 1, Key: "file, line", Doc: "input rows ingest could not use, with the reason",
		Compare: compareReject}
	Corpus = Dataset[Document]{Name: "corpus", Version: 2, Key: "id", Doc: "the problems that survive deduplication",
		Compare: func(a, b *Document) int { return strings.Compare(a.ID, b.ID) }}
	Duplicates = Dataset[Duplicate]{Name: "duplicates", Version: 1, Key: "cluster, dropped", Doc: "each dropped near-duplicate and the problem kept in its place",
		Compare: compareDuplicate}
	Signatures = Dataset[Signature]{Name: "signatures", Version: 1, Key: "id", Doc: "dedup's intermediate MinHash signatures",
		Compare: func(a, b *Signature) int { return strings.Compare(a.ID, b.ID) }}
	Topics = Dataset[TopicRow]{Name: "topics", Version: 1, Key: "id", Doc: "each corpus document's most specific ontology topics",
		Compare: func(a, b *TopicRow) int { return strings.Compare(a.ID, b.ID) }}
	Summaries = Dataset[Summary]{Name: "summaries", Version: 1, Key: "id", Doc: "each corpus document's solution summary (prompt F.2)",
		Compare: func(a, b *Summary) int { return strings.Compare(a.ID, b.ID) }}
	Pairs = Dataset[Pair]{Name: "pairs", Version: 1, Key: "query, doc", Doc: "every (query, document) pair over the topic or summary floor, with both similarities",
		Compare: func(a, b *Pair) int { return cmp.Or(strings.Compare(a.Query, b.Query), strings.Compare(a.Doc, b.Doc)) }}
	PairCounts = Dataset[PairCount]{Name: "pair_counts", Version: 1, Key: "query", Doc: "each query's pairs counted per cell of the threshold grid (pairs' default instead of listing them)",
		Compare: func(a, b *PairCount) int { return strings.Compare(a.Query, b.Query) }}
	Thresholds = Dataset[Threshold]{Name: "thresholds", Version: 1, Key: "scope (final first)", Doc: "the calibrated thresholds, final and per domain",
		Compare: compareThreshold}
	Calibration = Dataset[GridPoint]{Name: "calibration", Version: 1, Key: "scope, tau_topic, tau_summ", Doc: "eligible queries per domain at every point of the threshold grid",
		Compare: func(a, b *GridPoint) int {
			return cmp.Or(strings.Compare(a.Scope, b.Scope), cmp.Compare(a.TauTopic, b.TauTopic), cmp.Compare(a.TauSumm, b.TauSumm))
		}}
	Queries = Dataset[Query]{Name: "queries", Version: 1, Key: "id", Doc: "the benchmark's queries",
		Compare: func(a, b *Query) int { return strings.Compare(a.ID, b.ID) }}
	Judgments = Dataset[Judgment]{Name: "judgments", Version: 1, Key: "query, round, match", Doc: "every pairwise comparison of the Swiss tournaments",
		Compare: func(a, b *Judgment) int {
			return cmp.Or(strings.Compare(a.Query, b.Query), cmp.Compare(a.Round, b.Round), cmp.Compare(a.Match, b.Match))
		}}
	JudgeTimings = Dataset[JudgeTiming]{Name: "judge_timings", Version: 1, Measurement: true, Key: "query, round, match", Doc: "how long each comparison took in this run",
		Compare: func(a, b *JudgeTiming) int {
			return cmp.Or(strings.Compare(a.Query, b.Query), cmp.Compare(a.Round, b.Round), cmp.Compare(a.Match, b.Match))
		}}
	JudgeAudit = Dataset[JudgeAuditRow]{Name: "judge_audit", Version: 1, Key: "query, round, match", Doc: "comparisons judged in both sample orders, for the judge's position audit",
		Compare: func(a, b *JudgeAuditRow) int {
			return cmp.Or(strings.Compare(a.Query, b.Query), cmp.Compare(a.Round, b.Round), cmp.Compare(a.Match, b.Match))
		}}
	Ratings = Dataset[Rating]{Name: "ratings", Version: 1, Key: "query, doc", Doc: "the relevance labels (qrels): each candidate's Bradley–Terry strength and rating in [0, 5]",
		Compare: func(a, b *Rating) int {
			return cmp.Or(strings.Compare(a.Query, b.Query), strings.Compare(a.Doc, b.Doc))
		}}
	Runs = Dataset[RunRow]{Name: "runs", Version: 1, Key: "retriever, setting, query, rank", Doc: "every retriever's ranking of every query's candidates, per text setting",
		Compare: func(a, b *RunRow) int {
			return cmp.Or(strings.Compare(a.Retriever, b.Retriever), strings.Compare(a.Setting, b.Setting), strings.Compare(a.Query, b.Query), cmp.Compare(a.Rank, b.Rank))
		}}
	Timings = Dataset[Timing]{Name: "timings", Version: 1, Measurement: true, Key: "retriever, setting, query", Doc: "wall time per query from hand-over to sorted ranking (a retriever that caches its work: the latency sample's queries in the main setting, timed cold)",
		Compare: func(a, b *Timing) int {
			return cmp.Or(strings.Compare(a.Retriever, b.Retriever), strings.Compare(a.Setting, b.Setting), strings.Compare(a.Query, b.Query))
		}}
	Results = Dataset[Result]{Name: "results", Version: 1, Key: "retriever, setting, gain, scope", Doc: "nDCG@10 per retriever, setting, gain and scope, with the bootstrap interval",
		Compare: func(a, b *Result) int {
			return cmp.Or(strings.Compare(a.Retriever, b.Retriever), strings.Compare(a.Setting, b.Setting), strings.Compare(a.Gain, b.Gain), strings.Compare(a.Scope, b.Scope))
		}}
	Candidates = Dataset[Candidate]{Name: "candidates", Version: 1, Key: "query, doc", Doc: "each benchmark query's candidates (K per category)",
		Compare: func(a, b *Candidate) int {
			return cmp.Or(strings.Compare(a.Query, b.Query), strings.Compare(a.Doc, b.Doc))
		}}
	// TagRejects and SummaryRejects hold the documents a stage could not
	// process (an LLM answer unparseable after its re-asks), with Input set
	// to the stage, ID to the document and Detail to the answer's SHA-256.
	// Every document lands in exactly one of the stage's two datasets.
	TagRejects = Dataset[Reject]{Name: "tag_rejects", Version: 1, Key: "file, line, id", Doc: "documents tag could not process, with the reason",
		Compare: compareReject}
	SummaryRejects = Dataset[Reject]{Name: "summary_rejects", Version: 1, Key: "file, line, id", Doc: "documents summarize could not process, with the reason",
		Compare: compareReject}
	Audit = Dataset[AuditRow]{Name: "audit", Version: 1, Key: "query, rank", Doc: "each query's top documents under the final ratings, inspected for an equivalent problem (App. A.5)",
		Compare: func(a, b *AuditRow) int {
			return cmp.Or(strings.Compare(a.Query, b.Query), cmp.Compare(a.Rank, b.Rank))
		}}
	Leaks = Dataset[Leak]{Name: "leaks", Version: 1, Key: "query, doc", Doc: "the audit's flagged pairs: a document stating a problem equivalent to its query",
		Compare: func(a, b *Leak) int { return cmp.Or(strings.Compare(a.Query, b.Query), strings.Compare(a.Doc, b.Doc)) }}
	IngestRows = Dataset[IngestRow]{Name: "ingest_rows", Version: 3, Staging: true, Key: "id, file, start, line, elem", Doc: "ingest's staging: each map shard's rows with where they were read (an accepted row's problem only by its id: its text is in ingest_problems)",
		Compare: func(a, b *IngestRow) int {
			return cmp.Or(strings.Compare(a.ID, b.ID), cmp.Compare(a.File, b.File), cmp.Compare(a.Start, b.Start), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Elem, b.Elem))
		}}
	// IngestProblems is written with the options of problems (Text), not
	// as staging, so that ingest's reduce can copy its row groups into
	// problems verbatim (Writer.CopyRowGroup).
	IngestProblems = Dataset[Problem]{Name: "ingest_problems", Version: 1, Text: true, Key: "id", Doc: "ingest's staging: each map shard's accepted problems, the first of each id, sorted by id, in the row groups problems has where no other shard's problem falls among them",
		Compare: func(a, b *Problem) int { return strings.Compare(a.ID, b.ID) }}
	IngestSpans = Dataset[IngestSpan]{Name: "ingest_spans", Version: 1, Staging: true, Key: "file, start", Doc: "ingest's staging: the spans of the inputs each map shard read",
		Compare: func(a, b *IngestSpan) int { return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Start, b.Start)) }}
	Rewrites = Dataset[RewriteRow]{Name: "rewrites", Version: 1, Key: "query", Doc: "each query's statement rewritten with the same mathematics in another surface form (App. B.4)",
		Compare: func(a, b *RewriteRow) int { return strings.Compare(a.Query, b.Query) }}
	PoolEmbeddings = Dataset[PoolEmbedding]{Name: "pool_embeddings", Version: 1, Key: "retriever, doc", Doc: "every unique benchmark document embedded once per bi-encoder, for the full-pool deduplication ranking",
		Compare: func(a, b *PoolEmbedding) int {
			return cmp.Or(strings.Compare(a.Retriever, b.Retriever), strings.Compare(a.Doc, b.Doc))
		}}
	DedupRanks = Dataset[DedupRank]{Name: "dedup_ranks", Version: 1, Key: "retriever, scale, query", Doc: "the rank each retriever gives a query's original when searching with its rewrite, over the pool or the candidates",
		Compare: func(a, b *DedupRank) int {
			return cmp.Or(strings.Compare(a.Retriever, b.Retriever), strings.Compare(a.Scale, b.Scale), strings.Compare(a.Query, b.Query))
		}}
	DedupResults = Dataset[DedupResult]{Name: "dedup_results", Version: 1, Key: "scale, retriever", Doc: "median rank and top-k percentages of the deduplication experiment per retriever and scale (Tables 2, 11, 12)",
		Compare: func(a, b *DedupResult) int {
			return cmp.Or(strings.Compare(a.Scale, b.Scale), strings.Compare(a.Retriever, b.Retriever))
		}}
	MathText = Dataset[MathTextRow]{Name: "mathtext", Version: 1, Key: "retriever, query", Doc: "each retriever's scores of each query's maths-only and words-only parts against its best-rated candidates (§4.2, App. D.10)",
		Compare: func(a, b *MathTextRow) int {
			return cmp.Or(strings.Compare(a.Retriever, b.Retriever), strings.Compare(a.Query, b.Query))
		}}
	Release = Dataset[ReleaseFile]{Name: "release", Version: 1, Key: "path", Doc: "the files of the release folder, with their SHA-256, size and rows",
		Compare: func(a, b *ReleaseFile) int { return strings.Compare(a.Path, b.Path) }}
)

// All lists every dataset, in the order of the pipeline's first writer.
func All() []Info {
	return []Info{
		IngestRows.Info(), IngestProblems.Info(), IngestSpans.Info(), Problems.Info(), Rejects.Info(), Signatures.Info(), Corpus.Info(), Duplicates.Info(),
		Topics.Info(), TagRejects.Info(), Summaries.Info(), SummaryRejects.Info(), Pairs.Info(), PairCounts.Info(),
		Thresholds.Info(), Calibration.Info(), Queries.Info(), Candidates.Info(), Judgments.Info(), JudgeTimings.Info(), JudgeAudit.Info(),
		Ratings.Info(), Runs.Info(), Timings.Info(), Results.Info(), Audit.Info(), Leaks.Info(), MathText.Info(), Release.Info(),
		Rewrites.Info(), PoolEmbeddings.Info(), DedupRanks.Info(), DedupResults.Info(),
	}
}

// Lookup returns the dataset named name.
func Lookup(name string) (Info, bool) {
	for _, in := range All() {
		if in.Name == name {
			return in, true
		}
	}
	return Info{}, false
}

// Volatile reports whether an object key belongs to a measurement dataset
// (<run>/<dataset>/...): `saber verify` reports those without comparing
// their bytes, since no rerun reproduces a wall time.
func Volatile(key string) bool {
	parts := strings.Split(key, "/")
	if len(parts) < 3 {
		return false
	}
	in, ok := Lookup(parts[len(parts)-2])
	return ok && in.Measurement
}

// ScopeFinal is the Scope of the final thresholds' row.
const ScopeFinal = "final"

func compareThreshold(a, b *Threshold) int {
	if (a.Scope == ScopeFinal) != (b.Scope == ScopeFinal) {
		if a.Scope == ScopeFinal {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Scope, b.Scope)
}

func compareReject(a, b *Reject) int {
	return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), strings.Compare(a.ID, b.ID),
		strings.Compare(a.Reason, b.Reason), strings.Compare(a.Field, b.Field))
}

func compareDuplicate(a, b *Duplicate) int {
	return cmp.Or(strings.Compare(a.Cluster, b.Cluster), strings.Compare(a.Dropped, b.Dropped))
}
