package synth

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// noDups selects a corpus without planted duplicates.
func noDups(seed uint64) Config { return Config{Seed: seed} }

// std is the standard mix with DefaultDupFrac planted duplicates.
func std(seed uint64) Config { return Config{Seed: seed, DupFrac: DefaultDupFrac} }

func TestDeterminism(t *testing.T) {
	for _, cfg := range []Config{std(1), {Seed: 42, DupFrac: 0.3}, noDups(7)} {
		for i := 0; i < 2000; i++ {
			a, b := Generate(cfg, i), Generate(cfg, i)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("seed %d row %d differs between calls:\n%+v\n%+v", cfg.Seed, i, a, b)
			}
		}
	}
	// Different seeds give different corpora.
	same := 0
	for i := 0; i < 200; i++ {
		if Generate(std(1), i).Statement == Generate(std(2), i).Statement {
			same++
		}
	}
	if same > 2 {
		t.Errorf("seeds 1 and 2 share %d of 200 statements", same)
	}
}

func TestIDsAndDefaults(t *testing.T) {
	if got := Generate(std(0), 12).ID; got != "syn-0000012" {
		t.Errorf("default ID = %q", got)
	}
	if got := Generate(Config{IDPrefix: "demo", DupFrac: DefaultDupFrac}, 1234567).ID; got != "demo-1234567" {
		t.Errorf("custom ID = %q", got)
	}
	// The prefix changes only IDs; out-of-range DupFrac values clamp.
	for i := 0; i < 300; i++ {
		a := Generate(std(5), i)
		c := Generate(Config{Seed: 5, DupFrac: DefaultDupFrac, IDPrefix: "x"}, i)
		if c.Statement != a.Statement || strings.TrimPrefix(c.DupOf, "x") != strings.TrimPrefix(a.DupOf, "syn") {
			t.Fatalf("prefix changed content at row %d", i)
		}
	}
	for i := 0; i < 300; i++ {
		if !reflect.DeepEqual(Generate(Config{Seed: 5, DupFrac: -3}, i), Generate(noDups(5), i)) {
			t.Fatal("negative DupFrac does not mean no duplicates")
		}
		if p := Generate(Config{Seed: 5, DupFrac: 7}, i); (p.DupOf == "") != (i == 0) {
			t.Fatalf("DupFrac > 1: row %d dup_of %q", i, p.DupOf)
		}
	}
	if Generate(std(5), 0).DupOf != "" {
		t.Error("row 0 cannot be a duplicate")
	}
}

func TestWritePrefixAndRoundTrip(t *testing.T) {
	cfg := Config{Seed: 99, N: 1500, DupFrac: DefaultDupFrac}
	var long, short bytes.Buffer
	if err := Write(&long, cfg); err != nil {
		t.Fatal(err)
	}
	cfg2 := cfg
	cfg2.N = 700
	if err := Write(&short, cfg2); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(long.Bytes(), short.Bytes()) {
		t.Fatal("700-row corpus is not a prefix of the 1500-row corpus")
	}
	sc := bufio.NewScanner(&long)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	i := 0
	for sc.Scan() {
		line := sc.Bytes()
		if !json.Valid(line) {
			t.Fatalf("row %d: invalid JSON: %s", i, line)
		}
		var p Problem
		if err := json.Unmarshal(line, &p); err != nil {
			t.Fatal(err)
		}
		if want := Generate(cfg, i); !reflect.DeepEqual(p, want) {
			t.Fatalf("row %d: decoded %+v, want %+v", i, p, want)
		}
		// The hand-written encoder agrees with encoding/json on the keys.
		var m map[string]any
		_ = json.Unmarshal(line, &m)
		std, _ := json.Marshal(p)
		var ms map[string]any
		_ = json.Unmarshal(std, &ms)
		if !reflect.DeepEqual(m, ms) {
			t.Fatalf("row %d: encoder differs from encoding/json:\n%s\n%s", i, line, std)
		}
		i++
	}
	if i != cfg.N {
		t.Fatalf("wrote %d rows, want %d", i, cfg.N)
	}
	var empty bytes.Buffer
	if err := Write(&empty, Config{N: 0}); err != nil || empty.Len() != 0 {
		t.Fatalf("N=0: %v, %d bytes", err, empty.Len())
	}
}

