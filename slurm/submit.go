package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// Runner runs a cluster command and returns its stdout; tests substitute it.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) (string, error)
}

// ExecRunner runs commands for real. A failure is a *CommandError, whose
// exit code says what to do about it: a command not on PATH, or one that
// refused what it was asked (an invalid partition, account or QOS), is 2;
// a controller that did not answer, or an interrupted command, is 75.
type ExecRunner struct{}

// Run implements Runner.
func (ExecRunner) Run(ctx context.Context, name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), commandError(ctx, name, args, strings.TrimSpace(errb.String()), err)
	}
	return out.String(), nil
}

// CommandError is a Slurm command that failed. Its message is the command
// line and what the command wrote on stderr (or why it did not start):
// never the environment.
type CommandError struct {
	Name string
	Args []string
	// Msg is the command's stderr, or why it could not run.
	Msg string
	// Code is the exit code the failure asks for (stage.ExitBadInput,
	// stage.ExitTempFail, or stage.ExitBug for a failure of no known kind).
	Code int
	// Refused is a command that ran and answered with an error that is
	// not the controller's being unreachable: it refused its arguments.
	Refused bool
	Err     error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Name, strings.Join(e.Args, " "), e.Msg)
}
func (e *CommandError) Unwrap() error { return e.Err }

// ExitCode implements stage.ExitCoder.
func (e *CommandError) ExitCode() int { return e.Code }

// unreachable are what Slurm's commands say when the controller (or the
// network to it) does not answer, lower-cased: a later try can succeed.
var unreachable = []string{
	"unable to contact slurm controller",
	"socket timed out",
	"connection refused",
	"connection timed out",
	"connection reset",
	"connect failure",
	"communication connection failure",
	"zero bytes were transmitted or received",
	"temporarily unavailable", // "Resource temporarily unavailable": slurmctld busy
	"temporarily unable to accept job",
	"backup controller in standby mode",
	"not responding",
	"no route to host",
	"network is unreachable",
}

// commandError classifies a failed Slurm command: not on PATH (2, naming
// the command and where it must run), interrupted (75), the controller
// unreachable (75), any other refusal (2, with the command's message).
func commandError(ctx context.Context, name string, args []string, stderr string, err error) *CommandError {
	e := &CommandError{Name: name, Args: args, Msg: stderr, Err: err}
	var ee *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound):
		// The value of PATH is not printed: the environment is nobody's
		// business in a message that lands in logs.
		e.Msg = fmt.Sprintf("%s is not on PATH: saber submit, status and cancel run Slurm's commands (sbatch, squeue, scontrol, scancel, sacct), so run them on a Slurm login node, or add the folder that holds %s to PATH", name, name)
		e.Code = stage.ExitBadInput
	case ctx.Err() != nil:
		e.Err = ctx.Err()
		e.Msg = fmt.Sprintf("interrupted (%v); rerun to resume", ctx.Err())
		e.Code = stage.ExitTempFail
	case errors.As(err, &ee):
		if e.Msg == "" {
			e.Msg = err.Error()
		}
		low := strings.ToLower(e.Msg)
		switch {
		case !ee.Exited():
			// Killed by a signal, not an answer of Slurm's.
			e.Code = stage.ExitTempFail
		case slices.ContainsFunc(unreachable, func(s string) bool { return strings.Contains(low, s) }):
			e.Msg += " (the Slurm controller did not answer: rerun once it is reachable)"
			e.Code = stage.ExitTempFail
		default:
			e.Refused = true
			e.Code = stage.ExitBadInput
		}
	default:
		// It did not start: permission denied (2), or an error of no
		// known kind (1).
		e.Msg = err.Error()
		e.Code = stage.ExitCode(err)
	}
	return e
}

