package minhash

import (
	"fmt"
	"math"
	"math/bits"
)

// MersennePrime is p = 2^61 − 1, the modulus of the permutations; every
// signature value lies in [0, p).
const MersennePrime = 1<<61 - 1

// EmptyValue fills the signature that SignatureInto writes for a document with
// no shingles. It never occurs in a real signature (values are < MersennePrime).
const EmptyValue = math.MaxUint64

// Hasher computes MinHash signatures with perms universal-hashing
// permutations
//
//	h_i(x) = (a_i·x + b_i) mod p,   p = 2^61 − 1,   x = shingle mod p,
//
// where a_i ∈ [1, p) and b_i ∈ [0, p) are drawn in the order a_0, b_0, a_1,
// b_1, ... by rejection sampling from the top 61 bits of SplitMix64 seeded with
// seed. SplitMix64 is implemented here, so the permutations for a given
// (perms, seed) are fixed forever. A Hasher is immutable and safe for
// concurrent use.
type Hasher struct {
	coef []coef
}

type coef struct{ a, b uint64 }

// NewHasher returns a Hasher with perms permutations drawn from seed. It
// panics if perms < 1.
func NewHasher(perms int, seed uint64) *Hasher {
	if perms < 1 {
		panic(fmt.Sprintf("minhash: NewHasher needs perms >= 1, got %d", perms))
	}
	state := seed
	draw := func(min uint64) uint64 {
		for {
			if v := splitMix64(&state) >> 3; v >= min && v < MersennePrime {
				return v
			}
		}
	}
	h := &Hasher{coef: make([]coef, perms)}
	for i := range h.coef {
		h.coef[i].a = draw(1)
		h.coef[i].b = draw(0)
	}
	return h
}

// splitMix64 advances *state and returns the next SplitMix64 output
// (Steele, Lea & Flood 2014; the constants are those of java.util.SplittableRandom).
func splitMix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Perms returns the number of permutations, the length of a signature.
func (h *Hasher) Perms() int { return len(h.coef) }

// Signature returns the MinHash signature of a set of shingle hashes:
//
//	sig[i] = min over x in shingles of h_i(x mod p)
//
// It returns nil when shingles is empty. Duplicates and order in shingles do
// not matter.
func (h *Hasher) Signature(shingles []uint64) []uint64 {
	if len(shingles) == 0 {
		return nil
	}
	sig := make([]uint64, len(h.coef))
	h.SignatureInto(sig, shingles)
	return sig
}

// SignatureInto writes the signature of shingles into dst without
// allocating; it is Signature for callers that reuse a buffer. With no
// shingles every dst[i] is set to EmptyValue. It panics if len(dst) differs
// from Perms().
func (h *Hasher) SignatureInto(dst []uint64, shingles []uint64) {
	if len(dst) != len(h.coef) {
		panic(fmt.Sprintf("minhash: SignatureInto got a %d-value destination for %d permutations", len(dst), len(h.coef)))
	}
	for i := range dst {
		dst[i] = EmptyValue
	}
	coef := h.coef[:len(dst)]
	for _, s := range shingles {
		x := reduce(s)
		for i, c := range coef {
			hi, lo := bits.Mul64(c.a, x)
			// a·x < 2^122 = hi·2^64 + lo ≡ (a·x >> 61) + (a·x & p) (mod p).
			v := (lo & MersennePrime) + (lo>>61 | hi<<3)
			v = reduce(v) + c.b
			if v >= MersennePrime {
				v -= MersennePrime
			}
			if v < dst[i] {
				dst[i] = v
			}
		}
	}
}

// reduce returns x mod p for p = 2^61 − 1, using 2^61 ≡ 1 (mod p).
func reduce(x uint64) uint64 {
	x = (x & MersennePrime) + (x >> 61)
	if x >= MersennePrime {
		x -= MersennePrime
	}
	return x
}

// EstimatedJaccard returns the fraction of positions where two signatures of
// the same Hasher agree, the MinHash estimate of the Jaccard similarity of the
// underlying sets (its standard error is sqrt(J(1−J)/len(a))). Two empty
// signatures give 0. It panics if the lengths differ.
func EstimatedJaccard(a, b []uint64) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("minhash: EstimatedJaccard of signatures of lengths %d and %d", len(a), len(b)))
	}
	if len(a) == 0 {
		return 0
	}
	eq := 0
	for i, v := range a {
		if v == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}
