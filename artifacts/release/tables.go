// Package release packages a finished run as a benchmark others load
// without saber: Parquet tables under data/, the same benchmark in the BEIR,
// MTEB-reranking and TREC layouts, a Hugging Face dataset card, Croissant
// 1.0 metadata, the licences, SHA256SUMS and MANIFEST.json (Build); it
// checks such a folder wherever it lies (Verify) and copies it write-once
// to where it is published (Publish).
//
// The release's tables are its public schema, defined here once; they are
// built from the run's datasets by the release stage (jobs/release). Every
// figure of the card is computed from them, and the same contents always
// give the same bytes: nothing reads the clock.
package release

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Query is a row of data/queries.parquet: one benchmark query.
type Query struct {
	ID        string   `parquet:"id" doc:"query id: the id of its problem in the deduplicated corpus the benchmark was drawn from; its text is in this table, and in data/corpus.parquet only where it is also a candidate of another query"`
	Statement string   `parquet:"statement" doc:"the problem statement (LaTeX in Markdown)"`
	Solution  string   `parquet:"solution" doc:"its worked solution"`
	Domain    string   `parquet:"domain" doc:"its main domain: a top-level label of the ontology (with the default ontology Algebra, Geometry, Number Theory, Combinatorics or Calculus and Analysis)"`
	Topics    []string `parquet:"topics,list" doc:"its most specific ontology topics, as tree paths"`
	Source    string   `parquet:"source" doc:"official, numina, aops or other"`
	License   string   `parquet:"license" doc:"the licence of its text, its source's"`
	Origin    string   `parquet:"origin" doc:"the dataset or competition it came from"`
	// NoTraining: its source's terms forbid training on it.
	NoTraining bool `parquet:"no_training" doc:"true when its source's terms forbid training on it"`
	// Category counts at the final thresholds.
	TopicOnly   int32 `parquet:"topic_only" doc:"documents relevant by topic only at the final thresholds"`
	SummaryOnly int32 `parquet:"summary_only" doc:"documents relevant by summary only"`
	Both        int32 `parquet:"both" doc:"documents relevant by both signals"`
}

// Doc is a row of data/corpus.parquet: a document of some query's
// candidates, with its provenance and licence.
type Doc struct {
	ID        string `parquet:"id" doc:"document id"`
	Statement string `parquet:"statement" doc:"the problem statement"`
	Solution  string `parquet:"solution" doc:"its worked solution"`
	Subject   string `parquet:"subject" doc:"the subject its source gives"`
	Source    string `parquet:"source" doc:"official, numina, aops or other"`
	License   string `parquet:"license" doc:"the licence of this row's text, its source's"`
	Origin    string `parquet:"origin" doc:"the dataset or competition it came from"`
	// NoTraining: its source's terms forbid training on it.
	NoTraining bool `parquet:"no_training" doc:"true when its source's terms forbid training on it: use for evaluation only"`
}

// Candidate is a row of data/candidates.parquet: one of a query's
// candidates, with the signals that selected it.
type Candidate struct {
	Query    string  `parquet:"query" doc:"query id"`
	Doc      string  `parquet:"doc" doc:"document id"`
	Category string  `parquet:"category" doc:"topic, summary or both: the signals over their thresholds"`
	SimTopic float64 `parquet:"sim_topic" doc:"topic similarity (best-match average of Lin over the ontology)"`
	SimSumm  float64 `parquet:"sim_summ" doc:"summary similarity (Jaccard of core-idea tokens)"`
}

// Qrel is a row of data/qrels.parquet: a relevance label.
type Qrel struct {
	Query  string  `parquet:"query" doc:"query id"`
	Doc    string  `parquet:"doc" doc:"document id"`
	Rating float64 `parquet:"rating" doc:"relevance in [0, 5]: the Bradley–Terry strength rescaled per query"`
	Level  int32   `parquet:"level" doc:"the rating rounded half up to an integer 0–5, a rating within 1e-9 below a half (the fit's precision) counting as the half (the BEIR, MTEB and TREC score)"`
	Theta  float64 `parquet:"theta" doc:"the Bradley–Terry strength"`
	Games  int32   `parquet:"games" doc:"valid comparisons it took part in"`
	Wins   int32   `parquet:"wins" doc:"comparisons it won"`
}

// Judgment is a row of data/judgments.parquet: one pairwise comparison
// of a query's Swiss tournament.
type Judgment struct {
	Query   string `parquet:"query" doc:"query id"`
	Round   int32  `parquet:"round" doc:"tournament round, from 1"`
	Match   int32  `parquet:"match" doc:"the comparison's index in its round"`
	Sample1 string `parquet:"sample1" doc:"the document shown first"`
	Sample2 string `parquet:"sample2" doc:"the document shown second"`
	Winner  string `parquet:"winner" doc:"sample1's or sample2's id; empty when not valid"`
	Valid   bool   `parquet:"valid" doc:"false when the judge gave no usable answer (never counted as a win)"`
	Reason  string `parquet:"reason" doc:"why a judgment is not valid: unparseable or refused"`
	Backend string `parquet:"backend" doc:"llm or lexical"`
	Model   string `parquet:"model" doc:"the judge model"`
	Prompt  string `parquet:"prompt_version" doc:"the prompt's version (App. F.3)"`
}