// Options configure Submit.
type Options struct {
	// ConfigPath is the absolute path of the run config, as the jobs will read it.
	ConfigPath string
	// Graph is the pipeline (the registry's when nil); Stages the stages
	// to submit (its main line when nil).
	Graph  *pipeline.Graph
	Stages []stage.Stage
	// Rerun recomputes stale shards and everything downstream of them.
	Rerun  pipeline.Rerun
	DryRun bool
	// AllowQueued submits even when jobs of the run are still queued or running.
	AllowQueued bool
	// BinDir holds the stage binaries on the compute nodes.
	BinDir string
	Out    io.Writer
	Runner Runner
}

// Submission is one sbatch call, as recorded in <root>/<run>/_jobs.json.
type Submission struct {
	Stage  string `json:"stage"`
	Step   string `json:"step"`
	JobID  string `json:"job_id"`
	Name   string `json:"name"`
	Array  string `json:"array,omitempty"`
	Offset int    `json:"offset,omitempty"`
	Shards int    `json:"shards"`
	// Missing are the shard indices this job runs.
	Missing    []int     `json:"missing"`
	Dependency []string  `json:"dependency,omitempty"`
	Script     string    `json:"script"`
	LogDir     string    `json:"log_dir"`
	Submitted  time.Time `json:"submitted"`
}

// Jobs is the content of _jobs.json: every submission of the run, oldest first.
type Jobs struct {
	Run         string       `json:"run"`
	Submissions []Submission `json:"submissions"`
}

// JobsKey is where a run's job ids are recorded (artifacts/layout owns
// every key of the run).
var JobsKey = layout.JobsKey

// ReadJobs reads _jobs.json; a missing file is an empty record.
func ReadJobs(ctx context.Context, st store.Store, run string) (*Jobs, error) {
	data, err := store.ReadAll(ctx, st, JobsKey(run))
	if errors.Is(err, store.ErrNotExist) {
		return &Jobs{Run: run}, nil
	}
	if err != nil {
		return nil, err
	}
	var j Jobs
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("decode %s: %w", st.URI(JobsKey(run)), err)
	}
	return &j, nil
}

func writeJobs(ctx context.Context, st store.Store, j *Jobs) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	_, err = store.Put(ctx, st, JobsKey(j.Run), append(data, '\n'), store.Replace)
	return err
}

// openRun opens the run's storage root and reads its job record.
func openRun(ctx context.Context, cfg *config.Config) (store.Store, *Jobs, error) {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, nil, stage.BadInput(err)
	}
	jobs, err := ReadJobs(ctx, root, cfg.Run)
	if err != nil {
		return nil, nil, err
	}
	return root, jobs, nil
}

// LogDir is where job logs and rendered scripts go.
func LogDir(cfg *config.Config) string {
	if cfg.Slurm.LogDir != "" {
		return cfg.Resolve(cfg.Slurm.LogDir)
	}
	return filepath.Join(cfg.Dir(), "logs", cfg.Run)
}

var reMaxArray = regexp.MustCompile(`(?m)^MaxArraySize\s*=\s*(\d+)`)

// MaxArraySize reads the cluster's MaxArraySize from `scontrol show config`.
func MaxArraySize(ctx context.Context, r Runner) (int, error) {
	out, err := r.Run(ctx, "scontrol", "show", "config")
	if err != nil {
		return 0, err
	}
	m := reMaxArray.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("scontrol show config: no MaxArraySize line")
	}
	return strconv.Atoi(m[1])
}

// ArraySpec renders task ids as Slurm's --array value: runs collapse to
// ranges ("0-3,7,9-12"), and a throttle appends "%T".
func ArraySpec(ids []int, throttle int) string {
	sort.Ints(ids)
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		} else {
			parts = append(parts, strconv.Itoa(ids[i]))
		}
		i = j + 1
	}
	s := strings.Join(parts, ",")
	if throttle > 0 {
		s += "%" + strconv.Itoa(throttle)
	}
	return s
}

