package retrieval

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/llm"
)

// A Builder constructs a retriever of one kind from its spec, which has
// its defaults filled in and has passed Validate, and the spec's
// formatter. Errors of configuration or environment wrap
// retrievers.ErrBadSpec.
type Builder func(ctx context.Context, name string, spec retrievers.Spec, f retrievers.Formatter, opt Options) (Retriever, error)

// builders holds the build half of every kind of jobs/retrievers' registry,
// keyed by kind name; the declaration half stays there because it must not
// link lib/llm. TestEveryKindHasABuilder keeps the two in step.
var builders = map[string]Builder{
	retrievers.KindEmbedding: httpBuilder(func(h httpBase) Retriever { return &embedding{httpBase: h} }),
	retrievers.KindRerank:    httpBuilder(func(h httpBase) Retriever { return &crossEncoder{httpBase: h, call: (*llm.Client).Rerank} }),
	retrievers.KindScore:     httpBuilder(func(h httpBase) Retriever { return &crossEncoder{httpBase: h, call: (*llm.Client).Score} }),
	retrievers.KindChat:      httpBuilder(func(h httpBase) Retriever { return &chatReranker{httpBase: h} }),
	retrievers.KindPlugin: func(ctx context.Context, name string, spec retrievers.Spec, f retrievers.Formatter, opt Options) (Retriever, error) {
		p, err := startPlugin(ctx, name, spec, f, opt)
		if err != nil {
			return nil, err // not a nil *plugin in a non-nil Retriever
		}
		return p, nil
	},
}

var buildersMu sync.RWMutex

// RegisterBuilder adds the builder of a kind registered with
// retrievers.Register and returns the function that removes it again (a
// test's cleanup). A kind that ships with saber belongs in the builders'
// literal instead. It panics on a kind that already has a builder.
func RegisterBuilder(kind string, b Builder) (unregister func()) {
	buildersMu.Lock()
	defer buildersMu.Unlock()
	if _, ok := builders[kind]; ok {
		panic(fmt.Sprintf("retrieval: RegisterBuilder(%q): kind already has a builder", kind))
	}
	builders[kind] = b
	return func() {
		buildersMu.Lock()
		defer buildersMu.Unlock()
		delete(builders, kind)
	}
}

// BuilderKinds lists the kinds that have a builder, sorted.
func BuilderKinds() []string {
	buildersMu.RLock()
	defer buildersMu.RUnlock()
	return slices.Sorted(maps.Keys(builders))
}

func builder(kind string) (Builder, bool) {
	buildersMu.RLock()
	defer buildersMu.RUnlock()
	b, ok := builders[kind]
	return b, ok
}

// httpBuilder builds a kind that calls an OpenAI-compatible server: the
// client of the spec's LLMConfig and, with rewrite, the rewriter's, handed
// to wrap, which makes the kind's retriever of them.
func httpBuilder(wrap func(httpBase) Retriever) Builder {
	return func(_ context.Context, name string, spec retrievers.Spec, f retrievers.Formatter, opt Options) (Retriever, error) {
		lc := spec.LLMConfig()
		lc.Settings = "retrievers." + name // messages name its keys
		c, err := llm.New(lc, nil)
		if err != nil {
			return nil, fmt.Errorf("retrievers.%s: %v: %w", name, err, retrievers.ErrBadSpec)
		}
		h := httpBase{name: name, spec: spec, f: f, client: c}
		if opt.Cache != nil {
			h.memo = &memo{c: opt.Cache}
		}
		if spec.Rewrite != nil {
			rcfg := spec.RewriteConfig()
			rcfg.Settings = "retrievers." + name + ".rewrite"
			rc, err := llm.New(rcfg, nil)
			if err != nil {
				return nil, fmt.Errorf("retrievers.%s.rewrite: %v: %w", name, err, retrievers.ErrBadSpec)
			}
			h.rewriter = rc
		}
		return wrap(h), nil
	}
}
