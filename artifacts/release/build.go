package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/trec"
)

// Meta says what the release is, who made it and what made it.
type Meta struct {
	// Name and Version name the release; Date (YYYY-MM-DD) is its date,
	// from the config: nothing reads the clock.
	Name, Version, Date string
	// License is the licence of our own material (labels, annotations,
	// metadata, model paraphrases), an SPDX id such as CC-BY-SA-4.0.
	License string
	// Homepage is where the release is published (Croissant's url) and
	// Creators who made it (Croissant's creator): both required.
	Homepage string
	Creators []Creator
	Citation string
	// CodeVersion, ConfigHash and Seed identify what made it.
	CodeVersion, ConfigHash string
	Seed                    uint64
	// ExcludeNoTraining: the documents whose sources forbid training were
	// left out, with everything derived from them (release.exclude_no_training);
	// Excluded counts what was left out.
	ExcludeNoTraining bool
	Excluded          Excluded
	// Upstream are the steps that made the release's inputs, back to
	// ingest, with their effective config values.
	Upstream []Provenance
	// Datasets are the run datasets the release was built from, each with
	// a digest of its rows that no shard count changes; Sources the raw
	// files ingest read, whole.
	Datasets []DatasetDigest
	Sources  []SourceFile
	// Config is the run's effective config as YAML (reproduce/run.yaml):
	// what REPRODUCE.md rebuilds the release with.
	Config []byte
}

// Creator is one person or organisation that made the release.
type Creator struct {
	Name        string `json:"name" yaml:"name"`
	URL         string `json:"url,omitempty" yaml:"url"`
	Affiliation string `json:"affiliation,omitempty" yaml:"affiliation"`
	// Organization: the creator is an organisation, not a person.
	Organization bool `json:"organization,omitempty" yaml:"organization"`
}

// Excluded counts what release.exclude_no_training left out.
type Excluded struct {
	Queries   int64 `json:"queries"`
	Documents int64 `json:"documents"`
}

// Provenance is one upstream step: its config values, their hash and its
// code, which do not depend on shard counts (its parts' hashes do, and
// stay in the run's manifests).
type Provenance struct {
	Stage       string `json:"stage"`
	Step        string `json:"step"`
	ConfigHash  string `json:"config_hash"`
	CodeVersion string `json:"code_version"`
	// Datasets are what it wrote that the release traced.
	Datasets []string `json:"datasets"`
	// Config are the effective config values that determined its bytes,
	// one dotted key per leaf, as its manifests record them.
	Config map[string]string `json:"config"`
}

// DatasetDigest is a run dataset the release was read from. SHA256 is of
// its rows in key order written as one Parquet part: the same whatever
// shard count wrote it, and what a rerun with one shard stores.
type DatasetDigest struct {
	Dataset string `json:"dataset"`
	Rows    int64  `json:"rows"`
	SHA256  string `json:"sha256"`
}

// SourceFile is a raw input file the run read: its name (the path the
// config gives it, relative to the config's folder: under
// ingest.sources[].paths for a source, another key for an ontology or
// report.plan), size, SHA-256 and the stages that read it, so that a
// rebuilder knows which key it belongs under.
type SourceFile struct {
	Name   string   `json:"name"`
	Size   int64    `json:"size"`
	SHA256 string   `json:"sha256"`
	ReadBy []string `json:"read_by"`
}

// System is one retriever in one setting.
type System struct{ Retriever, Setting string }

// Labeller is a backend and model that produced labels, with what.
type Labeller struct {
	What    string `json:"what"`
	Backend string `json:"backend"`
	Model   string `json:"model"`
	Prompt  string `json:"prompt_version"`
	Rows    int64  `json:"rows"`
}

// Audit are the leakage audit's figures (App. A.5).
type Audit struct {
	Backend  string
	Top      int
	Audited  int64
	Flagged  int64
	Invalid  int64
	Accepted int64
}

