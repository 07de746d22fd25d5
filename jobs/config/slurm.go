package config

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/saber-math/saber/lib/secret"
)

// Slurm configures `saber submit`: where logs and binaries are on the
// cluster's shared filesystem, and the resources of each stage's jobs.
type Slurm struct {
	// LogDir receives job logs and the rendered scripts (<log_dir>/sbatch/);
	// it must be visible from the compute nodes. Default <config dir>/logs/<run>.
	LogDir string `yaml:"log_dir" json:"log_dir"`
	// BinDir holds the stage binaries on the compute nodes; default the
	// directory of the saber binary that submits.
	BinDir string `yaml:"bin_dir" json:"bin_dir"`
	// MaxArraySize overrides the cluster's MaxArraySize (0: read it from
	// `scontrol show config`).
	MaxArraySize int `yaml:"max_array_size" json:"max_array_size"`
	// MaxRequeues is how many times a job script requeues a task that
	// exited 75 (transient) before it lets the task fail instead: a failure
	// that is transient every time is not (default 3; 0: never requeue).
	MaxRequeues *int `yaml:"max_requeues" json:"max_requeues"`
	// Defaults apply to every stage; Stages override them per stage name.
	Defaults SlurmStage            `yaml:"defaults" json:"defaults"`
	Stages   map[string]SlurmStage `yaml:"stages" json:"stages"`
}

// SlurmStage is the resources and environment of one stage's jobs. Every
// value is validated and rendered shell-quoted: nothing in it is run as code.
type SlurmStage struct {
	Partition string `yaml:"partition" json:"partition,omitempty"`
	Account   string `yaml:"account" json:"account,omitempty"`
	QOS       string `yaml:"qos" json:"qos,omitempty"`
	// Time is the job time limit (minutes, or [D-]HH:MM:SS).
	Time string `yaml:"time" json:"time,omitempty"`
	// CPUs per task.
	CPUs int `yaml:"cpus" json:"cpus,omitempty"`
	// Mem per node, e.g. 16G.
	Mem string `yaml:"mem" json:"mem,omitempty"`
	// Gres, e.g. gpu:h200:1.
	Gres string `yaml:"gres" json:"gres,omitempty"`
	// Throttle caps the array's tasks running at once (--array=...%T); 0: no cap.
	Throttle int `yaml:"throttle" json:"throttle,omitempty"`
	// GraceSeconds: Slurm sends USR1 this long before the time limit (default 120).
	GraceSeconds int `yaml:"grace_seconds" json:"grace_seconds,omitempty"`
	// Extra are further sbatch options, one per entry: --constraint=h200.
	Extra []string `yaml:"extra" json:"extra,omitempty"`
	// Modules are loaded with `module load` before the stage runs.
	Modules []string `yaml:"modules" json:"modules,omitempty"`
	// Venv is a Python virtual environment to activate (its bin/activate).
	Venv string `yaml:"venv" json:"venv,omitempty"`
	// Env is exported before the stage runs.
	Env map[string]string `yaml:"env" json:"env,omitempty"`
	// Server starts an OpenAI-compatible server on the node for GPU stages.
	Server *Server `yaml:"server" json:"server,omitempty"`
}

// Server is an OpenAI-compatible server a GPU stage talks to: started on
// the node by the job script (Command), or an external Endpoint.
type Server struct {
	// Command is the argv that starts the server; {model} and {port} are
	// substituted. Default: vllm serve {model} --port {port}. Array task i
	// serves on Port + i mod 1000, so tasks sharing a node do not collide.
	Command []string `yaml:"command" json:"command,omitempty"`
	Model   string   `yaml:"model" json:"model,omitempty"`
	Port    int      `yaml:"port" json:"port,omitempty"`
	// HealthPath is polled until it answers 200 (default /health).
	HealthPath string `yaml:"health_path" json:"health_path,omitempty"`
	// HealthTimeoutSeconds bounds the wait for the server (default 900).
	HealthTimeoutSeconds int `yaml:"health_timeout_seconds" json:"health_timeout_seconds,omitempty"`
	// Endpoint, when set, is an external server's base URL: nothing is started.
	Endpoint string `yaml:"endpoint" json:"endpoint,omitempty"`
}

// DefaultMaxRequeues is slurm.max_requeues when the config leaves it out.
const DefaultMaxRequeues = 3

// Requeues is slurm.max_requeues, or its default.
func (s Slurm) Requeues() int {
	if s.MaxRequeues == nil {
		return DefaultMaxRequeues
	}
	return *s.MaxRequeues
}

