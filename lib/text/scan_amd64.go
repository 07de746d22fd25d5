//go:build amd64 && !purego

package text

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveLowerSpace reports whether lowerSpace runs here: it needs AVX2.
var haveLowerSpace = cpu.X86.HasAVX2

// lowerSpaceAVX2 is lowerSpace in assembly, on blocks×64 bytes.
//
//go:noescape
func lowerSpaceAVX2(dst, src *byte, blocks int, masks *uint64) (high uint32)

// lowerSpace lower-cases (A–Z only) the len(src)/64 whole blocks of 64
// bytes of src into dst and sets masks[k] to the separator bitmap of block
// k: bit i is set when byte 64k+i is in \t–\r or 0x1C–' ', Python's ASCII
// white space. It reports false when some byte is not ASCII; dst and
// masks are then unspecified.
func lowerSpace(dst []byte, src string, masks []uint64) bool {
	blocks := len(src) / 64
	if blocks == 0 {
		return true
	}
	_, _ = dst[64*blocks-1], masks[blocks-1]
	return lowerSpaceAVX2(&dst[0], unsafe.StringData(src), blocks, &masks[0]) == 0
}
