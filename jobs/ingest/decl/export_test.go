package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
)

// The forecast's row count, for records_test.go (package decl_test, which
// runs the forecast engine and the stage, both importing this package).

// SetSampleBytes makes the row count read n bytes of each file, so that a
// test extrapolates from small files; the function it returns restores it.
func SetSampleBytes(n int64) (restore func()) {
	old := sampleBytes
	sampleBytes = n
	return func() { sampleBytes = old }
}

// InputRows is inputRows.
func InputRows(ctx context.Context, cfg *config.Config) (rows, size float64, basis string, err error) {
	return inputRows(ctx, cfg)
}

// CountFile is countFile's rows and whether it sampled the file.
func CountFile(ctx context.Context, src *Source, f layout.File, size int64) (rows float64, sampled bool, err error) {
	fc, err := countFile(ctx, src, f, size)
	return fc.rows, fc.sampled, err
}