// SlurmFor merges the defaults with the stage's own settings.
func (c *Config) SlurmFor(stage string) SlurmStage {
	d := c.Slurm.Defaults
	s, ok := c.Slurm.Stages[stage]
	if !ok {
		return withSlurmDefaults(d)
	}
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	m := SlurmStage{
		Partition: pick(s.Partition, d.Partition), Account: pick(s.Account, d.Account), QOS: pick(s.QOS, d.QOS),
		Time: pick(s.Time, d.Time), Mem: pick(s.Mem, d.Mem), Gres: pick(s.Gres, d.Gres), Venv: pick(s.Venv, d.Venv),
		CPUs: max(s.CPUs, 0), Throttle: s.Throttle, GraceSeconds: s.GraceSeconds,
		Extra: append(append([]string(nil), d.Extra...), s.Extra...), Modules: append(append([]string(nil), d.Modules...), s.Modules...),
		Server: s.Server,
	}
	if m.CPUs == 0 {
		m.CPUs = d.CPUs
	}
	if m.Throttle == 0 {
		m.Throttle = d.Throttle
	}
	if m.GraceSeconds == 0 {
		m.GraceSeconds = d.GraceSeconds
	}
	if m.Server == nil {
		m.Server = d.Server
	}
	m.Env = map[string]string{}
	for k, v := range d.Env {
		m.Env[k] = v
	}
	for k, v := range s.Env {
		m.Env[k] = v
	}
	return withSlurmDefaults(m)
}

func withSlurmDefaults(s SlurmStage) SlurmStage {
	if s.GraceSeconds == 0 {
		s.GraceSeconds = 120
	}
	if s.Server != nil {
		sv := *s.Server
		if len(sv.Command) == 0 {
			sv.Command = []string{"vllm", "serve", "{model}", "--port", "{port}"}
		}
		if sv.Port == 0 {
			sv.Port = 8000
		}
		if sv.HealthPath == "" {
			sv.HealthPath = "/health"
		}
		if sv.HealthTimeoutSeconds == 0 {
			sv.HealthTimeoutSeconds = 900
		}
		s.Server = &sv
	}
	return s
}

// Patterns for values that go into #SBATCH lines, which sbatch parses
// itself (no shell quoting applies there): only what real values need.
var (
	reSlurmName = regexp.MustCompile(`^[A-Za-z0-9_.,+-]+$`)
	reSlurmTime = regexp.MustCompile(`^([0-9]+-)?[0-9]+(:[0-9]+){0,2}$`)
	reSlurmMem  = regexp.MustCompile(`^[0-9]+[KMGT]?$`)
	reSlurmGres = regexp.MustCompile(`^[A-Za-z0-9_.,:+-]+$`)
	reSlurmOpt  = regexp.MustCompile(`^--[a-z][a-z0-9-]*(=[A-Za-z0-9_.,:=/@%+-]+)?$`)
	reEnvName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	reSafePath  = regexp.MustCompile(`^[^\x00-\x1f\x7f"'\s\\]+$`)
)

func (c *Config) validateSlurm(bad func(string, ...any)) {
	s := c.Slurm
	if s.LogDir != "" && !reSafePath.MatchString(s.LogDir) {
		bad("slurm.log_dir: %q must have no white space, quotes, backslashes or control characters", s.LogDir)
	}
	if s.BinDir != "" && strings.ContainsAny(s.BinDir, "\x00\n\r") {
		bad("slurm.bin_dir: must not contain newlines")
	}
	if s.MaxArraySize < 0 {
		bad("slurm.max_array_size: must be ≥ 0")
	}
	if s.Requeues() < 0 {
		bad("slurm.max_requeues: must be ≥ 0")
	}
	validateSlurmStage("slurm.defaults", s.Defaults, bad)
	names := make([]string, 0, len(s.Stages))
	for n := range s.Stages {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		validateSlurmStage("slurm.stages."+n, s.Stages[n], bad)
	}
}

