// Package slurm runs the pipeline on a Slurm cluster: it renders one sbatch
// script per stage step from an embedded template, submits only the missing
// shards as job arrays chained with afterok, records the job ids in the run's
// storage, and reports status from manifests, squeue and sacct.
//
// Nothing here knows a particular stage: every stage runs the same way, from
// the stage registry's names, steps and shard counts.
package slurm

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/saber-math/saber/jobs/config"
)

//go:embed templates/*.tmpl
var templates embed.FS

var scriptTmpl = template.Must(template.New("stage.sbatch.tmpl").Funcs(template.FuncMap{"q": Quote}).
	ParseFS(templates, "templates/stage.sbatch.tmpl"))

// Quote returns s as one shell word: single-quoted, with every single quote
// written as '\”. Inside single quotes the shell expands nothing, so no
// value — $(…), backquotes, ;, newlines — can run as code.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Script is everything one rendered sbatch script needs.
type Script struct {
	Run, Stage, Step string
	JobName          string
	Sharded          bool
	Shards           int
	// Offset is added to SLURM_ARRAY_TASK_ID to give the shard index.
	Offset         int
	LogDir         string
	Binary, Config string
	R              config.SlurmStage
	// MaxRequeues bounds the requeues after exit 75 (slurm.max_requeues).
	MaxRequeues int
	// Then are further one-task steps the job runs after its own, in order
	// (the final reduce: report, then release); the binary of each.
	Then []Command
}

// Command is one stage binary a job runs.
type Command struct {
	Label  string
	Binary string
	Reduce bool
}

// Commands are the binaries the job runs, in order.
func (s Script) Commands() []Command {
	first := Command{Label: s.Stage + " " + s.Step, Binary: s.Binary, Reduce: !s.Sharded}
	return append([]Command{first}, s.Then...)
}

// Server returns the stage's server settings, if it has any.
func (s Script) Server() *config.Server { return s.R.Server }

// EnvKeys are the environment's names in a stable order.
func (s Script) EnvKeys() []string {
	keys := make([]string, 0, len(s.R.Env))
	for k := range s.R.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ServerArgv is the server command with {model} and {port} substituted.
func (s Script) ServerArgv() []string {
	sv := s.R.Server
	out := make([]string, len(sv.Command))
	r := strings.NewReplacer("{model}", sv.Model, "{port}", strconv.Itoa(sv.Port))
	for i, a := range sv.Command {
		out[i] = r.Replace(a)
	}
	return out
}

// ServerLine is the server command for the log, as one string.
func (s Script) ServerLine() string { return strings.Join(s.ServerArgv(), " ") }

// HealthURL is polled until the server answers.
func (s Script) HealthURL() string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", s.R.Server.Port, s.R.Server.HealthPath)
}

// BaseURL is what the stage talks to.
func (s Script) BaseURL() string { return fmt.Sprintf("http://127.0.0.1:%d/v1", s.R.Server.Port) }

// JobName is saber-<run>-<stage>, plus -reduce for a reduce step.
func JobName(run, stage, step string) string {
	if step == "reduce" {
		return "saber-" + run + "-" + stage + "-reduce"
	}
	return "saber-" + run + "-" + stage
}

// Render renders the script.
func Render(s Script) (string, error) {
	for name, v := range map[string]string{"binary": s.Binary, "config": s.Config} {
		if strings.ContainsAny(v, "\x00\n\r") {
			return "", fmt.Errorf("render %s: %s path has a newline", s.JobName, name)
		}
	}
	for _, c := range s.Then {
		if strings.ContainsAny(c.Binary+c.Label, "\x00\n\r\"") {
			return "", fmt.Errorf("render %s: binary %q has a newline or quote", s.JobName, c.Binary)
		}
	}
	var buf bytes.Buffer
	if err := scriptTmpl.Execute(&buf, s); err != nil {
		return "", fmt.Errorf("render %s: %w", s.JobName, err)
	}
	return buf.String(), nil
}
