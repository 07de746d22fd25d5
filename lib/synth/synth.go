// Package synth is a procedural generator of competition-style math problems
// with worked solutions, used as SABER-Math's download-free corpus for the demo
// and the scale benchmarks.
//
// A real corpus (official contest sets, NuminaMath, AoPS threads) cannot be
// shipped with the code and is too slow to fetch in tests, so the pipeline is
// exercised on this stand-in instead. To be a useful stand-in it has to look
// like the real thing where the later stages care:
//
//   - five domains with many templates each, every instance carrying a correct
//     worked solution that ends in \boxed{answer}, written with LaTeX in $...$;
//   - varied wording (several phrasings per template, inline [[a|b]] choices,
//     interchangeable phrases, random names, objects, opening and closing
//     sentences; see vary.go), so that two instances of one template are not
//     near-duplicates by accident and deduplication has to find only what was
//     planted;
//   - ground-truth topic labels per template, so topic tagging can be scored;
//   - a mix of sources in roughly the proportions of the real inputs;
//   - a known fraction of planted near-duplicates (light re-post style edits of
//     an earlier problem) whose word-5-gram Jaccard to their original is at
//     least 0.8, so that MinHash-LSH recall can be measured against DupOf.
//
// Every problem is a pure function of (Config.Seed, i) (plus DupFrac and
// IDPrefix), so rows can be produced in any order and in parallel, and the
// first k rows of an N-row corpus are exactly a k-row corpus. The registry
// order and all wording are part of that function; TestGolden pins it so that
// a change is deliberate.
//
// README.md's "Running" shows `saber synth`, which writes its corpus;
// docs/benchmarks.md#stage-throughput-and-memory-make-bench measures the
// stages on it.
package synth

import (
	"fmt"
	"math/rand/v2"
)

// Defaults. DefaultIDPrefix replaces an empty Config.IDPrefix. DupFrac is
// used as given, because 0 (no planted duplicates) is a meaningful setting;
// DefaultDupFrac is the standard mix that callers (the CLI flags, the
// benchmarks) pass explicitly.
const (
	DefaultDupFrac  = 0.05
	DefaultIDPrefix = "syn"
)

// Config selects a corpus.
type Config struct {
	N        int     // number of rows Write emits
	Seed     uint64  // corpus seed; every row derives from (Seed, i)
	DupFrac  float64 // probability that a row is a planted near-duplicate, clamped to [0, 1]; usually DefaultDupFrac
	IDPrefix string  // ID prefix; "" → DefaultIDPrefix
}

// Problem is one corpus row, in the JSONL schema the pipeline ingests.
type Problem struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"`
	Domain    string   `json:"domain"`
	Template  string   `json:"template"`
	Topics    []string `json:"topics"`
	Statement string   `json:"statement"`
	Solution  string   `json:"solution"`
	DupOf     string   `json:"dup_of,omitempty"`
}

// Sources and their probabilities, mirroring the mix of the real inputs
// (a small official set, a mid-sized curated set, a large forum crawl).
var (
	sourceNames   = [...]string{"official", "numina", "aops"}
	sourceWeights = [...]float64{0.15, 0.35, 0.50}
)

// Sources returns the source labels in a fixed order.
func Sources() []string { return append([]string(nil), sourceNames[:]...) }

func (c Config) dupFrac() float64 {
	switch {
	case c.DupFrac < 0 || c.DupFrac != c.DupFrac: // negative or NaN
		return 0
	case c.DupFrac > 1:
		return 1
	}
	return c.DupFrac
}

func (c Config) prefix() string {
	if c.IDPrefix == "" {
		return DefaultIDPrefix
	}
	return c.IDPrefix
}

// rowID formats fmt.Sprintf("%s-%07d", prefix, i) without fmt (it runs for
// every row and every duplicate reference).
func rowID(prefix string, i int) string {
	if i < 0 {
		return fmt.Sprintf("%s-%07d", prefix, i)
	}
	var d [20]byte
	k := len(d)
	for v := i; v > 0 || len(d)-k < 7; v /= 10 {
		k--
		d[k] = byte('0' + v%10)
	}
	return prefix + "-" + string(d[k:])
}

// Random streams. Each row has independent streams for its content and for
// the duplicate decision, so whether row i is a duplicate never changes what
// the original content of row i would have been.
const (
	streamBase = 1
	streamDup  = 2
)

func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func mix64(v uint64) uint64 { return splitmix64(&v) }

