package text

import (
	"math"
	"slices"
	"sync"
	"unicode/utf8"
)

// A Sink receives the tokens of a text from Stream.
type Sink interface {
	// Token receives the next single token. tok is valid only during the
	// call: a sink that keeps it must copy it.
	Token(tok []byte)
	// Pair receives a pair token (see the Math tokeniser): the single
	// tokens number i and i+1 of this Stream call (counting Token calls
	// from 0), joined by one space.
	Pair(i int)
}

// Stream sends the tokens of s to sink: the same tokens as t.Append(nil,
// s), in the same order, but without making a string for each; the Math
// tokeniser's pairs come by Pair, after all the single tokens, as in
// Append. It exists for the lexical scorers, which intern tens of
// thousands of tokens per query: it allocates nothing once its pooled
// buffers have grown, and ASCII text (nearly all of MATH) takes a
// branch-free path. A Tokenizer that is not one of this package's goes
// through its Append. Stream is safe for concurrent use.
func Stream(t Tokenizer, s string, sink Sink) {
	switch t.(type) {
	case plainTokenizer, sklearnTokenizer:
		sb := bufPool.Get().(*streamBuf)
		_, plain := t.(plainTokenizer)
		class := &wordClass
		if plain {
			class = &plainClass
		}
		b, bounds, ok := asciiBounds(sb.b[:0], sb.bounds[:0], s, class)
		sb.b, sb.bounds = b, bounds // keep the grown buffers
		if ok {
			// bounds holds the starts and ends of the runs of token bytes,
			// alternately.
			for k := 0; k+1 < len(bounds); k += 2 {
				lo, hi := bounds[k], bounds[k+1]
				if plain || hi-lo >= 2 {
					sink.Token(b[lo:hi])
				}
			}
		} else {
			b := appendLower(sb.b[:0], s)
			emit := func(lo, hi int) { sink.Token(b[lo:hi]) }
			if plain {
				spaceSpans(b, emit)
			} else {
				wordSpans(b, emit)
			}
			sb.b = b
		}
		bufPool.Put(sb)
	case mathTokenizer:
		st := mathPool.Get().(*mathState)
		st.reset(s)
		st.run()
		st.src = append(st.src[:0], s...)
		for _, r := range st.toks {
			if r.inArena {
				sink.Token(st.arena[r.lo:r.hi])
			} else {
				sink.Token(st.src[r.lo:r.hi])
			}
		}
		for _, k := range st.pairs {
			sink.Pair(k)
		}
		st.s = ""
		mathPool.Put(st)
	default:
		for _, tok := range t.Append(nil, s) {
			sink.Token([]byte(tok))
		}
	}
}

type streamBuf struct {
	b      []byte
	bounds []int32
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

var bufPool = sync.Pool{New: func() any { return new(streamBuf) }}
