package text

import (
	"math/bits"
	"slices"
	"strings"
	"unsafe"
)

// A scanClass is a set of ASCII bytes for the ASCII scanners: a table of
// classes for asciiBounds' byte loop, and the same set as two to four
// byte ranges for classify, which works on 64 bytes at a time.
type scanClass struct {
	table   *[256]uint8
	nranges int
	// sep reports that the ranges are the separators; otherwise they are
	// the token bytes.
	sep bool
	// vec is what classify compares with, every byte repeated 32 times:
	// lo−1 and hi of each range, then 'A'−1, 'Z' and 0x20 for
	// lower-casing.
	vec [11][32]byte
}

func newScanClass(table *[256]uint8, sep bool, ranges ...[2]byte) *scanClass {
	if len(ranges) < 2 || len(ranges) > 4 {
		panic("text: a scanClass has 2 to 4 ranges")
	}
	c := &scanClass{table: table, nranges: len(ranges), sep: sep}
	set := func(k int, b byte) {
		for i := range c.vec[k] {
			c.vec[k][i] = b
		}
	}
	for k, r := range ranges {
		set(2*k, r[0]-1)
		set(2*k+1, r[1])
	}
	set(8, 'A'-1)
	set(9, 'Z')
	set(10, 0x20)
	return c
}

var (
	// plainScan: Python's ASCII white space separates tokens.
	plainScan = newScanClass(&plainClass, true, [2]byte{'\t', '\r'}, [2]byte{0x1c, ' '})
	// wordScan: \w, the token bytes of scikit-learn's pattern.
	wordScan = newScanClass(&wordClass, false, [2]byte{'0', '9'}, [2]byte{'A', 'Z'}, [2]byte{'a', 'z'}, [2]byte{'_', '_'})
	// alnumScan: the Math tokeniser's ASCII words.
	alnumScan = newScanClass(&alnumClass, false, [2]byte{'0', '9'}, [2]byte{'A', 'Z'}, [2]byte{'a', 'z'})
	// markScan: the bytes where the Math tokeniser's scan for math
	// delimiters stops: $ and \ may open math, and they and newline may
	// end it.
	markScan = newScanClass(&markClass, false, [2]byte{'\n', '\n'}, [2]byte{'$', '$'}, [2]byte{'\\', '\\'})
)

// scanBounds lower-cases an ASCII s into b and finds its runs of bytes of
// class clsTok in c, as asciiBounds does (bounds alternates their starts
// and ends), and reports false when s is not ASCII. Where classify runs,
// it scans 64 bytes at a time: classify lower-cases them and makes their
// bitmap, and the bounds are the places where the bitmap changes, taken a
// set bit at a time; the last, partial block is scanned from a copy
// padded with spaces. On MATH text that is about four times as fast as
// the byte loop, which it falls back to elsewhere. b is filled in place
// when its capacity is at least len(s)+72; masks is scratch.
func scanBounds(b []byte, bounds []int32, masks []uint64, s string, c *scanClass) ([]byte, []int32, []uint64, bool) {
	if !haveClassify {
		b, bounds, ok := asciiBounds(b[:0], bounds[:0], s, c.table)
		return b, bounds, masks, ok
	}
	n := len(s)
	blocks := (n + 63) / 64
	b = slices.Grow(b[:0], 64*blocks+8)[:64*blocks]
	masks = slices.Grow(masks[:0], blocks)[:blocks]
	whole := n / 64
	if !classify(b, s[:64*whole], masks, c) {
		return b, bounds, masks, false
	}
	if whole < blocks {
		var pad [64]byte
		copy(pad[copy(pad[:], s[64*whole:]):], spaces)
		if !classify(b[64*whole:], unsafe.String(&pad[0], len(pad)), masks[whole:], c) {
			return b, bounds, masks, false
		}
	}
	// A change between a separator (bit 1 of m) and a token byte (bit 0)
	// at position i is a bound; the byte before s counts as a separator.
	// The padding is separators, so a token that runs to the end of s
	// ends at n: by the change at n inside a padded block, or by hand
	// after a whole one.
	bounds = slices.Grow(bounds[:0], 64*blocks+changesSlack)[:64*blocks+changesSlack]
	flip := uint64(0)
	if !c.sep {
		flip = ^uint64(0)
	}
	nb := changes(bounds, masks, flip)
	if nb%2 == 1 {
		bounds[nb] = int32(n)
		nb++
	}
	return b[:n], bounds[:nb], masks, true
}

var spaces = strings.Repeat(" ", 64)

// changesSlack is the room changes needs in bounds past the changes it
// writes: changesGo writes 8 at a time, the AVX-512 kernel 16.
const changesSlack = 17

// changesGo sets bounds to the positions where the bits of masks (64
// bits a word, each word XORed with flip) change, a 0 before the first
// bit counting as a change, and returns how many there are; bounds has
// room for 64 a word and changesSlack more.
//
// The changes are taken eight at a time, written whether or not they
// exist (a missing one writes base+64, overwritten later or cut off), so
// that the loop, whose exit is mispredicted once a block, runs a few
// times a block instead of once a change (~20): 15% faster on MATH text.
func changesGo(bounds []int32, masks []uint64, flip uint64) int {
	nb := 0
	carry := uint64(1)
	for k, m := range masks {
		m ^= flip
		t := m ^ (m<<1 | carry)
		carry = m >> 63
		base := int32(64 * k)
		for t != 0 {
			cnt := bits.OnesCount64(t)
			bb := bounds[nb : nb+8]
			bb[0] = base + int32(bits.TrailingZeros64(t))
			t &= t - 1
			bb[1] = base + int32(bits.TrailingZeros64(t))
			t &= t - 1
			bb[2] = base + int32(bits.TrailingZeros64(t))
			t &= t - 1
			bb[3] = base + int32(bits.TrailingZeros64(t))
			t &= t - 1
			bb[4] = base + int32(bits.TrailingZeros64(t))
			t &= t - 1
			bb[5] = base + int32(bits.TrailingZeros64(t))
			t &= t - 1
			bb[6] = base + int32(bits.TrailingZeros64(t))
			t &= t - 1
			bb[7] = base + int32(bits.TrailingZeros64(t))
			t &= t - 1
			nb += min(cnt, 8)
		}
	}
	return nb
}

// bitmap sets masks to the bitmap of the bytes of s in c's ranges (bit i
// of masks[k] for byte 64k+i; bytes ≥ 0x80 are in none), one word per 64
// bytes, and returns it: 64 bytes at a time where classify runs, a byte at
// a time from c's table elsewhere.
func bitmap(masks []uint64, s string, c *scanClass) []uint64 {
	n := len(s)
	masks = slices.Grow(masks[:0], (n+63)/64)[:(n+63)/64]
	if !haveClassify {
		clear(masks)
		for i := 0; i < n; i++ {
			if s[i] < 0x80 && (c.table[s[i]] == clsTok) != c.sep {
				masks[i>>6] |= 1 << (i & 63)
			}
		}
		return masks
	}
	whole := n / 64
	classBits(s[:64*whole], masks, c)
	if whole < len(masks) {
		var pad [64]byte
		copy(pad[:], s[64*whole:])
		classBits(unsafe.String(&pad[0], len(pad)), masks[whole:], c)
	}
	return masks
}
