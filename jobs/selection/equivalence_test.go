package selection_test

// The bar of storage that grows with N: calibrate and select give the same
// bytes — thresholds, calibration, queries, candidates and their reports —
// from pairs' per-query counts (the default) as from every pair
// (pairs.keep_all, which runs the code that read pairs before the counts
// existed), on generated corpora and on the MATH test split.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	aontology "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/calibrate"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pairs"
	"github.com/saber-math/saber/jobs/selection"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/summary"
	"github.com/saber-math/saber/lib/synth/corpusdist"
	"github.com/saber-math/saber/lib/topics"
	"github.com/saber-math/saber/shard"
)

type doc struct {
	id         string
	topics     []int
	noCoreIdea bool
	coreIdea   string
}

// generatedDocs is n documents with a real corpus's topic and summary
// distributions (lib/synth/corpusdist).
func generatedDocs(t *testing.T, tree *ontology.Tree, n int) []doc {
	gen, err := corpusdist.New(tree, 5, corpusdist.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	var out []doc
	for _, d := range gen.Docs(n) {
		out = append(out, doc{id: d.ID, topics: d.Topics, noCoreIdea: d.NoCoreIdea, coreIdea: d.CoreIdea})
	}
	return out
}

// mathDocs is the MATH test split tagged and summarised offline (lexical
// topics, extractive summaries), skipping when the data is absent.
func mathDocs(t *testing.T, tree *ontology.Tree) []doc {
	path, _ := filepath.Abs("../../../shared/data/math/MATH_test.jsonl")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("MATH data not present at %s", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct {
		ID       string `json:"unique_id"`
		Problem  string `json:"problem"`
		Solution string `json:"solution"`
	}
	var rows []row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	lex := topics.NewLexical(tree)
	out := make([]doc, len(rows))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(rows); i += workers {
				r := rows[i]
				a, err := topics.Assign(context.Background(), tree, lex, topics.Text{Statement: r.Problem, Solution: r.Solution}, 0.85, 200)
				if err != nil {
					errs[w] = err
					return
				}
				s := summary.Extractive(r.Problem, r.Solution)
				out[i] = doc{id: r.ID, topics: a.Topics, noCoreIdea: s.NoCoreIdea, coreIdea: s.CoreIdea}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// putDocs writes the documents' topics (with their main domain) and
// summaries as tag and summarize would.
func putDocs(t *testing.T, root store.Store, run string, tree *ontology.Tree, docs []doc) {
	var trows []dataset.TopicRow
	var srows []dataset.Summary
	for _, d := range docs {
		r := dataset.TopicRow{ID: d.id, Backend: "lexical"}
		for _, n := range d.topics {
			r.Topics = append(r.Topics, tree.Path(n))
		}
		if dom := topics.MainDomain(tree, d.topics); dom >= 0 {
			r.Domain = tree.Label(dom)
		}
		trows = append(trows, r)
		srows = append(srows, dataset.Summary{ID: d.id, NoCoreIdea: d.noCoreIdea, CoreIdea: d.coreIdea, Backend: "extractive"})
	}
	sort.Slice(trows, func(i, j int) bool { return trows[i].ID < trows[j].ID })
	sort.Slice(srows, func(i, j int) bool { return srows[i].ID < srows[j].ID })
	stagetest.PutBy(t, root, run, dataset.Topics, "tag", map[string]string{"tag.backend": "lexical"}, trows)
	stagetest.PutBy(t, root, run, dataset.Summaries, "summarize", map[string]string{"summarize.backend": "extractive"}, srows)
}

// pipeline runs pairs (3 shards), calibrate and select on run and returns
// the hashes of calibrate's and select's outputs and reports by name, and
// the bytes pairs stored.
func pipeline(t *testing.T, root store.Store, y string) (map[string]string, int64) {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.Parse([]byte(y), pairs.Section, calibrate.Section, selection.Section)
	if err != nil {
		t.Fatal(err)
	}
	var stored int64
	step := pairs.Stage.Steps[0]
	for i := range step.Count(cfg) {
		res, err := stage.RunShard(ctx, cfg, pairs.Stage, step, shard.Spec{Index: i, Count: step.Count(cfg)}, root, zerolog.Nop(), stage.Options{})
		if err != nil {
			t.Fatalf("pairs: %v", err)
		}
		for _, o := range res.Outputs {
			stored += o.Size
		}
	}
	out := map[string]string{}
	for _, st := range []stage.Stage{calibrate.Stage, selection.Stage} {
		res, err := stage.RunShard(ctx, cfg, st, st.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
		if err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		for _, o := range res.Outputs {
			rel := strings.TrimPrefix(o.Key, cfg.Run+"/")
			out[strings.SplitN(rel, "/", 2)[0]+"/"+filepath.Base(rel)] = o.SHA256
		}
	}
	rows, err := dataset.Read[dataset.Candidate](ctx, root, layout.DataKey(cfg.Run, dataset.Candidates.Name, shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	out["candidate rows"] = strconv.Itoa(len(rows))
	return out, stored
}

// TestCountsEqualKeepAll: on generated documents (SABER_EQUIV_DOCS of
// them, default 3,000; the bar is 50,000) and on MATH, with
// calibrated thresholds and with fixed ones off calibrate's grid, every
// output of calibrate and select is byte-identical whether pairs stored
// counts or every pair, and counts store less.
func TestCountsEqualKeepAll(t *testing.T) {
	tree, err := aontology.DefaultTree()
	if err != nil {
		t.Fatal(err)
	}
	n := 3000
	if s := os.Getenv("SABER_EQUIV_DOCS"); s != "" {
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("SABER_EQUIV_DOCS: %v", err)
		}
	}
	corpora := []struct {
		name string
		docs func(t *testing.T) []doc
		k    int
	}{
		{fmt.Sprintf("generated %d", n), func(t *testing.T) []doc { return generatedDocs(t, tree, n) }, 2},
		{"MATH", func(t *testing.T) []doc { return mathDocs(t, tree) }, 3},
	}
	thresholdModes := []struct{ name, yaml string }{
		{"calibrated", ""},
		// 0.9 and 0.25 are not on calibrate's grid (0.858 + 0.01 i, 0.211 + 0.01 j).
		{"fixed off the grid", ", thresholds: fixed, tau_topic: 0.9, tau_summ: 0.25"},
	}
	for _, c := range corpora {
		t.Run(c.name, func(t *testing.T) {
			docs := c.docs(t)
			for _, m := range thresholdModes {
				t.Run(m.name, func(t *testing.T) {
					root := store.NewMem()
					got := map[bool]map[string]string{}
					size := map[bool]int64{}
					for _, keepAll := range []bool{false, true} {
						run := fmt.Sprintf("keep%v", keepAll)
						putDocs(t, root, run, tree, docs)
						y := fmt.Sprintf("run: %s\nroot: mem\nseed: 3\nlog: {progress_seconds: 0}\nbenchmark: {k: %d}\n"+
							"pairs: {shards: 3, keep_all: %v}\ncalibrate: {min_eligible: 3}\nselect: {per_domain: 5, allow_shortfall: true%s}\n",
							run, c.k, keepAll, m.yaml)
						got[keepAll], size[keepAll] = pipeline(t, root, y)
					}
					if got[false]["candidate rows"] == "0" {
						t.Fatalf("no candidates selected: the comparison checks nothing (outputs %v)", got[false])
					}
					for name, h := range got[true] {
						if got[false][name] != h {
							t.Errorf("%s: %s from counts, %s from every pair", name, got[false][name], h)
						}
					}
					if len(got[false]) != len(got[true]) {
						t.Errorf("outputs from counts %v, from every pair %v", got[false], got[true])
					}
					names := make([]string, 0, len(got[true]))
					for name := range got[true] {
						names = append(names, name)
					}
					sort.Strings(names)
					t.Logf("%d docs, %s candidates; pairs stored %d bytes as counts, %d as every pair; identical: %s",
						len(docs), got[false]["candidate rows"], size[false], size[true], strings.Join(names, ", "))
				})
			}
		})
	}
}
