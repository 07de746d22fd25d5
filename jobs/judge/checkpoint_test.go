package judge

import (
	"context"
	"path"
	"slices"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
)

func ckRows(r int) ([]dataset.Judgment, []dataset.JudgeTiming) {
	var rows []dataset.Judgment
	var ts []dataset.JudgeTiming
	for i := 1; i <= r; i++ {
		rows = append(rows, dataset.Judgment{Query: "q", Round: int32(i)})
		ts = append(ts, dataset.JudgeTiming{Query: "q", Round: int32(i)})
	}
	return rows, ts
}

func ckNames(t *testing.T, st store.Store) []string {
	t.Helper()
	infos, err := st.List(context.Background(), "r/")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range infos {
		out = append(out, path.Base(in.Key))
	}
	return out
}

// TestCheckpointsOfTwoProcesses: two processes judging the same shard
// (tokens a and b) each keep and delete only their own checkpoints; a new
// one resumes from the newest of either; clear, once the shard's outputs
// are written, removes both.
func TestCheckpointsOfTwoProcesses(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	a := checkpoints{st: st, prefix: "r/ck", token: "a"}
	b := checkpoints{st: st, prefix: "r/ck", token: "b"}
	save := func(c checkpoints, r int) {
		t.Helper()
		rows, ts := ckRows(r)
		if err := c.save(ctx, r, rows, ts); err != nil {
			t.Fatal(err)
		}
	}
	save(a, 1)
	save(a, 2)
	// b starts while a runs, and resumes from a's round 2.
	if r, rows, _, err := b.load(ctx); err != nil || r != 2 || len(rows) != 2 {
		t.Fatalf("b resumes at round %d with %d rows (err %v), want a's round 2", r, len(rows), err)
	}
	save(b, 3) // b must not delete a's round 2 (a may be killed and resume from it)
	save(a, 3) // a deletes its own round 2, not b's round 3
	want := []string{"round-0003.a.parquet", "round-0003.b.parquet", "timings-0003.a.parquet", "timings-0003.b.parquet"}
	if got := ckNames(t, st); !slices.Equal(got, want) {
		t.Fatalf("after both saved round 3: %v, want %v", got, want)
	}
	// A newer round of another process wins; at equal rounds, one's own.
	save(b, 4)
	if r, _, _, err := a.load(ctx); err != nil || r != 4 || a.loaded != "r/ck/round-0004.b.parquet" {
		t.Fatalf("a reloads round %d from %s (err %v), want b's round 4", r, a.loaded, err)
	}
	save(a, 4)
	if _, _, _, err := a.load(ctx); err != nil || a.loaded != "r/ck/round-0004.a.parquet" {
		t.Fatalf("a reloads %s (err %v), want its own round 4", a.loaded, err)
	}
	// A round file without its timings (a writer killed between them) is
	// not a checkpoint; nor is a file of another name.
	if _, err := store.Put(ctx, st, "r/ck/round-0009.c.parquet", []byte("x"), store.Replace); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(ctx, st, "r/ck/notes.txt", []byte("x"), store.Replace); err != nil {
		t.Fatal(err)
	}
	if r, _, _, err := b.load(ctx); err != nil || r != 4 {
		t.Fatalf("with a lone round-0009: round %d (err %v), want 4", r, err)
	}
	if err := a.clear(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ckNames(t, st); !slices.Equal(got, []string{"notes.txt"}) {
		t.Errorf("after clear: %v, want only the file that is no checkpoint", got)
	}
}

// TestCheckpointsOldNames: checkpoints of an older saber, without a
// token, are resumed from.
func TestCheckpointsOldNames(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	old := checkpoints{st: st, prefix: "r/ck"}
	rows, ts := ckRows(2)
	if err := old.save(ctx, 2, rows, ts); err != nil {
		t.Fatal(err)
	}
	if got := ckNames(t, st); !slices.Equal(got, []string{"round-0002.parquet", "timings-0002.parquet"}) {
		t.Fatalf("old names: %v", got)
	}
	c := newCheckpoints(st, "r/ck")
	if r, _, _, err := c.load(ctx); err != nil || r != 2 {
		t.Fatalf("resume from old names: round %d, err %v", r, err)
	}
}

func TestParseCheckpointKey(t *testing.T) {
	for _, tc := range []struct {
		base, kind, token string
		r                 int
		ok                bool
	}{
		{"round-0003.host-12-ab.parquet", "round", "host-12-ab", 3, true},
		{"timings-0010.parquet", "timings", "", 10, true},
		{"round-003.x.parquet", "", "", 0, false},
		{"round-0000.x.parquet", "", "", 0, false},
		{"other-0001.x.parquet", "", "", 0, false},
		{"round-0001.x.json", "", "", 0, false},
	} {
		kind, r, token, ok := parseKey(tc.base)
		if kind != tc.kind || r != tc.r || token != tc.token || ok != tc.ok {
			t.Errorf("parseKey(%q) = %q %d %q %v, want %q %d %q %v", tc.base, kind, r, token, ok, tc.kind, tc.r, tc.token, tc.ok)
		}
	}
}
