package llm

import (
	"context"
	"encoding/json"
	"fmt"
)

// Lookup returns the answer a client of cfg would serve for req from
// cache, without a client, a server or the API key (none of them is in the
// key): ok is false when the cache has no readable entry. `saber plan`
// looks up a sample of a rebuild's prompts this way, to say how many calls
// the run's cache will save, reading the cache and writing nothing.
func Lookup(ctx context.Context, cfg Config, cache Cache, req Request) (resp Response, ok bool, err error) {
	if req.NoCache || req.TopLogprobs != 0 {
		return Response{}, false, nil // never cached
	}
	key := cacheKey(cfg, req)
	val, ok, err := cache.Get(ctx, key)
	if err != nil {
		return Response{}, false, fmt.Errorf("llm: reading cache entry %s: %w", key, err)
	}
	if !ok {
		return Response{}, false, nil
	}
	var cr cachedResponse
	if err := json.Unmarshal(val, &cr); err != nil || cr.V != 1 {
		return Response{}, false, nil // Chat calls the model again for it
	}
	return Response{Content: cr.Content, Cached: true, PromptTokens: cr.PromptTokens, CompletionTokens: cr.CompletionTokens}, true, nil
}
