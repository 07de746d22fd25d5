package summtok

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// readList reads a word list: one word a line, lines starting with # skipped.
func readList(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEnglishStopWordsGolden(t *testing.T) {
	want := readList(t, "testdata/sklearn_stop_words.txt")
	if len(want) != 318 {
		t.Fatalf("golden file has %d words, want 318", len(want))
	}
	if len(EnglishStopWords) != 318 {
		t.Errorf("len(EnglishStopWords) = %d, want 318", len(EnglishStopWords))
	}
	if !slices.Equal(EnglishStopWords, want) {
		t.Errorf("EnglishStopWords differs from testdata/sklearn_stop_words.txt")
	}
}

func TestMathStopWordsFile(t *testing.T) {
	want := readList(t, "testdata/math_stop_words.txt")
	if !slices.Equal(MathStopWords, want) {
		t.Errorf("MathStopWords differs from testdata/math_stop_words.txt")
	}
}

// TestMathStopWordsRule rebuilds MathStopWords from the rule in its doc
// comment, so the list and the rule cannot drift apart.
func TestMathStopWordsRule(t *testing.T) {
	verbs := [][]string{ // base, -s, past, past participle, -ing
		{"apply", "applies", "applied", "applied", "applying"},
		{"calculate", "calculates", "calculated", "calculated", "calculating"},
		{"compute", "computes", "computed", "computed", "computing"},
		{"consider", "considers", "considered", "considered", "considering"},
		{"determine", "determines", "determined", "determined", "determining"},
		{"find", "finds", "found", "found", "finding"},
		{"get", "gets", "got", "gotten", "getting"},
		{"give", "gives", "gave", "given", "giving"},
		{"let", "lets", "let", "let", "letting"},
		{"note", "notes", "noted", "noted", "noting"},
		{"obtain", "obtains", "obtained", "obtained", "obtaining"},
		{"prove", "proves", "proved", "proven", "proving"},
		{"set", "sets", "set", "set", "setting"},
		{"show", "shows", "showed", "shown", "showing"},
		{"solve", "solves", "solved", "solved", "solving"},
		{"use", "uses", "used", "used", "using"},
	}
	nouns := []string{"answer", "equation", "expression", "integer", "number", "problem",
		"result", "solution", "step", "term", "value"}
	var want []string
	for _, v := range verbs {
		want = append(want, v...)
	}
	for _, n := range nouns {
		want = append(want, n, n+"s")
	}
	want = append(want, "real")
	want = slices.DeleteFunc(want, func(w string) bool { return slices.Contains(EnglishStopWords, w) })
	slices.Sort(want)
	want = slices.Compact(want)
	if !slices.Equal(MathStopWords, want) {
		t.Errorf("MathStopWords does not follow its rule:\n got %q\nwant %q", MathStopWords, want)
	}
}

func TestListsWellFormed(t *testing.T) {
	for name, list := range map[string][]string{"EnglishStopWords": EnglishStopWords, "MathStopWords": MathStopWords} {
		if !slices.IsSorted(list) {
			t.Errorf("%s is not sorted", name)
		}
		if len(slices.Compact(slices.Clone(list))) != len(list) {
			t.Errorf("%s has duplicates", name)
		}
		for _, w := range list {
			// A stop word that is not one [a-z0-9]+ run could never match a token.
			if got := Tokens(w + " zzzz"); w != "" && !slices.Equal(got, []string{"zzzz"}) {
				t.Errorf("%s: %q is not a single [a-z0-9]+ token (Tokens = %q)", name, w, got)
			}
		}
	}
	for _, w := range MathStopWords {
		if slices.Contains(EnglishStopWords, w) {
			t.Errorf("MathStopWords repeats the English stop word %q", w)
		}
	}
	if n := len(MathStopWords); n < 40 || n > 90 {
		t.Errorf("len(MathStopWords) = %d, want a short list (40–90)", n)
	}
}

func TestIsStopWord(t *testing.T) {
	tests := []struct {
		w    string
		want bool
	}{
		{"the", true}, {"therefore", true}, {"find", true}, {"yourselves", true},
		{"using", true}, {"equations", true}, {"real", true}, {"given", true},
		{"The", false}, {"", false}, {"induction", false}, {"triangle", false},
		{"factor", false}, {"root", false}, {"vieta", false}, {"2", false},
	}
	for _, tt := range tests {
		if got := IsStopWord(tt.w); got != tt.want {
			t.Errorf("IsStopWord(%q) = %v, want %v", tt.w, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only stop words", "We then use the given values, thus.", nil},
		{"order and repeats kept", "mod 3 and mod 5 mod", []string{"mod", "3", "mod", "5", "mod"}},
		{"upper case folds", "Apply VIETA", []string{"vieta"}},
		{"letters and digits form one run", "x2y 3x 10^{-6}", []string{"x2y", "3x", "10", "6"}},
		{"punctuation and underscore split", "a_b c-d e'f g.h", []string{"b", "c", "d", "e", "f", "g", "h"}},
		{"latex", `$\frac{x^2}{y}$`, []string{"frac", "x", "2", "y"}},
		{"non-ascii letters split", "naïve Москва", []string{"na", "ve"}},
		{"kelvin sign joins", "\u212aelvin 3\u212a", []string{"kelvin", "3k"}},
		{"dotted capital I ends the run", "XİY kİ", []string{"xi", "y", "ki"}},
		{"invalid utf-8 separates", "ab\xffcd", []string{"ab", "cd"}},
		{"stop word inside a longer run is kept", "theorem often", []string{"theorem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tokens(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSetAndJaccard(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		setA []string
		want float64
	}{
		{"both empty", "", "the", nil, 0},
		{"one empty", "", "induction", nil, 0},
		{"identical", "Induction on n", "induction on N", []string{"induction", "n"}, 1},
		{"disjoint", "induction", "contradiction", []string{"induction"}, 0},
		{"one third", "a1 b2", "b2 c3", []string{"a1", "b2"}, 1.0 / 3},
		{"repeats do not count", "mod mod mod 7", "mod 7 7 cubic", []string{"7", "mod"}, 2.0 / 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := Set(tt.a), Set(tt.b)
			if !slices.Equal(a, tt.setA) {
				t.Errorf("Set(%q) = %q, want %q", tt.a, a, tt.setA)
			}
			if got := Jaccard(a, b); got != tt.want {
				t.Errorf("Jaccard = %v, want %v", got, tt.want)
			}
			if got := Jaccard(b, a); got != tt.want {
				t.Errorf("Jaccard(b, a) = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestReferenceGolden compares against testdata/reference.golden.jsonl, the
// output of testdata/reference.py (Python re + scikit-learn), made by
// testdata/gen.sh.
func TestReferenceGolden(t *testing.T) {
	f, err := os.Open("testdata/reference.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct {
		I       *int     `json:"i"`
		Text    string   `json:"text"`
		Tokens  []string `json:"tokens"`
		Set     []string `json:"set"`
		A, B    int
		Jaccard float64
	}
	var sets [][]string
	pairs := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.I != nil {
			if *r.I != len(sets) {
				t.Fatalf("golden sentence %d out of order", *r.I)
			}
			if got := Tokens(r.Text); !slices.Equal(got, r.Tokens) && len(got)+len(r.Tokens) > 0 {
				t.Errorf("Tokens(%q) = %q, want %q", r.Text, got, r.Tokens)
			}
			got := Set(r.Text)
			if !slices.Equal(got, r.Set) && len(got)+len(r.Set) > 0 {
				t.Errorf("Set(%q) = %q, want %q", r.Text, got, r.Set)
			}
			sets = append(sets, got)
			continue
		}
		pairs++
		if got := Jaccard(sets[r.A], sets[r.B]); got != r.Jaccard {
			t.Errorf("Jaccard(%d, %d) = %v, want %v", r.A, r.B, got, r.Jaccard)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n := len(sets); n < 30 || pairs != n*(n-1)/2 {
		t.Errorf("golden file has %d sentences and %d pairs", n, pairs)
	}
}

// TestJaccardIDs: on integer ids (the pairs stage's ranked token sets) the
// same function gives what it gives on strings.
func TestJaccardIDs(t *testing.T) {
	tests := []struct {
		a, b []int32
		want float64
	}{
		{nil, nil, 0},
		{[]int32{1}, nil, 0},
		{[]int32{1, 2, 3}, []int32{2, 3, 4}, 0.5},
		{[]int32{0, 5}, []int32{0, 5}, 1},
		{[]int32{1, 3, 5}, []int32{2, 4}, 0},
	}
	for _, tt := range tests {
		if got := Jaccard(tt.a, tt.b); got != tt.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if Jaccard([]string{"a", "b", "c"}, []string{"b", "c", "d"}) != Jaccard([]int32{0, 1, 2}, []int32{1, 2, 3}) {
		t.Error("strings and ids with the same overlap differ")
	}
}
