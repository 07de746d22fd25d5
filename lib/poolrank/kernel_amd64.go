//go:build amd64 && !purego

package poolrank

import "golang.org/x/sys/cpu"

// kernAVX512 computes a 12 × 32 tile of scores (kernel.fn's contract).
//
//go:noescape
func kernAVX512(a, b, c *float32, ldc, kn int, acc bool)

// kernAVX2 computes a 6 × 16 tile of scores (kernel.fn's contract).
//
//go:noescape
func kernAVX2(a, b, c *float32, ldc, kn int, acc bool)

var (
	avx512Kernel = &kernel{name: "avx512", mr: 12, nr: 32, fn: kernAVX512}
	avx2Kernel   = &kernel{name: "avx2", mr: 6, nr: 16, fn: kernAVX2}
)

// kernels are the kernels this CPU runs, fastest first (x/sys/cpu checks
// that the OS saves the vector registers too).
var kernels = func() []*kernel {
	var ks []*kernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512Kernel)
	}
	if cpu.X86.HasAVX2 {
		ks = append(ks, avx2Kernel)
	}
	return ks
}()

// kern is the kernel Ranks uses: the fastest here, nil for Block.
var kern = func() *kernel {
	if len(kernels) == 0 {
		return nil
	}
	return kernels[0]
}()
