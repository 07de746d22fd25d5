package decl

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
)

// Section is ingest's part of the run config, `ingest:`.
var Section = config.SectionOf[Config]{Name: "ingest"}

// Config configures the ingest stage.
type Config struct {
	// Shards is the number of ingest shards.
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// MaxTextBytes rejects statements or solutions longer than this.
	MaxTextBytes int `yaml:"max_text_bytes" json:"max_text_bytes"`
	// MaxLineBytes rejects a JSONL line longer than this (oversize), which
	// is skipped as it streams past: no line costs more memory than this.
	// Default 4 × max_text_bytes: room for a statement and a solution at
	// the limit, JSON-escaped.
	MaxLineBytes int `yaml:"max_line_bytes" json:"max_line_bytes"`
	// MaxRejectShare stops ingest (exit 2) when more than this share of a
	// source's rows are rejected; a source with no accepted row always
	// stops. Rows listed in exclude count for neither. A gate on whether
	// the output is written, not on its bytes, so it is not hashed.
	MaxRejectShare float64 `yaml:"max_reject_share" json:"max_reject_share" hash:"-"`
	// Placeholders are values that stand for a missing text: a statement
	// or solution equal to one (after trimming white space, in any case)
	// is a placeholder reject, as is one that is only a file path or URL
	// (path_only); an id equal to one is no id (the row gets the
	// content-hash id). Default NONE, N/A, null, -; [] turns the check off.
	Placeholders []string `yaml:"placeholders" json:"placeholders"`
	// Sources are read in order; on duplicate ids the first occurrence wins.
	Sources []Source `yaml:"sources" json:"sources"`
	// Exclude are problem ids removed by hand after review — a leak the
	// audit found, a broken problem: each goes to rejects (reason excluded).
	Exclude []string `yaml:"exclude" json:"exclude"`
}

// Source is one input dataset and how its fields map onto a problem row.
type Source struct {
	// Name labels the source in logs and rejects.
	Name string `yaml:"name" json:"name"`
	// Paths are files, folders or glob patterns (local paths or URIs),
	// read in order; a file two of them name is read once, where the
	// first names it.
	Paths []string `yaml:"paths" json:"paths"`
	// Format is auto, jsonl, json or parquet. auto tells Parquet by its
	// extension, and one JSON array of rows (json) from JSON lines by the
	// file's first non-blank byte ('['), whatever the name.
	Format string `yaml:"format" json:"format"`
	// Source is the corpus source: official, numina, aops or other.
	Source string `yaml:"source" json:"source"`
	// License and Origin are recorded on every row of this source. The
	// release refuses a source without a licence.
	License string `yaml:"license" json:"license"`
	Origin  string `yaml:"origin" json:"origin"`
	// NoTraining marks a source whose terms forbid training on it (AoPS,
	// App. A.8): every row carries the flag, and the release states it.
	// Rows whose corpus source is aops are flagged whatever it says.
	NoTraining bool `yaml:"no_training" json:"no_training"`
	// Terms gives the rows whose own corpus source (fields.source) is a
	// key the licence and no_training flag of that source instead of this
	// entry's: a mixed dump whose AoPS rows are not under the dump's
	// licence. Keys are official, numina, aops or other.
	Terms map[string]Terms `yaml:"terms,omitempty" json:"terms,omitempty" hash:"omitempty"`
	// Fields maps problem fields (id, statement, solution, subject, origin)
	// to the input's field names. Statement and solution are required.
	Fields Fields `yaml:"fields" json:"fields"`
	// Join is the separator a list-valued field's elements are joined with
	// (solutions given as a list), by problem field; default a blank line
	// ("\n\n"). One element is taken by a path instead: solutions[0].
	Join map[string]string `yaml:"join" json:"join"`
	// Lists chooses, by problem field, what a list-valued input field
	// becomes: join (the default: one text, joined by join:) or explode
	// (one row per element, ids <id>#<k>; at most one field per source).
	// One element is taken by an index path in fields: (solutions[0]).
	Lists map[string]string `yaml:"lists" json:"lists"`
	// Files maps problem fields to input fields (or paths) holding the
	// name of a side file, relative to the input file, whose text is the
	// value: solutions shipped as one file per problem.
	Files map[string]string `yaml:"files" json:"files"`
	// Template builds a problem field from several input fields, each
	// named by its path in braces: {solution: "{solution}\n\nFinal answer: {answer}"}.
	Template map[string]string `yaml:"template" json:"template"`
	// Where keeps only the rows that meet every condition; the others are
	// counted per source as filtered, not rejected.
	Where []Cond `yaml:"where" json:"where"`
	// IDPrefix is prepended to ids read from the input, so that two sources
	// numbering rows 1, 2, 3 do not collide.
	IDPrefix string `yaml:"id_prefix" json:"id_prefix"`
	// SubjectMap rewrites subject values (e.g. MATH's "Precalculus" →
	// "Calculus and Analysis"); values not in the map are kept.
	SubjectMap map[string]string `yaml:"subject_map" json:"subject_map"`
	// MaxRejectShare overrides ingest.max_reject_share for this source (a
	// source known to be dirty); 0 takes the section's.
	MaxRejectShare float64 `yaml:"max_reject_share" json:"max_reject_share" hash:"-"`
}

