package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// startSaber starts bin/saber; wait returns its combined output and exit code.
func startSaber(t *testing.T, args ...string) (wait func() (string, int)) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "saber"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() (string, int) {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), ee.ExitCode()
		}
		if err != nil {
			t.Error(err)
		}
		return out.String(), 0
	}
}

// TestTwoRunsOnOneRoot: two `saber run`s started together on one run, in
// several fresh runs on one root: one runs the whole pipeline, the other
// exits 75 naming the holder (or, with --wait, waits and then finds every
// shard done); no run fails otherwise, and every manifest matches the
// bytes stored (`saber verify --stored`).
func TestTwoRunsOnOneRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo pipeline several times")
	}
	dir := filepath.Join(t.TempDir(), "demo")
	if out, code := saber(t, "demo", "--out", dir, "--n", "800"); code != 0 {
		t.Fatalf("demo exit %d:\n%s", code, out)
	}
	base, err := os.ReadFile(filepath.Join(dir, "run.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	holder := regexp.MustCompile(`in use by another saber run: \S+ pid \d+ \(user [^)]*\), "saber run --config [^"]+"`)
	for trial := range 3 {
		wait := trial == 2
		run := fmt.Sprintf("t%d", trial)
		cfg := filepath.Join(dir, run+".yaml")
		if err := os.WriteFile(cfg, bytes.Replace(base, []byte("\nrun: demo\n"), []byte("\nrun: "+run+"\n"), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"run", "--config", cfg, "--parallel", "2"}
		if wait {
			args = append(args, "--wait")
		}
		var (
			wg    sync.WaitGroup
			outs  [2]string
			codes [2]int
		)
		waits := [2]func() (string, int){startSaber(t, args...), startSaber(t, args...)}
		for i := range waits {
			wg.Go(func() { outs[i], codes[i] = waits[i]() })
		}
		wg.Wait()
		ran, refused, waited := 0, 0, 0
		for i := range outs {
			switch {
			case codes[i] == 0 && strings.Contains(outs[i], "waiting for the run's lease, held by"):
				waited++
				if !strings.Contains(outs[i], " 0 shards ran") {
					t.Errorf("trial %d: the run that waited ran shards again:\n%s", trial, outs[i])
				}
			case codes[i] == 0:
				ran++
			case codes[i] == 75 && holder.MatchString(outs[i]):
				refused++
			default:
				t.Errorf("trial %d: run %d exit %d:\n%s", trial, i, codes[i], outs[i])
			}
		}
		if wait && (ran != 1 || waited != 1) || !wait && (ran != 1 || refused != 1) {
			t.Errorf("trial %d (wait %v): %d ran, %d refused naming the holder, %d waited; want one ran and the other %s\n--- first:\n%s\n--- second:\n%s",
				trial, wait, ran, refused, waited, map[bool]string{true: "waited", false: "refused"}[wait], outs[0], outs[1])
		}
		if out, code := saber(t, "verify", "--config", cfg, "--stored"); code != 0 || !strings.Contains(out, ", 0 do not") {
			t.Errorf("trial %d: verify --stored exit %d:\n%s", trial, code, out)
		}
		if out, code := saber(t, "lease", "show", "--config", cfg); code != 0 || !strings.Contains(out, "no lease") {
			t.Errorf("trial %d: lease left after both runs ended (exit %d):\n%s", trial, code, out)
		}
	}
}

// TestLeaseCommands: lease show names a holder and says when it is stale;
// lease break removes a stale one, refuses a live one without --force, and
// a run refused by a stale lease from another host exits 2.
func TestLeaseCommands(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(cfg, []byte("run: r\nroot: data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lease := filepath.Join(dir, "data", "r", "_lease.json")
	write := func(host string, pid int, heartbeat string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(lease), 0o755); err != nil {
			t.Fatal(err)
		}
		js := fmt.Sprintf(`{"id":"x","run":"r","host":%q,"pid":%d,"user":"u","command":"saber run --config other.yaml","started":%q,"heartbeat":%q}`, host, pid, heartbeat, heartbeat)
		if err := os.WriteFile(lease, []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, code := saber(t, "lease", "show", "--config", cfg); code != 0 || !strings.Contains(out, "no lease") {
		t.Fatalf("show without a lease: exit %d\n%s", code, out)
	}
	write("far-host", 4242, "2026-01-01T00:00:00Z")
	out, code := saber(t, "lease", "show", "--config", cfg)
	for _, want := range []string{"far-host pid 4242", "user u", "saber run --config other.yaml", "STALE", "saber lease break --config"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("show of a stale lease lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	out, code = saber(t, "run", "--config", cfg, "--stages", "ingest")
	// Stale, from another host: no rerun will see it go, a person must
	// look (exit 2, with the command).
	if code != 2 || !strings.Contains(out, "far-host pid 4242") || !strings.Contains(out, "stale") || !strings.Contains(out, "saber lease break --config") {
		t.Errorf("run under a stale lease: exit %d, want 2 naming the holder, saying stale and how to break it:\n%s", code, out)
	}
	if out, code := saber(t, "lease", "break", "--config", cfg); code != 0 || !strings.Contains(out, "removed the lease of far-host pid 4242") {
		t.Errorf("break a stale lease: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(lease); !os.IsNotExist(err) {
		t.Errorf("lease still there after break: %v", err)
	}
	if out, code := saber(t, "lease", "break", "--config", cfg); code != 2 || !strings.Contains(out, "nothing to break") {
		t.Errorf("break without a lease: exit %d\n%s", code, out)
	}
	// A live lease (fresh heartbeat, a host that is not this one) needs --force.
	write("far-host", 4242, nowRFC3339())
	if out, code := saber(t, "lease", "break", "--config", cfg); code != 2 || !strings.Contains(out, "--force") {
		t.Errorf("break a live lease: exit %d, want 2 naming --force\n%s", code, out)
	}
	if out, code := saber(t, "lease", "break", "--config", cfg, "--force"); code != 0 {
		t.Errorf("break --force: exit %d\n%s", code, out)
	}
	if out, code := saber(t, "lease"); code != 2 || !strings.Contains(out, "lease show") {
		t.Errorf("lease without a subcommand: exit %d\n%s", code, out)
	}
}

func nowRFC3339() string { return time.Now().UTC().Format(time.RFC3339) }
