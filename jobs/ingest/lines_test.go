package ingest

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLineReader: each line comes back whole up to max bytes with its full
// size, whether it lies in one read of the buffer or spans several.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", readBuffer+1000) // spans two reads of the buffer
	type line struct {
		text string // at most max bytes of it
		size int64
	}
	for _, tc := range []struct {
		name, in string
		max      int
		want     []line
	}{
		{"short lines", "a\nbc\n\n{}", 10, []line{{"a", 1}, {"bc", 2}, {"", 0}, {"{}", 2}}},
		{"CRLF kept", "a\r\nb\r\n", 10, []line{{"a\r", 2}, {"b\r", 2}}},
		{"exactly max", "abcd\nabcde\n", 4, []line{{"abcd", 4}, {"abcd", 5}}},
		{"over max, last", "abcdefgh", 3, []line{{"abc", 8}}},
		{"longer than the buffer", long + "\nz\n", len(long), []line{{long, int64(len(long))}, {"z", 1}}},
		{"longer than the buffer and max", "y\n" + long + "\n", 5, []line{{"y", 1}, {"xxxxx", int64(len(long))}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := newLineReader(context.Background(), strings.NewReader(tc.in), tc.max)
			for i, w := range tc.want {
				b, size, err := lr.next()
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if string(b) != w.text || size != w.size {
					t.Fatalf("line %d: %d bytes (%.10q…), size %d; want %d bytes, size %d", i+1, len(b), b, size, len(w.text), w.size)
				}
			}
			if _, _, err := lr.next(); !errors.Is(err, io.EOF) {
				t.Fatalf("after the last line: %v, want EOF", err)
			}
		})
	}
}