func TestJSONEscaping(t *testing.T) {
	p := Problem{ID: "a\"b\\c\n\x01\xff", Topics: []string{"é/ü"}, Statement: "tab\there", Solution: "$\\boxed{1}$"}
	line := appendProblem(nil, p)
	var got Problem
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	p.ID = "a\"b\\c\n\x01\ufffd"
	if !reflect.DeepEqual(got, p) {
		t.Fatalf("round trip: %+v != %+v", got, p)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) {
	if w.n <= 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(b), nil
}

func TestWriteError(t *testing.T) {
	err := Write(&failWriter{n: 3}, Config{N: 50000, DupFrac: DefaultDupFrac})
	if err == nil || err.Error() != "disk full" {
		t.Fatalf("got %v", err)
	}
}

func TestDomainsAndTemplates(t *testing.T) {
	want := []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis"}
	if !reflect.DeepEqual(Domains(), want) {
		t.Fatalf("Domains() = %v", Domains())
	}
	tm := Templates()
	seen := map[string]string{}
	for _, d := range want {
		if len(tm[d]) < 8 {
			t.Errorf("%s has %d templates", d, len(tm[d]))
		}
		for _, n := range tm[d] {
			if prev, ok := seen[n]; ok {
				t.Errorf("template %q in both %s and %s", n, prev, d)
			}
			seen[n] = d
		}
	}
	count := map[string]int{}
	cfg := std(3)
	for i := 0; i < 5000; i++ {
		p := Generate(cfg, i)
		if seen[p.Template] != p.Domain {
			t.Fatalf("row %d: template %q reported in domain %q", i, p.Template, p.Domain)
		}
		count[p.Template]++
	}
	for n := range seen {
		if count[n] == 0 {
			t.Errorf("template %s never appears in 5000 rows", n)
		}
	}
}

var lintRe = regexp.MustCompile(`%!|\(MISSING\)|\+ -\d|- -\d|(^|[^0-9.{])1[a-z]\b|\$\$|\\frac\{1\}\{1\}|\bnil\b`)

func TestWellFormed(t *testing.T) {
	cfg := std(11)
	var words []int
	srcCount := map[string]int{}
	const n = 20000
	for i := 0; i < n; i++ {
		p := Generate(cfg, i)
		srcCount[p.Source]++
		if i >= 5000 {
			continue
		}
		for _, s := range []string{p.Statement, p.Solution} {
			if strings.TrimSpace(s) == "" || !utf8.ValidString(s) {
				t.Fatalf("row %d: empty or invalid text: %+v", i, p)
			}
			if strings.Count(s, "$")%2 != 0 {
				t.Fatalf("row %d: unbalanced $ in %q", i, s)
			}
			if !bracesBalanced(s) {
				t.Fatalf("row %d: unbalanced braces in %q", i, s)
			}
			if m := lintRe.FindString(s); m != "" {
				t.Fatalf("row %d (%s): formatting artefact %q in %q", i, p.Template, m, s)
			}
		}
		ans, ok := lastBoxed(p.Solution)
		if !ok || !strings.HasSuffix(p.Solution, `\boxed{`+ans+`}$`) {
			t.Fatalf("row %d: solution does not end with \\boxed{...}: %q", i, p.Solution)
		}
		if !answerShapeRe.MatchString(ans) {
			t.Fatalf("row %d (%s): unexpected answer form %q", i, p.Template, ans)
		}
		if len(p.Topics) < 1 || len(p.Topics) > 3 {
			t.Fatalf("row %d: %d topics", i, len(p.Topics))
		}
		for _, tp := range p.Topics {
			parts := strings.Split(tp, "/")
			if len(parts) != 3 || !contains(Domains(), parts[0]) {
				t.Fatalf("row %d: bad topic path %q", i, tp)
			}
		}
		if !strings.HasPrefix(p.Topics[0], p.Domain+"/") {
			t.Fatalf("row %d: first topic %q is not in domain %q", i, p.Topics[0], p.Domain)
		}
		if p.DupOf == "" {
			words = append(words, len(normWordsRef(p.Statement)))
		}
	}
	sort.Ints(words)
	mean := 0.0
	for _, w := range words {
		mean += float64(w)
	}
	mean /= float64(len(words))
	p5, p50, p95 := words[len(words)/20], words[len(words)/2], words[len(words)*19/20]
	t.Logf("statement words: min %d p5 %d median %d p95 %d max %d mean %.1f", words[0], p5, p50, p95, words[len(words)-1], mean)
	if mean < 20 || mean > 80 || p5 < 10 || p95 > 100 {
		t.Errorf("statement lengths out of range")
	}
	for k, s := range sourceNames {
		got := float64(srcCount[s]) / n
		if math.Abs(got-sourceWeights[k]) > 0.02 {
			t.Errorf("source %s: fraction %.3f, want about %.2f", s, got, sourceWeights[k])
		}
	}
	if len(srcCount) != 3 {
		t.Errorf("sources: %v", srcCount)
	}
}

// answerShapeRe lists the answer forms templates produce: integers,
// fractions, multiples of π, radicals, r + sπ, and a/(bπ).
var answerShapeRe = regexp.MustCompile(`^(-?\d+|-?\\frac\{\d+\}\{\d+\}|-?(\d*\\pi|\\frac\{\d*\\pi\}\{\d+\})|\d*\\sqrt\{\d+\}|\d+ \+ (\d*\\pi|\\frac\{\d*\\pi\}\{\d+\})|\\frac\{\d+\}\{\d*\\pi\})$`)

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func bracesBalanced(s string) bool {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			d++
		case '}':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

// lastBoxed returns the contents of the last \boxed{...}.
func lastBoxed(s string) (string, bool) {
	i := strings.LastIndex(s, `\boxed{`)
	if i < 0 {
		return "", false
	}
	start := i + len(`\boxed{`)
	d := 1
	for j := start; j < len(s); j++ {
		switch s[j] {
		case '{':
			d++
		case '}':
			d--
			if d == 0 {
				return s[start:j], true
			}
		}
	}
	return "", false
}

// --- Reference near-duplicate measure -------------------------------------

// normWordsRef is the reference normalisation: lower-case, every rune that
// is not a letter or digit (punctuation, and also symbols such as $ ^ +)
// becomes a space, white space collapses.
func normWordsRef(s string) []string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	return strings.Fields(b.String())
}

// shingleSet is the set of word 5-grams (the whole text if shorter).
func shingleSet(s string) map[string]bool {
	w := normWordsRef(s)
	out := map[string]bool{}
	if len(w) < 5 {
		out[strings.Join(w, " ")] = true
		return out
	}
	for i := 0; i+5 <= len(w); i++ {
		out[strings.Join(w[i:i+5], " ")] = true
	}
	return out
}

func jaccardRef(a, b map[string]bool) float64 {
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// TestNoAccidentalNearDuplicates: instances of one template must differ
// enough that deduplication only finds what was planted.
func TestNoAccidentalNearDuplicates(t *testing.T) {
	const n = 3000
	ids := map[string]int32{}
	sets := make([][]int32, n)
	stmts := make([]string, n)
	for i := 0; i < n; i++ {
		p := Generate(noDups(2024), i)
		stmts[i] = p.Statement
		for s := range shingleSet(p.Statement) {
			id, ok := ids[s]
			if !ok {
				id = int32(len(ids))
				ids[s] = id
			}
			sets[i] = append(sets[i], id)
		}
		sort.Slice(sets[i], func(a, b int) bool { return sets[i][a] < sets[i][b] })
	}
	pairs := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			a, b := sets[i], sets[j]
			lo, hi := len(a), len(b)
			if lo > hi {
				lo, hi = hi, lo
			}
			if float64(lo) < 0.8*float64(hi) { // J ≤ lo/hi
				continue
			}
			inter := 0
			for x, y := 0, 0; x < len(a) && y < len(b); {
				switch {
				case a[x] == b[y]:
					inter++
					x++
					y++
				case a[x] < b[y]:
					x++
				default:
					y++
				}
			}
			if jac := float64(inter) / float64(len(a)+len(b)-inter); jac >= 0.8 {
				pairs++
				if pairs <= 10 {
					t.Logf("J=%.2f\n  %s\n  %s", jac, stmts[i], stmts[j])
				}
			}
		}
	}
	t.Logf("%d accidental pairs with J >= 0.8 among %d problems", pairs, n)
	if float64(pairs) > 0.002*n {
		t.Errorf("%d accidental near-duplicate pairs (limit %d)", pairs, int(0.002*n))
	}
}

