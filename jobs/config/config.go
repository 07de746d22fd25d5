// Package config is the one YAML run configuration every saber binary reads.
//
// A run config names the storage root, the run, the seed and one section per
// stage. Unknown keys are rejected with their path ("ingest.sources[0].feilds"),
// so a typo never silently falls back to a default.
package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/llm"
)

// Config is the whole run configuration.
type Config struct {
	// Run names this run; datasets live under <root>/<run>/.
	Run string `yaml:"run" json:"run"`
	// Root is the storage root URI: a path, file:///dir or s3://bucket/prefix.
	Root string `yaml:"root" json:"root"`
	// Seed is the run seed; every random choice derives from (seed, stage, key).
	Seed uint64 `yaml:"seed" json:"seed"`
	// Storage configures s3:// roots (endpoint, region, multipart sizes).
	Storage store.Options `yaml:"storage" json:"storage"`
	// Log configures logging and progress lines.
	Log Log `yaml:"log" json:"log"`
	// Executor configures `saber run`, the local executor.
	Executor Executor `yaml:"executor" json:"executor"`
	// Slurm configures `saber submit`.
	Slurm Slurm `yaml:"slurm" json:"slurm"`

	// LLM is the OpenAI-compatible server the llm backends use (stages may
	// override it). The API key is read from the variable named api_key_env.
	LLM llm.Config `yaml:"llm" json:"llm"`

	Ingest    Ingest    `yaml:"ingest" json:"ingest"`
	Dedup     Dedup     `yaml:"dedup" json:"dedup"`
	Tag       Tag       `yaml:"tag" json:"tag"`
	Summarize Summarize `yaml:"summarize" json:"summarize"`
	Pairs     Pairs     `yaml:"pairs" json:"pairs"`
	Calibrate Calibrate `yaml:"calibrate" json:"calibrate"`
	Select    Select    `yaml:"select" json:"select"`
	Judge     Judge     `yaml:"judge" json:"judge"`
	Rate      Rate      `yaml:"rate" json:"rate"`
	Evaluate  Evaluate  `yaml:"evaluate" json:"evaluate"`
	Report    Report    `yaml:"report" json:"report"`

	// Retrievers defines the neural and plugin retrievers by name (retrievers.go).
	Retrievers map[string]retrievers.Spec `yaml:"retrievers" json:"retrievers,omitempty"`

	// dir is the directory of the config file; relative paths resolve there.
	dir string
}

// Log configures logs.
type Log struct {
	// Level is one of debug, info, warn, error.
	Level string `yaml:"level" json:"level"`
	// Format is auto (console on a TTY, JSON otherwise), json or console.
	Format string `yaml:"format" json:"format"`
	// ProgressSeconds is the interval of progress lines when not on a TTY.
	ProgressSeconds float64 `yaml:"progress_seconds" json:"progress_seconds"`
}

// Executor configures the local executor.
type Executor struct {
	// Parallel is the number of shard processes at once; 0 means one per core.
	Parallel int `yaml:"parallel" json:"parallel"`
	// LogDir holds one log file per shard; default <config dir>/logs/<run>.
	LogDir string `yaml:"log_dir" json:"log_dir"`
	// BinDir holds the stage binaries; default the directory of the saber binary.
	BinDir string `yaml:"bin_dir" json:"bin_dir"`
}

// Ingest configures the ingest stage.
type Ingest struct {
	// Shards is the number of ingest shards.
	Shards int `yaml:"shards" json:"shards"`
	// MaxTextBytes rejects statements or solutions longer than this.
	MaxTextBytes int `yaml:"max_text_bytes" json:"max_text_bytes"`
	// Sources are read in order; on duplicate ids the first occurrence wins.
	Sources []Source `yaml:"sources" json:"sources"`
}

// Source is one input dataset and how its fields map onto a problem row.
type Source struct {
	// Name labels the source in logs and rejects.
	Name string `yaml:"name" json:"name"`
	// Paths are files or glob patterns (local paths or URIs).
	Paths []string `yaml:"paths" json:"paths"`
	// Format is auto (by extension), jsonl or parquet.
	Format string `yaml:"format" json:"format"`
	// Source is the corpus source: official, numina, aops or other.
	Source string `yaml:"source" json:"source"`
	// License and Origin are recorded on every row of this source.
	License string `yaml:"license" json:"license"`
	Origin  string `yaml:"origin" json:"origin"`
	// Fields maps problem fields (id, statement, solution, subject, origin)
	// to the input's field names. Statement and solution are required.
	Fields Fields `yaml:"fields" json:"fields"`
	// IDPrefix is prepended to ids read from the input, so that two sources
	// numbering rows 1, 2, 3 do not collide.
	IDPrefix string `yaml:"id_prefix" json:"id_prefix"`
	// SubjectMap rewrites subject values (e.g. MATH's "Precalculus" →
	// "Calculus and Analysis"); values not in the map are kept.
	SubjectMap map[string]string `yaml:"subject_map" json:"subject_map"`
}

