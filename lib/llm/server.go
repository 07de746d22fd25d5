package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"time"
)

// ServerModel is one entry of a server's model list (GET /models): its id
// and the numeric metadata the server gives about its size, such as
// llama.cpp's meta.n_params, meta.size (bytes), meta.n_embd and
// meta.n_ctx_train, or vLLM's max_model_len. A single-model server
// (llama-server, TEI) answers to any model name, so the configured name
// alone does not say which model answered; this does.
type ServerModel struct {
	ID   string             `json:"id"`
	Meta map[string]float64 `json:"meta,omitempty"`
}

// ServerInfo is what a client learnt about the server it talked to: the
// model list and the distinct system_fingerprint values of its chat
// answers (a server build and configuration; sorted).
type ServerInfo struct {
	Models       []ServerModel `json:"models,omitempty"`
	Fingerprints []string      `json:"system_fingerprints,omitempty"`
	// ModelsError says why the model list is missing (an endpoint the
	// server lacks, a timeout); the list is provenance, not needed to run.
	ModelsError string `json:"models_error,omitempty"`
}

// modelsTimeout bounds the one GET /models of ServerInfo.
const modelsTimeout = 10 * time.Second

// ServerInfo returns the server's model list, fetched once per client
// (later calls return the first answer), and the fingerprints seen so
// far. It makes no request when the client has sent none (every answer
// then came from the cache, and no server is to be described) or has met
// a ConfigError (the server refuses it).
func (c *Client) ServerInfo(ctx context.Context) ServerInfo {
	c.infoMu.Lock()
	defer c.infoMu.Unlock()
	if !c.modelsDone && c.sent.Load() > 0 && c.broken.Load() == nil {
		c.modelsDone = true
		c.models, c.modelsErr = c.listModels(ctx)
	}
	info := ServerInfo{Models: c.models}
	if c.modelsErr != nil {
		info.ModelsError = c.modelsErr.Error()
	}
	for fp := range c.fingerprints {
		info.Fingerprints = append(info.Fingerprints, fp)
	}
	sort.Strings(info.Fingerprints)
	return info
}

// listModels is one GET /models, outside the retries and the statistics:
// a failure is recorded, not fatal.
func (c *Client) listModels(ctx context.Context) ([]ServerModel, error) {
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	var raw []byte
	var res *http.Response
	if err := c.call(ctx, http.MethodGet, "models", nil, &raw, &res); err != nil {
		if res != nil && res.StatusCode >= 400 {
			return nil, c.statusError(err, res.StatusCode)
		}
		return nil, fmt.Errorf("GET models: %w", c.redact(err))
	}
	var body struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("GET models: %w", err)
	}
	out := make([]ServerModel, 0, len(body.Data))
	for _, d := range body.Data {
		var m ServerModel
		_ = json.Unmarshal(d["id"], &m.ID)
		add := func(k string, v json.RawMessage) {
			var x float64
			if json.Unmarshal(v, &x) == nil {
				if m.Meta == nil {
					m.Meta = map[string]float64{}
				}
				m.Meta[k] = x
			}
		}
		for k, v := range d {
			if k != "created" { // a timestamp, not the model's
				add(k, v)
			}
		}
		var meta map[string]json.RawMessage
		if json.Unmarshal(d["meta"], &meta) == nil {
			for k, v := range meta {
				add(k, v)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// noteFingerprint records a chat answer's system_fingerprint.
func (c *Client) noteFingerprint(fp string) {
	if fp == "" {
		return
	}
	c.infoMu.Lock()
	if c.fingerprints == nil {
		c.fingerprints = map[string]bool{}
	}
	c.fingerprints[fp] = true
	c.infoMu.Unlock()
}
