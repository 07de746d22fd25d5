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

// PortSpread is how many ports from server.port up the array tasks of
// one stage use: task i serves on port + i mod PortSpread, so tasks that
// share a node (CPU nodes, nodes with several GPUs) do not all bind one
// port. The config refuses a port the spread would take past 65535.
func (Script) PortSpread() int { return 1000 }

// ServerWords is the server command as shell words, {model} substituted
// and {port} the script's $server_port (the task's own port).
func (s Script) ServerWords() []string {
	sv := s.R.Server
	out := make([]string, len(sv.Command))
	for i, a := range sv.Command {
		parts := strings.Split(strings.ReplaceAll(a, "{model}", sv.Model), "{port}")
		for k := range parts {
			if parts[k] != "" || len(parts) == 1 { // an empty argument stays ''
				parts[k] = Quote(parts[k])
			}
		}
		out[i] = strings.Join(parts, `"${server_port}"`)
	}
	return out
}

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