// Fields names input fields (dotted for nested Parquet columns); empty means absent.
type Fields struct {
	ID        string `yaml:"id" json:"id"`
	Statement string `yaml:"statement" json:"statement"`
	Solution  string `yaml:"solution" json:"solution"`
	Subject   string `yaml:"subject" json:"subject"`
	Origin    string `yaml:"origin" json:"origin"`
	// Source, when set, reads the corpus source per row (it must be one of
	// official, numina, aops, other); else the source's constant is used.
	Source string `yaml:"source" json:"source"`
}

// Dedup configures near-duplicate removal.
type Dedup struct {
	Shards int `yaml:"shards" json:"shards"`
	// NGram is the word n-gram size of shingles (datatrove: 5).
	NGram int `yaml:"ngram" json:"ngram"`
	// Bands × Rows permutations (datatrove: 14 × 8).
	Bands int `yaml:"bands" json:"bands"`
	Rows  int `yaml:"rows" json:"rows"`
	// Threshold confirms a candidate pair at estimated Jaccard ≥ Threshold.
	Threshold float64 `yaml:"threshold" json:"threshold"`
	// Priority orders sources: the first present in a cluster is kept.
	Priority []string `yaml:"priority" json:"priority"`
}

// Sources a problem row may carry.
var Sources = []string{"official", "numina", "aops", "other"}

// Default returns a config with every default filled in.
func Default() *Config {
	c := &Config{}
	c.applyDefaults()
	return c
}

func (c *Config) applyDefaults() {
	if c.Run == "" {
		c.Run = "default"
	}
	if c.Log.Level == "" {
		c.Log.Level = "info"
	}
	if c.Log.Format == "" {
		c.Log.Format = "auto"
	}
	if c.Log.ProgressSeconds == 0 {
		c.Log.ProgressSeconds = 10
	}
	if c.Ingest.Shards == 0 {
		c.Ingest.Shards = 1
	}
	if c.Ingest.MaxTextBytes == 0 {
		c.Ingest.MaxTextBytes = 1 << 20
	}
	for i := range c.Ingest.Sources {
		s := &c.Ingest.Sources[i]
		if s.Format == "" {
			s.Format = "auto"
		}
		if s.Source == "" {
			s.Source = "other"
		}
		if s.Origin == "" {
			s.Origin = s.Name
		}
		if s.Fields.Statement == "" {
			s.Fields.Statement = "statement"
		}
		if s.Fields.Solution == "" {
			s.Fields.Solution = "solution"
		}
	}
	if c.Dedup.Shards == 0 {
		c.Dedup.Shards = 1
	}
	if c.Dedup.NGram == 0 {
		c.Dedup.NGram = 5
	}
	if c.Dedup.Bands == 0 {
		c.Dedup.Bands = 14
	}
	if c.Dedup.Rows == 0 {
		c.Dedup.Rows = 8
	}
	if c.Dedup.Threshold == 0 {
		c.Dedup.Threshold = 0.8
	}
	if len(c.Dedup.Priority) == 0 {
		c.Dedup.Priority = append([]string(nil), Sources...)
	}
	c.defaultsLLMStages()
	c.defaultsPairs()
	c.defaultsSelect()
	c.defaultsJudge()
	c.defaultsRetrievers()
	c.defaultsEvaluate()
	c.expandInstructions()
}