// Topic is a row of data/topics.parquet: a corpus document's topics.
type Topic struct {
	ID      string    `parquet:"id" doc:"document id"`
	Topics  []string  `parquet:"topics,list" doc:"most specific topics, as tree paths"`
	Scores  []float64 `parquet:"scores,list" doc:"each topic's normalised score"`
	Domains []string  `parquet:"domains,list" doc:"the top-level domains of its topics"`
	Domain  string    `parquet:"domain" doc:"its main domain"`
	Backend string    `parquet:"backend" doc:"llm or lexical"`
	Model   string    `parquet:"model" doc:"the model, with the llm backend"`
	Prompt  string    `parquet:"prompt_version" doc:"the prompt's version (App. F.1)"`
	// Source and NoTraining are the document's; License is this row's:
	// topic labels are our material, whoever's text they describe.
	Source     string `parquet:"source" doc:"the document's source (official, numina, aops or other)"`
	License    string `parquet:"license" doc:"the licence of this row: topic labels are our material"`
	NoTraining bool   `parquet:"no_training" doc:"the document's flag: true when its source's terms forbid training on it"`
}

// Summary is a row of data/summaries.parquet: a document's solution summary.
type Summary struct {
	ID              string   `parquet:"id" doc:"document id"`
	NoCoreIdea      bool     `parquet:"no_core_idea" doc:"the solution has no single core idea"`
	CoreIdea        string   `parquet:"core_idea" doc:"the core idea (at most 30 words)"`
	SupportingIdeas []string `parquet:"supporting_ideas,list" doc:"supporting ideas"`
	Keywords        []string `parquet:"keywords,list" doc:"keywords"`
	Confidence      float64  `parquet:"confidence" doc:"the summariser's confidence"`
	Backend         string   `parquet:"backend" doc:"llm or extractive"`
	Model           string   `parquet:"model" doc:"the model, with the llm backend"`
	Prompt          string   `parquet:"prompt_version" doc:"the prompt's version (App. F.2)"`
	// License follows how the text was made (SPEC §3, release terms): an
	// extractive summary is the document's own words, under its terms; a
	// model's paraphrase is our material. NoTraining is the document's
	// either way.
	Source     string `parquet:"source" doc:"the document's source (official, numina, aops or other)"`
	License    string `parquet:"license" doc:"the licence of this row's text: the document's for an extractive summary (its own words), ours for a model's paraphrase"`
	NoTraining bool   `parquet:"no_training" doc:"the document's flag: true when its source's terms forbid training on it"`
}

// OntologyNode is a row of data/ontology_nodes.parquet: a topic of the DAG.
type OntologyNode struct {
	ID       string   `parquet:"id" doc:"topic id"`
	Label    string   `parquet:"label" doc:"its label"`
	Keywords []string `parquet:"keywords,list" doc:"keywords the offline tagger matches"`
}

// OntologyEdge is a row of data/ontology_edges.parquet: parent → child.
type OntologyEdge struct {
	Parent string `parquet:"parent" doc:"the more general topic's id"`
	Child  string `parquet:"child" doc:"the more specific topic's id"`
}

// OntologyTreeNode is a row of data/ontology_tree.parquet: the DAG made a
// tree by duplicating every node once per root path.
type OntologyTreeNode struct {
	Path   string `parquet:"path" doc:"the node's path of ids, joined by \" > \" (its id in topics)"`
	ID     string `parquet:"id" doc:"the DAG topic it copies"`
	Label  string `parquet:"label" doc:"its label"`
	Parent string `parquet:"parent_path" doc:"its parent's path; empty for a domain"`
	Depth  int32  `parquet:"depth" doc:"1 for a domain"`
}

// Threshold is a row of data/thresholds.parquet: the calibrated thresholds.
type Threshold struct {
	Scope       string  `parquet:"scope" doc:"final, or a domain's own pick"`
	TauTopic    float64 `parquet:"tau_topic" doc:"topic threshold"`
	TauSumm     float64 `parquet:"tau_summ" doc:"summary threshold"`
	Eligible    int64   `parquet:"eligible" doc:"eligible queries at these thresholds (final: the fewest over domains)"`
	AtFinal     int64   `parquet:"eligible_at_final" doc:"a domain's eligible queries at the final thresholds"`
	Feasible    bool    `parquet:"feasible" doc:"enough eligible queries"`
	K           int32   `parquet:"k" doc:"documents drawn per category"`
	MinEligible int32   `parquet:"min_eligible" doc:"eligible queries a domain needs"`
}

