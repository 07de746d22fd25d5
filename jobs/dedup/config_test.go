package dedup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

func TestConfigDefaults(t *testing.T) {
	c := Section.Of(parse(t, "run: r\nroot: d\n"))
	if c.Shards != 1 || c.NGram != 5 || c.Bands != 14 || c.Rows != 8 || c.Threshold != 0.8 || !c.GuardOn() || c.Clustering != ClusterStar || fmt.Sprint(c.Priority) != fmt.Sprint(dataset.Sources) {
		t.Errorf("defaults: %+v", c)
	}
	c = Section.Of(parse(t, "run: r\nroot: d\ndedup: {shards: 3, ngram: 3, bands: 20, rows: 5, threshold: 1, guard: false, clustering: union_find, priority: [aops, official]}\n"))
	if c.GuardOn() || c.Clustering != ClusterUnionFind || c.Shards != 3 || c.NGram != 3 || c.Bands != 20 || c.Rows != 5 || c.Threshold != 1 || fmt.Sprint(c.Priority) != "[aops official]" {
		t.Errorf("set values: %+v", c)
	}
	// Config.Default fills the same defaults for configs built in code.
	// (Guard is a pointer: compare its value, not its address.)
	d, p := *Section.Of(config.Default(Section)), *Section.Of(parse(t, "run: r\nroot: d\n"))
	dg, pg := d.GuardOn(), p.GuardOn()
	d.Guard, p.Guard = nil, nil
	if fmt.Sprintf("%+v %v", d, dg) != fmt.Sprintf("%+v %v", p, pg) {
		t.Errorf("config.Default: %+v", d)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		yaml string
		want []string
	}{
		{"dedup: {threshold: 1.5}", []string{"dedup.threshold: 1.5 must be in (0, 1]"}},
		{"dedup: {threshold: -0.2}", []string{"dedup.threshold: -0.2 must be in (0, 1]"}},
		{"dedup: {shards: -1}", []string{"dedup.shards: must be ≥ 1"}},
		{"dedup: {ngram: -1}", []string{"dedup.ngram: must be ≥ 1"}},
		{"dedup: {bands: -1}", []string{"dedup.bands, dedup.rows: must be ≥ 1"}},
		{"dedup: {rows: -3}", []string{"dedup.bands, dedup.rows: must be ≥ 1"}},
		{"dedup: {priority: [official, web]}", []string{`dedup.priority[1]: "web" is not one of official, numina, aops, other`}},
		{"dedup: {priority: [aops, official, aops]}", []string{`dedup.priority[2]: "aops" listed twice`}},
		{"dedup: {clustering: chain}", []string{`dedup.clustering: "chain" must be star or union_find`}},
		{"dedup: {threshold: 2, ngram: -1}", []string{"dedup.threshold: 2 must be in (0, 1]", "dedup.ngram: must be ≥ 1"}},
		{"dedup: {treshold: 0.9}", []string{"unknown key dedup.treshold (valid here: bands, clustering, guard, ngram, priority, rows, shards, threshold)"}},
	}
	for _, tt := range tests {
		_, err := config.Parse([]byte("run: r\nroot: d\n"+tt.yaml+"\n"), Section)
		if err == nil || stage.ExitCode(err) != stage.ExitBadInput {
			t.Errorf("%s: err = %v (exit %d), want a config error", tt.yaml, err, stage.ExitCode(err))
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v\nwant %q in it", tt.yaml, err, w)
			}
		}
	}
}
