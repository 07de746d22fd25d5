package stage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/shard"
)

// realErrors makes operating-system errors the way the stages meet them:
// from real calls, wrapped as the local store wraps them. Each works as
// root too (CI runs as root, so permission bits stop nothing there).
func realErrors(t *testing.T) map[string]error {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	errs := map[string]error{}
	must := func(name string, err error, want syscall.Errno) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Fatalf("%s: got %v, want %v", name, err, want)
		}
		errs[name] = fmt.Errorf("create file://%s/run/part: %w", dir, err)
	}
	must("ENOTDIR", os.MkdirAll(filepath.Join(file, "run"), 0o755), syscall.ENOTDIR)
	must("EISDIR", os.WriteFile(dir, []byte("x"), 0o644), syscall.EISDIR)
	_, err := os.Open(filepath.Join(dir, strings.Repeat("n", 300)))
	must("ENAMETOOLONG", err, syscall.ENAMETOOLONG)
	os.Symlink(filepath.Join(dir, "b"), filepath.Join(dir, "a"))
	os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	_, err = os.Open(filepath.Join(dir, "a"))
	must("ELOOP", err, syscall.ELOOP)
	_, err = os.Open(filepath.Join(dir, "missing"))
	must("ENOENT", err, syscall.ENOENT)

	// A refused connection: a port that was listening a moment ago.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = net.Dial("tcp", addr)
	must("ECONNREFUSED", err, syscall.ECONNREFUSED)

	// A read past its deadline: os.ErrDeadlineExceeded, a net.Error.
	l, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(-time.Second))
	_, err = c.Read(make([]byte, 1))
	errs["read timeout"] = fmt.Errorf("s3 GetObject: %w", err)
	return errs
}

// TestExitCodeByErrno: each operating-system error gets the code of its
// kind. Before errors.go looked at the errno, every row here but the last
// three of each group passed as a net.Error and exited 75.
func TestExitCodeByErrno(t *testing.T) {
	real := realErrors(t)
	path := func(op string, errno syscall.Errno) error {
		return fmt.Errorf("write manifest file:///root/r/_done/x.json: %w", &fs.PathError{Op: op, Path: "/root/r/_done/x.json", Err: errno})
	}
	opErr := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}
	}
	tests := []struct {
		name string
		err  error
		want int
	}{
		// Fix the root, an input or its permissions: 2.
		{"root under a regular file (ENOTDIR)", real["ENOTDIR"], ExitBadInput},
		{"a directory written as a file (EISDIR)", real["EISDIR"], ExitBadInput},
		{"a name too long", real["ENAMETOOLONG"], ExitBadInput},
		{"a symlink loop", real["ELOOP"], ExitBadInput},
		{"a missing input path", real["ENOENT"], ExitBadInput},
		{"permission denied (EACCES)", path("open", syscall.EACCES), ExitBadInput},
		{"operation not permitted (EPERM)", path("chmod", syscall.EPERM), ExitBadInput},
		{"read-only filesystem (EROFS)", path("open", syscall.EROFS), ExitBadInput},
		{"a bare errno", syscall.EACCES, ExitBadInput},
		{"the fs.ErrPermission sentinel", fmt.Errorf("upload: %w", fs.ErrPermission), ExitBadInput},
		{"os.ErrPermission from a real call's Is", fmt.Errorf("x: %w", os.ErrPermission), ExitBadInput},

		// Retry later or elsewhere: 75.
		{"connection refused (real dial)", real["ECONNREFUSED"], ExitTempFail},
		{"connection reset", opErr(syscall.ECONNRESET), ExitTempFail},
		{"connection timed out", opErr(syscall.ETIMEDOUT), ExitTempFail},
		{"a read past its deadline", real["read timeout"], ExitTempFail},
		{"a stale NFS handle", path("read", syscall.ESTALE), ExitTempFail},
		{"disk full", path("write", syscall.ENOSPC), ExitTempFail},
		{"quota exceeded", path("write", syscall.EDQUOT), ExitTempFail},
		{"an unlisted errno of a network call", opErr(syscall.EPROTO), ExitTempFail},
		{"a DNS failure", &net.DNSError{Err: "no such host", Name: "minio", IsNotFound: true}, ExitTempFail},

		// A bug: 1.
		{"an unlisted errno of a file call", path("rename", syscall.EXDEV), ExitBug},
		{"a panic, whatever its value wraps", &BugError{Err: fmt.Errorf("panic: %w", context.DeadlineExceeded)}, ExitBug},
		{"a panic in a worker", fmt.Errorf("query q1: %w", &parallel.PanicError{Value: "boom"}), ExitBug},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}

