package store_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/store"
)

// TestHelperKilledWriter is not a test: TestLocalKilledWriterTempIsRemoved
// runs it in a child process, which starts a write, says so, and waits to
// be killed.
func TestHelperKilledWriter(t *testing.T) {
	dir := os.Getenv("SABER_TEST_KILLED_WRITER_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	st, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.Create(context.Background(), "run/ds/part-00001-of-00002.parquet", store.Once)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("half of a part"))
	os.Stdout.WriteString("writing\n")
	time.Sleep(time.Minute)
}

func temps(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The temporary of a writer killed with SIGKILL is removed by the next
// write into its directory (the shard's rerun writes the same part), while
// a live writer's temporary, however old, is left alone.
func TestLocalKilledWriterTempIsRemoved(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	ds := filepath.Join(root, "run", "ds")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledWriter$")
	cmd.Env = append(os.Environ(), "SABER_TEST_KILLED_WRITER_DIR="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "writing\n" {
		cmd.Process.Kill()
		t.Fatalf("helper: %q, %v", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	dead := temps(t, ds)
	if len(dead) != 1 || !strings.Contains(filepath.Base(dead[0]), "part-00001-of-00002.parquet") {
		t.Fatalf("killed writer left %v, want one temporary named after its part", dead)
	}

	// A live writer in another store (another run, as far as the sweep
	// knows), made to look old.
	live, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lw, err := live.Create(ctx, "run/ds/part-00000-of-00002.parquet", store.Once)
	if err != nil {
		t.Fatal(err)
	}
	lw.Write([]byte("still writing"))
	var liveTemp string
	for _, p := range temps(t, ds) {
		if p != dead[0] {
			liveTemp = p
		}
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(liveTemp, old, old); err != nil {
		t.Fatal(err)
	}

	// The rerun of the killed shard.
	rerun, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(ctx, rerun, "run/ds/part-00001-of-00002.parquet", []byte("all of it"), store.Once); err != nil {
		t.Fatal(err)
	}
	left := temps(t, ds)
	if len(left) != 1 || left[0] != liveTemp {
		t.Errorf("after the rerun: temporaries %v, want only the live writer's %s", left, liveTemp)
	}
	if _, err := lw.Commit(); err != nil {
		t.Errorf("live writer's commit after the sweep: %v", err)
	}
	if left := temps(t, ds); len(left) != 0 {
		t.Errorf("temporaries left at the end: %v", left)
	}
}
