package text

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLookup(t *testing.T) {
	for _, name := range Names() {
		tok, err := Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", name, err)
		}
		if tok.Name() != name {
			t.Errorf("Lookup(%q).Name() = %q", name, tok.Name())
		}
	}
	_, err := Lookup("whitespace")
	if err == nil || !strings.Contains(err.Error(), "math, plain, sklearn") {
		t.Errorf("Lookup(unknown) error = %v, want one listing the known names", err)
	}
	if !slices.IsSorted(Names()) || len(Names()) != len(byName) {
		t.Errorf("Names() = %q is not the sorted list of %d tokenizers", Names(), len(byName))
	}
}

func TestPlainAndSklearn(t *testing.T) {
	tests := []struct {
		in             string
		plain, sklearn []string
	}{
		{"", nil, nil},
		{" \t\n", nil, nil},
		{"Find $x$ if 2x=10.", []string{"find", "$x$", "if", "2x=10."}, []string{"find", "if", "2x", "10"}},
		{"snake_case a_1 _ __ I", []string{"snake_case", "a_1", "_", "__", "i"}, []string{"snake_case", "a_1", "__"}},
		{`$\frac{1}{2}$`, []string{`$\frac{1}{2}$`}, []string{"frac"}},
		{"a\u001cb\u00a0c\u2009d", []string{"a", "b", "c", "d"}, nil},                    // Python's isspace has U+001C
		{"naïve cafe\u0301", []string{"naïve", "cafe\u0301"}, []string{"naïve", "cafe"}}, // U+0301 is not \w
		{"İX ΟΔΟΣ", []string{"i\u0307x", "οδος"}, []string{"οδος"}},                      // Python's full lower-casing
		{"½² ١٢", []string{"½²", "١٢"}, []string{"½²", "١٢"}},                            // numerics are \w
		{"ab\xffcd", []string{"ab\xffcd"}, []string{"ab", "cd"}},
	}
	for _, tt := range tests {
		if got := Tokens(Plain, tt.in); !slices.Equal(got, tt.plain) {
			t.Errorf("Plain(%q) = %q, want %q", tt.in, got, tt.plain)
		}
		if got := Tokens(Sklearn, tt.in); !slices.Equal(got, tt.sklearn) {
			t.Errorf("Sklearn(%q) = %q, want %q", tt.in, got, tt.sklearn)
		}
	}
}

func TestLower(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"already lower 123", "already lower 123"},
		{"MiXeD", "mixed"},
		{"ΟΔΟΣ ΣΑΣ", "οδος σας"},
		{"Σ", "σ"},                 // no cased letter before it
		{"AΣ'", "aς'"},             // ' is case-ignorable
		{"AΣ'B", "aσ'b"},           // a cased letter after, past the '
		{"A'Σ", "a'ς"},             // ... and before
		{"İ", "i\u0307"},           // the one unconditional multi-rune mapping
		{"\u212a", "k"},            // KELVIN SIGN
		{"ǅ", "ǆ"},                 // titlecase
		{"ab\xffC", "ab\xffc"},     // invalid UTF-8 is kept
		{"ΑΣ\u0301", "ας\u0301"},   // U+0301 is case-ignorable
		{"ΑΣ\u0301Β", "ασ\u0301β"}, //
	}
	for _, tt := range tests {
		if got := Lower(tt.in); got != tt.want {
			t.Errorf("Lower(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Text that is already lower case comes back as is, without a copy.
	s := "no upper case here, ünïcödé"
	if n := testing.AllocsPerRun(10, func() { _ = Lower(s) }); n != 0 {
		t.Errorf("Lower of lower-case text allocates %v times", n)
	}
}

type unicodeGolden struct {
	Python                string
	UnidataVersion        string `json:"unidata_version"`
	Assigned, Word, Space [][2]rune
	SigmaSkip             [][2]rune `json:"sigma_skip"`
	SigmaCased            [][2]rune `json:"sigma_cased"`
	Lower                 [][2]any
}

func inRanges(rs [][2]rune) func(rune) bool {
	return func(r rune) bool {
		i, found := slices.BinarySearchFunc(rs, r, func(x [2]rune, r rune) int {
			switch {
			case x[1] < r:
				return -1
			case x[0] > r:
				return 1
			}
			return 0
		})
		_ = i
		return found
	}
}

// TestUnicodeGolden compares IsWord, IsSpace, Lower and the Final_Sigma
// predicates with Python on every code point Python's Unicode assigns
// (testdata/unicode.golden.json, made by testdata/gen.sh).
func TestUnicodeGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/unicode.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g unicodeGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	lower := map[rune]string{}
	for _, p := range g.Lower {
		lower[rune(p[0].(float64))] = p[1].(string)
	}
	assigned, word, space := inRanges(g.Assigned), inRanges(g.Word), inRanges(g.Space)
	skip, sigmaCased := inRanges(g.SigmaSkip), inRanges(g.SigmaCased)
	checks := []struct {
		name string
		got  func(rune) bool
		want func(rune) bool
	}{
		{"IsWord", IsWord, word},
		{"IsSpace", IsSpace, space},
		{"caseIgnorable", caseIgnorable, skip},
		{"cased && !caseIgnorable", func(r rune) bool { return cased(r) && !caseIgnorable(r) }, sigmaCased},
		{"Lower", func(r rune) bool { return Lower(string(r)) == string(r) }, func(r rune) bool { _, ok := lower[r]; return !ok }},
	}
	n := 0
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) || !assigned(r) {
			continue
		}
		n++
		for _, c := range checks {
			if c.got(r) != c.want(r) {
				t.Errorf("%s(%U %q) = %v, Python says %v", c.name, r, r, c.got(r), c.want(r))
			}
		}
		if l, ok := lower[r]; ok && Lower(string(r)) != l {
			t.Errorf("Lower(%U %q) = %q, Python says %q", r, r, Lower(string(r)), l)
		}
	}
	if n < 140000 {
		t.Errorf("only %d assigned code points compared", n)
	}
}