// JudgeAudit is the judge's position audit, overall first, then per
// domain (judge.position_audit, judge.both_orders). Empty: not audited.
type JudgeAudit struct {
	// Source is sample (a seeded sample re-judged swapped) or both_orders.
	Source string            `json:"source"`
	Scopes []JudgeAuditScope `json:"scopes"`
}

// JudgeAuditScope is the audit over one scope, with 95% Wilson intervals.
type JudgeAuditScope struct {
	Scope         string `json:"scope"`
	Comparisons   int    `json:"comparisons"`
	Answered      int    `json:"answered"`
	Consistency   Ratio  `json:"consistency"`
	ConsistencyLo Ratio  `json:"consistency_lo"`
	ConsistencyHi Ratio  `json:"consistency_hi"`
	FirstWins     Ratio  `json:"first_wins"`
	FirstWinsLo   Ratio  `json:"first_wins_lo"`
	FirstWinsHi   Ratio  `json:"first_wins_hi"`
}

// Ratio is a share that may be undefined (NaN: nothing to count), which
// JSON writes as null.
type Ratio float64

// MarshalJSON implements json.Marshaler.
func (r Ratio) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(r)) || math.IsInf(float64(r), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(r))
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *Ratio) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = Ratio(math.NaN())
		return nil
	}
	var f float64
	err := json.Unmarshal(b, &f)
	*r = Ratio(f)
	return err
}

// Contents are the release's tables and what else it needs, as the
// release stage read them from the run. Build sorts nothing but the
// tables it derives: each table must come sorted by its key.
type Contents struct {
	Meta       Meta
	Queries    []Query
	Corpus     []Doc
	Candidates []Candidate
	Qrels      []Qrel
	Judgments  []Judgment
	Topics     []Topic
	Summaries  []Summary
	Nodes      []OntologyNode
	Edges      []OntologyEdge
	Tree       []OntologyTreeNode
	Thresholds []Threshold
	Results    []Result
	Leaks      []Leak
	// Runs are the evaluated systems' rankings (TREC runs), by system.
	Runs     map[System][]trec.RunLine
	Settings []string
	// Domains are the run's domains in the order the card lists them
	// (benchmark.domains, else the ontology's top-level labels); queries'
	// domains are matched to them case-insensitively, and any other comes
	// after, alphabetically.
	Domains []string
	// Labellers are who produced the topics, summaries, judgments and the
	// audit; Audit the audit's figures.
	Labellers []Labeller
	Audit     Audit
	// JudgeAudit is the judge's position audit; no card section without.
	JudgeAudit JudgeAudit
}

// File is one file of a release folder.
type File struct {
	Path string
	Data []byte
	// Rows of a table (Parquet rows, JSONL lines, data lines of a TSV).
	Rows int64
	Kind string
}

// Kinds of files.
const (
	KindData      = "data"
	KindBEIR      = "beir"
	KindMTEB      = "mteb"
	KindTREC      = "trec"
	KindCard      = "card"
	KindCroissant = "croissant"
	KindLicenses  = "licenses"
	KindManifest  = "manifest"
	KindSums      = "checksums"
)

// Names of the release's own files.
const (
	CardFile      = "README.md"
	CroissantFile = "croissant.json"
	LicensesFile  = "LICENSES.md"
	ManifestFile  = "MANIFEST.json"
	SumsFile      = "SHA256SUMS"
	ReproduceFile = "REPRODUCE.md"
	// ReproduceConfig is the run's effective config, which REPRODUCE.md
	// rebuilds the release with.
	ReproduceConfig = "reproduce/run.yaml"
	TRECReadme      = "trec/README.md"
)

// Kinds of the files that explain the release.
const (
	KindReproduce = "reproduce"
	KindDoc       = "doc"
)

