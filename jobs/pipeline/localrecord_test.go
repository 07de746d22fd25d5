package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/pipeline/internal/lengths"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// TestLogFileNamesRun: a shard's log is named by its run, so two runs
// sharing a log_dir write two files; and since no stage or step name has a
// '-', the name before "-<stage>-<step>-part-" is the run's alone, so no
// two (run, stage, step) give one name.
func TestLogFileNamesRun(t *testing.T) {
	s := shard.Spec{Index: 2, Count: 7}
	tests := []struct {
		run, stage, step string
		want             string
	}{
		{"math", "ingest", "map", "/logs/math-ingest-map-part-00002-of-00007.log"},
		{"math-v2", "ingest", "map", "/logs/math-v2-ingest-map-part-00002-of-00007.log"},
		{"math", "dedup", "reduce", "/logs/math-dedup-reduce-part-00002-of-00007.log"},
	}
	for _, tt := range tests {
		if got := LogFile("/logs", tt.run, tt.stage, tt.step, s); got != tt.want {
			t.Errorf("LogFile(%s, %s, %s) = %s, want %s", tt.run, tt.stage, tt.step, got, tt.want)
		}
	}
	for _, st := range append(Stages, lengths.Stage) {
		for _, step := range st.Steps {
			if strings.Contains(st.Name, "-") || strings.Contains(step.Name, "-") {
				t.Errorf("stage %q step %q has a '-': two runs' log names could collide", st.Name, step.Name)
			}
		}
	}
}

func TestNextLocalRecord(t *testing.T) {
	at := time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)
	spec := func(i, n int) shard.Spec { return shard.Spec{Index: i, Count: n} }
	ran := func(stageName, step string, n int, idx ...int) []ShardRun {
		var rs []ShardRun
		for _, i := range idx {
			rs = append(rs, ShardRun{Stage: stageName, Step: step, Shard: spec(i, n)})
		}
		return rs
	}
	failed := func(stageName, step string, s shard.Spec, code int, sig syscall.Signal) *ShardError {
		return &ShardError{Run: ShardRun{Stage: stageName, Step: step, Shard: s, Log: "/logs/" + stageName + ".log"},
			Code: code, Signal: sig, Command: "bin/" + stageName + " --shard " + s.String(), At: at}
	}
	old := func(stageName, step string, i, n int) ShardFailure {
		return ShardFailure{Stage: stageName, Step: step, Shard: i, Shards: n, ExitCode: 1, Log: "old.log", Time: at.Add(-time.Hour)}
	}
	// describe lists the failures as stage step i/n exit signal.
	describe := func(fs []ShardFailure) string {
		var parts []string
		for _, f := range fs {
			parts = append(parts, fmt.Sprintf("%s %s %s exit %d%s", f.Stage, f.Step, f.Spec(), f.ExitCode, f.Signal))
		}
		return strings.Join(parts, "; ")
	}
	tests := []struct {
		name     string
		prev     []ShardFailure
		runs     []ShardRun
		err      error
		exit     int
		errLine  string
		failures string
	}{
		{name: "first run succeeds", runs: ran("ingest", "map", 2, 0, 1)},
		{name: "a shard fails", runs: ran("ingest", "map", 4, 0, 1), err: failed("ingest", "map", spec(1, 4), 2, 0),
			exit: 2, errLine: "ingest map shard 1/4 failed (exit 2)", failures: "ingest map 1/4 exit 2"},
		{name: "the failed shard succeeds on the next run", prev: []ShardFailure{old("ingest", "map", 1, 4)},
			runs: ran("ingest", "map", 4, 0, 1, 2, 3)},
		{name: "the failed shard is stopped by another's failure: its last attempt did not fail",
			prev: []ShardFailure{old("ingest", "map", 1, 4)}, runs: ran("ingest", "map", 4, 1, 2), err: failed("ingest", "map", spec(2, 4), 75, 0),
			exit: 75, errLine: "ingest map shard 2/4 failed (exit 75)", failures: "ingest map 2/4 exit 75"},
		{name: "a step not run keeps its failure", prev: []ShardFailure{old("dedup", "map", 0, 2)},
			runs: ran("ingest", "map", 4, 0, 1, 2, 3), failures: "dedup map 0/2 exit 1"},
		{name: "a step run with another shard count drops its old failures", prev: []ShardFailure{old("ingest", "map", 3, 4)},
			runs: ran("ingest", "map", 8, 0)},
		{name: "a shard not attempted keeps its failure beside the new one", prev: []ShardFailure{old("ingest", "map", 3, 4)},
			runs: ran("ingest", "map", 4, 0, 1), err: failed("ingest", "map", spec(1, 4), 2, 0),
			exit: 2, errLine: "ingest map shard 1/4 failed (exit 2)", failures: "ingest map 1/4 exit 2; ingest map 3/4 exit 1"},
		{name: "a refusal before any shard ran keeps every failure", prev: []ShardFailure{old("ingest", "map", 3, 4)},
			err: stage.BadInput(errors.New("stale outputs: dedup map\nsecond line")), exit: 2, errLine: "stale outputs: dedup map",
			failures: "ingest map 3/4 exit 1"},
		{name: "a killed shard is recorded with its signal", runs: ran("judge", "map", 2, 0), err: failed("judge", "map", spec(0, 2), -1, syscall.SIGKILL),
			exit: 75, errLine: "judge map shard 0/2 was killed by signal 9 (killed)", failures: "judge map 0/2 exit 75signal 9 (killed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prev *LocalRecord
			if tt.prev != nil {
				prev = &LocalRecord{Run: "math", Exit: 1, Error: "old", Failures: tt.prev}
			}
			got := NextLocalRecord(prev, LocalRecord{Run: "math", LogDir: "/logs"}, tt.runs, tt.err)
			if got.Run != "math" || got.LogDir != "/logs" || got.Exit != tt.exit || got.Error != tt.errLine || describe(got.Failures) != tt.failures {
				t.Errorf("record: exit %d, error %q, failures %q\nwant exit %d, error %q, failures %q",
					got.Exit, got.Error, describe(got.Failures), tt.exit, tt.errLine, tt.failures)
			}
			var se *ShardError
			if errors.As(tt.err, &se) {
				f := got.Failures[0]
				for _, g := range got.Failures {
					if g.Spec() == se.Run.Shard && g.Stage == se.Run.Stage {
						f = g
					}
				}
				if f.Log != se.Run.Log || f.Command != se.Command || !f.Time.Equal(at) {
					t.Errorf("failure %+v lacks the shard's log, command or time", f)
				}
			}
		})
	}
}

