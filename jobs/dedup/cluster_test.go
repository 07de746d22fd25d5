package dedup

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

func TestStar(t *testing.T) {
	same := func(int) int { return 0 }
	tests := []struct {
		name  string
		n     int
		pairs []pair
		prio  func(int) int
		want  string
	}{
		{"chain does not link the ends", 3, []pair{{i: 0, j: 1}, {i: 1, j: 2}}, same, "[[0 1]]"},
		{"star around the first", 4, []pair{{i: 0, j: 1}, {i: 0, j: 2}, {i: 0, j: 3}, {i: 2, j: 3}}, same, "[[0 1 2 3]]"},
		{"two chains", 6, []pair{{i: 0, j: 1}, {i: 1, j: 2}, {i: 2, j: 3}, {i: 4, j: 5}}, same, "[[0 1] [2 3] [4 5]]"},
		{"priority picks the kept member", 3, []pair{{i: 0, j: 1}, {i: 1, j: 2}}, func(i int) int {
			if i == 1 {
				return 0
			}
			return 1
		}, "[[1 0 2]]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(star(tt.n, tt.pairs, tt.prio)); got != tt.want {
			t.Errorf("%s: star = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// word is the i-th of distinct letter-only words (no digits: the guard
// compares numbers).
func word(i int) string {
	var b []byte
	for i++; i > 0; i /= 26 {
		b = append(b, byte('a'+i%26))
	}
	return "w" + string(b)
}

// chain returns three 150-word statements a, b, c: b differs from a in two
// words, c from b in two more, so a~b and b~c reach Jaccard 0.87 while a~c
// is 0.76, under the threshold.
func chain() []dataset.Problem {
	words := make([]string, 150)
	for i := range words {
		words[i] = word(i)
	}
	text := func() string { return strings.Join(words, " ") + ". What is the answer?" }
	a := text()
	words[20], words[60] = "changed", "altered"
	b := text()
	words[100], words[130] = "modified", "replaced"
	c := text()
	return []dataset.Problem{
		{ID: "a", Source: "official", Statement: a, Solution: "s"},
		{ID: "b", Source: "official", Statement: b, Solution: "s"},
		{ID: "c", Source: "official", Statement: c, Solution: "s"},
	}
}

// TestClusteringChains: with star clustering (the default) c is kept,
// since it is no duplicate of the kept a; union_find drops it through b.
// The guard is off: it would keep each pair apart, their words differing.
func TestClusteringChains(t *testing.T) {
	for _, tt := range []struct{ clustering, want string }{
		{"", "[b]"},
		{"clustering: union_find", "[b c]"},
	} {
		ctx := context.Background()
		cfg := parse(t, "run: r\nroot: mem\nlog: {progress_seconds: 0}\ndedup: {guard: false, "+tt.clustering+"}\n")
		root := store.NewMem()
		putProblems(t, root, "r", chain(), 1)
		runDedup(t, cfg, root)
		dups, err := dataset.Read[dataset.Duplicate](ctx, root, layout.DataKey("r", "duplicates", shard.Spec{Index: 0, Count: 1}))
		if err != nil {
			t.Fatal(err)
		}
		var dropped []string
		for _, d := range dups {
			if d.Kept != "a" {
				t.Errorf("%q: %s kept, want a", tt.clustering, d.Kept)
			}
			dropped = append(dropped, d.Dropped)
		}
		if got := fmt.Sprint(dropped); got != tt.want {
			t.Errorf("%q: dropped %s, want %s", tt.clustering, got, tt.want)
		}
		rep, err := store.ReadAll(ctx, root, layout.ReportKey("r", ReportDedup))
		if err != nil {
			t.Fatal(err)
		}
		// Both statements of the pair nearest the threshold are shown.
		for _, w := range []string{"## Cluster sizes", "## Largest clusters", "### a (official)", "## Confirmed pairs nearest the threshold", "Jaccard 0.8", "> " + word(0), "changed", "modified"} {
			if !strings.Contains(string(rep), w) {
				t.Errorf("%q: reports/dedup.md lacks %q:\n%s", tt.clustering, w, rep)
			}
		}
	}
}
