package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/lib/llm/llamatest"
)

// TestSlurmGPUTemplateWithLlamaServer runs the path an H200 job takes, on
// CI's single-node Slurm and without a GPU: the tag stage's jobs carry the
// template's server block with llama.cpp's llama-server as the server
// command (the tiny chat model of .ci/llm-start.sh, with the grammar that
// makes its answers F.1 JSON), so each job starts the server on the node,
// waits for /health, runs tag against it through $SABER_LLM_BASE_URL and
// stops it on exit. The two tag tasks share the node, each on its own port.
// Every shard completes, its manifest names the model
// the node's server answered with, the job log shows the server's health,
// and the port is free again afterwards.
func TestSlurmGPUTemplateWithLlamaServer(t *testing.T) {
	needSlurm(t)
	bin := llamatest.Env(t, "SABER_LLAMA_SERVER")
	models := llamatest.Env(t, "SABER_LLAMA_MODELS")
	grammars := llamatest.Env(t, "SABER_LLAMA_GRAMMARS")
	const port = 7299 // and 7300 for task 1: outside .ci/llm-start.sh's range
	dir := t.TempDir()
	root := testRoot(t, dir)
	input := filepath.Join(dir, "synth.jsonl")
	if out, code := saber(t, "synth", "--n", "60", "--seed", "5", "--out", input); code != 0 {
		t.Fatalf("synth: %s", out)
	}
	y := fmt.Sprintf(`run: slurmllama
root: %s
log: {progress_seconds: 2}
llm: {model: tiny, temperature: 0, max_tokens: 64, timeout_seconds: 60, concurrency: 4}
ingest:
  sources:
    - name: synth
      paths: [synth.jsonl]
      fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}
benchmark: {ontology: {file: %s}}
tag: {shards: 2, backend: llm, max_invalid_share: 0.9}
slurm:
  defaults: {time: "10"}
  stages:
    tag:
      server:
        command: [%q, -m, "{model}", --jinja, --grammar-file, %q, --host, 127.0.0.1, --port, "{port}", -t, "1", -c, "4096", -np, "2"]
        model: %q
        port: %d
        health_timeout_seconds: 120
`, root, filepath.Join(grammars, "ontology.json"), bin, filepath.Join(grammars, "tag.gbnf"), filepath.Join(models, "chat.gguf"), port)
	cfg := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	submit(t, cfg, "--stages", "ingest,dedup,tag")
	rep := waitIdle(t, cfg, 8*time.Minute)
	for _, s := range rep.Steps {
		// Status lists the whole main line; only these were submitted.
		if !slices.Contains([]string{"ingest", "dedup", "tag"}, s.Stage) {
			continue
		}
		if s.Done != s.Total {
			human, _ := saber(t, "status", "--config", cfg)
			t.Fatalf("%s %s: %d/%d done\n%s", s.Stage, s.Step, s.Done, s.Total, human)
		}
	}
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := layout.Complete(ctx, st, "slurmllama", "topics")
	if err != nil || len(ms) != 2 {
		t.Fatalf("topics manifests: %d, %v", len(ms), err)
	}
	for _, m := range ms {
		if m.Slurm["slurm_job_id"] == "" || len(m.LLM) != 1 || len(m.LLM[0].Models) != 1 ||
			!strings.Contains(m.LLM[0].Models[0].ID, "chat") || m.LLM[0].BaseURL != fmt.Sprintf("http://127.0.0.1:%d/v1", port+m.Shard) {
			// Array task i serves on port + i: the two tasks share this node.
			t.Errorf("shard %d: slurm %v, llm %+v; want a Slurm job whose node's server answered on port %d", m.Shard, m.Slurm, m.LLM, port+m.Shard)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "logs", "slurmllama", "saber-slurmllama-tag_*.out"))
	var healthy bool
	for _, l := range logs {
		if b, _ := os.ReadFile(l); strings.Contains(string(b), "saber: server healthy after") {
			healthy = true
		}
	}
	if !healthy {
		t.Errorf("no tag job log (%v) says the server became healthy", logs)
	}
	for p := port; p < port+2; p++ {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), time.Second); err == nil {
			c.Close()
			t.Errorf("port %d still open after the jobs: the server was not stopped", p)
		}
	}
}
