package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestShardDiesWithSaberRun: kill -9 of `saber run` kills its shard
// processes too, instead of leaving them to write beside the next run.
func TestShardDiesWithSaberRun(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "shard.pid")
	cfg := fakeIngest(t, dir, fmt.Sprintf("echo $$ > %s.tmp && mv %[1]s.tmp %[1]s\nexec sleep 300", pidFile))
	run := exec.Command(filepath.Join(binDir, "saber"), "run", "--config", cfg, "--stages", "ingest")
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer run.Process.Kill()
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the shard never started")
		}
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	defer syscall.Kill(pid, syscall.SIGKILL) // should the test fail
	if !alive(pid) {
		t.Fatalf("shard %d is not running before the kill; the test proves nothing", pid)
	}
	run.Process.Signal(syscall.SIGKILL)
	run.Wait()
	for deadline := time.Now().Add(10 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("shard %d still runs 10s after saber run was killed with SIGKILL", pid)
		}
	}
}

// alive says whether pid runs: it exists and is not a zombie (a container
// whose first process reaps nothing keeps killed orphans as zombies).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}
