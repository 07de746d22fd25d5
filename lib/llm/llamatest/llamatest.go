// Package llamatest gives tests the real OpenAI-compatible servers that
// .ci/llm-start.sh starts: llama.cpp's llama-server with tiny GGUF models
// of random weights, one server per role (chat, tag, summarize, judge,
// gptoss, audit, number, keyed, embed, rerank; the script's header says
// what each serves and with which grammar). Without them a test skips
// locally and fails under CI=true or SABER_LLAMA_REQUIRED=1 (.ci/run starts
// them and sets both).
package llamatest

import (
	"os"
	"strings"
	"testing"
)

// Env returns the variable .ci/llm-start.sh exported, skipping the test
// when it is unset (failing it under CI=true).
func Env(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v != "" {
		return v
	}
	msg := "$" + name + " is unset: no real LLM server (start them with: . \"$(bash .ci/llm-start.sh | tail -n 1)\")"
	// CI starts them (.ci/run): there a missing server fails, as for S3
	// and Slurm.
	if os.Getenv("SABER_LLAMA_REQUIRED") == "1" || os.Getenv("CI") == "true" {
		t.Fatal(msg + "; under CI=true or SABER_LLAMA_REQUIRED=1 the tests that need it fail")
	}
	t.Skip(msg)
	return ""
}

// URL is the base URL (…/v1) of the server of role.
func URL(t testing.TB, role string) string {
	t.Helper()
	return Env(t, "SABER_LLAMA_"+strings.ToUpper(role)+"_URL")
}

// Key is the API key the keyed server wants (a local test value).
func Key(t testing.TB) string {
	t.Helper()
	return Env(t, "SABER_LLAMA_KEY")
}