// Submit renders and submits every step with missing shards, in the
// pipeline's order, each depending (afterok) on the jobs of this
// submission that write what it reads. Like `saber run` it first refuses
// stale steps (or, with Rerun.Stale, invalidates them and everything
// downstream, so that those shards are submitted again).
func Submit(ctx context.Context, cfg *config.Config, opt Options) ([]Submission, error) {
	s, err := plan(ctx, cfg, opt)
	if err != nil {
		return nil, err
	}
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	batches, err := s.batches()
	if err != nil {
		return nil, err
	}
	for _, members := range batches {
		if err := s.submit(ctx, members); err != nil {
			// What was queued is returned, and recorded already.
			return s.subs, err
		}
	}
	return s.subs, nil
}

// submission is one Submit in progress: the plan of every selected step,
// then the jobs submitted so far.
type submission struct {
	cfg   *config.Config
	opt   Options
	g     *pipeline.Graph
	root  store.Store
	jobs  *Jobs
	plans []*pipeline.StepPlan

	logDir, scriptDir string
	maxArray          int

	// ids holds the job ids of each node submitted here: a step depends
	// on those of the steps that write its inputs, and on nothing else
	// (evaluate runs beside judge and rate).
	ids  map[int][]string
	subs []Submission
}

// plan fills opt's defaults, checks the config's Slurm stages, opens the
// run and plans every selected step (preparing reruns as opt.Rerun asks).
func plan(ctx context.Context, cfg *config.Config, opt Options) (*submission, error) {
	if opt.Runner == nil {
		opt.Runner = ExecRunner{}
	}
	if opt.Out == nil {
		opt.Out = io.Discard
	}
	g := opt.Graph
	if g == nil {
		g = pipeline.Default()
	}
	for name := range cfg.Slurm.Stages {
		if _, err := g.Lookup(name); err != nil {
			return nil, stage.BadInput(fmt.Errorf("slurm.stages.%s: %w", name, err))
		}
	}
	if opt.Stages == nil {
		var err error
		if opt.Stages, err = g.Select(cfg, ""); err != nil {
			return nil, err
		}
	}
	root, jobs, err := openRun(ctx, cfg)
	if err != nil {
		return nil, err
	}
	nodes := g.NodesOf(opt.Stages)
	planner := g.NewPlanner(cfg, root)
	planner.DryRun = opt.DryRun
	if opt.Rerun.Command == "" {
		opt.Rerun.Command = "saber submit --config " + Quote(opt.ConfigPath)
	}
	if err := g.Prepare(ctx, planner, nodes, opt.Rerun, opt.Out); err != nil {
		return nil, err
	}
	s := &submission{cfg: cfg, opt: opt, g: g, root: root, jobs: jobs, ids: map[int][]string{}}
	for _, i := range nodes {
		sp, err := planner.Plan(ctx, i)
		if err != nil {
			return nil, err
		}
		s.plans = append(s.plans, sp)
	}
	return s, nil
}

// ready makes the script folder, refuses to submit beside the run's own
// queued jobs (unless allowed), and learns the largest array Slurm takes.
func (s *submission) ready(ctx context.Context) error {
	cfg, opt := s.cfg, s.opt
	s.logDir = LogDir(cfg)
	s.scriptDir = filepath.Join(s.logDir, "sbatch")
	if err := os.MkdirAll(s.scriptDir, 0o755); err != nil {
		return fmt.Errorf("log dir: %w", err)
	}
	if !opt.DryRun && !opt.AllowQueued {
		active, err := ActiveJobs(ctx, opt.Runner, s.jobs)
		if err != nil {
			return err
		}
		if len(active) > 0 {
			return stage.BadInput(fmt.Errorf("jobs of run %s are still queued or running (%s): wait for them, or `saber cancel --config %s`, or pass --allow-queued",
				cfg.Run, strings.Join(active, ", "), opt.ConfigPath))
		}
	}
	s.maxArray = cfg.Slurm.MaxArraySize
	if s.maxArray == 0 {
		var err error
		if s.maxArray, err = MaxArraySize(ctx, opt.Runner); err != nil {
			if !opt.DryRun {
				return fmt.Errorf("read MaxArraySize (set slurm.max_array_size to skip): %w", err)
			}
			s.maxArray = shard.DefaultMaxArraySize // a dry run must work without a cluster
			fmt.Fprintf(opt.Out, "# scontrol unavailable (%v); assuming MaxArraySize=%d\n", err, s.maxArray)
		}
	}
	return nil
}