var runName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Validate checks every field and returns all problems at once.
func (c *Config) Validate() error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if !runName.MatchString(c.Run) {
		bad("run: %q must be letters, digits, '.', '_' or '-'", c.Run)
	}
	if c.Root == "" {
		bad("root: required (a path, file:///dir or s3://bucket/prefix)")
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		bad("log.level: %q is not one of debug, info, warn, error", c.Log.Level)
	}
	switch c.Log.Format {
	case "auto", "json", "console":
	default:
		bad("log.format: %q is not one of auto, json, console", c.Log.Format)
	}
	if c.Log.ProgressSeconds < 0 {
		bad("log.progress_seconds: must be ≥ 0")
	}
	if c.Executor.Parallel < 0 {
		bad("executor.parallel: must be ≥ 0")
	}
	if c.Ingest.Shards < 1 {
		bad("ingest.shards: must be ≥ 1")
	}
	if c.Ingest.MaxTextBytes < 1 {
		bad("ingest.max_text_bytes: must be ≥ 1")
	}
	names := map[string]bool{}
	for i, s := range c.Ingest.Sources {
		p := fmt.Sprintf("ingest.sources[%d]", i)
		if s.Name == "" {
			bad("%s.name: required", p)
		} else if names[s.Name] {
			bad("%s.name: %q used twice", p, s.Name)
		}
		names[s.Name] = true
		if len(s.Paths) == 0 {
			bad("%s.paths: at least one file or glob required", p)
		}
		switch s.Format {
		case "auto", "jsonl", "parquet":
		default:
			bad("%s.format: %q is not one of auto, jsonl, parquet", p, s.Format)
		}
		if !contains(Sources, s.Source) {
			bad("%s.source: %q is not one of %s", p, s.Source, strings.Join(Sources, ", "))
		}
	}
	if c.Dedup.Shards < 1 {
		bad("dedup.shards: must be ≥ 1")
	}
	if c.Dedup.NGram < 1 {
		bad("dedup.ngram: must be ≥ 1")
	}
	if c.Dedup.Bands < 1 || c.Dedup.Rows < 1 {
		bad("dedup.bands, dedup.rows: must be ≥ 1")
	}
	if c.Dedup.Threshold <= 0 || c.Dedup.Threshold > 1 {
		bad("dedup.threshold: %v must be in (0, 1]", c.Dedup.Threshold)
	}
	seen := map[string]bool{}
	for i, p := range c.Dedup.Priority {
		if !contains(Sources, p) {
			bad("dedup.priority[%d]: %q is not one of %s", i, p, strings.Join(Sources, ", "))
		}
		if seen[p] {
			bad("dedup.priority[%d]: %q listed twice", i, p)
		}
		seen[p] = true
	}
	c.validateSlurm(bad)
	c.validateLLMStages(bad)
	c.validatePairs(bad)
	c.validateSelect(bad)
	c.validateJudge(bad)
	c.validateRetrievers(bad)
	c.validateEvaluate(bad)
	c.validateInstructions(bad)
	if len(errs) > 0 {
		return &Error{Problems: errs}
	}
	return nil
}

// Error lists everything wrong with a config; it is a bad-input error.
type Error struct {
	File     string
	Problems []string
}

func (e *Error) Error() string {
	where := "config"
	if e.File != "" {
		where = e.File
	}
	return fmt.Sprintf("%s: %s", where, strings.Join(e.Problems, "; "))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// Load reads, checks and completes the config at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Problems: []string{err.Error()}}
	}
	c, err := Parse(data)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.File = path
		}
		return nil, err
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	c.dir = abs
	return c, nil
}

// Parse decodes YAML, rejecting unknown keys with their path, then fills
// defaults and validates.
func Parse(data []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &Error{Problems: []string{err.Error()}}
	}
	c := &Config{}
	if len(root.Content) > 0 {
		if unknown := unknownKeys(root.Content[0], reflectType(c), ""); len(unknown) > 0 {
			return nil, &Error{Problems: unknown}
		}
		if err := root.Content[0].Decode(c); err != nil {
			return nil, &Error{Problems: []string{err.Error()}}
		}
	}
	c.applyDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// Dir is the directory relative paths in the config resolve against.
func (c *Config) Dir() string {
	if c.dir == "" {
		wd, _ := os.Getwd()
		return wd
	}
	return c.dir
}

// SetDir sets the directory relative paths resolve against (for configs built in code).
func (c *Config) SetDir(dir string) { c.dir = dir }

// Resolve makes a relative local path absolute against the config's directory;
// URIs and absolute paths are returned unchanged.
func (c *Config) Resolve(p string) string {
	if p == "" || strings.Contains(p, "://") || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir(), p)
}

// RootURI is Root resolved against the config's directory.
func (c *Config) RootURI() string { return c.Resolve(c.Root) }

// YAML renders the effective config (defaults filled in), for --print-config.
func (c *Config) YAML() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// Hash is the SHA-256 of the canonical JSON of everything that can change a
// stage's output: the config minus log and executor settings.
func (c *Config) Hash() string {
	cp := *c
	cp.Log = Log{}
	cp.Executor = Executor{}
	cp.Slurm = Slurm{}
	cp.Storage = store.Options{}
	data, err := json.Marshal(cp)
	if err != nil {
		panic("config: marshal: " + err.Error())
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// sortedKeys is used for stable error output.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
