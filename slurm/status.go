package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
)

// TaskState is what Slurm last said about one shard's task.
type TaskState struct {
	Shard    int      `json:"shard"`
	JobID    string   `json:"job_id"`
	Task     int      `json:"array_task_id"` // −1 for a job that is not an array
	State    string   `json:"state"`
	Reason   string   `json:"reason,omitempty"`
	ExitCode int      `json:"exit_code"`
	Restarts int      `json:"restarts"`
	Log      string   `json:"log"`
	Tail     []string `json:"tail,omitempty"`
}

// StepStatus is one stage step: manifests and Slurm together.
type StepStatus struct {
	Stage   string         `json:"stage"`
	Step    string         `json:"step"`
	Done    int            `json:"done"`
	Total   int            `json:"total"`
	Missing []int          `json:"missing"`
	States  map[string]int `json:"states"` // Slurm state → tasks in it
	// Problems are tasks of shards not done that failed, were cancelled,
	// timed out, or were requeued.
	Problems []TaskState `json:"problems"`
	// Stale are the done shards that are not current (their config or
	// inputs changed), StaleWhy what changed.
	Stale    []int    `json:"stale,omitempty"`
	StaleWhy []string `json:"stale_why,omitempty"`
	// CodeChanged counts the current shards other code built; Code is old → new.
	CodeChanged int    `json:"code_changed,omitempty"`
	Code        string `json:"code,omitempty"`
	// Failed are the shards still missing whose last attempt by saber run
	// failed (of a run the local executor ran last).
	Failed []LocalFailure `json:"failed,omitempty"`
}

// LocalFailure is a shard's failed attempt by saber run, from the run's
// record (pipeline.LocalRecord), with what its exit code asks of the
// operator and the end of its log.
type LocalFailure struct {
	pipeline.ShardFailure
	Meaning string   `json:"meaning"`
	Tail    []string `json:"tail,omitempty"`
}

// ExitMeaning says what a shard's exit code asks of the operator (SPEC §2,
// jobs/stage/errors.go).
func ExitMeaning(code int) string {
	switch code {
	case stage.ExitBadInput:
		return "bad input: fix the config or data its log names, then resume"
	case stage.ExitTempFail:
		return "interrupted or transient: resuming runs it again"
	case stage.ExitBug:
		return "a bug: it fails the same way until the code is fixed"
	}
	return fmt.Sprintf("not an exit code of saber's (%d fix the input, %d retry, %d bug)", stage.ExitBadInput, stage.ExitTempFail, stage.ExitBug)
}

// Report is `saber status`.
type Report struct {
	Run  string `json:"run"`
	Root string `json:"root"`
	// Executor is the one that worked on the run last: "local" (saber
	// run, by its record) or "slurm" (saber submit, by _jobs.json); ""
	// when neither has.
	Executor string `json:"executor,omitempty"`
	// LogDir is the last executor's: executor.log_dir's for a local run.
	LogDir     string       `json:"log_dir"`
	Squeue     bool         `json:"squeue"`
	Accounting bool         `json:"accounting"`
	Notes      []string     `json:"notes,omitempty"`
	Steps      []StepStatus `json:"steps"`
	// LastLocalRun is the record of the last saber run, when one ran.
	LastLocalRun *pipeline.LocalRecord `json:"last_local_run,omitempty"`
	// Resume runs the missing shards locally (with --rerun-stale where
	// stale shards would refuse it); Resubmit on Slurm. A run that neither
	// executor has worked on gets both.
	Resume   string `json:"resume,omitempty"`
	Resubmit string `json:"resubmit,omitempty"`
	// Rerun recomputes the stale shards and everything downstream.
	Rerun string `json:"rerun,omitempty"`
}

// slurmJob is the subset of squeue --json and sacct --json we read. Field
// shapes changed across Slurm versions (a state string became a list), so
// they decode loosely.
type slurmJob struct {
	JobID       int             `json:"job_id"`
	ArrayJobID  int             `json:"array_job_id"`
	ArrayTaskID json.RawMessage `json:"array_task_id"`
	JobState    json.RawMessage `json:"job_state"`
	// ArrayTaskString lists the tasks a pending array record stands for ("0-3,7%2").
	ArrayTaskString string          `json:"array_task_string"`
	StateReason     string          `json:"state_reason"`
	RestartCnt      json.RawMessage `json:"restart_cnt"`
	ExitCodeRaw     json.RawMessage `json:"exit_code"`
	State           *struct {
		Current json.RawMessage `json:"current"`
		Reason  string          `json:"reason"`
	} `json:"state"`
	Array *struct {
		JobID  int             `json:"job_id"`
		TaskID json.RawMessage `json:"task_id"`
	} `json:"array"`
}