// Terms are the licence and training flag of some rows of a source.
type Terms struct {
	License    string `yaml:"license" json:"license"`
	NoTraining bool   `yaml:"no_training" json:"no_training"`
}

// Cond is one condition of a where: filter on an input field (a path as
// in fields:). Exactly one of is, not, in, not_in is set; values are
// compared as text — a field's value as its text (a number as its JSON
// text, a list as its joined text), a condition's as the config writes
// it (1.0 is the text "1.0", not the number 1) — and [] matches an empty
// list. An absent or null field matches no value.
type Cond struct {
	Field string `yaml:"field" json:"field"`
	Is    any    `yaml:"is" json:"is"`
	Not   any    `yaml:"not" json:"not"`
	In    []any  `yaml:"in" json:"in"`
	NotIn []any  `yaml:"not_in" json:"not_in"`
	// IgnoreCase compares in any letter case ("none" matches "NONE").
	// Without it a value no row has while some row has it in another
	// case stops ingest (exit 2), naming both.
	IgnoreCase bool `yaml:"ignore_case" json:"ignore_case"`

	// nulls are the operators the config gives null (is: null), which
	// decode as unset: validation says why null is no value.
	nulls []string
}

// UnmarshalYAML decodes a condition with each scalar value as written.
// The YAML decoder reads an unquoted 1.0, 007, 0x10, 1e3 or True as the
// number 1, 7, 16, 1000 or the boolean true, whose text is no longer the
// config's: such a value is kept as its text instead. A value whose Go
// value reads as its written text (7, 0.5, true, NONE) is kept as the
// decoder made it, so that it hashes (config.Values) as it always has:
// a config's hash changes only where its meaning did.
func (c *Cond) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		// As the decoder would say it, but naming no type of ours.
		what := n.ShortTag()
		if n.Kind == yaml.ScalarNode {
			what += fmt.Sprintf(" `%s`", n.Value)
		}
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: cannot unmarshal %s into a where: condition ({field: F, is: V})", n.Line, what)}}
	}
	type plain Cond // Cond's fields without its methods
	if err := n.Decode((*plain)(c)); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		op, v := n.Content[i].Value, n.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		var list []any
		switch op {
		case "is":
			asWritten(&c.Is, v)
		case "not":
			asWritten(&c.Not, v)
		case "in":
			list = c.In
		case "not_in":
			list = c.NotIn
		default:
			continue
		}
		if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			c.nulls = append(c.nulls, op)
		}
		if v.Kind == yaml.SequenceNode && len(v.Content) == len(list) {
			for j, e := range v.Content {
				asWritten(&list[j], e)
			}
		}
	}
	return nil
}

// asWritten sets *dst, a value decoded from n, to n's text as written
// when the decoded value reads as another text.
func asWritten(dst *any, n *yaml.Node) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return
	}
	if _, isText := (*dst).(string); !isText && MatchText(*dst) != n.Value {
		*dst = n.Value
	}
}

// MatchText is the text a condition's scalar value compares as: a value
// read as written (UnmarshalYAML) is a string; a number or a boolean is
// one only where its text is what the config wrote, or in a config built
// in code.
func MatchText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// Nulls are the operators the config gives null (is: null), which leave
// them unset.
func (c Cond) Nulls() []string { return c.nulls }

// MarshalYAML writes the condition with only the operator it has, so that
// the printed config (--print-config) loads again: in: [] beside is: x
// would be a second operator. An empty in: [] that is set stays.
func (c Cond) MarshalYAML() (any, error) {
	// Pointers: omitempty on a plain any would drop is: 0, not: false
	// and is: "", which are values.
	type out struct {
		Field      string `yaml:"field"`
		Is         *any   `yaml:"is,omitempty"`
		Not        *any   `yaml:"not,omitempty"`
		In         *[]any `yaml:"in,omitempty"`
		NotIn      *[]any `yaml:"not_in,omitempty"`
		IgnoreCase bool   `yaml:"ignore_case"`
	}
	o := out{Field: c.Field, IgnoreCase: c.IgnoreCase}
	if c.Is != nil {
		o.Is = &c.Is
	}
	if c.Not != nil {
		o.Not = &c.Not
	}
	if c.In != nil {
		o.In = &c.In
	}
	if c.NotIn != nil {
		o.NotIn = &c.NotIn
	}
	return o, nil
}

