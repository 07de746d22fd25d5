// Package config is the one YAML run configuration every saber binary reads.
//
// A run config has a small shared core — run, root, seed, storage, log,
// executor, slurm, llm — the sections several stages read (benchmark:
// parameters of the benchmark's construction; evaluate: the systems under
// evaluation; retrievers: their definitions), and one section per stage,
// which that stage's package owns: its type, defaults and validation
// (a Section, named by a Def). Unknown keys are rejected with their path
// ("ingest.sources[0].feilds"), so a typo never silently falls back to a
// default, and keys that moved say where they went.
//
// What determines a stage's bytes is its own section and the shared keys it
// declares (Values): fields tagged `hash:"-"` (shard counts, parallelism,
// timeouts, endpoints) are operational and never make a shard stale.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/llmconf"
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
	Storage store.Options `yaml:"storage" json:"storage" hash:"-"`
	// Log configures logging and progress lines.
	Log Log `yaml:"log" json:"log" hash:"-"`
	// Executor configures `saber run`, the local executor.
	Executor Executor `yaml:"executor" json:"executor" hash:"-"`
	// Slurm configures `saber submit`.
	Slurm Slurm `yaml:"slurm" json:"slurm" hash:"-"`
	// Plan configures `saber plan`'s forecast (plan.go).
	Plan Plan `yaml:"plan" json:"plan" hash:"-"`

	// LLM is the OpenAI-compatible server the llm backends use (stages may
	// override it). The API key is read from the variable named api_key_env.
	LLM llmconf.Config `yaml:"llm" json:"llm"`

	// Benchmark holds the parameters several benchmark stages share
	// (benchmark.go).
	Benchmark Benchmark `yaml:"benchmark" json:"benchmark"`
	// Evaluate names the systems under evaluation; evaluate runs them and
	// report scores them (evaluate.go).
	Evaluate Evaluate `yaml:"evaluate" json:"evaluate"`
	// Retrievers defines the neural and plugin retrievers by name (retrievers.go).
	Retrievers map[string]retrievers.Spec `yaml:"retrievers" json:"retrievers,omitempty"`

	// sections are the stages' own sections, by name, in names' order.
	sections map[string]Section
	names    []string

	// dir is the directory of the config file; relative paths resolve there.
	dir string

	// view, when set, is the one step's view of the config (View).
	view *stepView
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

// Default returns a config with the core's defaults and the given
// sections' filled in (for configs built in code).
func Default(defs ...Def) *Config {
	c := &Config{}
	c.addSections(defs)
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
	c.defaultsPlan()
	c.defaultsBenchmark()
	c.defaultsRetrievers()
	c.defaultsEvaluate()
	c.expandInstructions()
	for _, n := range c.names {
		c.sections[n].Defaults(c)
	}
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
	c.validateSlurm(bad)
	c.validatePlan(bad)
	c.validateBenchmark(bad)
	c.validateRetrievers(bad)
	c.validateEvaluate(bad)
	c.validateInstructions(bad)
	for _, n := range c.names {
		c.sections[n].Validate(c, bad)
	}
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

// Load reads, checks and completes the config at path, with the stages'
// sections defs (every registered stage's, for a whole run config).
func Load(path string, defs ...Def) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Problems: []string{err.Error()}}
	}
	c, err := Parse(data, defs...)
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
// defaults and validates. defs are the stage sections a key may name; a
// top-level key that is neither the core's nor one of them is unknown.
func Parse(data []byte, defs ...Def) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &Error{Problems: []string{syntaxError(data, err)}}
	}
	// yaml.Unmarshal reads the first document only: settings after a
	// "---" would be ignored without a word.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if dec.Decode(&first) == nil {
		if err := dec.Decode(&second); err == nil && len(second.Content) > 0 && second.Content[0].ShortTag() != "!!null" {
			return nil, &Error{Problems: []string{fmt.Sprintf("line %d: a second YAML document (after ---): a run config is one document, and the settings after it would be ignored; remove the --- or merge the documents", second.Line)}}
		}
	}
	c := &Config{}
	c.addSections(defs)
	if len(root.Content) > 0 {
		if problems := c.decode(root.Content[0]); len(problems) > 0 {
			return nil, &Error{Problems: problems}
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

// YAML renders the effective config (defaults filled in), for
// --print-config: the core, then each stage's section.
func (c *Config) YAML() ([]byte, error) { return c.render(false) }

// render encodes the core, then each stage's section; reproduce drops
// what ReproduceYAML leaves out and sets the root to ReproduceRoot.
func (c *Config) render(reproduce bool) ([]byte, error) {
	var doc yaml.Node
	if err := doc.Encode(c); err != nil {
		return nil, err
	}
	if reproduce {
		dropOperational(&doc, reflect.TypeOf(*c))
		for i := 0; i+1 < len(doc.Content); i += 2 {
			if doc.Content[i].Value == "root" {
				doc.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Value: ReproduceRoot}
			}
		}
	}
	for _, n := range c.names {
		var v yaml.Node
		if err := v.Encode(c.sections[n]); err != nil {
			return nil, fmt.Errorf("section %s: %w", n, err)
		}
		if reproduce {
			dropOperational(&v, reflect.TypeOf(c.sections[n]))
		}
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: n}, &v)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
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

// ReproduceRoot is the storage root a reproduce config names: a fixed
// relative path, so that the config a release carries does not depend on
// where the run that made it was stored.
const ReproduceRoot = "data"

// ReproduceYAML renders the effective config as a release carries it for
// rebuilding (reproduce/run.yaml): what YAML gives, less what only says
// where and how wide a run went — shard counts, storage, the executor,
// Slurm, logs, the forecast's settings, all tagged hash:"-" — with the
// root set to ReproduceRoot. Two runs that differ only in those render
// the same bytes, so 1 or 64 shards give the same release. Every other
// field stays, operational or not (a source's max_reject_share, an LLM
// server's timeout): the rebuild needs them to run as the original did.
func (c *Config) ReproduceYAML() ([]byte, error) { return c.render(true) }

// whereAndHowWide are the hash:"-" fields ReproduceYAML drops: the shard
// counts of every section, and the core's machine-bound sections.
var whereAndHowWide = map[string]bool{"shards": true, "embed_shards": true, "storage": true, "log": true, "executor": true, "slurm": true, "plan": true}

// dropOperational removes from a mapping node, recursively, the keys of
// the struct fields of t that are tagged hash:"-" and named in
// whereAndHowWide.
func dropOperational(n *yaml.Node, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := map[string]reflect.StructField{}
		for _, f := range yamlFields(t) {
			fields[f.Name] = f.Field
		}
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			f, ok := fields[n.Content[i].Value]
			if ok && f.Tag.Get("hash") == "-" && whereAndHowWide[n.Content[i].Value] {
				continue
			}
			if ok {
				dropOperational(n.Content[i+1], f.Type)
			}
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 1; i < len(n.Content); i += 2 {
			dropOperational(n.Content[i], t.Elem())
		}
	case n.Kind == yaml.SequenceNode && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for _, c := range n.Content {
			dropOperational(c, t.Elem())
		}
	case n.Kind == yaml.DocumentNode:
		for _, c := range n.Content {
			dropOperational(c, t)
		}
	}
}
