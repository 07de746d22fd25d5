package retrieval

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/saber-math/saber/artifacts/kvcache"
	"github.com/saber-math/saber/lib/parallel"
)

// The memo makes evaluate compute each thing once (issue 41): an
// embedding per (model, request options, piece of text), a cross-encoder's
// score per (model, endpoint, query, piece of document), a generative
// reranker's score per (model, prompt, parser) and a rewrite per (rewrite
// settings, query), kept by content in the run's cache
// (Options.Cache: <run>/_cache/llm/, beside the LLM answers). A document
// that is a candidate of many queries, in many settings, over many reruns,
// is embedded once per model; a rerun asks the server nothing.
//
// What the memo does not serve is the latency protocol (App. C.5, SPEC:
// "no caching"): a query scored under Cold(ctx) reads and writes nothing
// here, so that its time is that of the server doing all of its work.
// Evaluate times the latency sample that way and writes no time for the
// others, whose scores came partly from the memo.
//
// A value is what the server answered for that input, in whatever batch it
// came: a server whose answer for a text depends on the rest of its batch
// (padding, floating-point order) answers it the same way for whichever
// query asked first. Two shards that miss the same key at the same moment
// both ask; kvcache keeps the first answer.
type memo struct {
	c            *kvcache.Cache
	hits, misses atomic.Int64
}

// memoReads is how many memo reads one Score has in flight: a query's 150
// lookups are 150 small GETs on S3.
const memoReads = 16

type coldKey struct{}

// Cold returns ctx for a query timed under App. C.5's protocol: retrievers
// neither read nor write the memo for it.
func Cold(ctx context.Context) context.Context { return context.WithValue(ctx, coldKey{}, true) }

func isCold(ctx context.Context) bool { v, _ := ctx.Value(coldKey{}).(bool); return v }

// memoFor returns the memo to use for a call under ctx: nil when there is
// none or the call is cold.
func (h *httpBase) memoFor(ctx context.Context) *memo {
	if h.memo == nil || isCold(ctx) {
		return nil
	}
	return h.memo
}

// Memoizes reports whether r keeps its work in the run's cache: then only
// its Cold calls are timings of App. C.5.
func Memoizes(r Retriever) bool {
	m, ok := r.(interface{ memoized() bool })
	return ok && m.memoized()
}

func (h *httpBase) memoized() bool { return h.memo != nil }

// MemoCounts are a memoizing retriever's lookups: hits served from the
// run's cache and misses the server computed.
func (h *httpBase) Counts() map[string]int64 {
	if h.memo == nil {
		return nil
	}
	return map[string]int64{"memo_hits": h.memo.hits.Load(), "memo_misses": h.memo.misses.Load()}
}

// memoKey is the hex SHA-256 of parts, each length-prefixed so that no
// two lists of parts make the same bytes.
func memoKey(parts ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lookup reads keys (an empty key is skipped); found[i] is nil where
// keys[i] is absent.
func (m *memo) lookup(ctx context.Context, keys []string) ([][]byte, error) {
	found := make([][]byte, len(keys))
	err := parallel.For(ctx, len(keys), memoReads, func(ctx context.Context, i int) error {
		if keys[i] == "" {
			return nil
		}
		b, ok, err := m.c.Get(ctx, keys[i])
		if err != nil {
			return fmt.Errorf("retrieval memo: %w", err)
		}
		if ok {
			found[i] = b
			m.hits.Add(1)
		}
		return nil
	})
	return found, err
}

// recall fills out[i] from the memo for every keys[i] it holds and returns
// the indices left to compute, one per distinct key, and finish, to call
// once they are in out: it stores them and copies each to the other
// places of its key. With m nil (no memo, or a cold call) every index is
// left, in order, and finish does nothing: the calls are made as if the
// memo did not exist.
func recall[T any](ctx context.Context, m *memo, keys []string, out []T, decode func([]byte) (T, error), encode func(T) []byte) (todo []int, finish func() error, err error) {
	if m == nil {
		todo = make([]int, len(out))
		for i := range todo {
			todo[i] = i
		}
		return todo, func() error { return nil }, nil
	}
	found, err := m.lookup(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	first := map[string]int{}
	same := map[int]int{} // an index → the first of its key
	for i := range keys {
		if found[i] != nil {
			if out[i], err = decode(found[i]); err != nil {
				return nil, nil, err
			}
			continue
		}
		if j, ok := first[keys[i]]; ok {
			same[i] = j
			continue
		}
		first[keys[i]] = i
		todo = append(todo, i)
	}
	return todo, func() error {
		vals := make([][]byte, len(keys))
		for _, i := range todo {
			vals[i] = encode(out[i])
		}
		for i, j := range same {
			out[i] = out[j]
		}
		return m.store(ctx, keys, vals, todo)
	}, nil
}

// store writes vals[i] under keys[i] for every i in idx.
func (m *memo) store(ctx context.Context, keys []string, vals [][]byte, idx []int) error {
	m.misses.Add(int64(len(idx)))
	return parallel.For(ctx, len(idx), memoReads, func(ctx context.Context, k int) error {
		i := idx[k]
		if err := m.c.Put(ctx, keys[i], vals[i]); err != nil {
			return fmt.Errorf("retrieval memo: %w", err)
		}
		return nil
	})
}

func encodeFloat32s(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeFloat32s(b []byte) ([]float32, error) {
	if len(b)%4 != 0 || len(b) == 0 {
		return nil, fmt.Errorf("retrieval memo: a vector of %d bytes", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

func encodeFloat64(x float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(x))
}

func decodeFloat64(b []byte) (float64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("retrieval memo: a score of %d bytes", len(b))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}