// batches are the jobs to submit, in order, each the steps it runs: one
// step a job, except the final reduce — the one-task steps only one-task
// steps follow (report, the audit's reduce, release) — which runs as one
// job, its steps in order: one wait in the queue instead of one per step.
// Steps with every shard done are left out.
func (s *submission) batches() ([][]*pipeline.StepPlan, error) {
	g := s.g
	final := finalReduce(g)
	var group []*pipeline.StepPlan
	var batches [][]*pipeline.StepPlan
	for _, sp := range s.plans {
		n := g.Nodes()[sp.Node]
		if len(sp.Missing) == 0 {
			fmt.Fprintf(s.opt.Out, "# %s %s: all %d shards done; not submitted\n", n.Stage.Name, n.Step.Name, sp.Shards)
			continue
		}
		if final[sp.Node] {
			group = append(group, sp)
			continue
		}
		batches = append(batches, []*pipeline.StepPlan{sp})
	}
	if len(group) == 0 {
		return batches, nil
	}
	// The group goes right after the last job it reads from, so that a
	// step reading what the final reduce writes (downstream's reduce reads
	// report's results) is submitted after it and can wait for it.
	var nodes []int
	for _, m := range group {
		nodes = append(nodes, m.Node)
	}
	anc := map[int]bool{}
	for _, a := range g.Ancestors(nodes) {
		anc[a] = true
	}
	at := 0
	for k, b := range batches {
		if anc[b[0].Node] {
			at = k + 1
		}
	}
	for _, b := range batches[:at] {
		for _, a := range g.Ancestors([]int{b[0].Node}) {
			if slices.Contains(nodes, a) {
				return nil, fmt.Errorf("slurm: %s reads the final reduce's outputs but the final reduce reads its job's (a registry the final reduce cannot be one job of)", g.Nodes()[b[0].Node])
			}
		}
	}
	return slices.Insert(batches, at, group), nil
}

// submit renders, writes and submits one job's scripts (one per chunk of
// its array), each waiting for the jobs of the steps its steps read from,
// and records every job as soon as it is queued.
func (s *submission) submit(ctx context.Context, members []*pipeline.StepPlan) error {
	prev := s.dependencies(members)
	sp := members[0]
	n := s.g.Nodes()[sp.Node]
	sc := s.script(members)
	chunks := []shard.Chunk{{Indices: sp.Missing}}
	if n.Step.Sharded() {
		chunks = shard.Chunks(sp.Missing, s.maxArray)
	}
	var stepIDs []string
	for _, c := range chunks {
		id, err := s.submitChunk(ctx, members, sc, c, prev)
		if err != nil {
			return err
		}
		stepIDs = append(stepIDs, id)
	}
	for _, m := range members {
		s.ids[m.Node] = stepIDs
	}
	return nil
}

// dependencies are the ids of the jobs writing what members read, but
// members' own.
func (s *submission) dependencies(members []*pipeline.StepPlan) []string {
	in := map[int]bool{}
	for _, m := range members {
		in[m.Node] = true
	}
	var prev []string
	for _, m := range members {
		for _, d := range s.g.Deps(m.Node) {
			if !in[d] {
				prev = append(prev, s.ids[d]...)
			}
		}
	}
	slices.Sort(prev)
	return slices.Compact(prev)
}

