package ingest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

func TestFNV1a(t *testing.T) {
	// The reference values of 64-bit FNV-1a: the row groups of every
	// problems part depend on them.
	for _, tt := range []struct {
		in   string
		want uint64
	}{
		{"", 0xcbf29ce484222325},
		{"a", 0xaf63dc4c8601ec8c},
		{"foobar", 0x85944171f73967e8},
	} {
		if got := fnv1a(tt.in); got != tt.want {
			t.Errorf("fnv1a(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

func TestGroupCut(t *testing.T) {
	defer func(v uint64) { groupMean = v }(groupMean)
	// An id that hashes to 0 modulo groupMean ends its group; none does
	// under a modulus no hash here meets, and the group ends at
	// maxGroupRows.
	groupMean = 1
	var c groupCut
	if !c.end("x") || !c.end("y") {
		t.Error("groupMean 1: a group did not end after every row")
	}
	groupMean = 1 << 63
	c = groupCut{}
	var ends []int
	for i := range 2*maxGroupRows + 7 {
		if c.end(fmt.Sprint("id-", i)) {
			ends = append(ends, i+1)
		}
	}
	if fmt.Sprint(ends) != fmt.Sprint([]int{maxGroupRows, 2 * maxGroupRows}) {
		t.Errorf("groups ended after rows %v, want every %d", ends, maxGroupRows)
	}
}

// TestProblemsRowGroupsAnyShards: with ids in order for the first 300
// rows, then in no order, so that every shard's share spreads over the
// whole id range, and ids repeated across files, problems has the same
// bytes for 1, 2 and 5 map shards, every problem its own row's text, and
// the bytes are those of writing its rows cut by groupCut, nothing
// copied: the copies the reduce makes are what encoding the rows gives.
func TestProblemsRowGroupsAnyShards(t *testing.T) {
	defer func(v int64) { minSpan = v }(minSpan)
	minSpan = 4 << 10
	defer func(v uint64) { groupMean = v }(groupMean)
	groupMean = 16
	ids := make([]string, 900)
	for i := range ids {
		ids[i] = fmt.Sprintf("%016x", fnv1a(fmt.Sprint("row ", i)))
	}
	slices.Sort(ids[:300])
	var a, b strings.Builder
	statement := map[string]string{}
	for i, id := range ids {
		statement[id] = fmt.Sprintf("What is %d + %d?", i, i)
		row := fmt.Sprintf(`{"id": %q, "statement": %q, "solution": "It is %d."}`+"\n", id, statement[id], 2*i)
		if i%3 == 0 && i >= 300 {
			b.WriteString(row)
		} else {
			a.WriteString(row)
		}
		if i%97 == 0 { // the same id again, in the other file: b's copy loses
			b.WriteString(strings.Replace(row, "What", "So what", 1))
		}
	}
	files := map[string][]byte{"a.jsonl": []byte(a.String()), "b.jsonl": []byte(b.String())}
	src := "    - name: s\n      paths: [a.jsonl, b.jsonl]\n      fields: {id: id}\n"
	ctx := context.Background()
	var first []byte
	var rows []dataset.Problem
	for _, n := range []int{1, 2, 5} {
		cfg := setup(t, files, src)
		probs, rejs, err := runShards(t, cfg, n)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if len(probs) != 900 || len(rejs) != 10 {
			t.Fatalf("%d shards: %d problems, %d rejects; want 900 and 10", n, len(probs), len(rejs))
		}
		for _, p := range probs {
			if p.Statement != statement[p.ID] {
				t.Fatalf("%d shards: problem %s has statement %q, its row %q", n, p.ID, p.Statement, statement[p.ID])
			}
		}
		got, err := os.ReadFile(localPath(cfg, layout.DataKey(cfg.Run, "problems", shard.Spec{Index: 0, Count: 1})))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first, rows = got, probs
		} else if !bytes.Equal(got, first) {
			t.Errorf("%d shards: problems bytes differ from 1 shard's", n)
		}
	}
	st := store.NewMem()
	w, err := dataset.Problems.NewWriter(ctx, st, "p")
	if err != nil {
		t.Fatal(err)
	}
	var c groupCut
	groups := 0
	for _, p := range rows {
		if err := w.Write([]dataset.Problem{p}); err != nil {
			t.Fatal(err)
		}
		if c.end(p.ID) {
			groups++
			if err := w.EndRowGroup(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := store.ReadAll(ctx, st, "p")
	if !bytes.Equal(first, want) {
		t.Errorf("problems (%d bytes) is not its rows written in the row groups groupCut ends (%d bytes)", len(first), len(want))
	}
	if groups < 20 {
		t.Errorf("%d row groups ended by an id; want many, for the test to mean something", groups)
	}
}

// TestProblemsStreamedInOrder: a map shard whose ids come in order writes
// its problems as it reads them, and one whose ids do not reads its share
// again to sort it (reread_out_of_order); problems has the same bytes
// either way, for any shard count, with rejects, a repeated id and a row
// group cut by an id among the rows.
func TestProblemsStreamedInOrder(t *testing.T) {
	defer func(v int64) { minSpan = v }(minSpan)
	minSpan = 4 << 10
	defer func(v uint64) { groupMean = v }(groupMean)
	groupMean = 16
	var rows []string
	for i := range 600 {
		id := fmt.Sprintf("p%04d", i)
		switch {
		case i%50 == 7: // a reject: no solution
			rows = append(rows, fmt.Sprintf(`{"id": %q, "statement": "Find %d."}`, id, i))
		default:
			rows = append(rows, fmt.Sprintf(`{"id": %q, "statement": "What is %d + %d?", "solution": "It is %d."}`, id, i, i, 2*i))
		}
		if i%97 == 3 { // the same id on the next line: a duplicate, still in order
			rows = append(rows, fmt.Sprintf(`{"id": %q, "statement": "Again %d?", "solution": "Later."}`, id, i))
		}
	}
	files := func(rows []string) map[string][]byte {
		half := len(rows) / 2
		return map[string][]byte{
			"a.jsonl": []byte(strings.Join(rows[:half], "\n") + "\n"),
			"b.jsonl": []byte(strings.Join(rows[half:], "\n") + "\n"),
		}
	}
	// shuffled keeps each duplicate after its first row, so that the same
	// text wins, and moves a block of rows to the front.
	shuffled := append(slices.Clone(rows[400:460]), rows[:400]...)
	shuffled = append(shuffled, rows[460:]...)
	src := "    - name: s\n      paths: [a.jsonl, b.jsonl]\n      fields: {id: id}\n"
	var first []byte
	for _, c := range []struct {
		name    string
		rows    []string
		shards  int
		rereads int64 // map shards that read their share twice
	}{
		{"in order, 1 shard", rows, 1, 0},
		{"in order, 3 shards", rows, 3, 0},
		{"out of order, 1 shard", shuffled, 1, 1},
		{"out of order, 3 shards", shuffled, 3, 1}, // the block moved lands in the first shard alone
	} {
		cfg := setup(t, files(c.rows), src)
		probs, rejs, err := runShards(t, cfg, c.shards)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(probs) != 600-12 || len(rejs) != 12+7 {
			t.Fatalf("%s: %d problems, %d rejects; want %d and %d", c.name, len(probs), len(rejs), 600-12, 12+7)
		}
		root, err := store.Open(context.Background(), cfg.RootURI(), cfg.Storage)
		if err != nil {
			t.Fatal(err)
		}
		var reread int64
		for i := range c.shards {
			m, err := layout.ReadDone(context.Background(), root, layout.DoneKey(cfg.Run, dataset.IngestProblems.Name, shard.Spec{Index: i, Count: c.shards}))
			if err != nil {
				t.Fatal(err)
			}
			v, ok := m.Stats["reread_out_of_order"]
			if !ok {
				t.Fatalf("%s: shard %d's manifest has no reread_out_of_order", c.name, i)
			}
			reread += v
		}
		if reread != c.rereads {
			t.Errorf("%s: %d shards read their share twice; want %d", c.name, reread, c.rereads)
		}
		got, err := os.ReadFile(localPath(cfg, layout.DataKey(cfg.Run, "problems", shard.Spec{Index: 0, Count: 1})))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Errorf("%s: problems bytes differ from %s's", c.name, "in order, 1 shard")
		}
	}
}

// TestTextArena: a streaming map shard's statements and solutions, read
// into its textArena and written from there, are the rows' texts, for
// plain strings, escapes, non-ASCII and \u escapes, across several
// slabs, with row groups cut between the rows an exploded line gives
// (which share its statement); and the bytes are those of a shard that
// held its rows on the heap to sort them.
func TestTextArena(t *testing.T) {
	defer func(v int64) { minSpan = v }(minSpan)
	minSpan = 64 << 10
	defer func(v uint64) { groupMean = v }(groupMean)
	defer func(v int) { slabBytes = v }(slabBytes)
	defaultSlab := slabBytes
	// gen makes the rows, each plain statement padded with pad words.
	gen := func(pad int) (want map[string][2]string, lines []string) {
		want = map[string][2]string{} // id → statement, solution
		for i := range 16000 {
			id := fmt.Sprintf("a%05d", i)
			var q string
			switch i % 4 {
			case 0:
				q = fmt.Sprintf("Plain question %d: what is %d times %d? %s", i, i, i+1, strings.Repeat("pad ", pad))
			case 1:
				q = fmt.Sprintf("Find $\\frac{%d}{2}$.\nThen\tadd \"%d\". %s", i, i, strings.Repeat("\\alpha ", 15))
			case 2:
				q = fmt.Sprintf("Résoudre %d → ∞, %s", i, strings.Repeat("é", 40))
			case 3:
				q = fmt.Sprintf("Emoji 😀 and %d", i)
			}
			qj, _ := json.Marshal(q)
			if i%4 == 3 {
				qj = []byte(strings.Replace(string(qj), "😀", `\ud83d\ude00`, 1)) // a \u escape pair
			}
			if i%10 == 0 { // a list: two rows sharing the statement
				s1, s2 := fmt.Sprintf("First way, %d.", i), fmt.Sprintf("Second way: $%d^2$\\n.", i)
				want[id+"#1"], want[id+"#2"] = [2]string{q, s1}, [2]string{q, s2}
				lines = append(lines, fmt.Sprintf(`{"id": %q, "q": %s, "s": [%q, %q]}`, id, qj, s1, s2))
				continue
			}
			s := fmt.Sprintf("It is %d; \\boxed{%d}.", i*(i+1), i)
			want[id] = [2]string{q, s}
			sj, _ := json.Marshal(s)
			lines = append(lines, fmt.Sprintf(`{"id": %q, "q": %s, "s": %s}`, id, qj, sj))
		}
		return want, lines
	}
	want, lines := gen(30)
	src := "    - name: s\n      paths: [in.jsonl]\n      fields: {id: id, statement: q, solution: s}\n      lists: {solution: explode}\n"
	var first []byte
	for _, c := range []struct {
		name   string
		want   map[string][2]string
		lines  []string
		shards int
		mean   uint64
		same   bool // the same bytes as the first case's
		slab   int  // the first slab's bytes, if not slabBytes
	}{
		// Groups of 5 on average, often cut between a line's rows; the
		// arena started again at most lines.
		{"in order, 1 shard", want, lines, 1, 5, true, 0},
		{"in order, 3 shards", want, lines, 3, 5, true, 0},
		{"in order, one group", want, lines, 1, 1 << 40, false, 0},
		// One group and 4 KB slabs: a chunk of problems the writer holds
		// (dataset.WriteChunk) holds more text than a slab, so slabs fill before their texts
		// are written, and those texts must outlive them.
		{"in order, small slabs", want, lines, 1, 1 << 40, false, 4 << 10},
		{"out of order, 1 shard", want, append(slices.Clone(lines[8000:]), lines[:8000]...), 1, 5, true, 0},
	} {
		groupMean = c.mean
		slabBytes = cmp.Or(c.slab, defaultSlab)
		cfg := setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(c.lines, "\n") + "\n")}, src)
		probs, rejs, err := runShards(t, cfg, c.shards)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(rejs) != 0 || len(probs) != len(c.want) {
			t.Fatalf("%s: %d problems, %d rejects (%+v); want %d and none", c.name, len(probs), len(rejs), rejs[:min(len(rejs), 3)], len(c.want))
		}
		for _, p := range probs {
			if w := c.want[p.ID]; p.Statement != w[0] || p.Solution != w[1] {
				t.Fatalf("%s: problem %s is %q / %q, its row %q / %q", c.name, p.ID, p.Statement, p.Solution, w[0], w[1])
			}
		}
		got, err := os.ReadFile(localPath(cfg, layout.DataKey(cfg.Run, "problems", shard.Spec{Index: 0, Count: 1})))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
		} else if !bytes.Equal(got, first) && c.same {
			t.Errorf("%s: problems bytes differ from %s's", c.name, "in order, 1 shard")
		}
	}
}

// TestAdminSaysStreamBatch: docs/admin.md tells admins how many problems'
// text a streaming map shard holds; the figure is dataset.WriteChunk's.
func TestAdminSaysStreamBatch(t *testing.T) {
	b, err := os.ReadFile("../../docs/admin.md")
	if err != nil {
		t.Fatal(err)
	}
	n := strconv.Itoa(dataset.WriteChunk)
	if len(n) > 3 {
		n = n[:len(n)-3] + "," + n[len(n)-3:]
	}
	if want := "holding the text of " + n + " problems at a time"; !strings.Contains(string(b), want) {
		t.Errorf("docs/admin.md does not say %q (dataset.WriteChunk is %d)", want, dataset.WriteChunk)
	}
}

// TestFullRowGroups: with no id ending a group, groups end at
// maxGroupRows, where the writer's last chunk of a group is short
// (dataset.WriteChunk does not divide it), in ingest_problems and
// ingest_rows alike; the bytes are those dataset.Problems.Write gives the
// same problems, a whole row group at a time, for 1 and 3 shards.
func TestFullRowGroups(t *testing.T) {
	if maxGroupRows%dataset.WriteChunk == 0 {
		t.Fatalf("dataset.WriteChunk %d divides maxGroupRows %d: the test would not cut a chunk short", dataset.WriteChunk, maxGroupRows)
	}
	defer func(v int64) { minSpan = v }(minSpan)
	minSpan = 64 << 10
	defer func(v uint64) { groupMean = v }(groupMean)
	groupMean = 1 << 40
	n := 2*maxGroupRows + 3
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, `{"id": "p%06d", "statement": "What is %d?", "solution": "It is."}`+"\n", i, i)
	}
	ctx := context.Background()
	var want []byte
	for _, shards := range []int{1, 3} {
		cfg := setup(t, map[string][]byte{"in.jsonl": []byte(in.String())}, "    - name: s\n      paths: [in.jsonl]\n      fields: {id: id}\n")
		probs, rejs, err := runShards(t, cfg, shards)
		if err != nil {
			t.Fatalf("%d shards: %v", shards, err)
		}
		if len(probs) != n || len(rejs) != 0 {
			t.Fatalf("%d shards: %d problems, %d rejects; want %d and none", shards, len(probs), len(rejs), n)
		}
		if want == nil {
			for i, p := range probs {
				if p.ID != fmt.Sprintf("p%06d", i) || p.Statement != fmt.Sprintf("What is %d?", i) {
					t.Fatalf("problem %d is %s, %q", i, p.ID, p.Statement)
				}
			}
			st := store.NewMem()
			o, err := dataset.Problems.Write(ctx, st, "want", probs)
			if err != nil {
				t.Fatal(err)
			}
			if want, err = store.ReadAll(ctx, st, o.Key); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(localPath(cfg, layout.DataKey(cfg.Run, "problems", shard.Spec{Index: 0, Count: 1})))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d shards: problems (%d bytes) are not dataset.Problems.Write's bytes of the same problems (%d)", shards, len(got), len(want))
		}
	}
}