// DefaultPlaceholders are ingest.placeholders when unset.
var DefaultPlaceholders = []string{"NONE", "N/A", "null", "-"}

// Fields names input fields, or paths to nested ones (content.problem,
// messages[0].content; Parquet: dotted columns only); empty means absent.
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

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.MaxTextBytes == 0 {
		c.MaxTextBytes = 1 << 20
	}
	if c.MaxLineBytes == 0 && c.MaxTextBytes > 0 {
		c.MaxLineBytes = 4 * c.MaxTextBytes
	}
	if c.MaxRejectShare == 0 {
		c.MaxRejectShare = 0.5
	}
	if c.Placeholders == nil {
		c.Placeholders = slices.Clone(DefaultPlaceholders)
	}
	for i := range c.Sources {
		s := &c.Sources[i]
		if s.Format == "" {
			s.Format = "auto"
		}
		if s.Source == "" {
			s.Source = "other"
		}
		if s.Origin == "" {
			s.Origin = s.Name
		}
		// A field built from a side file or a template has no input
		// field of its own name to default to.
		if s.Fields.Statement == "" && s.Files["statement"] == "" && s.Template["statement"] == "" {
			s.Fields.Statement = "statement"
		}
		if s.Fields.Solution == "" && s.Files["solution"] == "" && s.Template["solution"] == "" {
			s.Fields.Solution = "solution"
		}
		if s.MaxRejectShare == 0 {
			s.MaxRejectShare = c.MaxRejectShare
		}
	}
}

// Validate implements config.Section.
func (c *Config) Validate(_ *config.Config, bad func(string, ...any)) {
	if c.Shards < 1 {
		bad("ingest.shards: must be ≥ 1")
	}
	if c.MaxTextBytes < 1 {
		bad("ingest.max_text_bytes: must be ≥ 1")
	}
	if c.MaxLineBytes < 1 {
		bad("ingest.max_line_bytes: must be ≥ 1")
	}
	if !(c.MaxRejectShare > 0 && c.MaxRejectShare <= 1) {
		bad("ingest.max_reject_share: %v is not in (0, 1] (1: only a source with no accepted row stops ingest)", c.MaxRejectShare)
	}
	for i, p := range c.Placeholders {
		if strings.TrimSpace(p) == "" {
			bad("ingest.placeholders[%d]: empty; an empty text is rejected as empty_field anyway", i)
		}
	}
	names := map[string]bool{}
	for i, s := range c.Sources {
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
		case "auto", "jsonl", "json", "parquet":
		default:
			bad("%s.format: %q is not one of auto, jsonl, json, parquet", p, s.Format)
		}
		if !(s.MaxRejectShare > 0 && s.MaxRejectShare <= 1) {
			bad("%s.max_reject_share: %v is not in (0, 1]", p, s.MaxRejectShare)
		}
		if !slices.Contains(dataset.Sources, s.Source) {
			bad("%s.source: %q is not one of %s", p, s.Source, strings.Join(dataset.Sources, ", "))
		}
		checkTerms(p, s, bad)
		if CheckFieldMap != nil {
			CheckFieldMap(p, &s, bad)
		}
	}
}

// CheckFieldMap checks a source's lists:, files:, template: and where:
// against the fields and the syntax ingest reads them with. Package
// ingest sets it, because the checks share ingest's own parsers: they run
// in the binaries that link ingest (ingest, and saber, which checks a
// whole config before it starts anything), and the other stages'
// binaries, which never read a source, check the rest of the section.
var CheckFieldMap func(p string, s *Source, bad func(string, ...any))

// checkTerms checks a source's terms: by corpus source, each with a
// licence, and only where rows name their own source (fields.source). App.
// A.8 marks the AoPS portion as unavailable for training, so ingest flags
// every aops row no_training whatever its source's flag; aops terms that
// say otherwise contradict that.
func checkTerms(p string, s Source, bad func(string, ...any)) {
	for _, k := range slices.Sorted(maps.Keys(s.Terms)) {
		t := s.Terms[k]
		switch {
		case !slices.Contains(dataset.Sources, k):
			bad("%s.terms: key %q is not one of %s", p, k, strings.Join(dataset.Sources, ", "))
		case s.Fields.Source == "":
			bad("%s.terms.%s: terms apply to the rows whose own source (fields.source) is %s, and this source sets no fields.source: set license and no_training on the source itself", p, k, k)
		case strings.TrimSpace(t.License) == "":
			bad("%s.terms.%s.license: empty; name the licence of the source's %s rows", p, k, k)
		case k == "aops" && !t.NoTraining:
			bad("%s.terms.aops.no_training: false; AoPS problems are not to be trained on (paper App. A.8), and ingest flags them all: set it to true", p)
		}
	}
}
