package stage

import (
	"context"
	"runtime"

	"github.com/saber-math/saber/artifacts/kvcache"
	"github.com/saber-math/saber/artifacts/layout"
)

// The runtime's part of the stages that ask a model: the run's response
// cache and the servers the manifest describes. The client and the ask /
// re-ask / reject / invalid-share helpers are jobs/llmcall's, its options
// jobs/llmstage's, so that the runtime, and the stages that ask no model,
// need none of it.

// LLMCache is the run's cache of LLM answers (<run>/_cache/llm/), shared
// by every stage and shard (llmcall.NewClient builds the client on it).
// The step must declare Cache. Under `saber verify` answers are read from
// the run's cache and new ones written to the scratch storage only: verify
// never writes into the run's root.
func (e *Env) LLMCache() (*kvcache.Cache, error) {
	if !e.decl.Cache {
		return nil, &UndeclaredError{Stage: e.Stage, Step: e.Step, What: "the LLM cache"}
	}
	prefix := layout.LLMCachePrefix(e.Config.Run)
	if e.Out != e.In {
		return kvcache.Layered(e.In, e.Out, prefix), nil
	}
	return kvcache.New(e.Out, prefix), nil
}

// AddLLMServer notes a server the shard asked, which describe describes
// for the manifest (llmServers) once the shard has succeeded: a failed
// shard writes no manifest and asks the server nothing more. describe
// reports false for a server with nothing to record (every answer came
// from the cache). llmcall.Record adds each client's.
func (e *Env) AddLLMServer(describe func(ctx context.Context) (layout.LLMServer, bool)) {
	e.mu.Lock()
	e.llm = append(e.llm, describe)
	e.mu.Unlock()
}

// llmServers describes, for the manifest, each server AddLLMServer noted,
// in the order noted.
func (e *Env) llmServers() []layout.LLMServer {
	e.mu.Lock()
	describers := append([]func(context.Context) (layout.LLMServer, bool)(nil), e.llm...)
	e.mu.Unlock()
	var out []layout.LLMServer
	ctx := e.Log.WithContext(context.Background())
	for _, describe := range describers {
		if s, ok := describe(ctx); ok {
			out = append(out, s)
		}
	}
	return out
}

// Workers is the number of units a shard works on at once: configured
// when set, else the cores. A stage that asks a model sizes it by its
// client instead (llmstage.Workers).
func Workers(configured int) int {
	if configured > 0 {
		return configured
	}
	return runtime.GOMAXPROCS(0)
}