// script is the sbatch script of the job that runs members: the first
// member's shards, then the rest of a final reduce in order.
func (s *submission) script(members []*pipeline.StepPlan) Script {
	cfg, opt := s.cfg, s.opt
	sp := members[0]
	n := s.g.Nodes()[sp.Node]
	bin := filepath.Join(opt.BinDir, n.Stage.Name)
	if _, err := os.Stat(bin); err != nil {
		fmt.Fprintf(opt.Out, "# warning: %s not found on this host; it must exist on the compute nodes\n", bin)
	}
	sc := Script{
		Run: cfg.Run, Stage: n.Stage.Name, Step: n.Step.Name, JobName: JobName(cfg.Run, n.Stage.Name, n.Step.Name), Sharded: n.Step.Sharded(),
		Shards: sp.Shards, LogDir: s.logDir, Binary: bin, Config: opt.ConfigPath, R: cfg.SlurmFor(n.Stage.Name),
		MaxRequeues: cfg.Slurm.Requeues(),
	}
	if len(members) > 1 {
		sc.JobName = "saber-" + cfg.Run + "-final-reduce"
		for _, m := range members[1:] {
			mn := s.g.Nodes()[m.Node]
			sc.Then = append(sc.Then, Command{Label: mn.Stage.Name + " " + mn.Step.Name, Binary: filepath.Join(opt.BinDir, mn.Stage.Name), Reduce: true})
		}
	}
	return sc
}

// submitChunk renders and writes the script of one chunk of the job's
// array, submits it (or prints it, on a dry run) and records the job. It
// returns the job's id.
func (s *submission) submitChunk(ctx context.Context, members []*pipeline.StepPlan, sc Script, c shard.Chunk, prev []string) (string, error) {
	opt := s.opt
	sp := members[0]
	n := s.g.Nodes()[sp.Node]
	// The offset is in the script, not in --export=ALL,VAR=…: that form
	// makes slurmd start a login shell per job to build the environment,
	// seconds per task on some clusters.
	sc.Offset = c.Offset
	text, err := Render(sc)
	if err != nil {
		return "", err
	}
	base := fmt.Sprintf("%s-%s", n.Stage.Name, n.Step.Name)
	if len(members) > 1 {
		base = "final-reduce"
	}
	if c.Offset > 0 {
		base += fmt.Sprintf("-from-%d", c.Offset)
	}
	path := filepath.Join(s.scriptDir, base+".sbatch")
	if err := writeAtomic(path, text); err != nil {
		return "", err
	}
	if opt.DryRun {
		fmt.Fprintf(opt.Out, "# ---- %s ----\n%s\n", path, text)
	}
	args := []string{"--parsable"}
	sub := Submission{Stage: n.Stage.Name, Step: n.Step.Name, Name: sc.JobName, Shards: sp.Shards, Missing: c.Indices,
		Script: path, LogDir: s.logDir, Offset: c.Offset, Dependency: prev}
	if n.Step.Sharded() {
		rel := make([]int, len(c.Indices))
		for i, x := range c.Indices {
			rel[i] = x - c.Offset
		}
		sub.Array = ArraySpec(rel, sc.R.Throttle)
		args = append(args, "--array="+sub.Array)
	}
	if len(prev) > 0 {
		args = append(args, "--dependency=afterok:"+strings.Join(prev, ":"))
	}
	args = append(args, path)
	if opt.DryRun {
		fmt.Fprintf(opt.Out, "# sbatch %s\n", strings.Join(args, " "))
		id := fmt.Sprintf("DRYRUN-%s-%s-%d", n.Stage.Name, n.Step.Name, c.Offset)
		s.subs = append(s.subs, s.records(members, sub, id)...)
		return id, nil
	}
	out, err := opt.Runner.Run(ctx, "sbatch", args...)
	if err != nil {
		var ce *CommandError
		if errors.As(err, &ce) && ce.Refused {
			// The message is sbatch's; what it refused comes from the config.
			return "", fmt.Errorf("submit %s: %w (sbatch refused the job: fix the resources it names under slurm.stages.%s or slurm.defaults — partition, account, qos, time, mem, gres, extra — in %s)",
				sc.JobName, err, n.Stage.Name, opt.ConfigPath)
		}
		return "", fmt.Errorf("submit %s: %w", sc.JobName, err)
	}
	id := strings.TrimSpace(strings.Split(strings.TrimSpace(out), ";")[0])
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("submit %s: sbatch printed %q, want a job id", sc.JobName, out)
	}
	recs := s.records(members, sub, id)
	for i := range recs {
		recs[i].Submitted = time.Now().UTC()
	}
	s.subs = append(s.subs, recs...)
	s.jobs.Submissions = append(s.jobs.Submissions, recs...)
	// Record at once: a failure later must not lose the ids of jobs already queued.
	if err := writeJobs(ctx, s.root, s.jobs); err != nil {
		return "", fmt.Errorf("record job %s: %w", id, err)
	}
	var labels []string
	for _, m := range members {
		mn := s.g.Nodes()[m.Node]
		labels = append(labels, mn.Stage.Name+" "+mn.Step.Name)
	}
	fmt.Fprintf(opt.Out, "submitted %s: job %s, %d shard(s)%s\n", strings.Join(labels, ", "), id, len(c.Indices), arrayNote(sub.Array))
	return id, nil
}

