package dataset

import (
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/snappy"
	"github.com/parquet-go/parquet-go/format"
)

// fastSnappy is Parquet's SNAPPY codec with s2's fast Snappy-compatible
// encoder. parquet-go's codec calls klauspost's snappy.Encode, which is
// s2's "better" mode: on an ingest map shard it was a tenth of the CPU.
// Both write the raw Snappy block format, so any Parquet reader decodes
// either; only the compressed bytes differ (and are fixed for equal input).
type fastSnappy struct{}

func (fastSnappy) String() string                            { return "SNAPPY" }
func (fastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }
func (fastSnappy) Encode(dst, src []byte) ([]byte, error)    { return s2.EncodeSnappy(dst, src), nil }
func (fastSnappy) Decode(dst, src []byte) ([]byte, error)    { return snappy.Decode(dst, src) }
