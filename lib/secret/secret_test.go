package secret

import "testing"

// TestLooks: known token shapes and long random runs are secrets, named by
// what they look like; names, paths, model ids and URLs are not.
func TestLooks(t *testing.T) {
	for _, tt := range []struct {
		v      string
		secret bool
	}{
		{"sk-proj-AbCdEfGhIjKlMnOpQrStUv", true},
		{"hf_AuditSecretTokenAbCdEfGhIjKlMnOpQrSt", true},
		{"AKIAIOSFODNN7EXAMPLE", true},
		{"ghp_0123456789abcdefghijABCDEFGHIJ", true},
		{"-----BEGIN RSA PRIVATE KEY-----", true},
		{"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", true},
		{"OPENAI_API_KEY", false},
		{"HF_TOKEN", false},
		{"meta-llama/Llama-3.1-8B-Instruct", false},
		{"/scratch/hf/models--Qwen--Qwen3-Embedding-0.6B/snapshots/0e9e39f249a16976918f6564b8830bc894c89659", false},
		{"http://127.0.0.1:8000/v1", false},
		{"", false},
	} {
		if got := Looks(tt.v); (got != "") != tt.secret {
			t.Errorf("Looks(%q) = %q, want a secret: %v", tt.v, got, tt.secret)
		}
	}
}

func TestFilePath(t *testing.T) {
	for v, want := range map[string]bool{
		"/run/keys/k": true, "~/.key": true, "./k": true, "../k": true, "$HOME/k": true,
		"k": false, "": false, "/a b": false, "sk-abc": false,
	} {
		if got := FilePath(v); got != want {
			t.Errorf("FilePath(%q) = %v, want %v", v, got, want)
		}
	}
}
