//go:build !amd64 || purego

package text

// haveLowerSpace reports whether lowerSpace runs here: it is written for
// amd64 only, and Tokenize scans a byte at a time elsewhere.
const haveLowerSpace = false

func lowerSpace(dst []byte, src string, masks []uint64) bool {
	panic("text: lowerSpace without an implementation")
}
