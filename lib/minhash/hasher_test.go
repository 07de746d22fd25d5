package minhash

import (
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestHasherGolden pins the permutations and a signature for a fixed input
// and seed: if either changes, stored signatures stop matching new ones.
func TestHasherGolden(t *testing.T) {
	h := NewHasher(112, 42)
	if h.Perms() != 112 {
		t.Fatalf("Perms() = %d, want 112", h.Perms())
	}
	wantCoef := []coef{{0x17bae644c5fd6dd2, 0x51dfc66764cde20}, {0x8ea4ceae261f3ea, 0xb039c3fe1c95c72}}
	if got := h.coef[:2]; !reflect.DeepEqual(got, wantCoef) {
		t.Errorf("first coefficients = %#x, want %#x", got, wantCoef)
	}
	sig := h.Signature(Shingles("the quick brown fox jumps over the lazy dog", 5))
	want := []uint64{0x2a860e5c52ffc1b, 0x5d751b50e980208, 0x2595598eb5008cb, 0x3342e832f3c3a31}
	if len(sig) != 112 || !reflect.DeepEqual(sig[:4], want) {
		t.Errorf("signature prefix = %#x (len %d), want %#x (len 112)", sig[:min(4, len(sig))], len(sig), want)
	}
	again := NewHasher(112, 42).Signature(Shingles("the quick brown fox jumps over the lazy dog", 5))
	if !reflect.DeepEqual(sig, again) {
		t.Error("two Hashers with the same seed disagree")
	}
	if other := NewHasher(112, 43).Signature(Shingles("the quick brown fox jumps over the lazy dog", 5)); reflect.DeepEqual(sig, other) {
		t.Error("seeds 42 and 43 give the same signature")
	}
}

// TestSignatureMatchesBigInt compares the Mersenne arithmetic with math/big
// on random and extreme shingle values.
func TestSignatureMatchesBigInt(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := new(big.Int).SetUint64(MersennePrime)
	h := NewHasher(64, 99)
	for _, c := range h.coef {
		if c.a < 1 || c.a >= MersennePrime || c.b >= MersennePrime {
			t.Fatalf("coefficient out of range: %#x", c)
		}
	}
	extremes := []uint64{0, 1, MersennePrime - 1, MersennePrime, MersennePrime + 1, 2 * MersennePrime, math.MaxUint64, math.MaxUint64 - 1}
	for trial := range 50 {
		var sh []uint64
		if trial == 0 {
			sh = extremes
		} else {
			for range 1 + rng.IntN(30) {
				sh = append(sh, rng.Uint64())
			}
		}
		got := h.Signature(sh)
		for i, c := range h.coef {
			var best *big.Int
			for _, x := range sh {
				v := new(big.Int).Mul(new(big.Int).SetUint64(c.a), new(big.Int).Mod(new(big.Int).SetUint64(x), p))
				v.Add(v, new(big.Int).SetUint64(c.b)).Mod(v, p)
				if best == nil || v.Cmp(best) < 0 {
					best = v
				}
			}
			if got[i] != best.Uint64() {
				t.Fatalf("trial %d perm %d: got %#x, want %#x", trial, i, got[i], best.Uint64())
			}
		}
	}
}

func TestSignature(t *testing.T) {
	h := NewHasher(16, 5)
	tests := []struct {
		name string
		a, b []uint64
		same bool
	}{
		{"order and duplicates do not matter", []uint64{3, 1, 2}, []uint64{1, 2, 2, 3, 3}, true},
		{"different sets differ", []uint64{1, 2, 3}, []uint64{4, 5, 6}, false},
		{"x and x+p collide (x is reduced mod p)", []uint64{7}, []uint64{7 + MersennePrime}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sa, sb := h.Signature(tt.a), h.Signature(tt.b)
			if reflect.DeepEqual(sa, sb) != tt.same {
				t.Errorf("signatures %#x and %#x: equal = %v, want %v", sa, sb, !tt.same, tt.same)
			}
		})
	}
	if got := h.Signature(nil); got != nil {
		t.Errorf("Signature(nil) = %v, want nil", got)
	}
	dst := make([]uint64, 16)
	h.SignatureInto(dst, nil)
	for _, v := range dst {
		if v != EmptyValue {
			t.Fatalf("SignatureInto with no shingles = %#x, want all EmptyValue", dst)
		}
	}
	h.SignatureInto(dst, []uint64{3, 1, 2})
	if !reflect.DeepEqual(dst, h.Signature([]uint64{1, 2, 3})) {
		t.Error("SignatureInto and Signature disagree")
	}
}