func firstString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var l []string
	if json.Unmarshal(raw, &l) == nil && len(l) > 0 {
		return l[0]
	}
	return ""
}

func looseInt(raw json.RawMessage) (int, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false // Unmarshal would leave n = 0 and report success
	}
	var n int
	if json.Unmarshal(raw, &n) == nil {
		return n, true
	}
	var obj struct {
		Set    *bool `json:"set"`
		Number int   `json:"number"`
		// sacct's exit_code object
		ReturnCode *json.RawMessage `json:"return_code"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		if obj.ReturnCode != nil {
			return looseInt(*obj.ReturnCode)
		}
		if obj.Set != nil && *obj.Set {
			return obj.Number, true
		}
	}
	return 0, false
}

// key is "arrayJobID_taskID", or "jobID_-1" for a plain job.
func (j slurmJob) key() (string, TaskState) {
	ts := TaskState{Task: -1}
	arrayID := j.ArrayJobID
	task, hasTask := looseInt(j.ArrayTaskID)
	if j.Array != nil {
		arrayID = j.Array.JobID
		task, hasTask = looseInt(j.Array.TaskID)
	}
	ts.State = firstString(j.JobState)
	ts.Reason = j.StateReason
	if j.State != nil {
		ts.State = firstString(j.State.Current)
		ts.Reason = j.State.Reason
	}
	ts.Restarts, _ = looseInt(j.RestartCnt)
	ts.ExitCode, _ = looseInt(j.ExitCodeRaw)
	if arrayID != 0 && hasTask && task >= 0 && task < 1<<31-2 {
		ts.JobID, ts.Task = strconv.Itoa(arrayID), task
	} else {
		ts.JobID = strconv.Itoa(j.JobID)
	}
	return ts.JobID + "_" + strconv.Itoa(ts.Task), ts
}

// expandTasks parses a pending array's task list: "0-3,7,9-12%2".
func expandTasks(s string) []int {
	s, _, _ = strings.Cut(s, "%")
	var out []int
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err1 := strconv.Atoi(a)
		hi := lo
		var err2 error
		if isRange {
			hi, err2 = strconv.Atoi(b)
		}
		if err1 != nil || err2 != nil || hi < lo || hi-lo > 1<<20 {
			continue
		}
		for i := lo; i <= hi; i++ {
			out = append(out, i)
		}
	}
	return out
}

// states maps "jobID_task" keys to task states, expanding pending arrays.
func jobStates(js []slurmJob, into map[string]TaskState, keepRestarts bool) {
	for _, j := range js {
		k, ts := j.key()
		if ts.Task == -1 && j.ArrayJobID != 0 && j.ArrayTaskString != "" {
			for _, task := range expandTasks(j.ArrayTaskString) {
				t := ts
				t.JobID, t.Task = strconv.Itoa(j.ArrayJobID), task
				into[t.JobID+"_"+strconv.Itoa(task)] = t
			}
			continue
		}
		if old, ok := into[k]; ok && keepRestarts && ts.Restarts == 0 {
			ts.Restarts = old.Restarts
		}
		into[k] = ts
	}
}

func parseJobs(out string) ([]slurmJob, error) {
	var doc struct {
		Jobs []slurmJob `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return nil, err
	}
	return doc.Jobs, nil
}

// problemStates are final states that leave a shard undone.
var problemStates = map[string]bool{
	"FAILED": true, "CANCELLED": true, "TIMEOUT": true, "PREEMPTED": true, "NODE_FAIL": true,
	"OUT_OF_MEMORY": true, "BOOT_FAIL": true, "DEADLINE": true, "REQUEUED": true,
}

