package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/saber-math/saber/lib/hashembed"
	"github.com/saber-math/saber/lib/parallel"
)

// EmbedModel is the model id the demo's embedding server answers to.
const EmbedModel = "saber-demo-hash-256"

// EmbedServer is the demo's fake OpenAI-compatible embedding server: POST
// /v1/embeddings answers with lib/hashembed's vectors, so the demo's
// bi-encoder runs the real client, the stored pool embeddings and the
// blocked full-pool ranking with no model. It listens on a loopback port
// chosen by the system.
type EmbedServer struct {
	URL string // base URL, ending in /v1
	srv *http.Server
	ln  net.Listener
}

// StartEmbedServer starts the server; Close stops it.
func StartEmbedServer() (*EmbedServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo embedding server: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", serveEmbeddings)
	s := &EmbedServer{URL: "http://" + ln.Addr().String() + "/v1", srv: &http.Server{Handler: mux}, ln: ln}
	parallel.Go(func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Println("demo embedding server:", err)
		}
	})
	return s, nil
}

// Close stops the server.
func (s *EmbedServer) Close() error { return s.srv.Shutdown(context.Background()) }

func serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Model      string          `json:"model"`
		Input      json.RawMessage `json:"input"`
		Dimensions int             `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, `{"error":{"message":"bad request body"}}`, http.StatusBadRequest)
		return
	}
	var texts []string
	if err := json.Unmarshal(in.Input, &texts); err != nil {
		var one string
		if err := json.Unmarshal(in.Input, &one); err != nil {
			http.Error(w, `{"error":{"message":"input must be a string or a list of strings"}}`, http.StatusBadRequest)
			return
		}
		texts = []string{one}
	}
	if in.Model != EmbedModel {
		http.Error(w, fmt.Sprintf(`{"error":{"message":"model %q not served (this server serves %s)"}}`, in.Model, EmbedModel), http.StatusNotFound)
		return
	}
	dim := hashembed.Dim
	if in.Dimensions > 0 {
		dim = in.Dimensions
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(texts))
	tokens := 0
	for i, t := range texts {
		data[i] = item{Object: "embedding", Index: i, Embedding: hashembed.Vector(t, dim)}
		tokens += len(strings.Fields(t))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "model": in.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}
