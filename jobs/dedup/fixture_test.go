package dedup

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/lib/minhash"
	"github.com/saber-math/saber/shard"
)

// labelled is a row of testdata/labelled.jsonl: a problem and, in group,
// the true copies it belongs with (rows of one group are the same problem;
// a row with no group is a problem of its own). The statements are short
// problems written for the fixture or adapted from MATH, with hand-made
// variants: true copies (white space, CRLF, LaTeX spacing and delimiters,
// \dfrac, \left, \leq and ≤, a "Problem 7." label, an appended
// instruction, synonyms) and different problems that look alike (a sign
// flip in display maths or in an earlier sentence before a shared closing
// sentence, an added constraint or question, another part of a multi-part
// problem, a relation or an interval flipped, |f(x)| and f(|x|)).
type labelled struct {
	ID        string `json:"id"`
	Source    string `json:"source"`
	Statement string `json:"statement"`
	Group     string `json:"group"`
	Note      string `json:"note"`
}

func loadLabelled(t *testing.T) []labelled {
	t.Helper()
	f, err := os.Open("testdata/labelled.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r labelled
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// fixtureScore runs dedup (defaults but for guard) over the fixture and
// returns the drops, the drops whose kept member is a true copy, and the
// true copies left undropped.
func fixtureScore(t *testing.T, rows []labelled, guard bool) (dups []dataset.Duplicate, right int, missed []string, report string) {
	t.Helper()
	ctx := context.Background()
	probs := make([]dataset.Problem, len(rows))
	for i, r := range rows {
		probs[i] = dataset.Problem{ID: r.ID, Source: r.Source, Statement: r.Statement, Solution: "s", Origin: "fixture"}
	}
	y := "run: fx\nroot: mem\nlog: {progress_seconds: 0}\ndedup: {shards: 2}\n"
	if !guard {
		y = "run: fx\nroot: mem\nlog: {progress_seconds: 0}\ndedup: {shards: 2, guard: false}\n"
	}
	cfg := parse(t, y)
	root := store.NewMem()
	putProblems(t, root, "fx", probs, 2)
	runDedup(t, cfg, root)
	dups, err := dataset.Read[dataset.Duplicate](ctx, root, layout.DataKey("fx", "duplicates", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	group := map[string]string{}
	for _, r := range rows {
		group[r.ID] = r.Group
	}
	dropped := map[string]bool{}
	for _, d := range dups {
		if g := group[d.Kept]; g != "" && g == group[d.Dropped] {
			right++
		}
		dropped[d.Dropped] = true
	}
	// Each group must lose all but one member, each to a member of its own.
	members := map[string][]string{}
	for _, r := range rows {
		if r.Group != "" {
			members[r.Group] = append(members[r.Group], r.ID)
		}
	}
	for _, ids := range members {
		n := 0
		for _, id := range ids {
			if dropped[id] {
				n++
			}
		}
		if n < len(ids)-1 { // one member is kept
			for _, id := range ids {
				if !dropped[id] {
					missed = append(missed, id)
				}
			}
		}
	}
	rep, err := store.ReadAll(ctx, root, layout.ReportKey("fx", ReportDedup))
	if err != nil {
		t.Fatal(err)
	}
	return dups, right, missed, string(rep)
}

// TestLabelledFixture is the dedup bar on a hand-labelled set: precision
// ≥ 99.5% (every drop is of a true copy, to a member of its own group)
// with every true copy dropped. The fixture's look-alikes must reach the
// threshold without the guard, or it would test nothing: with the guard
// off, some different problems are dropped.
func TestLabelledFixture(t *testing.T) {
	rows := loadLabelled(t)
	copies := 0
	groups := map[string]int{}
	for _, r := range rows {
		if r.Group != "" {
			groups[r.Group]++
		}
	}
	for _, n := range groups {
		copies += n - 1
	}
	dups, right, missed, rep := fixtureScore(t, rows, true)
	precision := 1.0
	if len(dups) > 0 {
		precision = float64(right) / float64(len(dups))
	}
	t.Logf("fixture: %d problems, %d true copies; dropped %d, %d of them true copies (precision %.3f), %d true copies missed", len(rows), copies, len(dups), right, precision, len(missed))
	stmt := map[string]labelled{}
	for _, r := range rows {
		stmt[r.ID] = r
	}
	for _, d := range dups {
		if g := stmt[d.Kept].Group; g == "" || g != stmt[d.Dropped].Group {
			t.Errorf("dropped %s (%s) for %s (%s): different problems", d.Dropped, stmt[d.Dropped].Note, d.Kept, stmt[d.Kept].Note)
		}
	}
	if precision < 0.995 {
		t.Errorf("precision %.3f < 0.995", precision)
	}
	if len(missed) > 0 || right != copies {
		t.Errorf("true copies not dropped (all undropped members of their groups): %v (%d of %d dropped)", missed, right, copies)
	}

	// Without the guard the look-alikes over the threshold are dropped:
	// the fixture tests the guard, not only the threshold.
	off, offRight, _, _ := fixtureScore(t, rows, false)
	t.Logf("guard off: dropped %d, %d of them true copies (precision %.3f)", len(off), offRight, float64(offRight)/float64(max(1, len(off))))
	if len(off)-offRight < 5 {
		t.Errorf("guard off drops only %d different problems: the fixture's look-alikes do not reach the threshold", len(off)-offRight)
	}

	// A sign or a relation flipped is never Jaccard 1.
	for _, p := range [][2]string{
		{"fx/poly8-plus", "fx/poly8-minus"}, {"fx/roots-minus", "fx/roots-plus"}, {"fx/altsum-minus", "fx/altsum-plus"},
		{"fx/arccos-minus", "fx/arccos-one"}, {"fx/arcsin-minus", "fx/arcsin-one"}, {"fx/abc-largest", "fx/abc-ge"},
		{"fx/xy-less", "fx/xy-greater"}, {"fx/fact", "fx/fact-ne"}, {"fx/abs-outer", "fx/abs-inner"}, {"fx/sub", "fx/sup"},
	} {
		a, b := normalized(stmt[p[0]].Statement), normalized(stmt[p[1]].Statement)
		if j := minhash.Jaccard(minhash.Shingles(a, 5), minhash.Shingles(b, 5)); j >= 1 || a == b {
			t.Errorf("%s ~ %s: Jaccard %.3f after normalisation, want < 1:\n%s\n%s", p[0], p[1], j, a, b)
		}
	}

	// The report lists the pairs identical after normalisation whose raw
	// texts differ, with what differs.
	for _, w := range []string{
		"## Identical after normalisation, different raw text",
		"### fx/poly8-plus ~ fx/poly8-plus-reflow: confirmed as duplicates",
		"### fx/marbles-blue ~ fx/marbles-blue-crlf: confirmed as duplicates",
		"only in fx/marbles-blue-crlf line feed ×2, carriage return ×2",
	} {
		if !strings.Contains(rep, w) {
			t.Errorf("reports/dedup.md lacks %q", w)
		}
	}
	if i := strings.Index(rep, "## Identical after normalisation"); i >= 0 && strings.Contains(rep[i:], "fx/poly8-minus") {
		t.Errorf("reports/dedup.md lists the sign flip as identical after normalisation:\n%s", rep[i:])
	}
}

// TestMATHLookAlikes: on both MATH files, the different problems the
// final-question guard dropped (a sign in display maths or in an earlier
// sentence, arccos(-1) and arccos 1, an added constraint) and a figure
// with a label moved stay apart, and the true copies, which differ only in
// white space, LaTeX spacing or delimiters, are dropped: 10 drops, all
// checked by hand.
func TestMATHLookAlikes(t *testing.T) {
	dir := mathDir(t)
	probs := mathProblems(t, dir+"/MATH_*.jsonl")
	rootDir := t.TempDir()
	m := runAll(t, rootDir, "look", probs, 2)
	root, _ := store.Open(context.Background(), rootDir, store.Options{})
	dups, err := dataset.Read[dataset.Duplicate](context.Background(), root, m.Objects("duplicates")[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	of := clusterOf(dups)
	for _, p := range [][2]string{
		{"test/intermediate_algebra/1436.json", "train/intermediate_algebra/1720.json"},  // + 2018 / - 2018
		{"test/intermediate_algebra/1607.json", "train/intermediate_algebra/1894.json"},  // x^8 ± 98x^4 + 1 in \[…\]
		{"train/intermediate_algebra/1057.json", "train/intermediate_algebra/1768.json"}, // 2n ∓ 1
		{"test/precalculus/493.json", "test/precalculus/929.json"},                       // arccos(-1), arccos 1
		{"train/precalculus/292.json", "train/precalculus/468.json"},                     // arcsin(-1), arcsin 1
		{"test/prealgebra/394.json", "train/prealgebra/251.json"},                        // an added constraint
		{"train/prealgebra/167.json", "train/prealgebra/227.json"},                       // a label on another side
	} {
		if of(p[0]) == of(p[1]) {
			t.Errorf("%s and %s in one cluster: different problems", p[0], p[1])
		}
	}
	copies := [][2]string{
		{"test/algebra/1253.json", "train/intermediate_algebra/850.json"}, {"test/algebra/1674.json", "train/algebra/777.json"},
		{"test/algebra/598.json", "test/intermediate_algebra/1449.json"}, {"test/algebra/636.json", "train/algebra/517.json"},
		{"test/intermediate_algebra/965.json", "train/algebra/2197.json"}, {"test/precalculus/24307.json", "train/geometry/6032.json"},
		{"train/algebra/24377.json", "train/algebra/2463.json"}, {"train/algebra/2681.json", "train/intermediate_algebra/1777.json"},
		{"train/intermediate_algebra/1163.json", "train/intermediate_algebra/506.json"}, {"train/precalculus/1225.json", "train/precalculus/8013.json"},
	}
	for _, p := range copies {
		if of(p[0]) != of(p[1]) {
			t.Errorf("%s and %s not in one cluster: true copies", p[0], p[1])
		}
	}
	if len(dups) != len(copies) {
		t.Errorf("%d rows dropped, want the %d true copies checked by hand; review the new ones and add them here", len(dups), len(copies))
	}
}