// Result is a row of data/results.parquet: a retriever's nDCG@10.
type Result struct {
	Retriever string  `parquet:"retriever" doc:"retriever name"`
	Setting   string  `parquet:"setting" doc:"statement-full, full-full or statement-statement (query text – document text)"`
	Gain      string  `parquet:"gain" doc:"exponential (2^rel − 1, the benchmark's) or linear"`
	Scope     string  `parquet:"scope" doc:"overall or a domain"`
	Queries   int32   `parquet:"queries" doc:"queries averaged"`
	NDCG      float64 `parquet:"ndcg" doc:"mean nDCG@10"`
	Lo        float64 `parquet:"ci_lo" doc:"95% bootstrap interval, low"`
	Hi        float64 `parquet:"ci_hi" doc:"95% bootstrap interval, high"`
}

// Leak is a row of data/leaks.parquet: a pair the leakage audit flagged
// (App. A.5), and whether the release accepted it.
type Leak struct {
	Query    string  `parquet:"query" doc:"query id"`
	Doc      string  `parquet:"doc" doc:"document id: flagged as stating a problem equivalent to the query's"`
	Rank     int32   `parquet:"rank" doc:"the document's rank by rating"`
	Rating   float64 `parquet:"rating" doc:"its rating"`
	Score    float64 `parquet:"score" doc:"the offline audit's similarity (0 with the LLM)"`
	Reason   string  `parquet:"reason" doc:"why it was flagged"`
	Backend  string  `parquet:"backend" doc:"llm or lexical"`
	Accepted bool    `parquet:"accepted" doc:"accepted by the release's config (release.accept_leaks)"`
}

// Table describes one table of data/: its name (Croissant's record set,
// the file's name), path, what a row is, its key and its columns.
type Table struct {
	Config, Path, Doc string
	Key               []string
	Schema            *parquet.Schema
	// Docs are the columns' descriptions, by column name.
	Docs map[string]string
	row  reflect.Type
}

func table[T any](config, doc string, key ...string) Table {
	var zero T
	t := reflect.TypeOf(zero)
	docs := map[string]string{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		docs[strings.Split(f.Tag.Get("parquet"), ",")[0]] = f.Tag.Get("doc")
	}
	return Table{Config: config, Path: "data/" + config + ".parquet", Doc: doc, Key: key, Schema: parquet.SchemaOf(new(T)), Docs: docs, row: t}
}

// Tables are the release's tables, in the card's order.
var Tables = []Table{
	table[Query]("queries", "the benchmark's queries", "id"),
	table[Doc]("corpus", "every document of any query's candidates, with source, licence and a training-use flag", "id"),
	table[Candidate]("candidates", "each query's candidates (K per category) with the signals that selected them", "query", "doc"),
	table[Qrel]("qrels", "the relevance labels: real-valued ratings in [0, 5] and their integer level", "query", "doc"),
	table[Judgment]("judgments", "every pairwise comparison of the Swiss tournaments that produced the ratings", "query", "round", "match"),
	table[Topic]("topics", "ontology topics of every released document (the queries and their candidates)", "id"),
	table[Summary]("summaries", "solution summaries of every released document (the queries and their candidates)", "id"),
	table[OntologyNode]("ontology_nodes", "the topic ontology's nodes (a DAG)", "id"),
	table[OntologyEdge]("ontology_edges", "the ontology's parent → child edges", "parent", "child"),
	table[OntologyTreeNode]("ontology_tree", "the ontology as the tree topic paths refer to", "path"),
	table[Threshold]("thresholds", "the calibrated thresholds", "scope"),
	table[Result]("results", "every evaluated retriever's nDCG@10 per setting, gain and domain, with 95% intervals", "retriever", "setting", "gain", "scope"),
	table[Leak]("leaks", "pairs the leakage audit flagged, all accepted or the release would not exist", "query", "doc"),
}

// CardConfigPrefix starts the card's config name of every data/ table,
// so that none is a name MTEB's retrieval loader takes for its own
// (corpus, queries, qrels, default, top_ranked, <subset>-corpus, …): those
// names belong to the MTEB layout (CardConfigs).
const CardConfigPrefix = "saber_"

// CardConfig is the table's config name in the card.
func (t Table) CardConfig() string { return CardConfigPrefix + t.Config }

// TableOf returns the table at path.
func TableOf(path string) (Table, bool) {
	for _, t := range Tables {
		if t.Path == path {
			return t, true
		}
	}
	return Table{}, false
}

// Settings of the benchmark's texts, as in evaluate: query text – document
// text, where full is the statement, a blank line, the solution.
var Settings = []string{"statement-full", "full-full", "statement-statement"}

// Texts returns a query's and a document's text in a setting.
func Texts(setting, qStatement, qSolution, dStatement, dSolution string) (string, string, error) {
	full := func(st, so string) string { return st + "\n\n" + so }
	switch setting {
	case "statement-full":
		return qStatement, full(dStatement, dSolution), nil
	case "full-full":
		return full(qStatement, qSolution), full(dStatement, dSolution), nil
	case "statement-statement":
		return qStatement, dStatement, nil
	}
	return "", "", fmt.Errorf("unknown setting %q (want one of %s)", setting, strings.Join(Settings, ", "))
}
