package text

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// Spans is the tokens of one text as spans of one byte slice: the form the
// lexical scorers intern tens of thousands of tokens per query from,
// without a string per token and without a call per token. Tokenize fills
// it and reuses its arrays, so a Spans kept across texts stops allocating
// once they have grown.
//
// Token k of the text is Bytes[Bounds[2k]:Bounds[2k+1]], for k <
// Len(); these are the single tokens of Append, in its order. Pairs lists
// the Math tokeniser's pair tokens, which Append gives after the singles:
// an entry k stands for tokens k and k+1 joined by one space.
type Spans struct {
	// Bytes holds every token's bytes. Its capacity is at least len(Bytes)
	// + 8, so that a reader may load 8 bytes from any token start.
	Bytes  []byte
	Bounds []int32
	Pairs  []int32

	masks []uint64 // scanBounds' scratch
	// consts reports that Bytes starts with mathConsts, as the Math
	// tokeniser left it; the other tokenisers write Bytes from its start.
	consts bool
}

// MaxSpansText is the longest text Tokenize accepts: offsets are int32,
// and the Math tokeniser's tokens can take 13 times the text's bytes (the
// text, then up to 12 bytes for each of its bytes: ";" is op:semicolon).
const MaxSpansText = math.MaxInt32 / 16

// Len returns the number of single tokens.
func (sp *Spans) Len() int { return len(sp.Bounds) / 2 }

// Token returns single token k; it is valid until the next Tokenize.
func (sp *Spans) Token(k int) []byte { return sp.Bytes[sp.Bounds[2*k]:sp.Bounds[2*k+1]] }

// Tokenize sets sp to the tokens of s by t: the same tokens as t.Append(nil,
// s), in the same order. ASCII text (nearly all of MATH) takes a branch-free
// path for Plain and Sklearn, 64 bytes at a time on amd64 with AVX2
// (scanBounds; -tags purego builds the byte loop only). A Tokenizer that is
// not one of this package's goes through its Append. Tokenize panics on a
// text longer than MaxSpansText bytes; callers that take arbitrary input
// check the length first.
func (sp *Spans) Tokenize(t Tokenizer, s string) {
	if len(s) > MaxSpansText {
		panic(fmt.Sprintf("text: Spans.Tokenize of %d bytes (max %d)", len(s), MaxSpansText))
	}
	sp.Pairs = sp.Pairs[:0]
	if _, ok := t.(mathTokenizer); !ok {
		sp.consts = false
	}
	switch t.(type) {
	case plainTokenizer, sklearnTokenizer:
		_, plain := t.(plainTokenizer)
		class := wordScan
		if plain {
			class = plainScan
		}
		b, bounds, masks, ok := scanBounds(sp.Bytes, sp.Bounds, sp.masks, s, class)
		sp.masks = masks
		if ok {
			// bounds alternates the starts and ends of the runs of token
			// bytes; Sklearn drops the one-byte runs.
			if !plain {
				n := 0
				for k := 0; k+1 < len(bounds); k += 2 {
					if bounds[k+1]-bounds[k] >= 2 {
						bounds[n], bounds[n+1] = bounds[k], bounds[k+1]
						n += 2
					}
				}
				bounds = bounds[:n]
			}
		} else {
			b = appendLower(b[:0], s)
			bounds = bounds[:0]
			emit := func(lo, hi int) { bounds = append(bounds, int32(lo), int32(hi)) }
			if plain {
				spaceSpans(b, emit)
			} else {
				wordSpans(b, emit)
			}
		}
		sp.Bytes, sp.Bounds = b, bounds
	case mathTokenizer:
		st := mathPool.Get().(*mathState)
		st.reset(s)
		// The tokens are substrings of mathConsts, of s or of the arena:
		// Bytes is the three in a row, which is the space of st.toks's
		// bounds shifted by len(mathConsts). mathConsts stays at the start
		// of Bytes from one math text to the next. The arena is Bytes' own
		// spare capacity after s, so that its bytes (the lower-cased prose)
		// are not copied a second time; only when it outgrew that capacity
		// do they move.
		nc := len(mathConsts)
		b := sp.Bytes[:0]
		if sp.consts && cap(b) >= nc {
			b = b[:nc]
		} else {
			b = append(b, mathConsts...)
		}
		b = append(b, s...)
		own := st.arena
		st.arena = b[len(b):]
		st.run()
		if nc+len(s)+len(st.arena) > math.MaxInt32 {
			// Not reached within MaxSpansText (see there).
			panic(fmt.Sprintf("text: Spans.Tokenize: %d bytes of math tokens", len(s)+len(st.arena)))
		}
		if spare := b[len(b):cap(b)]; len(st.arena) > 0 && (len(spare) == 0 || &spare[0] != &st.arena[0]) {
			b = append(b, st.arena...)
		} else {
			b = b[:len(b)+len(st.arena)]
		}
		st.arena = own
		bounds := slices.Grow(sp.Bounds[:0], len(st.toks))[:len(st.toks)]
		for k, v := range st.toks {
			bounds[k] = int32(v + nc)
		}
		pairs := sp.Pairs
		for _, k := range st.pairs {
			pairs = append(pairs, int32(k))
		}
		sp.Bytes, sp.Bounds, sp.Pairs = b, bounds, pairs
		st.s = ""
		mathPool.Put(st)
		sp.Bytes = slices.Grow(sp.Bytes, 8)
		sp.consts = true
		return
	default:
		b, bounds := sp.Bytes[:0], sp.Bounds[:0]
		for _, tok := range t.Append(nil, s) {
			bounds = append(bounds, int32(len(b)))
			b = append(b, tok...)
			bounds = append(bounds, int32(len(b)))
		}
		sp.Bytes, sp.Bounds = b, bounds
	}
	sp.Bytes = slices.Grow(sp.Bytes, 8)
}

// asciiBounds lower-cases an ASCII s into b and finds its runs of bytes of
// class clsTok in the same pass, without a branch per byte (branch
// mispredictions at every token boundary made the byte-at-a-time scanners
// cost several ns a byte): bounds gets every position where the class
// changes between token and separator, so it alternates starts and ends.
// It reports false, with b and bounds unspecified, when s is not ASCII.
func asciiBounds(b []byte, bounds []int32, s string, class *[256]uint8) ([]byte, []int32, bool) {
	if len(s) > math.MaxInt32-1 {
		return b, bounds, false
	}
	b = slices.Grow(b, len(s))[:len(s)]
	bounds = slices.Grow(bounds, len(s)+1)[:len(s)+1]
	n := 0
	prev := clsSep
	var or byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		or |= c
		b[i] = asciiLower[c&0x7f]
		cl := class[c] & 1 // a non-ASCII byte (class 2) is caught by or below
		bounds[n] = int32(i)
		n += int(prev ^ cl)
		prev = cl
	}
	if or >= utf8.RuneSelf {
		return b, bounds, false
	}
	if prev == clsTok {
		bounds[n] = int32(len(s))
		n++
	}
	return b, bounds[:n], true
}
