// Package lengths is a test-only stage off the main line: it shows what
// adding a stage takes — this package, its one-line main (cmd/lengths) and
// one registry line (../../registry_teststage.go, compiled into the
// binaries only with -tags saber_teststage) — and lets the pipeline's
// tests drive an optional stage end to end. It writes, for each corpus
// document with at least lengths.min characters of statement, that length.
package lengths

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
)

// Stage is the lengths stage.
var Stage = stage.Stage{
	Name:     "lengths",
	Summary:  "statement lengths of the corpus (a test-only stage off the main line): corpus → lengths",
	Section:  Section,
	Optional: true,
	Enabled:  func(c *config.Config) bool { return Section.Of(c).Enabled },
	Steps: []stage.Step{{
		Name:    "map",
		Inputs:  []string{dataset.Corpus.Name},
		Outputs: []string{Lengths.Name},
		Shards:  func(c *config.Config) int { return Section.Of(c).Shards },
		Run:     run,
	}},
}

// Section is the stage's part of the run config, `lengths:`.
var Section = config.SectionOf[Config]{Name: "lengths"}

// Config configures the stage.
type Config struct {
	// Enabled puts the stage on the main line of `saber run`.
	Enabled bool `yaml:"enabled" json:"enabled" hash:"-"`
	Shards  int  `yaml:"shards" json:"shards" hash:"-"`
	// Min is the shortest statement kept, in characters.
	Min int `yaml:"min" json:"min"`
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
}

// Validate implements config.Section.
func (c *Config) Validate(_ *config.Config, bad func(string, ...any)) {
	if c.Shards < 1 || c.Min < 0 {
		bad("lengths: shards must be ≥ 1, min ≥ 0")
	}
}

// Length is a row of `lengths`. Key: ID.
type Length struct {
	ID    string `parquet:"id"`
	Chars int64  `parquet:"chars"`
}

// Lengths is the stage's dataset.
var Lengths = dataset.Dataset[Length]{Name: "lengths", Version: 1, Key: "id", Doc: "statement length per document",
	Compare: func(a, b *Length) int { return strings.Compare(a.ID, b.ID) }}

func run(ctx context.Context, env *stage.Env) error {
	docs, err := readers.ShardDocs(ctx, env)
	if err != nil {
		return err
	}
	min := Section.Of(env.Config).Min
	var rows []Length
	for _, d := range docs {
		if n := utf8.RuneCountInString(d.Statement); n >= min {
			rows = append(rows, Length{ID: d.ID, Chars: int64(n)})
		}
	}
	env.Count("documents", int64(len(docs)))
	return stage.WriteOutput(ctx, env, Lengths, rows)
}
