//go:build amd64 && !purego

package lexical

import (
	"fmt"
	"slices"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveInternAsm reports whether internWordsAsm runs here: it needs BMI2
// (BZHI), which every x86-64-v3 CPU has.
var haveInternAsm = cpu.X86.HasBMI2

// internArgs is internWordsAsm's state: the text, the words table and the
// arrays an insert appends to, each with the room the kernel needs (see
// internWords); fields marked in/out are read and written back.
type internArgs struct {
	b      unsafe.Pointer // the text, with 8 bytes of slack after every token
	bounds unsafe.Pointer // *int32: the tokens' starts and ends
	nb     int            // tokens
	k      int            // in/out: the next token
	cur    unsafe.Pointer // *int32: the tokens' ids
	slots  unsafe.Pointer // *slot: x.words.slots
	mask   uint64         // len(slots) − 1
	tn     int            // in/out: x.words.n
	limit  int            // len(slots)/fill: an insert beyond it stops the kernel
	keys   unsafe.Pointer // *byte: x.keys' array
	nkeys  int            // in/out: len(x.keys)
	ent    unsafe.Pointer // *entry: x.ent's array
	dl     unsafe.Pointer // *uint64: x.dl's array
	nid    int            // in/out: len(x.ent)
}

// internWordsAsm is internWordsGo's loop in assembly, from token a.k on.
// It stops at the end, or before an insert that would fill the table past
// its fill, with a.k at that token; the caller then rehashes and calls it
// again. Go compiles internWordsGo's loop with a dozen values spilled to
// the stack and reloaded for every token; the kernel keeps its state in
// registers and is otherwise the same steps, so that the index is the
// same, slot for slot (TestInternWordsAsm).
//
//go:noescape
func internWordsAsm(a *internArgs)

// internWords sets cur[k] to the id of token k of b (bounds alternates
// the tokens' starts and ends, and b has 8 bytes of slack after every
// token), entering the new ones: internWordsAsm where it runs, else
// internWordsGo.
func (x *index) internWords(b []byte, bounds []int32, cur []int32) {
	nt := len(bounds) / 2
	if !haveInternAsm || nt == 0 {
		x.internWordsGo(b, bounds, cur)
		return
	}
	// The room every insert needs, so that the kernel never grows an
	// array: a new token's bytes go to keys a word at a time (at most 7
	// bytes past the text's total), and each array gets one element per
	// new token at most.
	x.keys = slices.Grow(x.keys, len(b)+8)
	x.ent = slices.Grow(x.ent, nt)
	x.dl = slices.Grow(x.dl, nt)
	x.order = slices.Grow(x.order, nt)
	a := internArgs{
		b:      unsafe.Pointer(unsafe.SliceData(b)),
		bounds: unsafe.Pointer(unsafe.SliceData(bounds)),
		nb:     nt,
		cur:    unsafe.Pointer(unsafe.SliceData(cur)),
		keys:   unsafe.Pointer(unsafe.SliceData(x.keys[:cap(x.keys)])),
		nkeys:  len(x.keys),
		ent:    unsafe.Pointer(unsafe.SliceData(x.ent[:cap(x.ent)])),
		dl:     unsafe.Pointer(unsafe.SliceData(x.dl[:cap(x.dl)])),
		nid:    len(x.ent),
	}
	_ = cur[nt-1]
	for {
		t := &x.words
		a.slots = unsafe.Pointer(unsafe.SliceData(t.slots))
		a.mask = uint64(len(t.slots) - 1)
		a.tn = t.n
		a.limit = len(t.slots) / t.fill
		internWordsAsm(&a)
		t.n = a.tn
		x.keys = x.keys[:a.nkeys]
		x.ent = x.ent[:a.nid]
		x.dl = x.dl[:a.nid]
		x.order = x.order[:a.nid+1] // one spare, as newID keeps it
		if a.k == nt {
			return
		}
		x.rehash(t)
	}
}

// pairArgs is internPairsAsm's state, as internArgs is internWordsAsm's.
type pairArgs struct {
	pairs unsafe.Pointer // *int32: the pairs' first tokens
	np    int            // pairs
	j     int            // in/out: the next pair
	out   unsafe.Pointer // *int32: the pairs' ids
	cur   unsafe.Pointer // *int32: the single tokens' ids
	ncur  int            // len(cur): a pair's first token is below ncur − 1
	slots unsafe.Pointer // *slot: x.pairs.slots
	mask  uint64         // len(slots) − 1
	tn    int            // in/out: x.pairs.n
	limit int            // len(slots)/fill: an insert beyond it stops the kernel
	ent   unsafe.Pointer // *entry: x.ent's array
	dl    unsafe.Pointer // *uint64: x.dl's array
	nid   int            // in/out: len(x.ent)
	bad   int            // out: 1 when pair j's token is out of range
}

// internPairsAsm is internPairsGo's loop in assembly, from pair a.j on.
// It stops at the end, before an insert that would fill the table past
// its fill (the caller rehashes and calls it again), or at a pair whose first
// token is not below ncur − 1, with a.bad set. Go kept the pairs' array,
// the output's length and the probe's position on the stack, stored or
// reloaded for every pair; the kernel keeps its state in registers, and is
// otherwise the same steps (TestInternWordsAsm).
//
//go:noescape
func internPairsAsm(a *pairArgs)

// internPairs sets out[j] to the id of pair j, tokens k = pairs[j] and
// k+1 whose ids are cur[k] and cur[k+1], from the table of pairs,
// entering the new ones: internPairsAsm where it runs, else
// internPairsGo.
func (x *index) internPairs(pairs []int32, cur []int32, out []int32) {
	np := len(pairs)
	if !haveInternAsm || np == 0 || len(cur) < 2 {
		// With fewer than 2 tokens every pair is out of range: Go's
		// indexing panics, where the kernel's test of k < ncur − 1
		// would wrap.
		x.internPairsGo(pairs, cur, out)
		return
	}
	_ = out[np-1]
	// Each new pair takes one element of these (the kernel never grows
	// an array).
	x.ent = slices.Grow(x.ent, np)
	x.dl = slices.Grow(x.dl, np)
	x.order = slices.Grow(x.order, np)
	a := pairArgs{
		pairs: unsafe.Pointer(unsafe.SliceData(pairs)),
		np:    np,
		out:   unsafe.Pointer(unsafe.SliceData(out)),
		cur:   unsafe.Pointer(unsafe.SliceData(cur)),
		ncur:  len(cur),
		ent:   unsafe.Pointer(unsafe.SliceData(x.ent[:cap(x.ent)])),
		dl:    unsafe.Pointer(unsafe.SliceData(x.dl[:cap(x.dl)])),
		nid:   len(x.ent),
	}
	for {
		t := &x.pairs
		a.slots = unsafe.Pointer(unsafe.SliceData(t.slots))
		a.mask = uint64(len(t.slots) - 1)
		a.tn = t.n
		a.limit = len(t.slots) / t.fill
		internPairsAsm(&a)
		t.n = a.tn
		x.ent = x.ent[:a.nid]
		x.dl = x.dl[:a.nid]
		x.order = x.order[:a.nid+1] // one spare, as newID keeps it
		if a.bad != 0 {
			panic(fmt.Sprintf("lexical: pair %d: token %d of %d", a.j, pairs[a.j], len(cur)))
		}
		if a.j == np {
			return
		}
		x.rehash(t)
	}
}

// countArgs is countQueryFirstAsm's state.
type countArgs struct {
	cur   unsafe.Pointer // *int32: the document's ids
	n     int            // len(cur)
	dl    unsafe.Pointer // *uint64
	order unsafe.Pointer // *int32
	no    int            // in/out: x.norder
	tf    unsafe.Pointer // *int32
	m     int            // ids < m are query terms
	ndocs int
	d     int // the document
}

// countQueryFirstAsm is countQueryFirstGo's loop in assembly.
//
//go:noescape
func countQueryFirstAsm(a *countArgs)

// countQueryFirst counts the ids of document d into a query-first index:
// the query terms' tf, the order of first occurrence, and df
// (countQueryFirstGo, in assembly where internWordsAsm runs).
func (x *index) countQueryFirst(cur []int32, d int32) {
	if !haveInternAsm || len(cur) == 0 {
		x.countQueryFirstGo(cur, d)
		return
	}
	// The bounds countQueryFirstGo's indexing checks, but per index, not
	// per token: tf has a row per query term and 8 spare slots after
	// them, and order an element after norder's for every id. The ids
	// themselves are intern's, each < len(dl) by construction (newID).
	if len(x.order) < len(x.dl)+1 || len(x.tf) < int(x.m)*x.ndocs+8 || uint(d) >= uint(x.ndocs) {
		panic("lexical: countQueryFirst: index arrays too short")
	}
	a := countArgs{
		cur:   unsafe.Pointer(unsafe.SliceData(cur)),
		n:     len(cur),
		dl:    unsafe.Pointer(unsafe.SliceData(x.dl)),
		order: unsafe.Pointer(unsafe.SliceData(x.order)),
		no:    x.norder,
		tf:    unsafe.Pointer(unsafe.SliceData(x.tf)),
		m:     int(x.m),
		ndocs: x.ndocs,
		d:     int(d),
	}
	countQueryFirstAsm(&a)
	x.norder = a.no
}

// prefetch asks for the cache lines of p[0:n], without waiting for them
// (PREFETCHT0; see texts.tokens), and returns how many lines that is.
//
//go:noescape
func prefetch(p unsafe.Pointer, n int) int