// TestPlantedDuplicates checks the planted near-duplicates: fraction,
// provenance, similarity, and that 14×8 MinHash LSH would pair them.
func TestPlantedDuplicates(t *testing.T) {
	const n = 20000
	cfg := std(77)
	rows := make([]Problem, n)
	index := map[string]int{}
	for i := range rows {
		rows[i] = Generate(cfg, i)
		index[rows[i].ID] = i
	}
	dups, otherSource, found := 0, 0, 0
	minJ := 1.0
	for i, p := range rows {
		if p.DupOf == "" {
			continue
		}
		dups++
		j, ok := index[p.DupOf]
		if !ok || j >= i {
			t.Fatalf("row %d: DupOf %q is not an earlier row", i, p.DupOf)
		}
		o := rows[j]
		if o.DupOf != "" {
			t.Fatalf("row %d copies row %d, which is itself a duplicate", i, j)
		}
		if o.Domain != p.Domain || o.Template != p.Template || o.Solution != p.Solution || !reflect.DeepEqual(o.Topics, p.Topics) {
			t.Fatalf("row %d does not keep its original's domain/template/topics/solution", i)
		}
		if o.Statement == p.Statement {
			t.Fatalf("row %d: statement identical to its original", i)
		}
		jac := jaccardRef(shingleSet(p.Statement), shingleSet(o.Statement))
		minJ = math.Min(minJ, jac)
		if jac < 0.8 {
			t.Fatalf("row %d: J=%.3f with its original\n  %s\n  %s", i, jac, o.Statement, p.Statement)
		}
		if o.Source != p.Source {
			otherSource++
		}
		if lshPairs(p.Statement, o.Statement) {
			found++
		}
	}
	frac := float64(dups) / n
	recall := float64(found) / float64(dups)
	t.Logf("dups %d (%.4f), min J %.3f, other source %.2f, 14x8 LSH recall %.3f", dups, frac, minJ, float64(otherSource)/float64(dups), recall)
	if frac < 0.04 || frac > 0.06 {
		t.Errorf("duplicate fraction %.4f outside [0.04, 0.06]", frac)
	}
	if float64(otherSource) < 0.6*float64(dups) {
		t.Errorf("only %d of %d duplicates changed source", otherSource, dups)
	}
	if recall < 0.95 {
		t.Errorf("LSH recall %.3f", recall)
	}
	// No duplicates when disabled.
	for i := 0; i < 2000; i++ {
		if Generate(noDups(77), i).DupOf != "" {
			t.Fatal("DupFrac 0 still plants duplicates")
		}
	}
}

