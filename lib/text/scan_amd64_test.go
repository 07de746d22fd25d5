//go:build amd64 && !purego

package text

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestChangesAVX512 checks the kernel against changesGo on random bitmaps
// of 1 to 40 words, dense and sparse, with both flips, and on words of
// all ones, all zeros and alternating bits, whose 64 changes fill a block.
func TestChangesAVX512(t *testing.T) {
	if !haveChangesAVX512 {
		t.Skip("no AVX-512 here: changes runs changesGo")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var cases [][]uint64
	for _, w := range []uint64{0, ^uint64(0), 0x5555555555555555, 0xaaaaaaaaaaaaaaaa, 1, 1 << 63} {
		cases = append(cases, []uint64{w}, []uint64{w, w, ^w, w})
	}
	for range 500 {
		m := make([]uint64, 1+rng.IntN(40))
		for i := range m {
			m[i] = rng.Uint64()
			if rng.IntN(2) == 0 { // sparse: runs, like text
				m[i] &= rng.Uint64() & rng.Uint64()
			}
		}
		cases = append(cases, m)
	}
	for _, masks := range cases {
		for _, flip := range []uint64{0, ^uint64(0)} {
			want := make([]int32, 64*len(masks)+changesSlack)
			nw := changesGo(want, masks, flip)
			got := make([]int32, 64*len(masks)+changesSlack)
			ng := changesAVX512(&masks[0], len(masks), flip, &got[0])
			if !slices.Equal(got[:ng], want[:nw]) {
				t.Fatalf("masks %x flip %x: kernel %v, Go %v", masks, flip, got[:ng], want[:nw])
			}
		}
	}
}