func validateSlurmStage(p string, s SlurmStage, bad func(string, ...any)) {
	check := func(field, v string, re *regexp.Regexp, what string) {
		if v != "" && !re.MatchString(v) {
			bad("%s.%s: %q is not %s", p, field, v, what)
		}
	}
	check("partition", s.Partition, reSlurmName, "a Slurm name (letters, digits, _ . , + -)")
	check("account", s.Account, reSlurmName, "a Slurm name (letters, digits, _ . , + -)")
	check("qos", s.QOS, reSlurmName, "a Slurm name (letters, digits, _ . , + -)")
	check("time", s.Time, reSlurmTime, "a time limit (minutes, or [D-]HH:MM:SS)")
	check("mem", s.Mem, reSlurmMem, "a memory size (e.g. 16G)")
	check("gres", s.Gres, reSlurmGres, "a gres (e.g. gpu:h200:1)")
	if s.CPUs < 0 || s.Throttle < 0 || s.GraceSeconds < 0 {
		bad("%s: cpus, throttle and grace_seconds must be ≥ 0", p)
	}
	for i, e := range s.Extra {
		check(fmt.Sprintf("extra[%d]", i), e, reSlurmOpt, "one sbatch option like --constraint=h200")
		if e == "" {
			bad("%s.extra[%d]: empty", p, i)
		}
	}
	for i, m := range s.Modules {
		if m == "" || strings.ContainsAny(m, "\x00\n\r") {
			bad("%s.modules[%d]: empty or has a newline", p, i)
		}
	}
	if strings.ContainsAny(s.Venv, "\x00\n\r") {
		bad("%s.venv: has a newline", p)
	}
	// Neither message quotes the value: it may be the secret.
	const how = "the config and the sbatch scripts rendered from it are files others may read, so credentials never go in them: " +
		"export the variable in the shell that runs `saber submit` (sbatch passes that environment to the jobs), or put the secret in a file " +
		"only you can read and give its path in a variable ending in _FILE, or use a credentials file the jobs read " +
		"(AWS_PROFILE with ~/.aws/credentials) — docs/admin.md#credentials"
	for k, v := range s.Env {
		isFile := strings.HasSuffix(strings.ToUpper(k), "_FILE")
		switch {
		case !reEnvName.MatchString(k):
			bad("%s.env: %q is not a variable name", p, k)
		case secret.Looks(v) != "":
			bad("%s.env.%s: its value looks like a secret (%s); %s", p, k, secret.Looks(v), how)
		case isFile && !secret.FilePath(v):
			bad("%s.env.%s: a _FILE variable names the file that holds a secret: its value must be a path (/…, ~/…, ./…, $VAR/…), not the secret; %s", p, k, how)
		case isFile:
			// A path to a key is not the key: OPENAI_KEY_FILE: /run/keys/k.
		case secretWord(k) != "":
			bad("%s.env.%s: looks like a secret (%s); %s", p, k, secretWord(k), how)
		}
		if strings.ContainsRune(v, 0) {
			bad("%s.env.%s: has a NUL byte", p, k)
		}
	}
	if sv := s.Server; sv != nil {
		if sv.Endpoint == "" && sv.Model == "" && len(sv.Command) == 0 {
			bad("%s.server: give a model (and optionally command), or an external endpoint", p)
		}
		// Array task i serves on port + i mod 1000 (slurm's PortSpread).
		if sv.Port < 0 || sv.Port > 65535-999 {
			bad("%s.server.port: %d out of range (0–64536: array tasks serve on the next 999 ports too)", p, sv.Port)
		}
		if sv.HealthPath != "" && (!strings.HasPrefix(sv.HealthPath, "/") || !reSafePath.MatchString(sv.HealthPath)) {
			bad("%s.server.health_path: %q must be a path starting with /", p, sv.HealthPath)
		}
		for i, a := range sv.Command {
			if strings.ContainsRune(a, 0) {
				bad("%s.server.command[%d]: has a NUL byte", p, i)
			}
		}
	}
}

// secretWords mark variable names that hold credentials: a name matches
// when one of its _-separated words is one of them (AWS_SECRET_ACCESS_KEY,
// HF_TOKEN, OPENAI_API_KEY), or when it contains one of the longer ones run
// together (PGPASSWORD, GITHUBTOKEN); SABER_KEYSPACE and MONKEY do not.
var secretWords = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "PASS", "CREDENTIAL", "CREDENTIALS", "APIKEY", "AUTH"}

// secretWord returns the word of name that marks it as a secret, or "".
func secretWord(name string) string {
	upper := strings.ToUpper(name)
	for _, part := range strings.Split(upper, "_") {
		for _, w := range secretWords {
			if part == w {
				return w
			}
		}
	}
	// Words run together: PGPASSWORD, GITHUBTOKEN, MYSECRET.
	for _, w := range []string{"PASSWORD", "SECRET", "TOKEN", "CREDENTIAL", "APIKEY"} {
		if strings.Contains(upper, w) {
			return w
		}
	}
	return ""
}