// Build renders every file of the release, in path order, SHA256SUMS last.
func Build(c *Contents) ([]File, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	c.deriveTerms()
	var files []File
	add := func(f File, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		files = append(files, f)
		return nil
	}
	for _, err := range []error{
		add(parquetFile("queries", c.Queries)),
		add(parquetFile("corpus", c.Corpus)),
		add(parquetFile("candidates", c.Candidates)),
		add(parquetFile("qrels", c.Qrels)),
		add(parquetFile("judgments", c.Judgments)),
		add(parquetFile("topics", c.Topics)),
		add(parquetFile("summaries", c.Summaries)),
		add(parquetFile("ontology_nodes", c.Nodes)),
		add(parquetFile("ontology_edges", c.Edges)),
		add(parquetFile("ontology_tree", c.Tree)),
		add(parquetFile("thresholds", c.Thresholds)),
		add(parquetFile("results", c.Results)),
		add(parquetFile("leaks", c.Leaks)),
	} {
		if err != nil {
			return nil, err
		}
	}
	layouts, err := c.layouts()
	if err != nil {
		return nil, err
	}
	files = append(files, layouts...)
	files = append(files,
		File{Path: LicensesFile, Data: c.licenses(), Kind: KindLicenses},
		File{Path: TRECReadme, Data: c.trecReadme(), Kind: KindDoc},
		File{Path: ReproduceConfig, Data: c.Meta.Config, Kind: KindReproduce},
		File{Path: ReproduceFile, Data: c.reproduce(), Kind: KindReproduce})
	card, err := c.card(files)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CardFile, err)
	}
	files = append(files, File{Path: CardFile, Data: card, Kind: KindCard})
	cr, err := c.croissant(files)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CroissantFile, err)
	}
	files = append(files, File{Path: CroissantFile, Data: cr, Kind: KindCroissant})
	man, err := c.manifest(files)
	if err != nil {
		return nil, err
	}
	files = append(files, File{Path: ManifestFile, Data: man, Kind: KindManifest})
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	files = append(files, File{Path: SumsFile, Data: Sums(files), Kind: KindSums})
	return files, nil
}

func parquetFile[T any](config string, rows []T) (File, error) {
	t, _ := tableByConfig(config)
	data, err := dataset.Encode(rows)
	return File{Path: t.Path, Data: data, Rows: int64(len(rows)), Kind: KindData}, err
}

func tableByConfig(config string) (Table, bool) {
	for _, t := range Tables {
		if t.Config == config {
			return t, true
		}
	}
	return Table{}, false
}

// LicenceError is a release refused because rows have no licence.
type LicenceError struct{ Origins []string }

func (e *LicenceError) Error() string {
	return "documents of " + strings.Join(e.Origins, ", ") + " have no licence: set license: on that source in ingest.sources and rerun ingest (a release states every text's terms)"
}

// MetaError is a release refused for what its config lacks.
type MetaError struct{ Missing []string }

func (e *MetaError) Error() string {
	return "the release needs " + strings.Join(e.Missing, ", ") + " (Croissant 1.0 requires url, creator and datePublished; a release states who made it and where it lives)"
}

// check refuses contents a release must not hold: no homepage, creator or
// date, rows without a licence, derived rows of documents the release does
// not hold, a query among its own candidates, a label outside [0, 5],
// unaccepted leaks.
func (c *Contents) check() error {
	var need []string
	if strings.TrimSpace(c.Meta.Homepage) == "" {
		need = append(need, "release.homepage (the URL it is published at)")
	}
	if len(c.Meta.Creators) == 0 {
		need = append(need, "release.creators (a list of {name, url, affiliation})")
	}
	for i, cr := range c.Meta.Creators {
		if strings.TrimSpace(cr.Name) == "" {
			need = append(need, fmt.Sprintf("release.creators[%d].name", i))
		}
	}
	if c.Meta.Date == "" {
		need = append(need, "release.date")
	}
	if len(need) > 0 {
		return &MetaError{Missing: need}
	}
	var missing []string
	seen := map[string]bool{}
	for _, d := range c.texts() {
		if strings.TrimSpace(d.License) == "" && !seen[d.Origin] {
			seen[d.Origin] = true
			missing = append(missing, fmt.Sprintf("origin %q (source %s)", d.Origin, d.Source))
		}
	}
	if len(missing) > 0 {
		return &LicenceError{Origins: missing}
	}
	released := make(map[string]bool, len(seen))
	for _, d := range c.texts() {
		released[d.ID] = true
	}
	for _, t := range c.Topics {
		if !released[t.ID] {
			return fmt.Errorf("topics: %s is not a released document (a query or a candidate): its row would hold terms the release does not state", t.ID)
		}
	}
	for _, s := range c.Summaries {
		if !released[s.ID] {
			return fmt.Errorf("summaries: %s is not a released document (a query or a candidate): its text would come with no source or licence", s.ID)
		}
	}
	for _, q := range c.Qrels {
		if q.Query == q.Doc {
			return fmt.Errorf("qrels: query %s is its own candidate", q.Query)
		}
		if !(q.Rating >= 0 && q.Rating <= trec.MaxRating) {
			return fmt.Errorf("qrels: query %s doc %s: rating %v outside [0, 5]", q.Query, q.Doc, q.Rating)
		}
	}
	for _, l := range c.Leaks {
		if !l.Accepted {
			return fmt.Errorf("leak %s is not accepted", dataset.LeakID(l.Query, l.Doc))
		}
	}
	return nil
}

