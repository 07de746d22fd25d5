package ingest

import "unsafe"

// textArena holds the statement and solution texts a streaming map shard
// reads (readShare with a problemStream), in slabs it fills again once
// the rows holding them are written. Each text allocated on the heap
// (133 MB for saber synth's 283K problems) was needed only until its
// problem was written, yet grew the heap, its page faults and the set-up
// of its spans for every one. The writer copies the problems' texts a
// chunk (dataset.WriteChunk) at a time, so a slab holds about that many
// problems' texts and stays in cache.
//
// A text from the arena is valid until the slab is started again, which
// happens only at a line's start (parse) and only when written says that
// no row of the shard's still holds one: the problems handed to the
// problemStream have all been written (parquet-go copies the bytes), and
// the only other thing kept of a row, its id, never comes from here.
// Rejects quote a text only through fmt, which copies.
type textArena struct {
	slab []byte
	// written reports whether every text handed out so far is written.
	written func() bool
}

// slabBytes is the first slab's size; a slab that fills is followed by
// one twice its size, up to maxSlab, so that the texts of the problems
// the writer holds at once (dataset.WriteChunk) soon fit one slab and the arena
// stops allocating. A variable for tests.
var slabBytes = 1 << 20

const maxSlab = 64 << 20

// lineStart starts the slab again when nothing holds a text from it.
func (a *textArena) lineStart() {
	if a != nil && len(a.slab) > 0 && a.written() {
		a.slab = a.slab[:0]
	}
}

// text appends what fill appends to an empty slice (at most n bytes) and
// returns it as a string; ok is fill's.
func (a *textArena) text(n int, fill func([]byte) ([]byte, bool)) (string, bool) {
	if cap(a.slab)-len(a.slab) < n {
		// The full slab stays alive while its texts are used; a new
		// one takes the next. Only the new one is started again.
		a.slab = make([]byte, 0, max(n, min(maxSlab, max(slabBytes, 2*cap(a.slab)))))
	}
	at := len(a.slab)
	out, ok := fill(a.slab)
	if !ok || len(out) == at {
		a.slab = a.slab[:at]
		return "", ok
	}
	a.slab = out
	return unsafe.String(&out[at], len(out)-at), true
}