// rowRand returns the PCG stream of row i: SplitMix64 of seed ^ mix(i, stream)
// provides the two PCG words, so nearby rows and seeds give unrelated streams.
func rowRand(seed uint64, i int, stream uint64) *rand.Rand {
	x := seed ^ mix64(uint64(i)<<2|stream)
	s1 := splitmix64(&x)
	s2 := splitmix64(&x)
	return rand.New(rand.NewPCG(s1, s2))
}

// dupTarget reports whether row i is a planted duplicate and, if so, the
// earlier row j it was drawn to copy and the rest of its decision stream
// (used for the edits). Row 0 is never a duplicate.
func dupTarget(seed uint64, frac float64, i int) (int, *rand.Rand) {
	if i <= 0 || frac <= 0 {
		return -1, nil
	}
	r := rowRand(seed, i, streamDup)
	if r.Float64() >= frac {
		return -1, nil
	}
	return r.IntN(i), r
}

// Generate returns row i (i ≥ 0) of the corpus described by cfg (cfg.N is
// ignored). It depends only on cfg.Seed, cfg.DupFrac, cfg.IDPrefix and i, and
// is safe for concurrent use.
func Generate(cfg Config, i int) Problem {
	frac := cfg.dupFrac()
	prefix := cfg.prefix()
	j, dr := dupTarget(cfg.Seed, frac, i)
	if dr == nil {
		p, _ := generateBase(cfg.Seed, i)
		p.ID = rowID(prefix, i)
		return p
	}
	// Copy an original, never a copy: if row j is itself a duplicate, follow
	// it to its own original (which is what Generate(j).DupOf names).
	for {
		k, r := dupTarget(cfg.Seed, frac, j)
		if r == nil {
			break
		}
		j = k
	}
	p, _ := generateBase(cfg.Seed, j)
	p.DupOf = rowID(prefix, j)
	p.ID = rowID(prefix, i)
	p.Source = dupSource(dr, p.Source)
	p.Statement = perturb(dr, p.Statement)
	return p
}

// generateBase makes the original (non-duplicate) content of row i and also
// returns the bare answer, which tests cross-check against the statement.
func generateBase(seed uint64, i int) (Problem, string) {
	r := rowRand(seed, i, streamBase)
	g := &gen{r: r}
	src := drawSource(r)
	d := r.IntN(len(registry))
	dom := &registry[d]
	t := &dom.templates[r.IntN(len(dom.templates))]
	stmt, work, ans := t.gen(g)
	stmt = g.vary(stmt)
	sol := work + " " + fmt.Sprintf(g.pick(conclusions...), `$\boxed{`+ans+`}$`)
	return Problem{
		Source:    src,
		Domain:    dom.name,
		Template:  t.name,
		Topics:    append([]string(nil), t.topics...),
		Statement: stmt,
		Solution:  sol,
	}, ans
}

func drawSource(r *rand.Rand) string {
	u := r.Float64()
	for k, w := range sourceWeights {
		if u < w {
			return sourceNames[k]
		}
		u -= w
	}
	return sourceNames[len(sourceNames)-1]
}

// dupSource gives a re-post a source: usually a different one than its
// original's, as when a contest problem resurfaces on a forum.
func dupSource(r *rand.Rand, orig string) string {
	if r.Float64() < 0.2 {
		return orig
	}
	for {
		if s := drawSource(r); s != orig {
			return s
		}
	}
}

// Domains returns the five domains in a fixed order.
func Domains() []string {
	out := make([]string, len(registry))
	for k, d := range registry {
		out[k] = d.name
	}
	return out
}

// Templates maps each domain to its template names, in generation order.
func Templates() map[string][]string {
	out := make(map[string][]string, len(registry))
	for _, d := range registry {
		names := make([]string, len(d.templates))
		for k, t := range d.templates {
			names[k] = t.name
		}
		out[d.name] = names
	}
	return out
}

// template is one problem type: a generator of (statement, worked solution
// without its concluding sentence, answer) and its ground-truth topics.
type template struct {
	name   string
	topics []string
	gen    func(g *gen) (stmt, work, ans string)
}

type domain struct {
	name      string
	templates []template
}

// registry is the fixed list of domains and templates; its order is part of
// the corpus definition (changing it changes every seed's output).
var registry = []domain{
	{"Algebra", algebraTemplates},
	{"Geometry", geometryTemplates},
	{"Number Theory", numberTheoryTemplates},
	{"Combinatorics", combinatoricsTemplates},
	{"Calculus and Analysis", calculusTemplates},
}
