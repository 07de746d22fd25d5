package dataset

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	pzstd "github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// keptZstd is parquet-go's ZSTD codec (compress/zstd) with its encoders
// kept across garbage collections. parquet-go keeps them in a sync.Pool,
// which a collection empties, and a new encoder at the better level
// allocates 16 MiB of history and 4 MiB of tables: a writer in a process
// whose heap grows, so that collections come often (ingest's map shard,
// which holds its share's rows), made one after nearly every collection
// (in BenchmarkIngestJSONL, 32 of the 86 MB a map shard allocated). It is
// the same klauspost encoder with the same options, reset by each
// EncodeAll, so the bytes are parquet-go's (TestKeptZstdMatchesParquetGo).
type keptZstd struct {
	level zstd.EncoderLevel
	// kept holds idle encoders no collection drops, as many as writers
	// usually compress at once (one a core on the 2-core machines stages
	// are sized for); more, from a burst of writers, go to spare, which
	// collections empty as parquet-go's pool did, so that the burst's
	// memory is not held for good.
	kept  chan *zstd.Encoder
	spare sync.Pool
}

// betterZstd and defaultZstd are the codecs of dataset parts
// (writerOptions): one of each for the process, so that all its writers
// share the encoders.
var (
	betterZstd  = &keptZstd{level: zstd.SpeedBetterCompression, kept: make(chan *zstd.Encoder, 2)}
	defaultZstd = &keptZstd{level: zstd.SpeedDefault, kept: make(chan *zstd.Encoder, 2)}
)

// zstdDecoder decodes for keptZstd, with parquet-go's pooled decoders;
// readers find parquet-go's own codec by the column's codec id anyway.
var zstdDecoder = &pzstd.Codec{Concurrency: 1}

func (*keptZstd) String() string                            { return "ZSTD" }
func (*keptZstd) CompressionCodec() format.CompressionCodec { return format.Zstd }

func (c *keptZstd) Encode(dst, src []byte) ([]byte, error) {
	e, err := c.get()
	if err != nil {
		return nil, err
	}
	out := e.EncodeAll(src, dst[:0])
	select {
	case c.kept <- e:
	default:
		c.spare.Put(e)
	}
	return out, nil
}

func (c *keptZstd) get() (*zstd.Encoder, error) {
	select {
	case e := <-c.kept:
		return e, nil
	default:
	}
	if e, ok := c.spare.Get().(*zstd.Encoder); ok {
		return e, nil
	}
	// parquet-go's options (compress/zstd.Codec.Encode) at c.level.
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(c.level),
		zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false))
}

func (*keptZstd) Decode(dst, src []byte) ([]byte, error) { return zstdDecoder.Decode(dst, src) }
