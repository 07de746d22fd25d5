//go:build !amd64 || purego

package text

// haveClassify reports whether classify runs here: it is written for amd64
// only, and the ASCII scanners go a byte at a time elsewhere.
const haveClassify = false

func classify(dst []byte, src string, masks []uint64, c *scanClass) bool {
	panic("text: classify without an implementation")
}

func classBits(src string, masks []uint64, c *scanClass) {
	panic("text: classBits without an implementation")
}

// changes is changesGo: the kernel in assembly is for amd64 only.
func changes(bounds []int32, masks []uint64, flip uint64) int { return changesGo(bounds, masks, flip) }
