//go:build amd64 && !purego

package lexical

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/saber-math/saber/lib/text"
	"golang.org/x/sys/cpu"
)

func cpuHasBMI2() bool { return cpu.X86.HasBMI2 }

// kernelTexts returns queries, each with its documents, that exercise the
// kernels' paths: tokens of 1 to 300 bytes (a length of 255 or more is
// saturated in the slot's meta, so two such tokens that differ in length
// meet in the byte compare), tokens sharing their first 8 bytes or all
// but their last, NUL bytes, and documents with thousands of new tokens,
// so that the table fills and the kernel stops to let Go rehash it
// mid-document.
func kernelTexts() (queries []string, docs [][]string) {
	rng := rand.New(rand.NewPCG(11, 12))
	word := func() string {
		switch rng.IntN(10) {
		case 0: // long, sharing a prefix with many others
			return "abcdefgh" + strings.Repeat("x", rng.IntN(300))
		case 1: // long, differing only in the last byte
			return "commonprefix" + string(rune('a'+rng.IntN(5)))
		case 2: // a NUL inside
			return "nu\x00l" + fmt.Sprint(rng.IntN(4))
		case 3: // many distinct
			return fmt.Sprintf("w%d", rng.IntN(50000))
		}
		return []string{"the", "of", "$x$", "a", "sum", "prime", "ABCDEFGH", "abcdefgh", "abcdefghi"}[rng.IntN(9)]
	}
	for q := range 12 {
		var ds []string
		for range 3 + rng.IntN(40) {
			var b strings.Builder
			n := rng.IntN(200)
			if q%4 == 3 {
				n = 6000 + rng.IntN(4000) // fills the table in one document
			}
			for range n {
				b.WriteString(word())
				b.WriteByte(" \n\t"[rng.IntN(3)])
			}
			if q%4 == 3 {
				// Thousands of distinct math pairs, "k op:plus" and
				// "op:plus k+1": the table of pairs fills too.
				b.WriteString("$0")
				for k := range 3000 + rng.IntN(2000) {
					fmt.Fprintf(&b, " + %d", k+1)
				}
				b.WriteString("$")
			}
			ds = append(ds, b.String())
		}
		queries = append(queries, word()+" "+word()+" the "+word())
		docs = append(docs, ds)
	}
	return queries, docs
}

// indexState is what a test compares of two indexes built from the same
// texts.
type indexState struct {
	keys                       []byte
	ent                        []entry
	dl                         []uint64
	seq, start, query          []int32
	tf, order, dlen            []int32
	norder, words, pairs, nkey int
	slots                      []slot
}

func snapshot(x *index) indexState {
	s := indexState{
		keys: slices.Clone(x.keys), ent: slices.Clone(x.ent), dl: slices.Clone(x.dl),
		seq: slices.Clone(x.seq), start: slices.Clone(x.start), query: slices.Clone(x.query),
		norder: x.norder, words: x.words.n, pairs: x.pairs.n, nkey: len(x.keys),
	}
	if x.queryFirst {
		s.tf = slices.Clone(x.tf[:int(x.m)*x.ndocs]) // not the spare slots: the kernel takes them in another turn
		s.order = slices.Clone(x.order[:x.norder])
		s.dlen = slices.Clone(x.dlen)
	}
	// The tables as a set: their size, hence where a key sits, depends on
	// what the pooled index held before.
	for _, t := range []*table{&x.words, &x.pairs} {
		for _, sl := range t.slots {
			if sl.meta != 0 {
				s.slots = append(s.slots, sl)
			}
		}
	}
	slices.SortFunc(s.slots, func(a, b slot) int { return int(a.meta&idMask) - int(b.meta&idMask) })
	return s
}

// TestInternWordsAsm builds both kinds of index with the kernels of
// intern_amd64.s and with their Go loops, and checks that every id, key,
// entry, slot of both tables, document frequency, count and order is the
// same.
func TestInternWordsAsm(t *testing.T) {
	if !haveInternAsm {
		t.Skip("no BMI2 here: the kernels do not run")
	}
	defer func() { haveInternAsm = true }()
	queries, docs := kernelTexts()
	compareKernels(t, queries, docs, true)
	t.Run("MATH", func(t *testing.T) {
		probs := readMATH(t)
		qs, cands, _ := benchSelect(probs)
		queries, docs := []string(nil), [][]string(nil)
		for k, q := range qs[:10] {
			ds := make([]string, len(cands[k]))
			for i, c := range cands[k] {
				ds[i] = full(probs[c])
			}
			queries = append(queries, probs[q].Problem)
			docs = append(docs, ds)
		}
		compareKernels(t, queries, docs, false)
	})
}

