package retrieval

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strconv"

	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/parallel"
)

// embedding is a bi-encoder over /embeddings: score = cosine of the query's
// and the document's vectors (App. C.2).
//
// One Score call: the query is rewritten (if configured), every text is
// split into chunks of max_input words (if set), each chunk is formatted
// (instruction and template for the query's, template for the documents'),
// and the pieces — the query's first, then the documents' in order — are
// sent in slices of batch_size texts, in_flight/batch_size requests at a
// time. When the query and the documents need different request options
// (a format's task_type), the query's pieces form their own slices. A
// text's vector is the element-wise mean of its pieces' vectors.
//
// With the defaults (16 texts a request, one request at a time) 150
// candidates and a one-piece query take ⌈151/16⌉ = 10 sequential requests.
type embedding struct{ httpBase }

type piece struct {
	text  string
	owner int // -1: the query; else the document's index
	extra map[string]any
}

func (e *embedding) Score(ctx context.Context, query string, docs []string) ([]float64, error) {
	query, err := e.rewrite(ctx, query)
	if err != nil {
		return nil, err
	}
	q, ds, err := e.vectors(ctx, &query, docs)
	if err != nil {
		return nil, err
	}
	scores := make([]float64, len(docs))
	for i, d := range ds {
		if len(d) != len(q) {
			return nil, fmt.Errorf("%s: query vector has %d dimensions, document %d's %d", e.name, len(q), i, len(d))
		}
		scores[i] = Cosine(q, d)
	}
	return scores, nil
}

// vectors embeds the query (when not nil, formatted as a query) and the
// documents (formatted as documents) as Score's doc describes, and returns
// each text's mean vector.
func (e *embedding) vectors(ctx context.Context, query *string, docs []string) ([]float64, [][]float64, error) {
	var qp, dp []piece
	if query != nil {
		for _, c := range retrievers.Chunks(*query, e.spec.MaxInput) {
			qp = append(qp, piece{text: e.f.Query(c), owner: -1, extra: e.f.QueryExtra})
		}
	}
	for i, d := range docs {
		for _, c := range retrievers.Chunks(d, e.spec.MaxInput) {
			dp = append(dp, piece{text: e.f.Doc(c), owner: i, extra: e.f.DocExtra})
		}
	}
	all := append(qp, dp...)
	vecs := make([][]float32, len(all))
	todo, finish, err := e.recall(ctx, all, vecs)
	if err != nil {
		return nil, nil, err
	}
	if err := e.embed(ctx, all, todo, vecs); err != nil {
		return nil, nil, err
	}
	if err := finish(); err != nil {
		return nil, nil, err
	}
	// Mean vector per text.
	sums := make([][]float64, len(docs)+1) // 0: the query, 1+i: document i
	counts := make([]int, len(docs)+1)
	for i, p := range all {
		v := vecs[i]
		o := p.owner + 1
		if sums[o] == nil {
			sums[o] = make([]float64, len(v))
		}
		if len(v) != len(sums[o]) || len(v) == 0 {
			return nil, nil, fmt.Errorf("%s: the server returned vectors of %d and %d dimensions", e.name, len(v), len(sums[o]))
		}
		for j, x := range v {
			sums[o][j] += float64(x)
		}
		counts[o]++
	}
	for o := range sums {
		for j := range sums[o] {
			sums[o][j] /= float64(counts[o])
		}
	}
	return sums[0], sums[1:], nil
}

// embed asks the server for the vectors of all[i], i in todo, and stores
// them in vecs[i]: in slices of batch_size pieces that share their request
// options, the query's first, in_flight/batch_size requests at a time.
func (e *embedding) embed(ctx context.Context, all []piece, todo []int, vecs [][]float32) error {
	var slices [][]int
	add := func(idx []int) {
		for lo := 0; lo < len(idx); lo += e.spec.BatchSize {
			slices = append(slices, idx[lo:min(lo+e.spec.BatchSize, len(idx))])
		}
	}
	if maps.Equal(stringify(e.f.QueryExtra), stringify(e.f.DocExtra)) {
		add(todo)
	} else {
		var q, d []int
		for _, i := range todo {
			if all[i].owner < 0 {
				q = append(q, i)
			} else {
				d = append(d, i)
			}
		}
		add(q)
		add(d)
	}
	workers := max(1, e.spec.InFlight/e.spec.BatchSize)
	return parallel.For(ctx, len(slices), workers, func(ctx context.Context, s int) error {
		texts := make([]string, len(slices[s]))
		for k, i := range slices[s] {
			texts[k] = all[i].text
		}
		v, err := e.client.EmbedWith(ctx, texts, llm.EmbedOptions{Dimensions: e.spec.Dimensions, Extra: all[slices[s][0]].extra})
		if err == nil && len(v) != len(texts) {
			err = fmt.Errorf("%s: the server returned %d vectors for %d texts", e.name, len(v), len(texts))
		}
		if err != nil {
			return err
		}
		for k, i := range slices[s] {
			vecs[i] = v[k]
		}
		return nil
	})
}

// recall fills vecs from the memo (see the generic recall) and returns
// the pieces left to embed, each distinct text once.
func (e *embedding) recall(ctx context.Context, all []piece, vecs [][]float32) (todo []int, finish func() error, err error) {
	keys := func() []string {
		ks := make([]string, len(all))
		for i, p := range all {
			ks[i] = e.pieceKey(p)
		}
		return ks
	}
	return recall(ctx, e.memo, keys, vecs, decodeFloat32s, encodeFloat32s)
}

// pieceKey is the memo key of a piece's vector: the model, the requested
// dimensions and options, and the text as sent (template and instruction
// applied).
func (e *embedding) pieceKey(p piece) string {
	extra, _ := json.Marshal(stringify(p.extra)) // a map[string]string: sorted keys, no error
	return memoKey("embedding/v1", e.spec.Model, strconv.Itoa(e.spec.Dimensions), string(extra), p.text)
}

// Embedder is a bi-encoder whose query and document vectors can be had
// apart, so that a pool's documents are embedded once and ranked for many
// queries (the full-pool deduplication experiment). Kind embedding
// retrievers implement it; their Score is the cosine of these vectors.
type Embedder interface {
	Retriever
	// Model is the server's model id.
	Model() string
	// EmbedQuery is the query's vector: rewritten (if configured), with
	// the instruction and query template, chunks averaged.
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
	// EmbedDocuments are the documents' vectors, with the document
	// template, chunks averaged.
	EmbedDocuments(ctx context.Context, docs []string) ([][]float32, error)
}

func (e *embedding) Model() string { return e.spec.Model }

func (e *embedding) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	query, err := e.rewrite(ctx, query)
	if err != nil {
		return nil, err
	}
	q, _, err := e.vectors(ctx, &query, nil)
	if err != nil {
		return nil, err
	}
	return to32(q), nil
}

func (e *embedding) EmbedDocuments(ctx context.Context, docs []string) ([][]float32, error) {
	_, ds, err := e.vectors(ctx, nil, docs)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(ds))
	for i, d := range ds {
		out[i] = to32(d)
	}
	return out, nil
}

func to32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// Cosine is a·b / (‖a‖·‖b‖), summed in index order; 0 when either vector is
// zero. It panics when the lengths differ.
func Cosine(a, b []float64) float64 {
	if len(a) != len(b) {
		panic("retrieval: Cosine of vectors of different lengths")
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// stringify makes request options comparable.
func stringify(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}
