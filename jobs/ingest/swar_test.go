package ingest

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWordStops holds the eight-byte tests to the byte loops they stand in
// for: every byte value at every position of a word of plain bytes, and
// random words, mostly ASCII.
func TestWordStops(t *testing.T) {
	stopsString := func(w []byte) bool {
		for _, c := range w {
			if byteClass[c] != clPlain {
				return true
			}
		}
		return false
	}
	stopsASCII := func(w []byte) bool {
		for _, c := range w {
			if c < 0x20 || c == 0x7f || c >= 0x80 {
				return true
			}
		}
		return false
	}
	check := func(w []byte) {
		x := binary.LittleEndian.Uint64(w)
		if got, want := stringStop(x), stopsString(w); got != want {
			t.Fatalf("stringStop(% x) = %v, want %v", w, got, want)
		}
		if got, want := asciiStop(x), stopsASCII(w); got != want {
			t.Fatalf("asciiStop(% x) = %v, want %v", w, got, want)
		}
		if leWord(string(w)) != x {
			t.Fatalf("leWord(% x) = %x, want %x", w, leWord(string(w)), x)
		}
	}
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			check(w)
			w = []byte("\x7e\x7e\x21\x21\x5d\x5b\x23\x20") // neighbours of the stops
			w[pos] = byte(c)
			check(w)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		w := make([]byte, 8)
		for i := range w {
			w[i] = byte(0x20 + r.IntN(0x60))
			if r.IntN(16) == 0 {
				w[i] = byte(r.IntN(256))
			}
		}
		check(w)
	}
}

func TestControlChar(t *testing.T) {
	long := strings.Repeat("plain text ", 5)
	tests := []struct {
		s    string
		text bool
		c    rune
		at   int
		ok   bool
	}{
		{"", true, 0, 0, false},
		{long, false, 0, 0, false},
		{long + "\n" + long, true, 0, 0, false},
		{long + "\n" + long, false, '\n', len(long), true},
		{long + "\t", false, '\t', len(long), true},
		{long + "\x00", true, 0, len(long), true},
		{"ab\x7f", true, 0x7f, 2, true},
		{long + "\x7f" + long, true, 0x7f, len(long), true},
		{long + "\f", true, '\f', len(long), true},
		{long + "é" + long, true, 0, 0, false},
		{long + "é\u0085", true, 0x85, len(long) + 2, true}, // a C1 control after non-ASCII
		{"\u009f" + long, true, 0x9f, 0, true},
		{long[:7] + "\x01", false, 1, 7, true},
		{long[:8] + "\x01", false, 1, 8, true},
		{long[:9] + "\x01", false, 1, 9, true},
	}
	for _, tt := range tests {
		c, at, ok := controlChar(tt.s, tt.text)
		if c != tt.c || at != tt.at || ok != tt.ok {
			t.Errorf("controlChar(%q, %v) = %U, %d, %v; want %U, %d, %v", tt.s, tt.text, c, at, ok, tt.c, tt.at, tt.ok)
		}
	}
}