// lshPairs reports whether two texts share a band in 14-band × 8-row MinHash
// over their word 5-grams (112 seeded FNV-based hash functions).
func lshPairs(a, b string) bool {
	sa, sb := minhash(a), minhash(b)
	for band := 0; band < 14; band++ {
		eq := true
		for r := 0; r < 8; r++ {
			if sa[band*8+r] != sb[band*8+r] {
				eq = false
				break
			}
		}
		if eq {
			return true
		}
	}
	return false
}

func minhash(s string) [112]uint64 {
	var sig [112]uint64
	for k := range sig {
		sig[k] = math.MaxUint64
	}
	for sh := range shingleSet(s) {
		h := fnv.New64a()
		h.Write([]byte(sh))
		x := h.Sum64()
		for k := range sig {
			v := mix64(x ^ (uint64(k+1) * 0x9e3779b97f4a7c15))
			if v < sig[k] {
				sig[k] = v
			}
		}
	}
	return sig
}

func TestMapTextLeavesMath(t *testing.T) {
	in := "Find $X, Y$. Then, Compute $A$"
	if got := mapText(in, strings.ToLower); got != "find $X, Y$. then, compute $A$" {
		t.Errorf("mapText = %q", got)
	}
	if got := mapText("no math", strings.ToUpper); got != "NO MATH" {
		t.Errorf("mapText = %q", got)
	}
}

// BenchmarkWrite renders the 283,000-row scale corpus to io.Discard.
func BenchmarkWrite(b *testing.B) {
	cfg := Config{N: 283000, Seed: 1, DupFrac: DefaultDupFrac}
	for b.Loop() {
		if err := Write(io.Discard, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cfg.N)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGenerate is the single-row cost behind Write.
func BenchmarkGenerate(b *testing.B) {
	cfg := std(1)
	i := 0
	for b.Loop() {
		_ = Generate(cfg, i)
		i++
	}
}

func ExampleGenerate() {
	p := Generate(std(1), 0)
	fmt.Println(p.ID, p.Domain != "", strings.Contains(p.Solution, `\boxed{`))
	// Output: syn-0000000 true true
}

// TestGolden pins the corpus: a seed must keep meaning the same rows, or
// benchmark numbers from different commits are not comparable. A deliberate
// change to templates or wording changes this hash; update it in the same
// commit and say so in the commit message.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, Config{N: 500, Seed: 1, DupFrac: DefaultDupFrac}); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	const want = "0ede7e3bf6b7db79"
	if got := hex.EncodeToString(sum[:8]); got != want {
		t.Errorf("corpus hash for seed 1, 500 rows = %s, want %s (update want if the change is intended)", got, want)
	}
}
