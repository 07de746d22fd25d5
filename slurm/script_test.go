package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/config"
)

func TestQuote(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", "$(rm -rf /)", "`id`", "a\nb", `\"'`, "; echo hi #"} {
		out, err := exec.Command("bash", "-c", "printf %s "+Quote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("Quote(%q) round trip = %q, %v", s, out, err)
		}
	}
}

// TestHostileValuesStayInert renders a script whose every free-form value is
// hostile, runs it with bash (with fakes for module, the server and the
// stage binary), and checks that nothing ran and every value arrived intact.
func TestHostileValuesStayInert(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	dir := t.TempDir()
	canary := filepath.Join(dir, "PWNED")
	hostile := []string{
		"$(touch " + canary + ")",
		"`touch " + canary + "`",
		"'; touch " + canary + "; echo '",
		"x\ntouch " + canary + "\n",
		`"; touch ` + canary + `; "`,
	}
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	write := func(name, body string) string {
		p := filepath.Join(bin, name)
		if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("module", `printf '%s\0' "$@" >> "`+dir+`/module.args"`+"\n")
	server := write("fake-server", `printf '%s\0' "$@" > "`+dir+`/server.args"`+"\n"+`exec python3 -m http.server "$2" --bind 127.0.0.1 >/dev/null 2>&1`+"\n")
	stageBin := write("stage $(touch PWNED)", `printf '%s\0' "$@" > "`+dir+`/stage.args"`+"\n"+`env > "`+dir+`/stage.env"`+"\n")
	cfgPath := filepath.Join(dir, "cfg `touch "+canary+"`.yaml")
	env := map[string]string{}
	for i, h := range hostile {
		env["HOSTILE_"+string(rune('A'+i))] = h
	}
	s := Script{
		Run: "r", Stage: "tag", Step: "map", JobName: "saber-r-tag", Sharded: true, Shards: 4, LogDir: dir,
		Binary: stageBin, Config: cfgPath,
		R: config.SlurmStage{
			GraceSeconds: 60, Modules: hostile[:2], Env: env,
			Server: &config.Server{Command: []string{server, "{model}", "{port}"}, Model: hostile[0], Port: 18777, HealthPath: "/", HealthTimeoutSeconds: 20},
		},
	}
	text, err := Render(s)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "job.sbatch")
	os.WriteFile(script, []byte(text), 0o755)
	if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	cmd := exec.Command("bash", script)
	cmd.Dir = dir // a relative "touch PWNED" would land on the canary
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("script failed: %v\n%s", err, out)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatalf("a hostile value executed:\n%s", text)
	}
	args := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v\nscript output:\n%s", name, err, out)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	}
	if got := args("stage.args"); strings.Join(got, "|") != "--config|"+cfgPath {
		t.Errorf("stage args %q", got)
	}
	if got := args("module.args"); strings.Join(got, "|") != "load|"+hostile[0]+"|load|"+hostile[1] {
		t.Errorf("module args %q", got)
	}
	if got := args("server.args"); len(got) != 2 || got[0] != hostile[0] || got[1] != "18777" {
		t.Errorf("server args %q", got)
	}
	envOut, _ := os.ReadFile(filepath.Join(dir, "stage.env"))
	for k, v := range env {
		if !strings.Contains(string(envOut), k+"="+v) {
			t.Errorf("%s did not arrive intact", k)
		}
	}
	if !strings.Contains(string(envOut), "SABER_LLM_BASE_URL=http://127.0.0.1:18777/v1") || !strings.Contains(string(envOut), "SABER_SHARD_COUNT=4") {
		t.Errorf("stage env lacks the server URL or shard count")
	}
	// The server was stopped when the script exited.
	if c := exec.Command("curl", "-sf", "http://127.0.0.1:18777/"); c.Run() == nil {
		t.Error("server still answering after the job ended")
	}
}

func TestHostileSbatchValuesRejected(t *testing.T) {
	for _, y := range []string{
		"slurm: {defaults: {partition: \"cpu\\n#SBATCH --uid=0\"}}",
		"slurm: {defaults: {time: \"$(reboot)\"}}",
		"slurm: {defaults: {extra: [\"--comment=$(id)\"]}}",
		"slurm: {defaults: {extra: [\"--x=1 --y=2\"]}}",
		"slurm: {defaults: {env: {\"A;B\": x}}}",
		"slurm: {log_dir: \"/tmp/a b\"}",
		"slurm: {defaults: {gres: \"gpu:1\\nrm\"}}",
	} {
		if _, err := config.Parse([]byte("run: r\nroot: d\n" + y + "\n")); err == nil {
			t.Errorf("accepted %s", y)
		}
	}
	if _, err := config.Parse([]byte("root: d\nrun: \"$(id)\"\n")); err == nil {
		t.Error("accepted a run name with $(...)")
	}
}
