package minhash

import (
	"hash/fnv"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"only punctuation and space", " \t$\\{}^_ .,;\n", ""},
		{"accents", "Éléonore", "eleonore"},
		{"accents in a sentence", "Ça coûte 3 €, naïve Zoë!", "ca coute 3 naive zoe"},
		{"latex fraction", `$\frac{1}{2}$`, "frac 1 2"},
		{"latex operators become separators", `x^2+y_1=\alpha`, "x 2 y 1 alpha"},
		{"whitespace collapses and trims", "  Find\t\tthe\n\nsum  \r\n ", "find the sum"},
		{"lower case", "LET ABC Be A Triangle", "let abc be a triangle"},
		{"numbers are kept", "8 choose 4 vs 9 choose 3", "8 choose 4 vs 9 choose 3"},
		{"decimal point splits", "3.14", "3 14"},
		{"compatibility forms", "ﬁnd x² and ½", "find x2 and 1 2"},
		{"dotted capital I", "İstanbul", "istanbul"},
		{"soft hyphen and zero width joiner vanish", "abc\u00addef\u200dghi", "abcdefghi"},
		{"no-break and ideographic spaces", "a\u00a0b\u3000c", "a b c"},
		{"control characters separate", "a\x00b\x7fc", "a b c"},
		{"greek and cyrillic letters kept", "Ἀθῆναι Москва", "αθηναι москва"},
		{"ascii unchanged", "already normal text 42", "already normal text 42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize(tt.in)
			if got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Normalize(got); again != got {
				t.Errorf("Normalize is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// fnvRef is the reference hash of one n-gram.
func fnvRef(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func TestShingles(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		n     int
		grams []string // the n-grams expected, hashed with hash/fnv
	}{
		{"empty", "", 5, nil},
		{"only spaces", "   ", 5, nil},
		{"one word", "compute", 5, []string{"compute"}},
		{"fewer words than n", "compute 2 2", 5, []string{"compute 2 2"}},
		{"exactly n words", "a b c d e", 5, []string{"a b c d e"}},
		{"seven words", "a b c d e f g", 5, []string{"a b c d e", "b c d e f", "c d e f g"}},
		{"repeated grams are de-duplicated", "x y x y x y", 2, []string{"x y", "y x"}},
		{"extra spaces ignored", " a  b\tc ", 2, []string{"a b", "b c"}},
		{"unigrams", "b a b", 1, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Shingles(tt.text, tt.n)
			var want []uint64
			for _, g := range tt.grams {
				want = append(want, fnvRef(g))
			}
			slices.Sort(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Shingles(%q, %d) = %#x, want %#x", tt.text, tt.n, got, want)
			}
			if !slices.IsSorted(got) {
				t.Errorf("not sorted: %#x", got)
			}
		})
	}
}

// TestShinglesGolden pins the shingle hash: if it ever changes, stored
// signatures stop matching new ones.
func TestShinglesGolden(t *testing.T) {
	tests := []struct {
		text string
		want []uint64
	}{
		{"a b c d e", []uint64{0xe22588b27bd8c58c}},
		{"the quick brown fox jumps over the lazy dog", []uint64{
			0x10e1a007c49028c2, 0x501c08bb32dff6e7, 0x7509b2ffa38b1c59,
			0x97cdd8def8525508, 0xcf52d6bb81f9c6da,
		}},
	}
	for _, tt := range tests {
		for range 3 { // deterministic across calls
			if got := Shingles(tt.text, 5); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Shingles(%q, 5) = %#x, want %#x", tt.text, got, tt.want)
			}
		}
	}
}

func TestShinglesCount(t *testing.T) {
	var words []string
	for i := range 40 {
		words = append(words, "w"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		got := len(Shingles(strings.Join(words, " "), 5))
		want := max(1, len(words)-4)
		if got != want {
			t.Errorf("%d distinct words: %d shingles, want %d", len(words), got, want)
		}
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		name string
		a, b []uint64
		want float64
	}{
		{"both empty", nil, nil, 0},
		{"one empty", []uint64{1, 2}, nil, 0},
		{"equal", []uint64{1, 2, 3}, []uint64{1, 2, 3}, 1},
		{"disjoint", []uint64{1, 3}, []uint64{2, 4}, 0},
		{"half", []uint64{1, 2, 3}, []uint64{2, 3, 4}, 0.5},
		{"subset", []uint64{1, 2, 3, 4}, []uint64{2, 3}, 0.5},
		{"large values", []uint64{5, 1 << 63, ^uint64(0)}, []uint64{1 << 63, ^uint64(0)}, 2.0 / 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Jaccard(tt.a, tt.b); got != tt.want {
				t.Errorf("Jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := Jaccard(tt.b, tt.a); got != tt.want {
				t.Errorf("Jaccard is not symmetric: %v", got)
			}
		})
	}
}

func TestPanicsHavePrefix(t *testing.T) {
	h := NewHasher(4, 1)
	tests := []struct {
		name string
		f    func()
	}{
		{"Shingles n=0", func() { Shingles("a b", 0) }},
		{"NewHasher perms=0", func() { NewHasher(0, 1) }},
		{"SignatureInto wrong length", func() { h.SignatureInto(make([]uint64, 3), []uint64{1}) }},
		{"EstimatedJaccard length mismatch", func() { EstimatedJaccard([]uint64{1}, []uint64{1, 2}) }},
		{"Threshold zero bands", func() { Threshold(0, 8) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				s, ok := r.(string)
				if !ok || !strings.HasPrefix(s, "minhash: ") {
					t.Errorf("panic = %v, want a string starting with %q", r, "minhash: ")
				}
			}()
			tt.f()
		})
	}
}
