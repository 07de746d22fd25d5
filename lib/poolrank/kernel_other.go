//go:build !amd64 || purego

package poolrank

// kernels is empty: Ranks computes every block with Block (amd64 has
// micro-kernels in assembly).
var kernels []*kernel

// kern is the kernel Ranks uses: none, so Block.
var kern *kernel
