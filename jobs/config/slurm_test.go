package config

import (
	"strings"
	"testing"
)

// TestSlurmEnvRefusesSecrets: a slurm.defaults.env (or stage env) variable whose name looks like
// a credential is a config error that names it and says how credentials
// reach jobs instead; ordinary names pass.
func TestSlurmEnvRefusesSecrets(t *testing.T) {
	for _, name := range []string{"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "HF_TOKEN", "OPENAI_API_KEY", "aws_access_key_id",
		"PGPASSWORD", "DB_PASS", "GITHUBTOKEN", "MY_CREDENTIALS", "SABER_LLM_APIKEY"} {
		for _, where := range []string{"defaults: {env: {%s: x}}", "stages: {judge: {env: {%s: x}}}"} {
			y := "run: r\nroot: d\nslurm: {" + strings.Replace(where, "%s", name, 1) + "}\n"
			_, err := Parse([]byte(y), toySection)
			if err == nil || !strings.Contains(err.Error(), ".env."+name+": looks like a secret") ||
				!strings.Contains(err.Error(), "export the variable in the shell that runs `saber submit`") {
				t.Errorf("%s: err = %v, want a refusal naming it and the way credentials reach jobs", y, err)
			}
		}
	}
	for _, name := range []string{"HF_HOME", "AWS_REGION", "AWS_PROFILE", "VLLM_WORKER_MULTIPROC_METHOD", "SABER_KEYSPACE", "MONKEY", "OMP_NUM_THREADS"} {
		if _, err := Parse([]byte("run: r\nroot: d\nslurm: {defaults: {env: {"+name+": x}}}\n"), toySection); err != nil {
			t.Errorf("%s refused: %v", name, err)
		}
	}
}

// TestSlurmMaxRequeues: 3 when left out, any n ≥ 0 when given.
func TestSlurmMaxRequeues(t *testing.T) {
	for y, want := range map[string]int{"": DefaultMaxRequeues, "slurm: {max_requeues: 0}\n": 0, "slurm: {max_requeues: 10}\n": 10} {
		c, err := Parse([]byte("run: r\nroot: d\n"+y), toySection)
		if err != nil {
			t.Fatalf("%q: %v", y, err)
		}
		if got := c.Slurm.Requeues(); got != want {
			t.Errorf("%q: max_requeues %d, want %d", y, got, want)
		}
	}
	if _, err := Parse([]byte("run: r\nroot: d\nslurm: {max_requeues: -1}\n"), toySection); err == nil || !strings.Contains(err.Error(), "slurm.max_requeues: must be ≥ 0") {
		t.Errorf("max_requeues -1: %v", err)
	}
}

// TestSlurmEnvRefusesSecretValues: a value shaped like a credential is
// refused whatever its variable's name, and the error never quotes it; a
// _FILE variable holding a path is allowed (the key stays in the file),
// one holding anything else is not; ordinary values (paths, model names,
// commits) pass.
func TestSlurmEnvRefusesSecretValues(t *testing.T) {
	secrets := map[string]string{
		"GITHUB_PAT":   "ghp_" + strings.Repeat("aB3dE", 8),
		"GH_FINE":      "github_pat_11ABCDEFG0" + strings.Repeat("x9Y", 12),
		"OPENAI":       "sk-proj-" + strings.Repeat("Zq7", 10),
		"ANTHROPIC":    "sk-ant-api03-" + strings.Repeat("Hk2", 10),
		"SLACK":        "xoxb-123456789012-abcdefABCDEF",
		"AWS_ID":       "AKIAIOSFODNN7EXAMPLE",
		"HF":           "hf_" + strings.Repeat("QwErTy", 6),
		"SESSION":      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"MY_VAR":       "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"RANDOM":       "fRYcYOaYyo3wPTYpbhOtjb9PfJiekmRn",
		"IN_ARGS":      "--header Authorization=" + "Zd-t3w88tJ6Tt5DEEsfTc2b0oWa8b6b6JKhKhDuZyIq",
		"KEY_FILE_BAD": "not a path",
	}
	for name, value := range secrets {
		if name == "KEY_FILE_BAD" {
			name = "OPENAI_KEY_FILE"
		}
		y := "run: r\nroot: d\nslurm: {defaults: {env: {" + name + ": '" + value + "'}}}\n"
		_, err := Parse([]byte(y), toySection)
		if err == nil || !strings.Contains(err.Error(), ".env."+name+":") {
			t.Errorf("%s: err = %v, want a refusal naming it", name, err)
			continue
		}
		if strings.Contains(err.Error(), value) {
			t.Errorf("%s: the error quotes the value: %v", name, err)
		}
	}
	for name, value := range map[string]string{
		"OPENAI_KEY_FILE":              "/run/keys/k",
		"AWS_SHARED_CREDENTIALS_FILE":  "~/.aws/credentials",
		"HF_TOKEN_FILE":                "$HOME/.cache/huggingface/token",
		"HF_HOME":                      "/scratch/p_2001234/Saber/hf/models--meta-llama--Llama-3.1-8B/snapshots/0e9e39f249a16976918f6564b8830bc894c89659",
		"MODEL":                        "Qwen/Qwen2.5-Math-72B-Instruct-GPTQ-Int4",
		"SABER_COMMIT":                 "af28890d36c2f5f214063e46b94bd03c474006a62bbb0234699f1c0ee449cb52",
		"PYTORCH_CUDA_ALLOC_CONF":      "expandable_segments:True,garbage_collection_threshold:0.6",
		"VLLM_WORKER_MULTIPROC_METHOD": "spawn",
		"OMP_NUM_THREADS":              "8",
		"PATH_EXTRA":                   "/gpfs/projects/saber/venvs/vllm-0.6.3/bin:/usr/local/cuda-12.4/bin",
		"DESK":                         "skip-the-desk",
	} {
		if _, err := Parse([]byte("run: r\nroot: d\nslurm: {defaults: {env: {"+name+": '"+value+"'}}}\n"), toySection); err != nil {
			t.Errorf("%s=%s refused: %v", name, value, err)
		}
	}
}
