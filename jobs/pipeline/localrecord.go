package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// A `saber run` ends in the operator's terminal; `saber status`, later and
// in another process, must still be able to say what failed. The local
// executor therefore records, at the end of every run it held the lease
// for, <run>/_local.json (layout.LocalRunKey): when and how the run ended,
// where its logs went, and every shard whose last attempt failed — unless
// the run started no shard and ended as the one before, so that a rerun of
// a done run still writes nothing under the root. The
// record sits beside _jobs.json and _lease.json, outside every dataset, and
// is replaced whole (temporary object, then rename) so that a reader never
// sees half of it.

// LocalRecord is <run>/_local.json.
type LocalRecord struct {
	Run  string `json:"run"`
	Host string `json:"host"`
	// Command is the saber run command line, for people reading the file.
	Command  string    `json:"command,omitempty"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Exit is the code saber run exited with; Error what stopped it (its
	// first line), "" when every shard it selected is done.
	Exit  int    `json:"exit"`
	Error string `json:"error,omitempty"`
	// LogDir holds the run's shard logs (LogFile).
	LogDir string `json:"log_dir"`
	// Failures are the shards whose last attempt by a saber run failed,
	// this run's and earlier runs' not attempted since.
	Failures []ShardFailure `json:"failures,omitempty"`
}

// ShardFailure is a shard whose last attempt failed.
type ShardFailure struct {
	Stage  string `json:"stage"`
	Step   string `json:"step"`
	Shard  int    `json:"shard"`
	Shards int    `json:"shards"`
	// ExitCode is the code saber run gave the failure (ShardError.ExitCode):
	// 2 fix the input, 75 rerun, 1 a bug.
	ExitCode int `json:"exit_code"`
	// Signal names the signal that killed the shard ("signal 9 (killed)"),
	// "" when it exited.
	Signal string `json:"signal,omitempty"`
	Log    string `json:"log"`
	// Command re-runs the shard alone.
	Command string    `json:"command"`
	Time    time.Time `json:"time"`
}

// Spec is the failed shard's i/n.
func (f ShardFailure) Spec() shard.Spec { return shard.Spec{Index: f.Shard, Count: f.Shards} }

// LogFile is where the local executor logs one shard of a run:
// <dir>/<run>-<stage>-<step>-part-<i>-of-<n>.log. The run's name is in the
// file's name, as it is in a Slurm job's (saber-<run>-<stage>_…), so that
// two runs sharing an executor.log_dir never write one file; stage and step
// names have no '-' (TestLogFileNamesRun), so no two runs' names collide.
func LogFile(dir, run, stageName, step string, s shard.Spec) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%s-%s-%s.log", run, stageName, step, layout.PartName(s, "")))
}

// ReadLocalRecord reads the run's record of its last local run; nil (and no
// error) when no saber run has recorded one.
func ReadLocalRecord(ctx context.Context, st store.Store, run string) (*LocalRecord, error) {
	key := layout.LocalRunKey(run)
	data, err := store.ReadAll(ctx, st, key)
	if errors.Is(err, store.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", st.URI(key), err)
	}
	var rec LocalRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("decode %s: %w", st.URI(key), err)
	}
	return &rec, nil
}

// WriteLocalRecord replaces the run's record.
func WriteLocalRecord(ctx context.Context, st store.Store, rec *LocalRecord) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	key := layout.LocalRunKey(rec.Run)
	if _, err := store.Put(ctx, st, key, append(data, '\n'), store.Replace); err != nil {
		return fmt.Errorf("write %s: %w", st.URI(key), err)
	}
	return nil
}

// NextLocalRecord is the record a run leaves: prev's failures of shards
// this run did not attempt (nor find done), and this run's failed shard.
// A shard attempted again is represented by that attempt alone: done, it is
// dropped; stopped by another shard's failure, it is dropped too (its
// last attempt did not fail); failed again, its new failure replaces the
// old. A step that now has another shard count drops every old failure.
func NextLocalRecord(prev *LocalRecord, rec LocalRecord, runs []ShardRun, runErr error) *LocalRecord {
	type stepKey struct{ stage, step string }
	type shardKey struct {
		stepKey
		shard shard.Spec
	}
	counts := map[stepKey]int{}
	touched := map[shardKey]bool{}
	for _, r := range runs {
		counts[stepKey{r.Stage, r.Step}] = r.Shard.Count
		touched[shardKey{stepKey{r.Stage, r.Step}, r.Shard}] = true
	}
	rec.Failures = nil
	if prev != nil {
		for _, f := range prev.Failures {
			k := stepKey{f.Stage, f.Step}
			if n, ran := counts[k]; ran && (n != f.Shards || touched[shardKey{k, f.Spec()}]) {
				continue
			}
			rec.Failures = append(rec.Failures, f)
		}
	}
	rec.Exit = stage.ExitCode(runErr)
	rec.Error = ""
	var se *ShardError
	switch {
	case errors.As(runErr, &se):
		rec.Error = se.Summary()
		f := ShardFailure{Stage: se.Run.Stage, Step: se.Run.Step, Shard: se.Run.Shard.Index, Shards: se.Run.Shard.Count,
			ExitCode: se.ExitCode(), Log: se.Run.Log, Command: se.Command, Time: se.At}
		if se.Signal != 0 {
			f.Signal = fmt.Sprintf("signal %d (%s)", int(se.Signal), se.Signal)
		}
		rec.Failures = append(rec.Failures, f)
	case runErr != nil:
		rec.Error, _, _ = strings.Cut(runErr.Error(), "\n")
	}
	slices.SortFunc(rec.Failures, func(a, b ShardFailure) int {
		return cmp.Or(strings.Compare(a.Stage, b.Stage), strings.Compare(a.Step, b.Step), cmp.Compare(a.Shard, b.Shard))
	})
	return &rec
}

// recordChanged reports whether next, the record of a run that ran runs,
// says anything prev does not: a run that started no shard and ended as
// the one before (a rerun of a done run) leaves the record as it was, so
// that it writes nothing under the root. Such a run can only drop failures
// (of shards it found done), never add one, so counting them suffices.
func recordChanged(prev, next *LocalRecord, runs []ShardRun) bool {
	if prev == nil || prev.Exit != next.Exit || prev.Error != next.Error || len(prev.Failures) != len(next.Failures) {
		return true
	}
	return slices.ContainsFunc(runs, func(r ShardRun) bool { return !r.Skipped })
}

// recordLocalRun writes the record of a run that held the lease, when it
// changed (recordChanged): started is when the run began, runs and runErr
// what runLocal returned. A record it cannot read is replaced (its
// failures are lost; the manifests still say what is missing).
func recordLocalRun(ctx context.Context, st store.Store, run string, opt LocalOptions, started time.Time, runs []ShardRun, runErr error) error {
	prev, _ := ReadLocalRecord(ctx, st, run)
	host, _ := os.Hostname()
	rec := LocalRecord{Run: run, Host: host, Command: opt.Lease.Command, Started: started.UTC(), Finished: time.Now().UTC(), LogDir: opt.LogDir}
	next := NextLocalRecord(prev, rec, runs, runErr)
	if !recordChanged(prev, next, runs) {
		return nil
	}
	return WriteLocalRecord(ctx, st, next)
}