// BEIRCandidates is each BEIR folder's list of the candidates to rerank.
const BEIRCandidates = "candidates.tsv"

// beirDoc and beirQuery are BEIR's JSONL records, fields in its order.
type beirDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

type beirQuery struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// MTEBDoc, MTEBQuery, MTEBQrel and MTEBTopRanked are the rows of MTEB's
// reranking layout: the corpus, queries, qrels and top_ranked configs.
type MTEBDoc struct {
	ID    string `parquet:"_id"`
	Title string `parquet:"title"`
	Text  string `parquet:"text"`
}

// MTEBQuery is a row of mteb/<setting>/queries.parquet.
type MTEBQuery struct {
	ID   string `parquet:"_id"`
	Text string `parquet:"text"`
}

// MTEBQrel is a row of mteb/<setting>/qrels.parquet.
type MTEBQrel struct {
	Query string `parquet:"query-id"`
	Doc   string `parquet:"corpus-id"`
	Score int32  `parquet:"score"`
}

// MTEBTopRanked is a row of mteb/<setting>/top_ranked.parquet: the
// documents to rerank for a query, its candidates.
type MTEBTopRanked struct {
	Query string   `parquet:"query-id"`
	Docs  []string `parquet:"corpus-ids,list"`
}

func jsonLine(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	return enc.Encode(v) // one line, "\n"-terminated
}

// Sums renders SHA256SUMS for files: "<sha256>  <path>" lines in path
// order, as sha256sum writes and `sha256sum -c` reads them.
func Sums(files []File) []byte {
	sorted := slices.Clone(files)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	var b bytes.Buffer
	for _, f := range sorted {
		if f.Path == SumsFile {
			continue
		}
		fmt.Fprintf(&b, "%s  %s\n", hexSHA(f.Data), f.Path)
	}
	return b.Bytes()
}

func hexSHA(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ManifestEntry is a file in MANIFEST.json. Rows is set for every table
// (Parquet, JSONL, TSV, TREC), 0 included, and absent for other files.
type ManifestEntry struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Rows   *int64 `json:"rows,omitempty"`
	Kind   string `json:"kind"`
}

// Manifest is MANIFEST.json: what the release is, who made it, what made
// it (every step back to ingest with its config values, the datasets read
// and the raw sources), what the card says of it, and every file. License
// is release.license, the terms of our own material only (ratings,
// judgments, annotations, metadata), under a key no tool takes for the
// whole release's licence: the texts keep their sources' terms, which
// Licences lists with ours.
type Manifest struct {
	Name              string           `json:"name"`
	Version           string           `json:"version"`
	Date              string           `json:"date"`
	Homepage          string           `json:"homepage"`
	Creators          []Creator        `json:"creators"`
	License           string           `json:"our_material_license"`
	Licences          []string         `json:"licences"`
	Citation          string           `json:"citation"`
	CodeVersion       string           `json:"code_version"`
	ConfigHash        string           `json:"config_hash"`
	Seed              uint64           `json:"seed"`
	Settings          []string         `json:"settings"`
	Domains           []string         `json:"domains"`
	ExcludeNoTraining bool             `json:"exclude_no_training"`
	Excluded          Excluded         `json:"excluded"`
	Upstream          []Provenance     `json:"upstream"`
	Datasets          []DatasetDigest  `json:"datasets"`
	Sources           []SourceFile     `json:"sources"`
	Labellers         []Labeller       `json:"labellers"`
	Counts            map[string]int64 `json:"counts"`
	Audit             ManifestAudit    `json:"audit"`
	JudgeAudit        JudgeAudit       `json:"judge_audit"`
	Files             []ManifestEntry  `json:"files"`
}

