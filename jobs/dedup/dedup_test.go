package dedup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/minhash"
	"github.com/saber-math/saber/shard"
)

func mathDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/data/math")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "MATH_test.jsonl")); err != nil {
		t.Skipf("MATH data not present at %s", dir)
	}
	return dir
}

// runAll runs ingest (2 shards) and dedup (n shards + reduce) in-process
// under run name and returns the reduce manifest.
func runAll(t *testing.T, rootDir, run, inputs string, n int) *layout.Manifest {
	t.Helper()
	ctx := context.Background()
	y := fmt.Sprintf(`run: %s
root: %s
log: {progress_seconds: 0}
ingest:
  shards: 2
  sources:
    - name: math
      paths: [%s]
      source: official
      fields: {id: unique_id, statement: problem, solution: solution, subject: type}
dedup:
  shards: %d
`, run, rootDir, inputs, n)
	cfg, err := config.Parse([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []stage.Stage{ingest.Stage, Stage} {
		for _, step := range st.Steps {
			c := step.Count(cfg)
			for i := 0; i < c; i++ {
				if _, err := stage.RunShard(ctx, cfg, st, step, shard.Spec{Index: i, Count: c}, root, zerolog.Nop(), stage.Options{}); err != nil {
					t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, c, err)
				}
			}
		}
	}
	m, err := layout.ReadDone(ctx, root, layout.DoneKey(run, "corpus", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestShardCountIndependent: 3 and 7 dedup shards give byte-identical corpus
// and duplicates.
func TestShardCountIndependent(t *testing.T) {
	dir := mathDir(t)
	root := t.TempDir()
	m3 := runAll(t, root, "s3", dir+"/MATH_test.jsonl", 3)
	m7 := runAll(t, root, "s7", dir+"/MATH_test.jsonl", 7)
	if len(m3.Outputs) != 2 || len(m7.Outputs) != 2 {
		t.Fatalf("outputs %v / %v", m3.Outputs, m7.Outputs)
	}
	for i := range m3.Outputs {
		if m3.Outputs[i].SHA256 != m7.Outputs[i].SHA256 {
			t.Errorf("%s: 3 shards %s, 7 shards %s", m3.Outputs[i].Key, m3.Outputs[i].SHA256, m7.Outputs[i].SHA256)
		}
	}
	if m3.Stats["dropped"] == 0 {
		t.Error("no duplicates found in MATH test split; expected some")
	}
}

// TestAgainstBruteForce checks dedup on both MATH files against an exact
// all-pairs word-5-gram Jaccard (through an inverted index over shingles):
// every pair with J ≥ 0.9 ends in one cluster (recall ≥ 0.95), and ≥ 95% of
// reported duplicates have true J ≥ 0.7 with the member kept.
func TestAgainstBruteForce(t *testing.T) {
	dir := mathDir(t)
	ctx := context.Background()
	rootDir := t.TempDir()
	m := runAll(t, rootDir, "bf", dir+"/MATH_*.jsonl", 3)
	root, _ := store.Open(ctx, rootDir, store.Options{})
	dups, err := dataset.Read[dataset.Duplicate](ctx, root, m.Outputs[1].Key)
	if err != nil {
		t.Fatal(err)
	}
	var probs []dataset.Problem
	for i := 0; i < 2; i++ {
		p, err := dataset.Read[dataset.Problem](ctx, root, layout.DataKey("bf", "problems", shard.Spec{Index: i, Count: 2}))
		if err != nil {
			t.Fatal(err)
		}
		probs = append(probs, p...)
	}
	sh := make(map[string][]uint64, len(probs))
	index := map[uint64][]int{}
	for i, p := range probs {
		s := minhash.Shingles(minhash.Normalize(p.Statement), 5)
		sh[p.ID] = s
		for _, h := range s {
			index[h] = append(index[h], i)
		}
	}
	// Exact pairs with J ≥ 0.9: count shared shingles with every earlier document.
	type pair struct{ a, b string }
	var high []pair
	inter := make([]int, len(probs))
	for i, p := range probs {
		var touched []int
		for _, h := range sh[p.ID] {
			for _, j := range index[h] {
				if j < i {
					if inter[j] == 0 {
						touched = append(touched, j)
					}
					inter[j]++
				}
			}
		}
		for _, j := range touched {
			a, b := len(sh[p.ID]), len(sh[probs[j].ID])
			if float64(inter[j])/float64(a+b-inter[j]) >= 0.9 {
				high = append(high, pair{probs[j].ID, p.ID})
			}
			inter[j] = 0
		}
	}
	cluster := map[string]string{}
	for _, d := range dups {
		cluster[d.Dropped] = d.Cluster
	}
	of := func(id string) string {
		if c, ok := cluster[id]; ok {
			return c
		}
		return id
	}
	together := 0
	for _, p := range high {
		if of(p.a) == of(p.b) {
			together++
		} else {
			t.Logf("missed: %s ~ %s", p.a, p.b)
		}
	}
	if len(high) == 0 {
		t.Fatal("brute force found no pair with J ≥ 0.9; the test would prove nothing")
	}
	recall := float64(together) / float64(len(high))
	good := 0
	for _, d := range dups {
		if minhash.Jaccard(sh[d.Dropped], sh[d.Kept]) >= 0.7 {
			good++
		}
	}
	precision := float64(good) / float64(len(dups))
	t.Logf("pairs with J ≥ 0.9: %d, in one cluster: %d (recall %.3f); reported duplicates %d, with J ≥ 0.7: %d (%.3f)",
		len(high), together, recall, len(dups), good, precision)
	if recall < 0.95 {
		t.Errorf("recall %.3f < 0.95", recall)
	}
	if precision < 0.95 {
		t.Errorf("precision %.3f < 0.95", precision)
	}
}