// TestRecordChanged: only a run that started a shard or ended otherwise
// than the one before rewrites the record.
func TestRecordChanged(t *testing.T) {
	f := ShardFailure{Stage: "ingest", Step: "map", Shard: 1, Shards: 2, ExitCode: 2}
	skipped := []ShardRun{{Stage: "ingest", Step: "map", Shard: shard.Spec{Index: 0, Count: 2}, Skipped: true}}
	started := []ShardRun{{Stage: "ingest", Step: "map", Shard: shard.Spec{Index: 0, Count: 2}}}
	tests := []struct {
		name       string
		prev, next *LocalRecord
		runs       []ShardRun
		want       bool
	}{
		{"no record yet", nil, &LocalRecord{}, skipped, true},
		{"a rerun of a done run", &LocalRecord{}, &LocalRecord{}, skipped, false},
		{"a refusal again, nothing started", &LocalRecord{Exit: 2, Error: "stale"}, &LocalRecord{Exit: 2, Error: "stale"}, nil, false},
		{"a refusal after a success", &LocalRecord{}, &LocalRecord{Exit: 2, Error: "stale"}, nil, true},
		{"another refusal", &LocalRecord{Exit: 2, Error: "stale"}, &LocalRecord{Exit: 2, Error: "bad input"}, nil, true},
		{"a failure found done since", &LocalRecord{Failures: []ShardFailure{f}}, &LocalRecord{}, skipped, true},
		{"a shard ran", &LocalRecord{}, &LocalRecord{}, started, true},
	}
	for _, tt := range tests {
		if got := recordChanged(tt.prev, tt.next, tt.runs); got != tt.want {
			t.Errorf("%s: recordChanged = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLocalRecordRoundTrip: the record reads back as written, and a run
// never recorded reads as nil.
func TestLocalRecordRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	if rec, err := ReadLocalRecord(ctx, st, "math"); rec != nil || err != nil {
		t.Fatalf("no record: got %+v, %v", rec, err)
	}
	at := time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)
	rec := &LocalRecord{Run: "math", Host: "h", Finished: at, Exit: 2, LogDir: "/logs",
		Failures: []ShardFailure{{Stage: "ingest", Step: "map", Shard: 1, Shards: 4, ExitCode: 2, Log: "/logs/x.log", Time: at}}}
	if err := WriteLocalRecord(ctx, st, rec); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLocalRecord(ctx, st, "math")
	if err != nil || fmt.Sprint(*got) != fmt.Sprint(*rec) {
		t.Errorf("read back %+v, %v\nwant %+v", got, err, rec)
	}
	if _, err := store.Put(ctx, st, "math/_local.json", []byte("{"), store.Replace); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLocalRecord(ctx, st, "math"); err == nil || !strings.Contains(err.Error(), "_local.json") {
		t.Errorf("a damaged record: err %v, want one naming it", err)
	}
}