// ManifestAudit is the audit's figures in MANIFEST.json.
type ManifestAudit struct {
	Backend  string `json:"backend"`
	Top      int    `json:"top"`
	Audited  int64  `json:"pairs_audited"`
	Flagged  int64  `json:"flagged"`
	Accepted int64  `json:"accepted"`
	Invalid  int64  `json:"invalid"`
}

func (c *Contents) counts() map[string]int64 {
	return map[string]int64{
		"queries": int64(len(c.Queries)), "corpus": int64(len(c.Corpus)), "candidates": int64(len(c.Candidates)),
		"qrels": int64(len(c.Qrels)), "judgments": int64(len(c.Judgments)), "topics": int64(len(c.Topics)),
		"summaries": int64(len(c.Summaries)), "ontology_nodes": int64(len(c.Nodes)), "ontology_edges": int64(len(c.Edges)),
		"ontology_tree": int64(len(c.Tree)), "results": int64(len(c.Results)), "leaks": int64(len(c.Leaks)),
		"no_training": c.noTraining(), "systems": int64(len(c.Runs)),
	}
}

// texts are the distinct texts of the release, queries and corpus, by id:
// what the licences cover.
func (c *Contents) texts() []Doc {
	seen := make(map[string]bool, len(c.Corpus)+len(c.Queries))
	out := make([]Doc, 0, len(c.Corpus)+len(c.Queries))
	for _, d := range c.Corpus {
		seen[d.ID] = true
		out = append(out, d)
	}
	for _, q := range c.Queries {
		if !seen[q.ID] {
			seen[q.ID] = true
			out = append(out, Doc{ID: q.ID, Source: q.Source, License: q.License, Origin: q.Origin, NoTraining: q.NoTraining})
		}
	}
	return out
}

// noTraining counts the release's texts whose source forbids training.
func (c *Contents) noTraining() int64 {
	var n int64
	for _, d := range c.texts() {
		if d.NoTraining {
			n++
		}
	}
	return n
}

func (c *Contents) manifest(files []File) ([]byte, error) {
	mt := c.Meta
	m := Manifest{Name: mt.Name, Version: mt.Version, Date: mt.Date, Homepage: mt.Homepage, Creators: mt.Creators,
		License: mt.License, Licences: c.Licences(), Citation: mt.Citation, CodeVersion: mt.CodeVersion,
		ConfigHash: mt.ConfigHash, Seed: mt.Seed, Settings: c.Settings, Domains: c.Domains,
		ExcludeNoTraining: mt.ExcludeNoTraining, Excluded: mt.Excluded,
		Upstream: mt.Upstream, Datasets: mt.Datasets, Sources: mt.Sources, Labellers: c.Labellers, Counts: c.counts(),
		Audit: ManifestAudit{Backend: c.Audit.Backend, Top: c.Audit.Top, Audited: c.Audit.Audited, Flagged: c.Audit.Flagged,
			Accepted: c.Audit.Accepted, Invalid: c.Audit.Invalid},
		JudgeAudit: c.JudgeAudit}
	sorted := slices.Clone(files)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	for _, f := range sorted {
		e := ManifestEntry{Path: f.Path, SHA256: hexSHA(f.Data), Size: int64(len(f.Data)), Kind: f.Kind}
		if _, table := countRows(f.Path, f.Data); table {
			rows := f.Rows
			e.Rows = &rows
		}
		m.Files = append(m.Files, e)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
