package decl

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/saber-math/saber/artifacts/release"
	"github.com/saber-math/saber/jobs/config"
)

// Section is release's part of the run config, `release:`.
var Section = config.SectionOf[Config]{Name: "release"}

// Config configures the release.
type Config struct {
	// Version names the release folder, <root>/<run>/release/<version>/,
	// and the published version: once published it is never changed.
	Version string `yaml:"version" json:"version"`
	// Date (YYYY-MM-DD) is the release's date: the release never reads
	// the clock, so that re-running it gives the same bytes. Required.
	Date string `yaml:"date" json:"date"`
	// Name is the benchmark's name in the card and the metadata.
	Name string `yaml:"name" json:"name"`
	// License is the SPDX id of our own material (labels, annotations,
	// metadata; paper App. A.8: CC-BY-SA-4.0).
	License string `yaml:"license" json:"license"`
	// Homepage is the URL the release is published at (Croissant's url);
	// Creators are who made it (Croissant's creator): the release refuses
	// to build without either, as Croissant 1.0 requires both.
	Homepage string            `yaml:"homepage" json:"homepage"`
	Creators []release.Creator `yaml:"creators" json:"creators"`
	// Citation is BibTeX; default the paper's.
	Citation string `yaml:"citation" json:"citation"`
	// Settings are the text settings of the BEIR and MTEB layouts.
	Settings []string `yaml:"settings" json:"settings"`
	// AcceptLeaks are audit flags accepted after review, by id
	// ("<query>/<doc>"): without them a flagged pair stops the release.
	AcceptLeaks []string `yaml:"accept_leaks" json:"accept_leaks"`
	// ExcludeNoTraining leaves out the documents whose sources forbid
	// training on them (no_training), with everything derived from them:
	// a query among them goes with its candidates, ratings, judgments and
	// runs; a candidate among them goes from every query, and the results
	// are recomputed over what is left. Default false: such documents are
	// released flagged, per row, on the card and in Croissant.
	ExcludeNoTraining bool `yaml:"exclude_no_training" json:"exclude_no_training"`
}

const paperCitation = `@article{saber-math,
  title   = {SABER-Math: An Automated Reranking Benchmark for Mathematical Information Retrieval},
  author  = {Georgiev, Nikolay and Drencheva, Maria and Ibragimova, Kseniia and Petrov, Ivo and Dimitrov, Dimitar I. and Vechev, Martin},
  journal = {arXiv preprint arXiv:2606.29894},
  year    = {2026}
}`

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	if c.Version == "" {
		c.Version = "0.1.0"
	}
	if c.Name == "" {
		c.Name = "SABER-Math"
	}
	if c.License == "" {
		c.License = "CC-BY-SA-4.0"
	}
	if c.Citation == "" {
		c.Citation = paperCitation
	}
	if len(c.Settings) == 0 {
		c.Settings = slices.Clone(release.Settings)
	}
}

var (
	versionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	spdxRE    = regexp.MustCompile(`^[A-Za-z0-9.+-]+$`)
)

// Validate implements config.Section. A missing date is refused when the
// release runs, not here, so that a config without a release: section
// still loads for every other stage.
func (c *Config) Validate(_ *config.Config, bad func(string, ...any)) {
	if !versionRE.MatchString(c.Version) {
		bad("release.version: %q must be letters, digits, '.', '_' or '-' (it names a folder)", c.Version)
	}
	if c.Date != "" {
		if _, err := time.Parse(time.DateOnly, c.Date); err != nil {
			bad("release.date: %q is not YYYY-MM-DD", c.Date)
		}
	}
	if !spdxRE.MatchString(c.License) {
		bad("release.license: %q is not an SPDX licence id (e.g. CC-BY-SA-4.0)", c.License)
	}
	for i, s := range c.Settings {
		if !slices.Contains(release.Settings, s) {
			bad("release.settings[%d]: %q is not one of %s", i, s, strings.Join(release.Settings, ", "))
		}
	}
	if c.Homepage != "" && !strings.Contains(c.Homepage, "://") {
		bad("release.homepage: %q is not a URL (e.g. https://huggingface.co/datasets/you/saber-math)", c.Homepage)
	}
	for i, cr := range c.Creators {
		if strings.TrimSpace(cr.Name) == "" {
			bad("release.creators[%d]: name is required", i)
		}
		if cr.URL != "" && !strings.Contains(cr.URL, "://") {
			bad("release.creators[%d].url: %q is not a URL", i, cr.URL)
		}
	}
	seen := map[string]bool{}
	for i, id := range c.AcceptLeaks {
		if q, d, ok := strings.Cut(id, "/"); !ok || q == "" || d == "" {
			bad("release.accept_leaks[%d]: %q is not <query>/<doc>", i, id)
		}
		if seen[id] {
			bad("release.accept_leaks[%d]: %q listed twice", i, id)
		}
		seen[id] = true
	}
}