func TestSignatureIntoDoesNotAllocate(t *testing.T) {
	h := NewHasher(112, 1)
	sh := randomSet(rand.New(rand.NewPCG(1, 1)), 60)
	dst := make([]uint64, 112)
	if n := testing.AllocsPerRun(100, func() { h.SignatureInto(dst, sh) }); n != 0 {
		t.Errorf("SignatureInto allocates %v times per call", n)
	}
}

func TestEstimatedJaccard(t *testing.T) {
	tests := []struct {
		name string
		a, b []uint64
		want float64
	}{
		{"empty", nil, nil, 0},
		{"equal", []uint64{1, 2, 3, 4}, []uint64{1, 2, 3, 4}, 1},
		{"quarter", []uint64{1, 2, 3, 4}, []uint64{1, 0, 0, 0}, 0.25},
		{"none", []uint64{1, 2}, []uint64{2, 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimatedJaccard(tt.a, tt.b); got != tt.want {
				t.Errorf("EstimatedJaccard = %v, want %v", got, tt.want)
			}
		})
	}
}

// randomSet returns n distinct random values, sorted.
func randomSet(rng *rand.Rand, n int) []uint64 {
	seen := make(map[uint64]bool, n)
	out := make([]uint64, 0, n)
	for len(out) < n {
		v := rng.Uint64()
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// pairWithJaccard returns two sorted sets of random values whose Jaccard
// similarity is exactly shared/(shared+onlyA+onlyB).
func pairWithJaccard(rng *rand.Rand, shared, onlyA, onlyB int) (a, b []uint64) {
	all := randomSet(rng, shared+onlyA+onlyB)
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	a = slices.Concat(all[:shared], all[shared:shared+onlyA])
	b = slices.Concat(all[:shared], all[shared+onlyA:])
	slices.Sort(a)
	slices.Sort(b)
	return a, b
}

func TestEstimatedJaccardConverges(t *testing.T) {
	tests := []struct {
		perms int
		tol   float64
	}{
		{112, 0.15},
		{1024, 0.05},
	}
	// (shared, onlyA, onlyB) for true J in {0.3, 0.5, 0.8, 0.9}.
	shapes := [][3]int{{30, 35, 35}, {50, 25, 25}, {80, 10, 10}, {90, 5, 5}}
	for _, tt := range tests {
		h := NewHasher(tt.perms, 2024)
		rng := rand.New(rand.NewPCG(uint64(tt.perms), 1))
		for _, s := range shapes {
			for trial := range 5 {
				a, b := pairWithJaccard(rng, s[0], s[1], s[2])
				j := Jaccard(a, b)
				est := EstimatedJaccard(h.Signature(a), h.Signature(b))
				if math.Abs(est-j) > tt.tol {
					t.Errorf("perms %d, J = %.2f, trial %d: estimate %.3f off by more than %.2f", tt.perms, j, trial, est, tt.tol)
				}
			}
		}
	}
}

func BenchmarkSignature(b *testing.B) {
	h := NewHasher(112, 1)
	sh := randomSet(rand.New(rand.NewPCG(1, 2)), 60)
	dst := make([]uint64, 112)
	b.ReportAllocs()
	for b.Loop() {
		h.SignatureInto(dst, sh)
	}
}

// BenchmarkDocument is the whole per-document path on a typical statement:
// Normalize, Shingles and Signature.
func BenchmarkDocument(b *testing.B) {
	h := NewHasher(112, 1)
	text := `Let $a$, $b$ and $c$ be positive real numbers such that $a+b+c=3$. ` +
		`Prove that $\frac{a}{b^2+1}+\frac{b}{c^2+1}+\frac{c}{a^2+1}\ge \frac{3}{2}$, ` +
		`and determine when equality holds. Éléonore claims the minimum is attained at $a=b=c=1$.`
	b.ReportAllocs()
	for b.Loop() {
		_ = h.Signature(Shingles(Normalize(text), 5))
	}
}