// writeConfig writes a run config for the toy stage and returns its path.
func writeConfig(t *testing.T, root string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(p, []byte(fmt.Sprintf("run: r\nroot: %s\nlog: {format: json}\ntoy: {shards: 1}\n", root)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnwritableRootExits2: a root the stage cannot write is exit 2 (fix
// the root), not 75, which the Slurm script would requeue for ever. The
// run's directory is a regular file, which stops root as well as anyone.
func TestUnwritableRootExits2(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "r"), []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	st, _ := testStage(&runs, nil)
	var stderr strings.Builder
	code := Command(context.Background(), Binary{Stage: st}, []string{"--config", writeConfig(t, root), "--shard", "0/1"}, &strings.Builder{}, &stderr)
	if code != ExitBadInput || !strings.Contains(stderr.String(), "not a directory") {
		t.Fatalf("exit %d, want 2 naming the cause:\n%s", code, stderr.String())
	}
}

// TestPanicExits1WithStack: a panic in a step's worker goroutine, in the
// step itself, or in the shard's handling around the step exits 1 with the
// panicking function's stack in the log. A panic on a worker goroutine
// used to end the process with Go's exit code 2 (bad input).
func TestPanicExits1WithStack(t *testing.T) {
	panicky := func(ctx context.Context, env *Env) error {
		return parallel.For(ctx, 8, 2, func(_ context.Context, i int) error {
			if i == 5 {
				panicInWorker()
			}
			return nil
		})
	}
	tests := []struct {
		name  string
		bin   func(Stage) Binary
		run   func(context.Context, *Env) error
		stack string
	}{
		{"worker", func(st Stage) Binary { return Binary{Stage: st} }, panicky, "panicInWorker"},
		{"step", func(st Stage) Binary { return Binary{Stage: st} },
			func(context.Context, *Env) error { panicInWorker(); return nil }, "panicInWorker"},
		{"around the step", func(st Stage) Binary {
			return Binary{Stage: st, CheckInputs: func(context.Context, *config.Config, store.Store, Step) error { panicInWorker(); return nil }}
		}, nil, "panicInWorker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs atomic.Int64
			st, _ := testStage(&runs, nil)
			if tt.run != nil {
				st.Steps[0].Run = tt.run
			}
			var stderr strings.Builder
			code := Command(context.Background(), tt.bin(st), []string{"--config", writeConfig(t, t.TempDir()), "--shard", "0/1"}, &strings.Builder{}, &stderr)
			if code != ExitBug || !strings.Contains(stderr.String(), `"stack":`) || !strings.Contains(stderr.String(), tt.stack) ||
				!strings.Contains(stderr.String(), "boom") {
				t.Fatalf("exit %d, want 1 with the stack of %s in the log:\n%s", code, tt.stack, stderr.String())
			}
		})
	}
}

func panicInWorker() { panic("boom") }

// TestDamagedManifestExits2NamingTheRedo: a done shard whose manifest was
// cut short (a full disk, a copy interrupted) or edited by hand is exit 2,
// not 1: the message names the manifest and the command that redoes the
// shard, and that command (--force) does.
func TestDamagedManifestExits2NamingTheRedo(t *testing.T) {
	root := t.TempDir()
	cfgPath := writeConfig(t, root)
	var runs atomic.Int64
	st, _ := testStage(&runs, nil)
	bin := Binary{Stage: st, Redo: func(cfg, ds string, spec shard.Spec) string {
		return fmt.Sprintf("bin/test --config %s --shard %s --force", cfg, spec)
	}}
	run := func(args ...string) (int, string) {
		var stderr strings.Builder
		code := Command(context.Background(), bin, append([]string{"--config", cfgPath, "--shard", "0/1"}, args...), &strings.Builder{}, &stderr)
		return code, stderr.String()
	}
	if code, out := run(); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s", code, out)
	}
	file := filepath.Join(root, "r", "problems", "_done", "part-00000-of-00001.json")
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"truncated": string(good[:len(good)/3]),
		"empty":     "",
		"rows":      strings.Replace(string(good), `"rows": 1,`, `"rows": 1000,`, 1),
	} {
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out := run()
		if code != ExitBadInput || !strings.Contains(out, file) || !strings.Contains(out, "bin/test --config "+cfgPath+" --shard 0/1 --force") {
			t.Errorf("%s manifest: exit %d, want 2 naming %s and the redo command:\n%s", name, code, file, out)
		}
	}
	if code, out := run("--force"); code != ExitOK || runs.Load() != 2 {
		t.Fatalf("--force on the damaged shard: exit %d, runs %d\n%s", code, runs.Load(), out)
	}
	if code, out := run(); code != ExitOK || runs.Load() != 2 {
		t.Fatalf("after the redo: exit %d, runs %d\n%s", code, runs.Load(), out)
	}
}

