package dedup

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
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

// mathProblems reads the MATH files matching pattern as ingest maps them
// (id: unique_id, statement: problem, solution, subject: type; source
// official, origin math), sorted by id. A row ingest would reject fails
// the test: the fixture must be exactly what ingest writes.
func mathProblems(t *testing.T, pattern string) []dataset.Problem {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v (%d files)", pattern, err, len(files))
	}
	var probs []dataset.Problem
	seen := map[string]bool{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for line := 1; sc.Scan(); line++ {
			var r struct {
				ID       string `json:"unique_id"`
				Problem  string `json:"problem"`
				Solution string `json:"solution"`
				Type     string `json:"type"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s:%d: %v", name, line, err)
			}
			id := strings.TrimSpace(r.ID)
			if id == "" || seen[id] || strings.TrimSpace(r.Problem) == "" || strings.TrimSpace(r.Solution) == "" {
				t.Fatalf("%s:%d: a row ingest rejects (id %q)", name, line, r.ID)
			}
			seen[id] = true
			probs = append(probs, dataset.Problem{ID: id, Source: "official", Statement: r.Problem, Solution: r.Solution, Subject: r.Type, Origin: "math"})
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f.Close()
	}
	sort.Slice(probs, func(i, j int) bool { return probs[i].ID < probs[j].ID })
	return probs
}

// putProblems writes probs (sorted by id) as n contiguous shards of
// `problems` of run, as ingest's n shards would, each with its manifest.
func putProblems(t *testing.T, root store.Store, run string, probs []dataset.Problem, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		spec := shard.Spec{Index: i, Count: n}
		lo, hi := spec.Range(len(probs))
		stagetest.Put(t, root, run, dataset.Problems, spec, probs[lo:hi])
	}
}

func parse(t *testing.T, y string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(y), Section)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runDedup runs every step of dedup (every shard of the map, then the
// reduce) in-process.
func runDedup(t *testing.T, cfg *config.Config, root store.Store) {
	t.Helper()
	ctx := context.Background()
	for _, step := range Stage.Steps {
		c := step.Count(cfg)
		for i := 0; i < c; i++ {
			if _, err := stage.RunShard(ctx, cfg, Stage, step, shard.Spec{Index: i, Count: c}, root, zerolog.Nop(), stage.Options{}); err != nil {
				t.Fatalf("%s %s %d/%d: %v", Stage.Name, step.Name, i, c, err)
			}
		}
	}
}

// runAll writes probs as `problems` in 2 shards (as ingest with 2 shards)
// and runs dedup (n shards + reduce) in-process under run name, and
// returns the reduce's manifest.
func runAll(t *testing.T, rootDir, run string, probs []dataset.Problem, n int) *layout.Manifest {
	t.Helper()
	ctx := context.Background()
	cfg := parse(t, fmt.Sprintf("run: %s\nroot: %s\nlog: {progress_seconds: 0}\ndedup:\n  shards: %d\n", run, rootDir, n))
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	putProblems(t, root, run, probs, 2)
	runDedup(t, cfg, root)
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
	probs := mathProblems(t, dir+"/MATH_test.jsonl")
	m3 := runAll(t, root, "s3", probs, 3)
	m7 := runAll(t, root, "s7", probs, 7)
	if len(m3.Outputs) != 3 || len(m7.Outputs) != 3 { // corpus, duplicates, reports/dedup.md
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
// every pair with J ≥ 0.9 that minhash.Guard does not keep apart ends in one
// cluster (recall ≥ 0.95), no dropped member fails the guard, and ≥ 95% of
// reported duplicates have true J ≥ 0.7 with the member kept.
func TestAgainstBruteForce(t *testing.T) {
	dir := mathDir(t)
	ctx := context.Background()
	rootDir := t.TempDir()
	probs := mathProblems(t, dir+"/MATH_*.jsonl")
	if len(probs) != 12500 {
		t.Fatalf("%d MATH problems, want 12500", len(probs))
	}
	m := runAll(t, rootDir, "bf", probs, 3)
	root, _ := store.Open(ctx, rootDir, store.Options{})
	objs := m.Objects("duplicates")
	if len(objs) != 1 {
		t.Fatalf("reduce manifest lists %d duplicates parts: %+v", len(objs), m.Outputs)
	}
	dups, err := dataset.Read[dataset.Duplicate](ctx, root, objs[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	sh := make(map[string][]uint64, len(probs))
	index := map[uint64][]int{}
	for i, p := range probs {
		s := shingles(&Config{NGram: 5}, p.Statement)
		sh[p.ID] = s
		for _, h := range s {
			index[h] = append(index[h], i)
		}
	}
	// Exact pairs with J ≥ 0.9: count shared shingles with every earlier document.
	type pair struct{ a, b string }
	var high []pair
	guarded := 0
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
			// Pairs the guard keeps apart (other numbers or another final
			// question) are different problems, not copies to find.
			if float64(inter[j])/float64(a+b-inter[j]) >= 0.9 {
				if minhash.Guard(probs[j].Statement, p.Statement) == "" {
					high = append(high, pair{probs[j].ID, p.ID})
				} else {
					guarded++
				}
			}
			inter[j] = 0
		}
	}
	of := clusterOf(dups)
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
	stmt := map[string]string{}
	for _, p := range probs {
		stmt[p.ID] = p.Statement
	}
	for _, d := range dups {
		if j := minhash.Jaccard(sh[d.Dropped], sh[d.Kept]); j >= 0.7 {
			good++
			if j < 0.8 || d.Similarity != j {
				t.Errorf("%s dropped for %s: exact Jaccard %.3f, reported %.3f; want exact ≥ threshold 0.8, reported", d.Dropped, d.Kept, j, d.Similarity)
			}
		}
		if r := minhash.Guard(stmt[d.Dropped], stmt[d.Kept]); r != "" {
			t.Errorf("%s dropped for %s though %s", d.Dropped, d.Kept, r)
		}
	}
	precision := float64(good) / float64(len(dups))
	t.Logf("pairs with J ≥ 0.9 kept apart by the guard: %d", guarded)
	t.Logf("pairs with J ≥ 0.9: %d, in one cluster: %d (recall %.3f); reported duplicates %d, with J ≥ 0.7: %d (%.3f)",
		len(high), together, recall, len(dups), good, precision)
	if recall < 0.95 {
		t.Errorf("recall %.3f < 0.95", recall)
	}
	if precision < 0.95 {
		t.Errorf("precision %.3f < 0.95", precision)
	}
}

// smallProblems are six problems, two of them near-duplicates from
// different sources: the official one must be kept though its id sorts
// later.
func smallProblems() []dataset.Problem {
	long := "Let x be a real number such that x squared plus three x plus two equals zero and x is not minus one. Find the value of x."
	return []dataset.Problem{
		{ID: "a", Source: "numina", Statement: long + " Show your work.", Solution: "x = -2."},
		{ID: "b", Source: "official", Statement: "How many primes are less than one hundred and end in the digit three?", Solution: "7."},
		{ID: "c", Source: "aops", Statement: "A triangle has sides three, four and five. What is the radius of its inscribed circle?", Solution: "1."},
		{ID: "d", Source: "official", Statement: long, Solution: "x = -2, since x = -1 is excluded."},
		{ID: "e", Source: "other", Statement: "Compute the sum of the first twenty positive odd integers, and explain.", Solution: "400."},
		{ID: "f", Source: "official", Statement: "In how many ways can eight rooks be placed on a chessboard so no two attack?", Solution: "40320."},
	}
}

// TestMapRecordsWhatItRead: a map shard reads only the part of `problems`
// that holds its range; a part outside its range stays recorded as
// unread with its writer's hash, and every part it opened is recorded
// with the hash of the bytes it read. The reduce records every part of
// both its inputs as read, and keeps the near-duplicate of higher source
// priority.
func TestMapRecordsWhatItRead(t *testing.T) {
	ctx := context.Background()
	cfg := parse(t, "run: r\nroot: mem\nlog: {progress_seconds: 0}\ndedup: {shards: 3}\n")
	root := store.NewMem()
	probs := smallProblems()
	var parts []layout.Object
	for i := 0; i < 2; i++ {
		spec := shard.Spec{Index: i, Count: 2}
		lo, hi := spec.Range(len(probs))
		parts = append(parts, stagetest.Put(t, root, "r", dataset.Problems, spec, probs[lo:hi]))
	}
	runDedup(t, cfg, root)
	inputs := func(ds string, spec shard.Spec) map[string]layout.Object {
		m, err := layout.ReadDone(ctx, root, layout.DoneKey("r", ds, spec))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]layout.Object{}
		for _, o := range m.Inputs {
			out[o.Key] = o
		}
		return out
	}
	// Shard 0 of 3 is rows [0, 2): inside the first part of problems.
	in := inputs("signatures", shard.Spec{Index: 0, Count: 3})
	if p := in[parts[0].Key]; len(in) != 2 || p.Unread || p.SHA256 != parts[0].SHA256 || p.Dataset != "problems" {
		t.Errorf("map 0/3 inputs %+v: want part 0 read", in)
	}
	if p := in[parts[1].Key]; !p.Unread || p.SHA256 != parts[1].SHA256 || p.Rows != 3 {
		t.Errorf("map 0/3 inputs %+v: want part 1 recorded unread", in)
	}
	// Shard 1 of 3 is rows [2, 4): across both parts.
	for k, o := range inputs("signatures", shard.Spec{Index: 1, Count: 3}) {
		if o.Unread {
			t.Errorf("map 1/3: %s recorded unread, its rows were read", k)
		}
	}
	one := shard.Spec{Index: 0, Count: 1}
	in = inputs("corpus", one)
	var sigs, problems int
	for k, o := range in {
		if o.Unread {
			t.Errorf("reduce: %s recorded unread", k)
		}
		switch o.Dataset {
		case "signatures":
			sigs++
		case "problems":
			problems++
		}
	}
	if sigs != 3 || problems != 2 {
		t.Errorf("reduce inputs: %d signatures and %d problems parts, want 3 and 2: %+v", sigs, problems, in)
	}
	dups, err := dataset.Read[dataset.Duplicate](ctx, root, layout.DataKey("r", "duplicates", one))
	if err != nil {
		t.Fatal(err)
	}
	if len(dups) != 1 || dups[0].Kept != "d" || dups[0].Dropped != "a" || dups[0].DroppedSource != "numina" || dups[0].Similarity < 0.8 {
		t.Errorf("duplicates %+v: want a (numina) dropped for d (official)", dups)
	}
	corpus, err := dataset.Read[dataset.Document](ctx, root, layout.DataKey("r", "corpus", one))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range corpus {
		ids = append(ids, d.ID)
		if d.ID == "d" && d.Duplicates != 1 {
			t.Errorf("kept d: duplicates %d, want 1", d.Duplicates)
		}
	}
	if got := strings.Join(ids, ","); got != "b,c,d,e,f" {
		t.Errorf("corpus %s, want b,c,d,e,f", got)
	}
}

// TestSeedAndSectionMakeStale: dedup declares that it derives from the
// run seed, so a done dedup shard under another seed, or another
// dedup.threshold, is refused as stale; the shard count is operational
// and is not recorded.
func TestSeedAndSectionMakeStale(t *testing.T) {
	ctx := context.Background()
	cfg := parse(t, "run: r\nroot: mem\nseed: 7\nlog: {progress_seconds: 0}\ndedup: {shards: 2}\n")
	root := store.NewMem()
	putProblems(t, root, "r", smallProblems(), 2)
	runDedup(t, cfg, root)
	m, err := layout.ReadDone(ctx, root, layout.DoneKey("r", "signatures", shard.Spec{Index: 0, Count: 2}))
	if err != nil {
		t.Fatal(err)
	}
	if m.Config["seed"] != "7" || m.Config["dedup.ngram"] != "5" || m.Config["dedup.bands"] != "14" {
		t.Errorf("manifest config %v: want seed and the dedup section", m.Config)
	}
	// Signatures do not depend on what only the reduce reads.
	for _, k := range []string{"dedup.threshold", "dedup.guard", "dedup.clustering", "dedup.priority"} {
		if _, ok := m.Config[k]; ok {
			t.Errorf("map manifest config records %s: %v", k, m.Config)
		}
	}
	rm, err := layout.ReadDone(ctx, root, layout.DoneKey("r", "corpus", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if rm.Config["dedup.threshold"] != "0.8" || rm.Config["dedup.guard"] != "true" {
		t.Errorf("reduce manifest config %v: want the whole dedup section", rm.Config)
	}
	if _, ok := m.Config["dedup.shards"]; ok {
		t.Errorf("manifest config %v records the shard count", m.Config)
	}
	mapStep, _ := Stage.Step("map")
	reduce, _ := Stage.Step("reduce")
	for _, tt := range []struct {
		name   string
		change func(*config.Config)
		step   stage.Step
		spec   shard.Spec
		want   string
	}{
		{"seed", func(c *config.Config) { c.Seed = 8 }, mapStep, shard.Spec{Index: 1, Count: 2}, "config seed: 7 → 8"},
		{"threshold", func(c *config.Config) { Section.Of(c).Threshold = 0.9 }, reduce, shard.Spec{Index: 0, Count: 1}, "config dedup.threshold: 0.8 → 0.9"},
		{"guard", func(c *config.Config) { off := false; Section.Of(c).Guard = &off }, reduce, shard.Spec{Index: 0, Count: 1}, "config dedup.guard: true → false"},
		{"clustering", func(c *config.Config) { Section.Of(c).Clustering = ClusterUnionFind }, reduce, shard.Spec{Index: 0, Count: 1}, `config dedup.clustering: "star" → "union_find"`},
	} {
		c := parse(t, "run: r\nroot: mem\nseed: 7\nlog: {progress_seconds: 0}\ndedup: {shards: 2}\n")
		tt.change(c)
		_, err := stage.RunShard(ctx, c, Stage, tt.step, tt.spec, root, zerolog.Nop(), stage.Options{})
		var stale *stage.StaleError
		if !errors.As(err, &stale) || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s changed: %v; want a stale error with %q", tt.name, err, tt.want)
		}
	}
	// A threshold, guard, clustering or priority change leaves the map
	// done: signatures do not depend on them.
	for _, change := range []func(*config.Config){
		func(c *config.Config) { Section.Of(c).Threshold = 0.9 },
		func(c *config.Config) { off := false; Section.Of(c).Guard = &off },
		func(c *config.Config) { Section.Of(c).Clustering = ClusterUnionFind },
		func(c *config.Config) { Section.Of(c).Priority = []string{"other", "aops", "numina", "official"} },
	} {
		c := parse(t, "run: r\nroot: mem\nseed: 7\nlog: {progress_seconds: 0}\ndedup: {shards: 2}\n")
		change(c)
		for i := 0; i < 2; i++ {
			res, err := stage.RunShard(ctx, c, Stage, mapStep, shard.Spec{Index: i, Count: 2}, root, zerolog.Nop(), stage.Options{})
			if err != nil || !res.Skipped {
				t.Errorf("map shard %d after a reduce-only change: %+v, %v; want skipped (done, not stale)", i, res, err)
			}
		}
	}
	// Unchanged, every step is served as done.
	for _, step := range Stage.Steps {
		res, err := stage.RunShard(ctx, cfg, Stage, step, shard.Spec{Index: 0, Count: step.Count(cfg)}, root, zerolog.Nop(), stage.Options{})
		if err != nil || !res.Skipped {
			t.Errorf("%s unchanged: %+v, %v; want skipped", step.Name, res, err)
		}
	}
}

// TestMATH500Recall is the recall bar in the shape it was found:
// MATH-500 is 500 MATH test problems re-published under other ids. Every
// 10th test problem is copied under a new id, as published (most), with
// its white space, LaTeX spacing or punctuation spacing changed; dedup over MATH plus the copies must put each copy in its
// original's cluster, with the confirmation, the guard and star
// clustering on (the defaults).
func TestMATH500Recall(t *testing.T) {
	dir := mathDir(t)
	probs := mathProblems(t, dir+"/MATH_*.jsonl")
	var copies []dataset.Problem
	orig := map[string]string{} // copy id → original id
	seen := 0
	for _, p := range probs {
		if !strings.HasPrefix(p.ID, "test/") {
			continue
		}
		seen++
		if seen%10 != 0 || len(copies) == 500 {
			continue
		}
		n := len(copies)
		c := p
		c.Source, c.Origin = "other", "math500"
		c.ID = fmt.Sprintf("math500/%03d", n)
		switch n % 5 {
		case 1: // re-flowed: every run of white space one blank
			c.Statement = strings.Join(strings.Fields(c.Statement), " ")
		case 2: // LaTeX spacing inside maths
			c.Statement = strings.ReplaceAll(strings.ReplaceAll(c.Statement, "$", " $ "), "\\frac", "\\frac ")
		case 3: // punctuation spaced and line ends from another system
			c.Statement = strings.ReplaceAll(strings.ReplaceAll(c.Statement, "?", " ?"), "\n", "\r\n")
		}
		orig[c.ID] = p.ID
		copies = append(copies, c)
	}
	if len(copies) != 500 {
		t.Fatalf("made %d copies, want 500", len(copies))
	}
	all := append(append([]dataset.Problem(nil), probs...), copies...)
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	rootDir := t.TempDir()
	m := runAll(t, rootDir, "m500", all, 3)
	root, _ := store.Open(context.Background(), rootDir, store.Options{})
	dups, err := dataset.Read[dataset.Duplicate](context.Background(), root, m.Objects("duplicates")[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	of := clusterOf(dups)
	found := 0
	for cp, o := range orig {
		if of(cp) == of(o) {
			found++
		} else {
			t.Logf("missed: %s (copy of %s)", cp, o)
		}
	}
	t.Logf("MATH-500-style copies found: %d of %d", found, len(orig))
	if found != len(orig) {
		t.Errorf("found %d of %d copies, want all", found, len(orig))
	}
}

// clusterOf returns the cluster of each id as dups record it: a dropped
// row's cluster, and for any other id the id itself (a kept member names
// its cluster).
func clusterOf(dups []dataset.Duplicate) func(id string) string {
	cluster := make(map[string]string, len(dups))
	for _, d := range dups {
		cluster[d.Dropped] = d.Cluster
	}
	return func(id string) string {
		if c, ok := cluster[id]; ok {
			return c
		}
		return id
	}
}
