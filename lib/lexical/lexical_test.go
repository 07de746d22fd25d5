package lexical

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/text"
)

func TestLookupAndNames(t *testing.T) {
	want := []string{"bm25", "bm25-no-tok", "jaccard", "jaccard-no-tok", "tfidf", "tfidf-no-tok"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	for _, name := range want {
		s, err := Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", name, err)
		}
		if s.Name() != name {
			t.Errorf("Lookup(%q).Name() = %q", name, s.Name())
		}
	}
	_, err := Lookup("bm25+")
	if err == nil || !strings.Contains(err.Error(), strings.Join(want, ", ")) {
		t.Errorf("Lookup(unknown) error = %v, want one listing %q", err, want)
	}
	if got := NewBM25(text.Sklearn).Name(); got != "bm25(sklearn)" {
		t.Errorf("BM25 with the sklearn tokenizer is named %q", got)
	}
	if got := NewTFIDF(text.Plain).Name(); got != "tfidf(plain)" {
		t.Errorf("TF-IDF with the plain tokenizer is named %q", got)
	}
}

func TestErrors(t *testing.T) {
	bad := func(mod func(*BM25)) *BM25 { s := NewBM25(text.Plain); mod(s); return s }
	tests := []struct {
		name string
		s    Scorer
		want string
	}{
		{"nil tokenizer bm25", &BM25{K1: 1.5, B: 0.75}, "no tokenizer"},
		{"nil tokenizer tfidf", &TFIDF{}, "no tokenizer"},
		{"nil tokenizer jaccard", &Jaccard{}, "no tokenizer"},
		{"negative k1", bad(func(s *BM25) { s.K1 = -1 }), "k1 = -1"},
		{"infinite k1", bad(func(s *BM25) { s.K1 = math.Inf(1) }), "k1 = +Inf"},
		{"b above 1", bad(func(s *BM25) { s.B = 1.5 }), "b = 1.5"},
		{"NaN b", bad(func(s *BM25) { s.B = math.NaN() }), "b = NaN"},
		{"NaN epsilon", bad(func(s *BM25) { s.Epsilon = math.NaN() }), "epsilon = NaN"},
	}
	for _, tt := range tests {
		_, err := tt.s.Score("q", []string{"d"})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "lexical: ") {
			t.Errorf("%s: error %v, want one with %q", tt.name, err, tt.want)
		}
	}
}

