package config

import (
	"strings"
	"testing"
)

// TestSlurmEnvRefusesSecrets: a slurm.env variable whose name looks like
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
