// Package pipelinetest builds the binaries the end-to-end tests run, once
// per source tree: the test packages that need them (cmd/saber,
// jobs/pipeline) share one build, even when `go test ./...` runs them at
// the same time, instead of each linking all of them again.
package pipelinetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binaries returns a directory holding bin/saber and every stage binary,
// built as `make build` builds them (plus the build tags given, and extra
// main packages given by module-relative path), for the module's current
// sources. The first caller builds them under a lock; every later caller
// — in this process or another — with the same sources, tags and extras
// gets the same directory. Directories of other sources older than a day
// are removed.
func Binaries(tags []string, extra ...string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	key, err := sourceKey(root, tags, extra)
	if err != nil {
		return "", err
	}
	base := filepath.Join(os.TempDir(), "saber-testbin")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	dir := filepath.Join(base, key)
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	// Another test package building the same tree holds the lock until
	// its build is done; then this one finds it complete.
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		now := time.Now()
		os.Chtimes(dir, now, now) // in use: prune keeps it
		return dir, nil
	}
	os.RemoveAll(dir)
	prune(base, key)
	args := []string{"build", "-trimpath", "-ldflags", "-s -w", "-o", dir + "/"}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	args = append(args, "./cmd/...")
	for _, e := range extra {
		args = append(args, "./"+e)
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("pipelinetest: no go command to build the binaries with: %w", err)
	}
	cmd := exec.Command(gocmd, args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return dir, os.WriteFile(done, nil, 0o644)
}

// Builds of other trees are removed once they are not used for
// pruneAfter, or, beyond the pruneKeep most recently used, for
// pruneBusy: a build is about 1 GB, and a tree changes with every edit,
// so a day's builds filled this machine's disk. Binaries touches a
// build's directory whenever a test asks for it; one untouched for
// pruneBusy is taken to be done with (a test package asks once, at its
// start, and none runs that long beyond the newest pruneKeep).
const (
	pruneAfter = 2 * time.Hour
	pruneBusy  = 30 * time.Minute
	pruneKeep  = 4
)

// prune removes the builds of other trees that prune's rules let go.
func prune(base, keep string) {
	entries, _ := os.ReadDir(base)
	type build struct {
		name string
		used time.Time
	}
	var builds []build
	for _, e := range entries {
		if !e.IsDir() || e.Name() == keep {
			continue
		}
		if info, err := e.Info(); err == nil {
			builds = append(builds, build{e.Name(), info.ModTime()})
		}
	}
	sort.Slice(builds, func(i, j int) bool { return builds[i].used.After(builds[j].used) })
	for i, b := range builds {
		if age := time.Since(b.used); age > pruneAfter || i >= pruneKeep && age > pruneBusy {
			os.RemoveAll(filepath.Join(base, b.name))
			os.Remove(filepath.Join(base, b.name+".lock"))
		}
	}
}

// moduleRoot is the directory of go.mod above this file.
func moduleRoot() (string, error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("pipelinetest: no caller information")
	}
	dir := filepath.Dir(self)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("pipelinetest: no go.mod above %s", self)
		}
		dir = parent
	}
}

// sourceKey hashes what the binaries are built from: the Go version, the
// tags and extras, go.mod and go.sum, and every file of the module but
// tests, test data and dot-directories (non-Go files too: templates and
// YAML are embedded).
func sourceKey(root string, tags, extra []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", runtime.Version(), strings.Join(tags, ","), strings.Join(extra, ","))
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "bin" || name == "docs" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") || !d.Type().IsRegular() {
			return nil
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s\x00", rel)
		r, err := os.Open(f)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, r)
		r.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// GoCommand is the go command on PATH, for tests that ask it about the
// module (go list). Without one the test is skipped, and fails under
// CI=true, where the toolchain is part of what CI provides.
func GoCommand(t testing.TB) string {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no go command on PATH under CI=true: %v", err)
		}
		t.Skip("no go command on PATH")
	}
	return gocmd
}