// Status reports every step of the run: shards done from the manifests,
// task states from sacct (when accounting is on) and squeue, and the log
// tail of every failed or requeued task of a shard still missing.
func Status(ctx context.Context, cfg *config.Config, g *pipeline.Graph, r Runner, configPath string) (*Report, error) {
	root, jobs, err := openRun(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep := &Report{Run: cfg.Run, Root: root.URI(cfg.Run), LogDir: LogDir(cfg)}
	local, err := pipeline.ReadLocalRecord(ctx, root, cfg.Run)
	if err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the record of the last saber run is unreadable, so its failures are not shown: %v", err))
	}
	rep.executor(local, jobs)
	states := rep.taskStates(ctx, r, jobs)
	// Manifests are read after Slurm answered: a task Slurm calls COMPLETED
	// has written its manifest, so the two never disagree by a race.
	plans, err := rep.plans(ctx, cfg, g, root)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{} // job ids Slurm still has records of
	for k := range states {
		known[k[:strings.LastIndexByte(k, '_')]] = true
	}
	for _, p := range plans {
		rep.Steps = append(rep.Steps, rep.stepStatus(p, jobs, states, known, local))
	}
	rep.commands(configPath)
	return rep, nil
}

// executor says which ran the run last: the local executor when its record
// is newer than the last submission, else Slurm when anything was
// submitted.
func (rep *Report) executor(local *pipeline.LocalRecord, jobs *Jobs) {
	var submitted time.Time
	for _, s := range jobs.Submissions {
		if s.Submitted.After(submitted) {
			submitted = s.Submitted
		}
	}
	switch {
	case local != nil && local.Finished.After(submitted):
		rep.Executor, rep.LogDir, rep.LastLocalRun = "local", local.LogDir, local
	case len(jobs.Submissions) > 0:
		rep.Executor = "slurm"
	}
}

// taskStates asks sacct, then squeue, for the state of every submitted
// task, by "<job>_<task>" (task -1 outside an array); what either cannot
// tell is a note.
func (rep *Report) taskStates(ctx context.Context, r Runner, jobs *Jobs) map[string]TaskState {
	states := map[string]TaskState{}
	if len(jobs.Submissions) == 0 || r == nil {
		return states
	}
	var ids []string
	for _, s := range jobs.Submissions {
		ids = append(ids, s.JobID)
	}
	list := strings.Join(ids, ",")
	if out, err := r.Run(ctx, "sacct", "--json", "-j", list); err == nil {
		if js, err := parseJobs(out); err == nil {
			rep.Accounting = true
			jobStates(js, states, false)
		}
	} else {
		rep.Notes = append(rep.Notes, "sacct unavailable (accounting off?): states of finished tasks are unknown; "+firstLine(err.Error()))
	}
	// squeue knows pending and running tasks best (and restart counts).
	if out, err := r.Run(ctx, "squeue", "--json", "-j", list); err == nil {
		if js, err := parseJobs(out); err == nil {
			rep.Squeue = true
			jobStates(js, states, true)
		}
	} else if !strings.Contains(err.Error(), "Invalid job id") {
		rep.Notes = append(rep.Notes, "squeue unavailable: "+firstLine(err.Error()))
	} else {
		rep.Squeue = true
	}
	return states
}

// plans are the plans of every step the report lists: an optional stage
// the config leaves off is not missing work, and is listed only once some
// of it was run (by name); the others get a note saying how to turn them
// on.
func (rep *Report) plans(ctx context.Context, cfg *config.Config, g *pipeline.Graph, root store.Store) ([]*pipeline.StepPlan, error) {
	planner := g.NewPlanner(cfg, root)
	var plans []*pipeline.StepPlan
	off := map[string]bool{}
	for i, n := range g.Nodes() {
		sp, err := planner.Plan(ctx, i)
		if err != nil {
			return nil, err
		}
		if st := n.Stage; st.Optional && (st.Enabled == nil || !st.Enabled(cfg)) && len(sp.Missing) == sp.Shards {
			if st.Off != "" && !off[st.Name] {
				off[st.Name] = true
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: off (%s)", st.Name, st.Off))
			}
			continue
		}
		plans = append(plans, sp)
	}
	return plans, nil
}

