package tag

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	defaultont "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/topics"
	"github.com/saber-math/saber/shard"
)

// mathCorpus reads the MATH problems beside the repository as corpus
// documents, skipping the test where they are absent.
func mathCorpus(t *testing.T) []dataset.Document {
	t.Helper()
	var docs []dataset.Document
	for _, name := range []string{"MATH_train.jsonl", "MATH_test.jsonl"} {
		f, err := os.Open(filepath.Join("../../../shared/data/math", name))
		if os.IsNotExist(err) {
			t.Skipf("MATH data not present: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var r struct {
				ID       string `json:"unique_id"`
				Problem  string `json:"problem"`
				Solution string `json:"solution"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			docs = append(docs, dataset.Document{ID: r.ID, Source: "official", Statement: r.Problem, Solution: r.Solution})
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

// mscTree is the MSC2020 classes' tree as the stage reads it.
func mscTree(t *testing.T) *ontology.Tree {
	t.Helper()
	p := "../../artifacts/ontology/testdata/msc2020-classes.jsonl"
	body, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := defaultont.Load(defaultont.Source{Name: p, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ontology.BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestTagMSCOnMATH is the stage half of the MSC2020 bar: tag, with the
// offline lexical backend and MSC2020's top and second-level classes read
// from JSKOS through benchmark.ontology.file, completes over the 12,500
// MATH problems (tag.allow_label_only lets it past the label-only gate)
// without the warning of a topic on more documents than plausible, and
// no class (a top class either) is on more than that share of them.
func TestTagMSCOnMATH(t *testing.T) {
	docs := mathCorpus(t)
	onto, err := filepath.Abs("../../artifacts/ontology/testdata/msc2020-classes.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg, err := config.Parse([]byte("run: r\nroot: mem\nlog: {progress_seconds: 0}\nbenchmark: {ontology: {file: "+onto+"}}\ntag: {allow_label_only: true}\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	root := store.NewMem()
	stagetest.PutOne(t, root, "r", dataset.Corpus, docs)
	one := shard.Spec{Index: 0, Count: 1}
	var logs bytes.Buffer
	res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.New(&logs), stage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Manifest.Stats[StatImplausibleTopics]; n != 0 {
		t.Errorf("%s = %d, want 0", StatImplausibleTopics, n)
	}
	rows, err := dataset.Read[dataset.TopicRow](ctx, root, layout.DataKey("r", "topics", one))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(docs) {
		t.Fatalf("%d topic rows of %d documents", len(rows), len(docs))
	}
	// What finish warns above: the share plausible for one of the
	// ontology's topics at that depth (tag.max_topic_share unset).
	tree := mscTree(t)
	atDepth := topics.TopicsAtDepth(tree)
	limit := func(path string) float64 {
		return topics.PlausibleShare(atDepth[strings.Count(path, ontology.PathSep)+1])
	}
	if !strings.Contains(logs.String(), `"common topic"`) {
		t.Fatalf("the shard logged no common topics:\n%s", logs.String())
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"level":"warn"`) && strings.Contains(line, ImplausibleTopicMsg) {
			t.Errorf("warned: %s", line)
		}
	}
	// Top classes as well: commonTopics leaves them out, since a domain of
	// a small ontology rightly holds a third of a corpus, but MSC has 63.
	top := map[string]int{}
	for _, r := range rows {
		seen := map[string]bool{}
		for _, p := range r.Topics {
			d, _, _ := strings.Cut(p, ontology.PathSep)
			if !seen[d] {
				seen[d] = true
				top[d]++
			}
		}
	}
	for d, n := range top {
		if s := float64(n) / float64(len(rows)); s > limit(d) {
			t.Errorf("top class %s on %.1f%% of MATH, above the plausible %.3f", d, 100*s, limit(d))
		}
	}
	for _, ts := range commonTopics(rows, 5) {
		t.Logf("%5.1f%%  %s", 100*ts.Share, ts.Topic)
		if ts.Share > limit(ts.Topic) {
			t.Errorf("%s on %.1f%% of MATH, above the plausible %.3f", ts.Topic, 100*ts.Share, limit(ts.Topic))
		}
	}
}
