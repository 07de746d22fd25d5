package pairs

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/dedup"
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/summarize"
	"github.com/saber-math/saber/jobs/tag"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/summtok"
	"github.com/saber-math/saber/shard"
)

func TestCategory(t *testing.T) {
	tests := []struct {
		st, ss float64
		want   string
	}{{0.9, 0.3, "both"}, {0.9, 0.211, "topic"}, {0.858, 0.5, "summary"}, {0.858, 0.211, ""}}
	for _, tt := range tests {
		if got := Category(tt.st, tt.ss, 0.858, 0.211); got != tt.want {
			t.Errorf("Category(%v, %v) = %q, want %q", tt.st, tt.ss, got, tt.want)
		}
	}
}

// TestExactAgainstBruteForce runs ingest → dedup → tag → summarize (offline)
// → pairs on both MATH files (12,500 problems), then scores every pair of
// documents by brute force: pairs must hold exactly the pairs over either
// floor, with both similarities equal to 1e-12, and 1 and 3 pairs shards
// must give the same rows.
func TestExactAgainstBruteForce(t *testing.T) {
	data, _ := filepath.Abs("../../../shared/data/math")
	if _, err := os.Stat(filepath.Join(data, "MATH_test.jsonl")); err != nil {
		t.Skipf("MATH data not present at %s", data)
	}
	ctx := context.Background()
	rootDir := t.TempDir()
	build := func(run string, pairShards int) *config.Config {
		cfg, err := config.Parse([]byte(fmt.Sprintf(`run: %s
root: %s
log: {progress_seconds: 0}
ingest:
  sources: [{name: math, paths: [%s/MATH_*.jsonl], source: official, fields: {id: unique_id, statement: problem, solution: solution}}]
dedup: {shards: 2}
tag: {shards: 2}
summarize: {shards: 2}
pairs: {shards: %d}
`, run, rootDir, data, pairShards)))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	root, _ := store.Open(ctx, rootDir, store.Options{})
	runStages := func(cfg *config.Config) {
		for _, st := range []stage.Stage{ingest.Stage, dedup.Stage, tag.Stage, summarize.Stage, Stage} {
			for _, step := range st.Steps {
				n := step.Count(cfg)
				for i := 0; i < n; i++ {
					if _, err := stage.RunShard(ctx, cfg, st, step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{}); err != nil {
						t.Fatalf("%s %s: %v", st.Name, step.Name, err)
					}
				}
			}
		}
	}
	cfg3 := build("p3", 3)
	runStages(cfg3)
	got := readPairs(t, root, "p3", 3)

	// Brute force over the same loaded inputs.
	c, err := Load(ctx, &stage.Env{Config: cfg3, In: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.IDs) < 5000 {
		t.Fatalf("only %d documents", len(c.IDs))
	}
	tauT, tauS := cfg3.Pairs.TopicFloor, cfg3.Pairs.SummFloor
	var mu sync.Mutex
	want := map[[2]string][2]float64{}
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			local := map[[2]string][2]float64{}
			for q := w; q < len(c.IDs); q += 2 {
				for d := range c.IDs {
					if d == q {
						continue
					}
					st := ontology.BMA(c.Tree, c.IC, c.Topics[q], c.Topics[d])
					ss := summtok.Jaccard(c.Tokens[q], c.Tokens[d])
					if st > tauT || ss > tauS {
						local[[2]string{c.IDs[q], c.IDs[d]}] = [2]float64{st, ss}
					}
				}
			}
			mu.Lock()
			for k, v := range local {
				want[k] = v
			}
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	if len(want) == 0 {
		t.Fatal("brute force found no pairs; the test would prove nothing")
	}
	if len(got) != len(want) {
		t.Errorf("pairs has %d rows, brute force %d", len(got), len(want))
	}
	cats := map[string]int{}
	for _, p := range got {
		w, ok := want[[2]string{p.Query, p.Doc}]
		switch {
		case p.Query == p.Doc:
			t.Fatalf("self pair %s", p.Query)
		case !ok:
			t.Fatalf("pair %s~%s not in brute force (%v %v)", p.Query, p.Doc, p.SimTopic, p.SimSumm)
		case math.Abs(w[0]-p.SimTopic) > 1e-12 || math.Abs(w[1]-p.SimSumm) > 1e-12:
			t.Fatalf("pair %s~%s: %v %v, brute force %v", p.Query, p.Doc, p.SimTopic, p.SimSumm, w)
		case p.Category != Category(p.SimTopic, p.SimSumm, tauT, tauS):
			t.Fatalf("pair %s~%s: category %q disagrees with its similarities", p.Query, p.Doc, p.Category)
		}
		cats[p.Category]++
	}
	t.Logf("%d documents, %d pairs (%v), brute force agrees", len(c.IDs), len(got), cats)

	// One pairs shard gives the same rows as three.
	cfg1 := build("p3", 1) // same run: reuses every upstream shard
	step := Stage.Steps[0]
	if _, err := stage.RunShard(ctx, cfg1, Stage, step, shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{}); err != nil {
		t.Fatal(err)
	}
	one, err := dataset.Read[dataset.Pair](ctx, root, layout.DataKey("p3", "pairs", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(one) != fmt.Sprint(got) {
		t.Error("1 shard and 3 shards give different pairs")
	}
}

func readPairs(t *testing.T, st store.Store, run string, n int) []dataset.Pair {
	t.Helper()
	var out []dataset.Pair
	for i := 0; i < n; i++ {
		rows, err := dataset.Read[dataset.Pair](context.Background(), st, layout.DataKey(run, "pairs", shard.Spec{Index: i, Count: n}))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
	return out
}