// compareKernels is TestInternWordsAsm on queries and their docs; fills
// says every fourth query's documents fill the table (kernelTexts').
func compareKernels(t *testing.T, queries []string, docs [][]string, fills bool) {
	for qi, query := range queries {
		for _, tok := range []text.Tokenizer{text.Plain, text.Math, text.Sklearn} {
			for _, queryFirst := range []bool{false, true} {
				var got [2]indexState
				for i, asm := range []bool{true, false} {
					haveInternAsm = asm
					var x *index
					if queryFirst {
						x = newQueryFirstIndex(tok, texts{query: query, docs: docs[qi]})
					} else {
						x = newIndex(tok, query, docs[qi])
					}
					got[i] = snapshot(x)
					x.release()
				}
				haveInternAsm = true
				a, g := got[0], got[1]
				name := fmt.Sprintf("query %d %s queryFirst=%v", qi, tok.Name(), queryFirst)
				if fills && a.words < 2048 && qi%4 == 3 && tok == text.Plain {
					t.Errorf("%s: %d words: the table never filled", name, a.words)
				}
				if fills && a.pairs < 2048 && qi%4 == 3 && tok == text.Math {
					t.Errorf("%s: %d pairs: the table of pairs never filled", name, a.pairs)
				}
				for _, c := range []struct {
					what string
					same bool
				}{
					{"keys", slices.Equal(a.keys, g.keys)},
					{"entries", slices.Equal(a.ent, g.ent)},
					{"dl", slices.Equal(a.dl, g.dl)},
					{"documents' ids", slices.Equal(a.seq, g.seq) && slices.Equal(a.start, g.start)},
					{"query's ids", slices.Equal(a.query, g.query)},
					{"tf", slices.Equal(a.tf, g.tf)},
					{"order", slices.Equal(a.order, g.order) && a.norder == g.norder},
					{"lengths", slices.Equal(a.dlen, g.dlen)},
					{"table", slices.Equal(a.slots, g.slots) && a.words == g.words && a.pairs == g.pairs},
				} {
					if !c.same {
						t.Errorf("%s: kernel and Go differ in %s", name, c.what)
					}
				}
			}
		}
	}
}

// TestInternCollisions has a token meet, at its first slot, an entry
// with its hash but for another token a: one of another length (its
// class differs), or a long token of the same class whose bytes differ in
// length, in their second word or in their last byte. (Hashes make such
// meetings rare, so the test places the entry.) It must not take a's id,
// with the kernel or without.
func TestInternCollisions(t *testing.T) {
	defer func() { haveInternAsm = true }()
	long := strings.Repeat("abcdefghij", 30)
	for _, c := range []struct{ a, b string }{
		{"abc", "ab"},
		{long, long[:280]},
		{"abcdefgh12345678zz", "abcdefgh12345679zz"},
		{"abcdefgh12345678zz", "abcdefgh12345678zy"},
	} {
		for _, asm := range []bool{true, false} {
			haveInternAsm = asm && cpuHasBMI2()
			x := newIndex(text.Plain, "", []string{c.a})
			idA := x.seq[0]
			h := hashToken([]byte(c.b+"        "), 0, len(c.b))
			t1 := &x.words
			t1.slots[h&uint64(len(t1.slots)-1)] = slot{key: h, meta: wordClass(len(c.a))<<32 | uint64(idA)}
			t1.n++
			x.sp.Tokenize(text.Plain, c.b)
			x.intern(&x.sp, 1)
			if got := x.seq[len(x.seq)-1]; got == idA {
				t.Errorf("asm=%v: %q took the id of %q", asm, c.b, c.a)
			}
			x.release()
		}
	}
}

// TestPrefetch holds the prefetch kernel's lines to the cache lines that
// p[0:n] spans, for starts at every offset in a line and lengths around
// line multiples: a missed last line or a loop that overruns would show.
func TestPrefetch(t *testing.T) {
	buf := make([]byte, 1024)
	base := uintptr(unsafe.Pointer(&buf[0]))
	for off := range 130 {
		for _, n := range []int{0, 1, 2, 63, 64, 65, 127, 128, 129, 500, 1024 - off} {
			if off+n > len(buf) {
				continue
			}
			want := 0
			if n > 0 {
				p := base + uintptr(off)
				want = int((p+uintptr(n)-1)/64 - p/64 + 1)
			}
			if got := prefetch(unsafe.Pointer(&buf[off]), n); got != want {
				t.Errorf("prefetch(base+%d, %d): %d lines, want %d", off, n, got, want)
			}
		}
	}
	if got := prefetch(nil, 0); got != 0 {
		t.Errorf("prefetch(nil, 0): %d lines, want 0", got)
	}
}

// TestInternPairsOutOfRange hands intern a pair whose second token is past
// the text's, down to a text with one token or none: the kernel, which
// reads ids without bounds checks, must refuse it as Go's indexing does,
// by a panic.
func TestInternPairsOutOfRange(t *testing.T) {
	defer func() { haveInternAsm = true }()
	for _, asm := range []bool{true, false} {
		haveInternAsm = asm && cpuHasBMI2()
		for _, c := range []struct {
			text string
			k    int32
		}{{"$x+y$", 2}, {"$x+y$", 3}, {"$x+y$", -1}, {"$x$", 0}, {"", 0}} {
			k := c.k
			var sp text.Spans
			sp.Tokenize(text.Math, c.text)
			sp.Pairs = append(sp.Pairs[:0], k) // there is no token k+1
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("asm=%v: pair at token %d of %q: no panic", asm, k, c.text)
					}
				}()
				x := getIndex(true)
				defer x.release()
				x.intern(&sp, -1)
			}()
		}
	}
}