// TestShardCountOtherThanTheConfigsExits2: a shard of another count than
// the config's, from --shard or from a Slurm array, is refused before it
// runs: its part would sit beside the config's parts, and the next stage
// refuses a dataset of two counts (a one-task step's stray part made
// everything downstream stale).
func TestShardCountOtherThanTheConfigsExits2(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"flag", []string{"--shard", "1/2"}, nil, "--shard 1/2: stage test's map step is one task (0/1)"},
		{"flag 0/3", []string{"--shard", "0/3"}, nil, "--shard 0/3: stage test's map step is one task"},
		{"array", nil, map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"}, "the Slurm array (1/2"},
		{"reduce and shard", []string{"--reduce", "--shard", "1/2"}, nil, "--reduce and --shard 1/2: the reduce is one task"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var runs atomic.Int64
			st, _ := testStage(&runs, nil)
			root := t.TempDir()
			var stderr strings.Builder
			code := Command(context.Background(), Binary{Stage: st}, append([]string{"--config", writeConfig(t, root)}, tt.args...), &strings.Builder{}, &stderr)
			if code != ExitBadInput || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, want 2 with %q:\n%s", code, tt.want, stderr.String())
			}
			if runs.Load() != 0 {
				t.Errorf("the shard ran %d times", runs.Load())
			}
			if entries, _ := os.ReadDir(filepath.Join(root, "r")); len(entries) != 0 {
				t.Errorf("wrote %d entries under the run", len(entries))
			}
		})
	}
	// A sharded step names its count.
	two := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(two, []byte(fmt.Sprintf("run: r\nroot: %s\ntoy: {shards: 2}\n", t.TempDir())), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	st2, _ := testStage(new(atomic.Int64), nil)
	if code := Command(context.Background(), Binary{Stage: st2}, []string{"--config", two, "--shard", "0/3"}, &strings.Builder{}, &stderr); code != ExitBadInput ||
		!strings.Contains(stderr.String(), "--shard 0/3: the config gives stage test 2 shards") || !strings.Contains(stderr.String(), "use --shard i/2") {
		t.Errorf("--shard 0/3 of 2: exit %d:\n%s", code, stderr.String())
	}
	// The config's own count runs.
	var runs atomic.Int64
	st, _ := testStage(&runs, nil)
	if code := Command(context.Background(), Binary{Stage: st}, []string{"--config", writeConfig(t, t.TempDir()), "--shard", "0/1"}, &strings.Builder{}, &strings.Builder{}); code != 0 || runs.Load() != 1 {
		t.Errorf("--shard 0/1: exit %d, %d runs", code, runs.Load())
	}
}

// TestHelpPrintsWhateverUsesNeeds: --help prints even for a stage whose
// Uses reads a section the binary was not given (embed reads
// downstream's): it panicked once, and took the binary's --help with it.
func TestHelpPrintsWhateverUsesNeeds(t *testing.T) {
	var runs atomic.Int64
	st, _ := testStage(&runs, nil)
	st.Section = nil
	st.Uses = func(c *config.Config) []string { return []string{fmt.Sprint(toySection.Of(c).Shards)} }
	var stderr strings.Builder
	if code := Command(context.Background(), Binary{Stage: st}, []string{"--help"}, &strings.Builder{}, &stderr); code != 0 || !strings.Contains(stderr.String(), "Flags:") {
		t.Errorf("exit %d:\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := Command(context.Background(), Binary{Stage: st, Sections: []config.Def{toySection}}, []string{"--help"}, &strings.Builder{}, &stderr); code != 0 || !strings.Contains(stderr.String(), "at the defaults: 2.") {
		t.Errorf("with the section: exit %d:\n%s", code, stderr.String())
	}
}