// stepStatus is one step's line: its shards done and stale, the Slurm
// state of each submitted shard (the latest submission covering a shard
// decides it), with the log tail of a missing shard in trouble, and the
// last local run's failures of shards still missing.
func (rep *Report) stepStatus(p *pipeline.StepPlan, jobs *Jobs, states map[string]TaskState, known map[string]bool, local *pipeline.LocalRecord) StepStatus {
	ss := StepStatus{Stage: p.Stage, Step: p.Step, Total: p.Shards, Done: p.Shards - len(p.Missing),
		Missing: p.Missing, States: map[string]int{}, Stale: p.StaleShards(), StaleWhy: p.Reasons(), CodeChanged: len(p.Code)}
	for _, c := range p.Code {
		ss.Code = c
	}
	missing := map[int]bool{}
	for _, i := range p.Missing {
		missing[i] = true
	}
	latest := latestStates(p, jobs, states, known)
	shards := make([]int, 0, len(latest))
	for s := range latest {
		shards = append(shards, s)
	}
	sort.Ints(shards)
	for _, s := range shards {
		ts := latest[s]
		ss.States[ts.State]++
		if missing[s] && (problemStates[ts.State] || ts.Restarts > 0) {
			ts.Tail = stage.LogTail(ts.Log, 10)
			ss.Problems = append(ss.Problems, ts)
		}
	}
	if rep.Executor == "local" {
		for _, f := range local.Failures {
			// A failure of another shard count is of shards that no
			// longer exist; one of a shard done since was fixed.
			if f.Stage == p.Stage && f.Step == p.Step && f.Shards == p.Shards && missing[f.Shard] {
				ss.Failed = append(ss.Failed, LocalFailure{ShardFailure: f, Meaning: ExitMeaning(f.ExitCode), Tail: stage.LogTail(f.Log, 10)})
			}
		}
	}
	return ss
}

// latestStates is the state of each of p's shards under the latest
// submission covering it.
func latestStates(p *pipeline.StepPlan, jobs *Jobs, states map[string]TaskState, known map[string]bool) map[int]TaskState {
	latest := map[int]TaskState{}
	for _, sub := range jobs.Submissions {
		if sub.Stage != p.Stage || sub.Step != p.Step {
			continue
		}
		for _, shard := range sub.Missing {
			task := -1
			if sub.Array != "" {
				task = shard - sub.Offset
			}
			ts, ok := states[sub.JobID+"_"+strconv.Itoa(task)]
			switch {
			case ok:
			case known[sub.JobID] && task >= 0:
				// Slurm keeps no record of an array task cancelled
				// before it started; its siblings are still listed.
				ts = TaskState{JobID: sub.JobID, Task: task, State: "CANCELLED", Reason: "no record: cancelled before it started"}
			default:
				ts = TaskState{JobID: sub.JobID, Task: task, State: "UNKNOWN"}
			}
			ts.Shard = shard
			ts.Log = logPath(sub, task)
			latest[shard] = ts
		}
	}
	return latest
}

// commands are what to run next: recompute stale shards, resume locally,
// or resubmit, by the executor that ran the run last.
func (rep *Report) commands(configPath string) {
	stale, missing := false, false
	for _, s := range rep.Steps {
		stale = stale || len(s.StaleWhy) > 0
		missing = missing || s.Done < s.Total
	}
	run := "saber run --config " + Quote(configPath)
	if stale {
		rep.Rerun = run + " --rerun-stale"
		if rep.Executor != "local" {
			rep.Rerun += "   (or saber submit … --rerun-stale)"
		}
	}
	if missing {
		// saber run refuses to run past stale shards: resuming recomputes them.
		if rep.Executor != "slurm" {
			rep.Resume = run
			if stale {
				rep.Resume += " --rerun-stale"
			}
		}
		if rep.Executor != "local" {
			rep.Resubmit = "saber submit --config " + Quote(configPath)
		}
	}
}

