package text

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestScanBoundsMatchesBytewise checks the 64-bytes-at-a-time scanner
// against the byte loop it stands in for, on texts built to hit its edges:
// every length around the block size, tokens and separator runs across
// block boundaries, every ASCII byte, and non-ASCII bytes in a whole
// block and in the padded last one.
func TestScanBoundsMatchesBytewise(t *testing.T) {
	if !haveClassify {
		t.Skip("no AVX2 here: the scanners use the byte loop only")
	}
	texts := scanTexts(t)
	for _, c := range []*scanClass{plainScan, wordScan, alnumScan} {
		var b []byte
		var bounds []int32
		var masks []uint64
		for _, s := range texts {
			wantB, wantBounds, wantOK := asciiBounds(nil, nil, s, c.table)
			var ok bool
			b, bounds, masks, ok = scanBounds(b, bounds, masks, s, c)
			if ok != wantOK {
				t.Fatalf("scanBounds(%q): ok = %v, want %v", s, ok, wantOK)
			}
			if !ok {
				continue
			}
			if string(b) != string(wantB) || !slices.Equal(bounds, wantBounds) {
				t.Fatalf("scanBounds(%q) = %q %v, want %q %v", s, b, bounds, wantB, wantBounds)
			}
			if cap(b) < len(b)+8 {
				t.Fatalf("scanBounds(%q): cap %d for %d bytes: no slack", s, cap(b), len(b))
			}
		}
	}
}

// TestBitmapMatchesBytewise checks bitmap against its definition, a bit
// per byte in the class's ranges, on the same edge texts.
func TestBitmapMatchesBytewise(t *testing.T) {
	var masks []uint64
	for _, c := range []*scanClass{plainScan, wordScan, alnumScan, markScan} {
		for _, s := range scanTexts(t) {
			masks = bitmap(masks, s, c)
			if len(masks) != (len(s)+63)/64 {
				t.Fatalf("bitmap(%q): %d words for %d bytes", s, len(masks), len(s))
			}
			for i := range 64 * len(masks) {
				want := i < len(s) && s[i] < 0x80 && (c.table[s[i]] == clsTok) != c.sep
				if got := masks[i>>6]>>(i&63)&1 == 1; got != want {
					t.Fatalf("bitmap(%q) bit %d = %v, want %v", s, i, got, want)
				}
			}
		}
	}
}

// TestScanClassesMatchTables checks that every scanClass's ranges give the
// same set of ASCII bytes as its byte-loop table.
func TestScanClassesMatchTables(t *testing.T) {
	for _, c := range []*scanClass{plainScan, wordScan, alnumScan, markScan} {
		for x := range 128 {
			in := false
			for k := range c.nranges {
				in = in || int(c.vec[2*k][0]) < x && x <= int(c.vec[2*k+1][0])
			}
			if tok := in != c.sep; tok != (c.table[x] == clsTok) {
				t.Errorf("byte %#x: token %v by the ranges, table class %d", x, tok, c.table[x])
			}
		}
	}
}

// TestScanBoundsInPlace checks what asciiWords relies on: with capacity
// len(s)+72, b's array is written in place.
func TestScanBoundsInPlace(t *testing.T) {
	for n := range 200 {
		s := strings.Repeat("Ab1 ", n)[:n]
		buf := make([]byte, 3, 3+n+72)
		b, _, _, ok := scanBounds(buf[3:3], nil, nil, s, alnumScan)
		if !ok || len(b) != n || n > 0 && &b[0] != &buf[3:4][0] {
			t.Fatalf("len %d: scanBounds did not fill b in place", n)
		}
	}
}

// scanTexts are texts built to hit the block scanner's edges: every length
// around the block size, tokens and separator runs across block
// boundaries, every ASCII byte, non-ASCII bytes in a whole block and in the
// padded last one, and MATH problems when the data is present.
func scanTexts(t *testing.T) []string {
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
	return texts
}