// records are the submission records of one job: one per member, all
// with the job's id, so that status finds each step's task.
func (s *submission) records(members []*pipeline.StepPlan, sub Submission, id string) []Submission {
	var out []Submission
	for _, m := range members {
		mn := s.g.Nodes()[m.Node]
		r := sub
		r.Stage, r.Step, r.JobID = mn.Stage.Name, mn.Step.Name, id
		if m != members[0] {
			r.Missing, r.Shards = m.Missing, m.Shards
		}
		out = append(out, r)
	}
	return out
}

// finalReduce marks the one-task steps that only one-task steps follow
// and that read, directly or not, only what main-line stages write: the
// final reduce, which runs as one job. A reduce fed by an experiment off
// the main line (downstream's, after rewrite and its own map) runs as its
// own job, so the release never waits for the experiment.
func finalReduce(g *pipeline.Graph) map[int]bool {
	final := map[int]bool{}
	for i, n := range g.Nodes() {
		if n.Step.Sharded() {
			continue
		}
		ok := true
		for _, d := range g.Descendants([]int{i}) {
			if g.Nodes()[d].Step.Sharded() {
				ok = false
				break
			}
		}
		for _, a := range g.Ancestors([]int{i}) {
			if st := g.Nodes()[a].Stage; st.Optional && st.Name != n.Stage.Name {
				ok = false
				break
			}
		}
		final[i] = ok
	}
	return final
}

func arrayNote(a string) string {
	if a == "" {
		return ""
	}
	return " (--array=" + a + ")"
}

// writeAtomic writes a script readable by its owner only (0600: sbatch
// reads it, nothing executes it): a script holds the config's slurm.defaults.env
// values and paths, which are nobody else's business.
func writeAtomic(path, text string) error {
	return store.WriteFile(path, 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}

// ActiveJobs returns the job ids of the run that squeue still lists.
func ActiveJobs(ctx context.Context, r Runner, jobs *Jobs) ([]string, error) {
	if len(jobs.Submissions) == 0 {
		return nil, nil
	}
	var ids []string
	for _, s := range jobs.Submissions {
		ids = append(ids, s.JobID)
	}
	out, err := r.Run(ctx, "squeue", "-h", "-o", "%F", "-j", strings.Join(ids, ","))
	if err != nil {
		// squeue fails outright when every listed job has left the queue.
		if strings.Contains(err.Error(), "Invalid job id") {
			return nil, nil
		}
		return nil, err
	}
	seen := map[string]bool{}
	var active []string
	for _, l := range strings.Fields(out) {
		if !seen[l] {
			seen[l] = true
			active = append(active, l)
		}
	}
	sort.Strings(active)
	return active, nil
}