func logPath(sub Submission, task int) string {
	t := "4294967294" // what Slurm writes for %a outside an array
	if task >= 0 {
		t = strconv.Itoa(task)
	}
	return filepath.Join(sub.LogDir, fmt.Sprintf("%s_%s_%s.out", sub.Name, sub.JobID, t))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Print writes the report for people.
func (rep *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "run %s at %s (logs: %s)\n", rep.Run, rep.Root, rep.LogDir)
	if r := rep.LastLocalRun; r != nil && rep.Executor == "local" {
		// A run that starts no shard and ends as the one before does not
		// rewrite the record: the outcome is the last run's, the time that
		// of the last run that changed it.
		how := fmt.Sprintf("exit %d", r.Exit)
		if r.Error != "" {
			how += ", " + r.Error
		}
		fmt.Fprintf(w, "last saber run: %s (recorded %s on %s)\n", how, r.Finished.Format(time.RFC3339), r.Host)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	tasks := "slurm tasks"
	if rep.Executor == "local" {
		tasks = "last saber run"
	}
	fmt.Fprintf(w, "%-10s %-7s %11s %6s  %s\n", "stage", "step", "done/total", "stale", tasks)
	for _, s := range rep.Steps {
		s.printLine(w)
	}
	var code []string
	for _, s := range rep.Steps {
		for _, why := range s.StaleWhy {
			fmt.Fprintf(w, "\nSTALE %s %s: %s", s.Stage, s.Step, why)
		}
		if s.CodeChanged > 0 {
			code = append(code, fmt.Sprintf("%s %s (%d)", s.Stage, s.Step, s.CodeChanged))
		}
	}
	if rep.Rerun != "" && rep.Rerun != rep.Resume {
		fmt.Fprintf(w, "\nstale shards are not served as current; recompute them and everything downstream with:\n  %s\n", rep.Rerun)
	}
	for _, s := range rep.Steps {
		if s.Code != "" {
			fmt.Fprintf(w, "\nbuilt by other code (%s), still current: %s; rebuild with --rerun-code\n", s.Code, strings.Join(code, ", "))
			break
		}
	}
	for _, s := range rep.Steps {
		s.printProblems(w)
	}
	rep.printNext(w)
}

// printNext says what to run next, or that nothing is left.
func (rep *Report) printNext(w io.Writer) {
	switch {
	case rep.Resume != "" && rep.Resubmit != "":
		fmt.Fprintf(w, "\nmissing shards remain; run them with:\n  %s\nor on Slurm with:\n  %s\n", rep.Resume, rep.Resubmit)
	case rep.Resume != "":
		fmt.Fprintf(w, "\nmissing shards remain; resume the run with:\n  %s\n", rep.Resume)
		if rep.Resume == rep.Rerun {
			fmt.Fprintln(w, "(--rerun-stale: saber run refuses to run past the stale shards above; it recomputes them and everything downstream)")
		}
	case rep.Resubmit != "":
		fmt.Fprintf(w, "\nmissing shards remain; once nothing of the run is queued, resubmit them with:\n  %s\n", rep.Resubmit)
	case rep.Rerun != "":
		fmt.Fprintln(w, "\nevery shard has run, but the stale ones above are not current")
	default:
		fmt.Fprintln(w, "\nevery shard is done")
	}
}

// printLine is the step's row of the table: shards done and stale, and
// its tasks by state.
func (s StepStatus) printLine(w io.Writer) {
	var parts []string
	keys := make([]string, 0, len(s.States))
	for k := range s.States {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, s.States[k]))
	}
	if len(s.Failed) > 0 {
		parts = append(parts, fmt.Sprintf("failed %d", len(s.Failed)))
	}
	stale := "-"
	if len(s.StaleWhy) > 0 {
		stale = fmt.Sprint(len(s.Stale))
	}
	fmt.Fprintf(w, "%-10s %-7s %5d/%-5d %6s  %s\n", s.Stage, s.Step, s.Done, s.Total, stale, strings.Join(parts, ", "))
}

// printProblems shows each missing shard in trouble, Slurm's or the last
// local run's, with its log's last lines.
func (s StepStatus) printProblems(w io.Writer) {
	for _, p := range s.Problems {
		fmt.Fprintf(w, "\n%s %s shard %d: %s (job %s, task %d, exit %d, restarts %d%s)\n  log %s\n",
			s.Stage, s.Step, p.Shard, p.State, p.JobID, p.Task, p.ExitCode, p.Restarts, reason(p.Reason), p.Log)
		for _, l := range p.Tail {
			fmt.Fprintf(w, "  | %s\n", l)
		}
	}
	for _, f := range s.Failed {
		how := "failed"
		if f.Signal != "" {
			how = "was killed by " + f.Signal
		}
		fmt.Fprintf(w, "\n%s %s shard %s %s at its last attempt, %s (exit %d: %s)\n  log %s\n",
			s.Stage, s.Step, f.Spec(), how, f.Time.Format(time.RFC3339), f.ExitCode, f.Meaning, f.Log)
		for _, l := range f.Tail {
			fmt.Fprintf(w, "  | %s\n", l)
		}
	}
}

func reason(r string) string {
	if r == "" || r == "None" {
		return ""
	}
	return ", " + r
}

// Cancel cancels every job of the run that is still queued or running.
func Cancel(ctx context.Context, cfg *config.Config, r Runner, out io.Writer) ([]string, error) {
	_, jobs, err := openRun(ctx, cfg)
	if err != nil {
		return nil, err
	}
	active, err := ActiveJobs(ctx, r, jobs)
	if err != nil {
		return nil, err
	}
	if len(active) == 0 {
		fmt.Fprintf(out, "no job of run %s is queued or running\n", cfg.Run)
		return nil, nil
	}
	if _, err := r.Run(ctx, "scancel", active...); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "cancelled %s\n", strings.Join(active, " "))
	return active, nil
}
