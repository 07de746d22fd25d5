package text

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPlainBoundsMatchesBytewise checks the 64-bytes-at-a-time scanner
// against the byte loop it stands in for, on texts built to hit its edges:
// every length around the block size, tokens and separator runs across
// block boundaries, every ASCII byte, and non-ASCII bytes in a whole
// block and in the padded last one.
func TestPlainBoundsMatchesBytewise(t *testing.T) {
	if !haveLowerSpace {
		t.Skip("no AVX2 here: Tokenize uses the byte loop only")
	}
	var ascii []byte
	for c := range 128 {
		ascii = append(ascii, byte(c))
	}
	alphabets := []string{
		"aB \t",
		"xyzXYZ09$\\{}^_ \n\r\v\f\x1c\x1d\x1e\x1f",
		string(ascii),
		"Q  ",
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var texts []string
	for n := range 260 {
		for _, a := range alphabets {
			var sb strings.Builder
			for range n {
				sb.WriteByte(a[rng.IntN(len(a))])
			}
			texts = append(texts, sb.String())
		}
		texts = append(texts, strings.Repeat("A", n), strings.Repeat(" ", n))
	}
	if p, err := mathDataPathOK(); err == nil {
		texts = append(texts, readMATH(t, p)[:2000]...)
	}
	// Non-ASCII at the start, in a whole block and in the last one.
	for _, at := range []int{0, 1, 63, 64, 100, 127, 128, 150} {
		s := []byte(strings.Repeat("ab ", 60))[:151]
		s[at] = 0xc3
		texts = append(texts, string(s))
	}
	var b []byte
	var bounds []int32
	var masks []uint64
	for _, s := range texts {
		wantB, wantBounds, wantOK := asciiBounds(nil, nil, s, &plainClass)
		var ok bool
		b, bounds, masks, ok = plainBounds(b, bounds, masks, s)
		if ok != wantOK {
			t.Fatalf("plainBounds(%q): ok = %v, want %v", s, ok, wantOK)
		}
		if !ok {
			continue
		}
		if string(b) != string(wantB) || !slices.Equal(bounds, wantBounds) {
			t.Fatalf("plainBounds(%q) = %q %v, want %q %v", s, b, bounds, wantB, wantBounds)
		}
		if cap(b) < len(b)+8 {
			t.Fatalf("plainBounds(%q): cap %d for %d bytes: no slack", s, cap(b), len(b))
		}
	}
}
