package retrieval

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sync"
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
// "no caching"): a query scored under Cold(ctx) reads nothing here, so
// that its time is that of the server doing all of its work, and what it
// computed is kept only after the timed region, by KeepCold. Evaluate
// times the latency sample that way and writes no time for the others,
// whose scores came partly from the memo.
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

// coldWrites are what a cold call computed, kept for KeepCold.
type coldWrites struct {
	mu     sync.Mutex
	writes []func(context.Context) error
}

// Cold returns ctx for a query timed under App. C.5's protocol:
// retrievers read nothing from the memo for it, and keep what they
// computed until KeepCold(ctx).
func Cold(ctx context.Context) context.Context {
	return context.WithValue(ctx, coldKey{}, &coldWrites{})
}

func coldOf(ctx context.Context) *coldWrites { w, _ := ctx.Value(coldKey{}).(*coldWrites); return w }

// KeepCold writes to the memo what the calls under ctx, a Cold one,
// computed: after the timed region, so that the next query that needs a
// text does not ask for it again, and the time measured has no store
// writes in it.
func KeepCold(ctx context.Context) error {
	w := coldOf(ctx)
	if w == nil {
		return nil
	}
	w.mu.Lock()
	writes := w.writes
	w.writes = nil
	w.mu.Unlock()
	for _, write := range writes {
		if err := write(ctx); err != nil {
			return err
		}
	}
	return nil
}

// add adds a write to the cold call's list.
func (w *coldWrites) add(write func(context.Context) error) {
	w.mu.Lock()
	w.writes = append(w.writes, write)
	w.mu.Unlock()
}

// Memoizes reports whether r keeps its work in the run's cache: then only
// its Cold calls are timings of App. C.5.
func Memoizes(r Retriever) bool {
	m, ok := r.(interface{ memoized() bool })
	return ok && m.memoized()
}

func (h *httpBase) memoized() bool { return h.memo != nil }

// Counts are a memoizing retriever's lookups, for the manifest: hits served from the
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

// recall fills out[i] from the memo for every key it holds (keys gives
// each index's key) and returns the indices left to compute, one per
// distinct key, and finish, to call once they are in out: it stores them
// and copies each to the other places of its key. Without a memo, or
// under Cold, every index is left, in order, as if the memo did not
// exist; under Cold, finish keeps the values for KeepCold.
func recall[T any](ctx context.Context, m *memo, keys func() []string, out []T, decode func([]byte) (T, error), encode func(T) []byte) (todo []int, finish func() error, err error) {
	if cold := coldOf(ctx); m == nil || cold != nil {
		todo = make([]int, len(out))
		for i := range todo {
			todo[i] = i
		}
		finish = func() error { return nil }
		if m != nil {
			finish = func() error {
				vals := make([][]byte, len(out))
				for i := range out {
					vals[i] = encode(out[i])
				}
				cold.add(func(ctx context.Context) error { return m.store(ctx, keys(), vals, todo) })
				return nil
			}
		}
		return todo, finish, nil
	}
	ks := keys()
	found, err := m.lookup(ctx, ks)
	if err != nil {
		return nil, nil, err
	}
	first := map[string]int{}
	same := map[int]int{} // an index → the first of its key
	for i := range ks {
		if found[i] != nil {
			if out[i], err = decode(found[i]); err != nil {
				// Write-once: a rerun would not replace it, so say where it is.
				return nil, nil, fmt.Errorf("%w: %s is not what the memo writes (remove it, and the shard recomputes it)", err, m.c.URI(ks[i]))
			}
			continue
		}
		if j, ok := first[ks[i]]; ok {
			same[i] = j
			continue
		}
		first[ks[i]] = i
		todo = append(todo, i)
	}
	return todo, func() error {
		vals := make([][]byte, len(ks))
		for _, i := range todo {
			vals[i] = encode(out[i])
		}
		for i, j := range same {
			out[i] = out[j]
		}
		return m.store(ctx, ks, vals, todo)
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