type sentenceGolden struct {
	I              int
	Text           string
	Sklearn, Plain []string
}

// TestSentencesGolden compares Plain and Sklearn token for token with
// Python on the hand-written testdata/sentences.jsonl.
func TestSentencesGolden(t *testing.T) {
	f, err := os.Open("testdata/sentences.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var g sentenceGolden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		if got := Tokens(Sklearn, g.Text); !slices.Equal(got, g.Sklearn) && len(got)+len(g.Sklearn) > 0 {
			t.Errorf("Sklearn(%q)\n got %q\nwant %q", g.Text, got, g.Sklearn)
		}
		if got := Tokens(Plain, g.Text); !slices.Equal(got, g.Plain) && len(got)+len(g.Plain) > 0 {
			t.Errorf("Plain(%q)\n got %q\nwant %q", g.Text, got, g.Plain)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 15 {
		t.Errorf("only %d golden sentences", n)
	}
}

// mathDataPath is the MATH test split in the shared data folder (see
// ../shared/data/README.md from the project root).
func mathDataPath(t testing.TB) string {
	p, err := mathDataPathOK()
	if err != nil {
		t.Skipf("MATH data not present at %s", p)
	}
	return p
}

func mathDataPathOK() (string, error) {
	p, _ := filepath.Abs("../../../shared/data/math/MATH_test.jsonl")
	_, err := os.Stat(p)
	return p, err
}

// readMATH returns problem + "\n\n" + solution for every line of the file.
func readMATH(t testing.TB, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct{ Problem, Solution string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Problem+"\n\n"+r.Solution)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func digest(tokens []string) string {
	h := sha256.Sum256([]byte(strings.Join(tokens, "\n")))
	return hex.EncodeToString(h[:8])
}

// TestMATHGolden compares Plain and Sklearn with Python on every fifth MATH
// test problem (statement + solution), by token count and a hash of the
// token list (testdata/math.golden.jsonl, made by testdata/gen.sh).
func TestMATHGolden(t *testing.T) {
	docs := readMATH(t, mathDataPath(t))
	f, err := os.Open("testdata/math.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var g struct {
			Line           int
			Sklearn, Plain [2]any
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		for _, c := range []struct {
			tok  Tokenizer
			want [2]any
		}{{Sklearn, g.Sklearn}, {Plain, g.Plain}} {
			got := Tokens(c.tok, docs[g.Line])
			if float64(len(got)) != c.want[0].(float64) || digest(got) != c.want[1].(string) {
				t.Errorf("line %d: %s gives %d tokens (hash %s), Python %v tokens (hash %v): %q",
					g.Line, c.tok.Name(), len(got), digest(got), c.want[0], c.want[1], got)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1000 {
		t.Errorf("golden file has %d lines, want 1000", n)
	}
}
