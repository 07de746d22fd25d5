//go:build amd64 && !purego

package text

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveClassify reports whether classify runs here: it needs AVX2.
var haveClassify = cpu.X86.HasAVX2

// haveChangesAVX512 reports whether changesAVX512 runs here.
var haveChangesAVX512 = cpu.X86.HasAVX512F

// changesAVX512 is changesGo in assembly, on blocks words of masks: each
// block's changes are compressed out of a vector of their positions, 16
// bits of the block at a time, without a branch per change.
//
//go:noescape
func changesAVX512(masks *uint64, blocks int, flip uint64, bounds *int32) (nb int)

// changes is changesGo, in assembly where AVX-512 runs.
func changes(bounds []int32, masks []uint64, flip uint64) int {
	if !haveChangesAVX512 || len(masks) == 0 {
		return changesGo(bounds, masks, flip)
	}
	// The kernel writes 16 positions at a time past those it found.
	if len(bounds) < 64*len(masks)+changesSlack {
		panic("text: changes: bounds too short")
	}
	return changesAVX512(&masks[0], len(masks), flip, &bounds[0])
}

// classifyAVX2 is classify in assembly, on blocks×64 bytes.
//
//go:noescape
func classifyAVX2(dst, src *byte, blocks int, masks *uint64, vec *[11][32]byte, nranges int) (high uint32)

// classify lower-cases (A–Z only) the len(src)/64 whole blocks of 64 bytes
// of src into dst and sets masks[k] to the bitmap of the bytes of block k
// in c's ranges: bit i for byte 64k+i. It reports false when some byte is
// not ASCII; dst and masks are then unspecified.
func classify(dst []byte, src string, masks []uint64, c *scanClass) bool {
	blocks := len(src) / 64
	if blocks == 0 {
		return true
	}
	_, _ = dst[64*blocks-1], masks[blocks-1]
	return classifyAVX2(&dst[0], unsafe.StringData(src), blocks, &masks[0], &c.vec, c.nranges) == 0
}

// classBits is classify without dst: it only sets masks, for the whole
// blocks of src. A byte ≥ 0x80 is in no range.
func classBits(src string, masks []uint64, c *scanClass) {
	blocks := len(src) / 64
	if blocks == 0 {
		return
	}
	_ = masks[blocks-1]
	classifyAVX2(nil, unsafe.StringData(src), blocks, &masks[0], &c.vec, c.nranges)
}