// TestRejectsHugeText checks that a text over the index's int32 offsets
// is an error naming it, never a panic (the string is 128 MiB; nothing
// tokenises it).
func TestRejectsHugeText(t *testing.T) {
	huge := strings.Repeat("a", maxText+1)
	for _, name := range Names() {
		s, _ := Lookup(name)
		if _, err := s.Score(huge, []string{"d"}); err == nil || !strings.Contains(err.Error(), "query of") {
			t.Errorf("%s: huge query: error %v", name, err)
		}
		if _, err := s.Score("q", []string{"d", huge}); err == nil || !strings.Contains(err.Error(), "document 1 of") {
			t.Errorf("%s: huge document: error %v", name, err)
		}
	}
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestHandWorked checks small cases computed by hand from the formulas in
// the package comment.
func TestHandWorked(t *testing.T) {
	l := math.Log(5.0 / 3)
	// BM25 over "a b", "a c", "d" (N = 3, avgdl = 5/3). idf(a) = ln(1.5/2.5)
	// < 0, idf(b) = idf(c) = idf(d) = ln(2.5/1.5) = l, mean = (−l + 3l)/4 =
	// l/2, so idf(a) becomes 0.25·l/2. k1(1−b+b|d|/avgdl) = 1.725 for |d| =
	// 2 and 1.05 for |d| = 1.
	bmA := l / 8 * 2.5 / (1 + 1.725)
	bmD := l * 2.5 / (1 + 1.05)
	// TF-IDF over "aa bb", "aa aa": idf(aa) = ln(3/3)+1 = 1, idf(bb) =
	// ln(3/2)+1; the query "aa" is the unit vector of aa.
	tf0 := 1 / math.Sqrt(1+(1+math.Log(1.5))*(1+math.Log(1.5)))
	tests := []struct {
		name  string
		s     Scorer
		query string
		docs  []string
		want  []float64
	}{
		{"bm25", NewBM25(text.Plain), "a d", []string{"a b", "a c", "d"}, []float64{bmA, bmA, bmD}},
		{"bm25 counts every query occurrence", NewBM25(text.Plain), "d D d", []string{"a b", "a c", "d"}, []float64{0, 0, 3 * bmD}},
		{"bm25 unknown query terms add nothing", NewBM25(text.Plain), "zzz a", []string{"a b", "a c", "d"}, []float64{bmA, bmA, 0}},
		{"bm25 empty query", NewBM25(text.Plain), "", []string{"a b", "a c"}, []float64{0, 0}},
		{"bm25 no tokens at all", NewBM25(text.Plain), "a", []string{"", " "}, []float64{0, 0}},
		{"bm25 no documents", NewBM25(text.Plain), "a", nil, []float64{}},
		{"tfidf", NewTFIDF(text.Sklearn), "AA", []string{"aa bb", "aa aa"}, []float64{tf0, 1}},
		{"tfidf query outside the vocabulary", NewTFIDF(text.Sklearn), "cc", []string{"aa bb", "aa aa"}, []float64{0, 0}},
		// Here df(aa) = df(bb) = 1: equal weights, cosine 1/√2.
		{"tfidf empty document", NewTFIDF(text.Sklearn), "aa", []string{"aa bb", "!"}, []float64{1 / math.Sqrt2, 0}},
		{"tfidf no tokens at all", NewTFIDF(text.Sklearn), "aa", []string{"a", "b"}, []float64{0, 0}},
		{"jaccard", NewJaccard(text.Plain), "a b z", []string{"a b c", "", "x", "z B A"}, []float64{0.5, 0, 0, 1}},
		{"jaccard repeats do not count", NewJaccard(text.Plain), "a a b", []string{"a b b b"}, []float64{1}},
		{"jaccard both empty", NewJaccard(text.Plain), "", []string{"", "a"}, []float64{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.s.Score(tt.query, tt.docs)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) || got == nil {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if !approx(got[i], tt.want[i]) {
					t.Errorf("score %d = %.17g, want %.17g", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// naiveBM25 is rank_bm25 0.2.2's BM25Okapi written out directly, with maps,
// as testdata/gen.py has it: the independent reference for every tokeniser.
func naiveBM25(q []string, docs [][]string, k1, b, eps float64) []float64 {
	var order []string
	nd := map[string]int{}
	freqs := make([]map[string]int, len(docs))
	total := 0
	for i, doc := range docs {
		total += len(doc)
		freqs[i] = map[string]int{}
		for _, w := range doc {
			if freqs[i][w] == 0 && nd[w] == 0 {
				order = append(order, w)
			}
			if freqs[i][w] == 0 {
				nd[w]++
			}
			freqs[i][w]++
		}
	}
	n := len(docs)
	avgdl := float64(total) / float64(n)
	idf := map[string]float64{}
	sum := 0.0
	var negative []string
	for _, w := range order {
		v := math.Log(float64(n-nd[w])+0.5) - math.Log(float64(nd[w])+0.5)
		idf[w] = v
		sum += v
		if v < 0 {
			negative = append(negative, w)
		}
	}
	for _, w := range negative {
		idf[w] = eps * (sum / float64(len(order)))
	}
	score := make([]float64, n)
	for _, w := range q {
		for i := range docs {
			f := float64(freqs[i][w])
			if f == 0 {
				// rank_bm25 adds 0 here, which changes no sum, or NaN
				// (0/0) where k1·(1 − b + b·|d|/avgdl) is 0; we add nothing.
				continue
			}
			score[i] += float64(idf[w] * (f * (k1 + 1) / (f + k1*((1-b)+b*float64(len(docs[i]))/avgdl))))
		}
	}
	return score
}

// naiveTFIDF is scikit-learn's pipeline written out with dense vectors over
// the sorted vocabulary: counts, idf = ln((1+N)/(1+df)) + 1, L2 rows, dot.
func naiveTFIDF(q []string, docs [][]string) []float64 {
	df := map[string]int{}
	for _, doc := range docs {
		seen := map[string]bool{}
		for _, w := range doc {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	var vocab []string
	for w := range df {
		vocab = append(vocab, w)
	}
	slices.Sort(vocab)
	vec := func(doc []string) []float64 {
		v := make([]float64, len(vocab))
		for _, w := range doc {
			if i, ok := slices.BinarySearch(vocab, w); ok {
				v[i]++
			}
		}
		norm := 0.0
		for i, w := range vocab {
			v[i] *= math.Log(float64(len(docs)+1)/float64(df[w]+1)) + 1
			norm += v[i] * v[i]
		}
		if norm > 0 {
			for i := range v {
				v[i] /= math.Sqrt(norm)
			}
		}
		return v
	}
	qv := vec(q)
	out := make([]float64, len(docs))
	for d, doc := range docs {
		dv := vec(doc)
		for i := range dv {
			out[d] += qv[i] * dv[i]
		}
	}
	return out
}

func naiveJaccard(q []string, docs [][]string) []float64 {
	set := func(ws []string) map[string]bool {
		m := map[string]bool{}
		for _, w := range ws {
			m[w] = true
		}
		return m
	}
	a := set(q)
	out := make([]float64, len(docs))
	for d, doc := range docs {
		b := set(doc)
		inter := 0
		for w := range a {
			if b[w] {
				inter++
			}
		}
		if union := len(a) + len(b) - inter; union > 0 {
			out[d] = float64(inter) / float64(union)
		}
	}
	return out
}

const mathData = "../../../shared/data/math/MATH_test.jsonl"

// mathDataPath is the MATH test split in the shared data folder (see
// ../shared/data/README.md from the project root).
func mathDataPath(t testing.TB) string {
	p, _ := filepath.Abs(mathData)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("MATH data not present at %s", p)
	}
	return p
}

type problem struct{ Problem, Solution, Type string }

func readMATH(t testing.TB) []problem {
	f, err := os.Open(mathDataPath(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []problem
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var p problem
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func full(p problem) string { return p.Problem + "\n\n" + p.Solution }

type golden struct {
	Versions map[string]string
	Queries  []struct {
		Query      int
		Candidates []int
		Scores     map[string][]float64 `json:"-"`
	}
}

// readGolden reads testdata/golden.json, made by testdata/gen.py.
func readGolden(t *testing.T) (g golden, raw []map[string]json.RawMessage) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	var r struct{ Queries []map[string]json.RawMessage }
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for i := range g.Queries {
		g.Queries[i].Scores = map[string][]float64{}
		for _, name := range []string{"bm25-no-tok", "tfidf-no-tok", "jaccard-no-tok"} {
			var s []float64
			if err := json.Unmarshal(r.Queries[i][name], &s); err != nil {
				t.Fatalf("golden query %d %s: %v", i, name, err)
			}
			g.Queries[i].Scores[name] = s
		}
	}
	return g, r.Queries
}

// TestGolden compares the -no-tok variants with Python (rank_bm25's formula
// re-implemented, scikit-learn's TfidfVectorizer and cosine_similarity, set
// Jaccard) on 20 MATH queries × 150 candidates: statements against
// statement + solution.
func TestGolden(t *testing.T) {
	probs := readMATH(t)
	g, _ := readGolden(t)
	if len(g.Queries) != 20 {
		t.Fatalf("golden file has %d queries, want 20", len(g.Queries))
	}
	for _, name := range []string{"bm25-no-tok", "tfidf-no-tok", "jaccard-no-tok"} {
		s, _ := Lookup(name)
		same, total, worst := 0, 0, 0.0
		for _, q := range g.Queries {
			docs := make([]string, len(q.Candidates))
			for i, c := range q.Candidates {
				docs[i] = full(probs[c])
			}
			got, err := s.Score(probs[q.Query].Problem, docs)
			if err != nil {
				t.Fatal(err)
			}
			want := q.Scores[name]
			if len(got) != len(want) || len(want) != 150 {
				t.Fatalf("%s: %d scores, golden %d", name, len(got), len(want))
			}
			for i := range got {
				diff := math.Abs(got[i] - want[i])
				worst = max(worst, diff)
				if diff > 1e-9 {
					t.Errorf("%s query line %d candidate line %d: %.17g, Python %.17g", name, q.Query, q.Candidates[i], got[i], want[i])
				}
				if got[i] == want[i] {
					same++
				}
				total++
			}
		}
		t.Logf("%s: %d of %d scores bit-identical to Python, largest difference %.3g", name, same, total, worst)
		if name != "tfidf-no-tok" && same != total {
			// rank_bm25's and the Jaccard quotient's operations are
			// reproduced exactly; only TF-IDF sums in another order.
			t.Errorf("%s: only %d of %d scores are bit-identical", name, same, total)
		}
	}
}

// TestAgainstNaive runs every scorer with every tokeniser on the golden
// queries and compares with the straightforward implementations above, so
// that the math variants, which Python cannot check, run through the same
// tests as the others.
func TestAgainstNaive(t *testing.T) {
	probs := readMATH(t)
	g, _ := readGolden(t)
	for _, tok := range []text.Tokenizer{text.Math, text.Plain, text.Sklearn} {
		for qi, q := range g.Queries[:8] {
			// statement–full, and full–full for the longer query.
			for _, query := range []string{probs[q.Query].Problem, full(probs[q.Query])} {
				docs := make([]string, len(q.Candidates))
				toks := make([][]string, len(q.Candidates))
				for i, c := range q.Candidates {
					docs[i] = full(probs[c])
					toks[i] = text.Tokens(tok, docs[i])
				}
				qt := text.Tokens(tok, query)
				check := func(s Scorer, want []float64, exact bool) {
					got, err := s.Score(query, docs)
					if err != nil {
						t.Fatal(err)
					}
					for i := range want {
						if exact && got[i] != want[i] || !approx(got[i], want[i]) {
							t.Fatalf("%s(%s) query %d doc %d: %.17g, naive %.17g", s.Name(), tok.Name(), qi, i, got[i], want[i])
						}
					}
				}
				// BM25 is not bit-identical here only because the naive
				// version uses math.Log (see lnhalf.go).
				check(NewBM25(tok), naiveBM25(qt, toks, 1.5, 0.75, 0.25), false)
				check(&BM25{Tokenizer: tok, K1: 0.9, B: 0.4, Epsilon: 0.1}, naiveBM25(qt, toks, 0.9, 0.4, 0.1), false)
				check(NewTFIDF(tok), naiveTFIDF(qt, toks), false)
				check(NewJaccard(tok), naiveJaccard(qt, toks), true)
			}
		}
	}
}

// TestAgainstNaiveSynthetic is TestAgainstNaive on generated math-like
// texts, so that it runs also where the MATH data is absent.
func TestAgainstNaiveSynthetic(t *testing.T) {
	frags := []string{"the", "The", "of", "a", "prime", "Triangle", "sum", "roots", "is", "and", "x", "2", "10",
		"$x^2+1$", `$\frac{a}{b}$`, `\(n!\)`, `$$\sum_{k=1}^{n} k$$`, "$x$", "$3.14r$", `\[\sqrt{2}\]`, "mod", "$7$",
		`\begin{align*} y &= 2x \\ z &\le 3 \end{align*}`, "İ", "Σ", "naïve", ",", "."}
	rng := rand.New(rand.NewPCG(5, 6))
	gen := fragmentText(rng, frags)
	for q := range 30 {
		docs := make([]string, 5+rng.IntN(60))
		for i := range docs {
			docs[i] = gen(rng.IntN(80))
		}
		query := gen(rng.IntN(20))
		for _, tok := range []text.Tokenizer{text.Math, text.Plain, text.Sklearn} {
			toks := make([][]string, len(docs))
			for i, d := range docs {
				toks[i] = text.Tokens(tok, d)
			}
			qt := text.Tokens(tok, query)
			for _, c := range []struct {
				s    Scorer
				want []float64
			}{
				{NewBM25(tok), naiveBM25(qt, toks, 1.5, 0.75, 0.25)},
				{NewTFIDF(tok), naiveTFIDF(qt, toks)},
				{NewJaccard(tok), naiveJaccard(qt, toks)},
			} {
				got, err := c.s.Score(query, docs)
				if err != nil {
					t.Fatal(err)
				}
				allEmpty := true
				for _, d := range toks {
					allEmpty = allEmpty && len(d) == 0
				}
				for i := range got {
					want := c.want[i]
					if allEmpty {
						want = 0 // the references fail here; we score 0
					}
					if !approx(got[i], want) {
						t.Fatalf("query %d %s(%s) doc %d: %.17g, naive %.17g", q, c.s.Name(), tok.Name(), i, got[i], want)
					}
				}
			}
		}
	}
}

// TestBM25ZeroNorm checks BM25 where a document's k1·(1 − b + b·|d|/avgdl)
// is 0, with k1 = 0 (every document) or b = 1 and an empty document: a
// document without a query term gets nothing for it, not the 0/0 (NaN)
// that adding every document's term (addTermDense) would give there.
func TestBM25ZeroNorm(t *testing.T) {
	docs := []string{"alpha beta beta gamma", "", "beta delta", "gamma gamma alpha", "delta", "epsilon beta alpha", ""}
	query := "beta alpha zeta gamma beta"
	toks := make([][]string, len(docs))
	for i, d := range docs {
		toks[i] = text.Tokens(text.Plain, d)
	}
	qt := text.Tokens(text.Plain, query)
	for _, c := range []struct{ k1, b float64 }{{0, 0.75}, {1.5, 1}, {0, 1}} {
		s := &BM25{Tokenizer: text.Plain, K1: c.k1, B: c.b, Epsilon: 0.25}
		got, err := s.Score(query, docs)
		if err != nil {
			t.Fatal(err)
		}
		want := naiveBM25(qt, toks, c.k1, c.b, 0.25)
		for i := range want {
			if math.IsNaN(got[i]) || !approx(got[i], want[i]) {
				t.Errorf("k1=%v b=%v doc %d: %.17g, naive %.17g", c.k1, c.b, i, got[i], want[i])
			}
		}
	}
}

// TestTiesAreExact checks that documents with the same tokens in another
// order get bit-identical scores, so that ties broken by document id stay
// ties.
func TestTiesAreExact(t *testing.T) {
	docs := []string{"delta alpha beta gamma beta epsilon zeta", "beta gamma alpha beta delta zeta epsilon", "alpha eta theta",
		"gamma", "one", "two", "three", "four"}
	for _, name := range Names() {
		s, _ := Lookup(name)
		got, err := s.Score("beta zeta alpha epsilon", docs)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != got[1] || got[0] == 0 {
			t.Errorf("%s: permuted documents score %.17g and %.17g", name, got[0], got[1])
		}
	}
}

// TestConcurrent scores from many goroutines at once (run with -race): the
// pooled buffers must not be shared.
func TestConcurrent(t *testing.T) {
	docs := []string{"$x^2+1$ is positive", "the sum of $\\frac{1}{2}$ and x", "primes mod 4", ""}
	queries := []string{"x squared plus one", "$x$", "mod 4 primes", "sum of halves"}
	want := map[string][][]float64{}
	for _, name := range Names() {
		s, _ := Lookup(name)
		for _, q := range queries {
			got, _ := s.Score(q, docs)
			want[name] = append(want[name], got)
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 200 {
				name := Names()[(g+r)%6]
				s, _ := Lookup(name)
				qi := r % len(queries)
				got, err := s.Score(queries[qi], docs)
				if err != nil || !slices.Equal(got, want[name][qi]) {
					t.Errorf("%s query %d: %v %v, want %v", name, qi, got, err, want[name][qi])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestBM25PartsSameScores builds BM25's index in parts (as a Team does)
// and checks the scores are bit-identical to the whole index's, with every
// tokeniser, from 2 parts to one per document, on MATH texts where present
// and on generated math-like ones always: merging must give every token
// the document frequency and first-occurrence rank it has in one index.
func TestBM25PartsSameScores(t *testing.T) {
	type query struct {
		q    string
		docs []string
	}
	var qs []query
	rng := rand.New(rand.NewPCG(7, 8))
	frags := []string{"the", "of", "a", "prime", "sum", "parallelogram", "$x^2+1$", `$\frac{a}{b}$`, `\(n!\)`, "$x$", "x", "mod", "$7$", "Σ", "roots",
		// Tokens that share their first 8 bytes, or all but their last, or
		// differ by case only: identity must come from every byte.
		"abcdefgh", "abcdefghi", "ABCDEFGHI", "abcdefghij", "abcdefghijklmnop", "abcdefghijklmnoq", "abcdefghijklmnopq", "école", "ÉCOLE"}
	for range 20 {
		docs := make([]string, 1+rng.IntN(40))
		for i := range docs {
			var b strings.Builder
			for range rng.IntN(60) {
				b.WriteString(frags[rng.IntN(len(frags))] + " ")
			}
			docs[i] = b.String()
		}
		qs = append(qs, query{frags[rng.IntN(len(frags))] + " " + frags[rng.IntN(len(frags))] + " sum parallelogram", docs})
	}
	if _, err := os.Stat(mathData); err == nil {
		probs := readMATH(t)
		g, _ := readGolden(t)
		for _, gq := range g.Queries[:5] {
			docs := make([]string, len(gq.Candidates))
			for i, c := range gq.Candidates {
				docs[i] = full(probs[c])
			}
			qs = append(qs, query{probs[gq.Query].Problem, docs}, query{full(probs[gq.Query]), docs})
		}
	}
	for _, tok := range []text.Tokenizer{text.Math, text.Plain, text.Sklearn} {
		s := NewBM25(tok)
		for qi, q := range qs {
			want, err := s.Score(q.q, q.docs)
			if err != nil {
				t.Fatal(err)
			}
			for _, np := range []int{2, 3, 7, maxParts} {
				got, err := s.score(make([]float64, len(q.docs)), texts{query: q.q, docs: q.docs}, np)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s query %d in %d parts: %v, whole index %v", s.Name(), qi, np, got, want)
				}
			}
		}
	}
}

// spansTokens is the tokens of sp as Append gives them: the singles, then
// the pairs, each two singles joined by a space.
func spansTokens(sp *text.Spans) []string {
	var toks []string
	for k := range sp.Len() {
		toks = append(toks, string(sp.Token(k)))
	}
	for _, k := range sp.Pairs {
		toks = append(toks, string(sp.Token(int(k)))+" "+string(sp.Token(int(k)+1)))
	}
	return toks
}

// checkScoreTokens checks that BM25 scores q and docs from their tokens,
// made beforehand, bit for bit as from the text, whole and in parts, and
// leaves the tokens as they were (the benchmark reuses them).
func checkScoreTokens(t *testing.T, s *BM25, name string, q string, docs []string) {
	t.Helper()
	want, err := s.Score(q, docs)
	if err != nil {
		t.Fatal(err)
	}
	var qsp text.Spans
	qsp.Tokenize(s.Tokenizer, q)
	dsp := make([]text.Spans, len(docs))
	for d, doc := range docs {
		dsp[d].Tokenize(s.Tokenizer, doc)
	}
	before := [][]string{spansTokens(&qsp)}
	for d := range dsp {
		before = append(before, spansTokens(&dsp[d]))
	}
	got, err := s.scoreTokens(&qsp, dsp)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s %s from tokens: %v, from text %v", s.Name(), name, got, want)
	}
	for _, np := range []int{2, 3, 7, maxParts} {
		if np > len(docs) {
			break
		}
		got, err := s.score(make([]float64, len(docs)), texts{qsp: &qsp, dsp: dsp}, np)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s %s from tokens in %d parts: %v, from text %v", s.Name(), name, np, got, want)
		}
	}
	after := [][]string{spansTokens(&qsp)}
	for d := range dsp {
		after = append(after, spansTokens(&dsp[d]))
	}
	if !slices.EqualFunc(before, after, slices.Equal) {
		t.Fatalf("%s %s: scoring changed the tokens", s.Name(), name)
	}
}

// TestBM25TokensSameScores checks scoreTokens, BM25 from tokens made
// beforehand, against Score from the text on generated math-like texts,
// with every tokeniser: the like-for-like benchmark times it, so it must
// compute what Score computes.
func TestBM25TokensSameScores(t *testing.T) {
	frags := []string{"the", "of", "a", "prime", "sum", "parallelogram", "$x^2+1$", `$\frac{a}{b}$`, `\(n!\)`, "$x$", "x", "mod", "$7$", "Σ",
		"roots", `\[\sqrt{2}\]`, "$3.14r$", "abcdefghijklmnop", "abcdefghijklmnoq", "école", "ÉCOLE", ",", "."}
	rng := rand.New(rand.NewPCG(9, 10))
	gen := fragmentText(rng, frags)
	for qi := range 30 {
		docs := make([]string, rng.IntN(70))
		for i := range docs {
			docs[i] = gen(rng.IntN(60))
		}
		q := gen(rng.IntN(15))
		for _, tok := range []text.Tokenizer{text.Math, text.Plain, text.Sklearn} {
			checkScoreTokens(t, NewBM25(tok), fmt.Sprintf("query %d", qi), q, docs)
		}
	}
	s := NewBM25(text.Math)
	if got, err := s.scoreTokens(&text.Spans{}, nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("no documents: %v %v, want an empty slice", got, err)
	}
	s.K1 = -1
	if _, err := s.scoreTokens(&text.Spans{}, make([]text.Spans, 1)); err == nil {
		t.Error("k1 = -1: no error")
	}
}

// TestBenchTokens checks the tokens bm25-tokens is timed on against the
// text: token for token those testdata/tokens prints for
// time_rank_bm25.py (text.Tokens), and scored bit for bit as Score scores
// the text, on every benchmark query. It needs the MATH data.
func TestBenchTokens(t *testing.T) {
	qs := loadBench(t)
	qtoks, dtoks := benchTokens(qs)
	s := NewBM25(text.Math)
	for k, q := range qs {
		texts := append([]string{q.statement}, q.docFull...)
		spans := append([]text.Spans{qtoks[k]}, dtoks[k]...)
		for i := range texts {
			if got, want := spansTokens(&spans[i]), text.Tokens(text.Math, texts[i]); !slices.Equal(got, want) {
				t.Fatalf("query %d text %d: benchmark tokens %q, text.Tokens %q", k, i, got, want)
			}
		}
		want, err := s.Score(q.statement, q.docFull)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.scoreTokens(&qtoks[k], dtoks[k])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %d: from the benchmark's tokens %v, from text %v", k, got, want)
		}
	}
	if len(qs) != benchQueryCount {
		t.Fatalf("%d benchmark queries, want %d", len(qs), benchQueryCount)
	}
}

// TestBM25Team scores through a team from many goroutines at once (run
// with -race): one gets the team, the others score alone, and all get the
// serial scores.
func TestBM25Team(t *testing.T) {
	docs := make([]string, 100)
	for i := range docs {
		docs[i] = fmt.Sprintf("$x^%d + %d$ is the sum of %d primes, mod %d", i%7, i%5, i%11, i%3)
	}
	team := parallel.NewTeam(3, parallel.DefaultSpin)
	defer team.Close()
	for _, tok := range []text.Tokenizer{text.Math, text.Plain} {
		want, err := NewBM25(tok).Score("sum of primes $x^2$", docs)
		if err != nil {
			t.Fatal(err)
		}
		s := NewBM25(tok)
		s.Team = team
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 50 {
					got, err := s.Score("sum of primes $x^2$", docs)
					if err != nil || !slices.Equal(got, want) {
						t.Errorf("%s with a team: %v %v, want %v", s.Name(), got, err, want)
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

// fragmentText returns a generator of texts of n fragments drawn from
// frags, each followed by a space or a line break.
func fragmentText(rng *rand.Rand, frags []string) func(n int) string {
	return func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(frags[rng.IntN(len(frags))])
			b.WriteByte(" \n"[rng.IntN(2)])
		}
		return b.String()
	}
}
