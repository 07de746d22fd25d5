package dataset

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/store"
)

func sampleProblems() []Problem {
	return []Problem{
		{ID: "b", Source: "aops", Statement: "Find $x$.", Solution: "$x=1$", Subject: "Algebra"},
		{ID: "a", Source: "official", Statement: "Prove it.", Solution: "Done.", License: "MIT", Origin: "math"},
		{ID: "c", Source: "numina", Statement: "Ünïcode ∑", Solution: "∎"},
	}
}

func TestWriteIsSortedAndByteIdentical(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	rows := sampleProblems()
	o1, err := Problems.Write(ctx, st, "r/problems/p1.parquet", rows)
	if err != nil {
		t.Fatal(err)
	}
	// The same rows in another order give the same bytes.
	rev := sampleProblems()
	rev[0], rev[2] = rev[2], rev[0]
	o2, err := Problems.Write(ctx, st, "r/problems/p2.parquet", rev)
	if err != nil {
		t.Fatal(err)
	}
	if o1.SHA256 != o2.SHA256 || o1.Size != o2.Size || o1.Rows != 3 {
		t.Fatalf("outputs differ: %+v vs %+v", o1, o2)
	}
	a, _ := store.ReadAll(ctx, st, "r/problems/p1.parquet")
	b, _ := store.ReadAll(ctx, st, "r/problems/p2.parquet")
	if string(a) != string(b) {
		t.Fatal("bytes differ")
	}
	got, err := Read[Problem](ctx, st, "r/problems/p1.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != "a" || got[2].Statement != "Ünïcode ∑" || got[0].License != "MIT" {
		t.Fatalf("round trip: %+v", got)
	}
}

func TestReadProjection(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	if _, err := Problems.Write(ctx, st, "p.parquet", sampleProblems()); err != nil {
		t.Fatal(err)
	}
	type idOnly struct {
		ID string `parquet:"id"`
	}
	got, err := Read[idOnly](ctx, st, "p.parquet")
	if err != nil || len(got) != 3 || got[1].ID != "b" {
		t.Fatalf("projection: %v %v", got, err)
	}
}

func TestSignatureListRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	rows := []Signature{{ID: "x", Source: "aops", Shingles: 2, MinHash: []uint64{1, 1<<63 + 5, 7}}, {ID: "y"}}
	if _, err := Signatures.Write(ctx, st, "s.parquet", rows); err != nil {
		t.Fatal(err)
	}
	got, err := Read[Signature](ctx, st, "s.parquet")
	if err != nil || len(got) != 2 || got[0].MinHash[1] != 1<<63+5 || len(got[1].MinHash) != 0 {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestSchemaErrorsNameURIAndColumn(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	type wrongType struct {
		ID        int64  `parquet:"id"`
		Statement string `parquet:"statement"`
	}
	if _, err := WriteRows(ctx, st, "run/problems/wrong.parquet", []wrongType{{1, "s"}}); err != nil {
		t.Fatal(err)
	}
	_, err := Read[Problem](ctx, st, "run/problems/wrong.parquet")
	var se *SchemaError
	if !errors.As(err, &se) || se.Column != "id" || !strings.Contains(err.Error(), "mem://run/problems/wrong.parquet") {
		t.Fatalf("wrong type: %v", err)
	}
	type missing struct {
		ID string `parquet:"id"`
	}
	if _, err := WriteRows(ctx, st, "run/problems/missing.parquet", []missing{{"a"}}); err != nil {
		t.Fatal(err)
	}
	_, err = Read[Problem](ctx, st, "run/problems/missing.parquet")
	if !errors.As(err, &se) || se.Column != "source" || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing column: %v", err)
	}
}

func TestNotParquet(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	for name, body := range map[string]string{
		"short.parquet": "PAR1",
		"text.parquet":  strings.Repeat("this is not parquet at all\n", 10),
		"fake.parquet":  "PAR1" + strings.Repeat("\x00", 40) + "PAR1",
	} {
		if _, err := store.Put(ctx, st, name, []byte(body), store.Replace); err != nil {
			t.Fatal(err)
		}
		_, err := Read[Problem](ctx, st, name)
		var np *NotParquetError
		if !errors.As(err, &np) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestListColumnsRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	rows := []TopicRow{{ID: "b", Topics: []string{"algebra > quadratics"}, Scores: []float64{1}, Domains: []string{"Algebra"}, Domain: "Algebra", Backend: "lexical", Calls: 3}, {ID: "a"}}
	if _, err := Topics.Write(ctx, st, "t.parquet", rows); err != nil {
		t.Fatal(err)
	}
	got, err := Read[TopicRow](ctx, st, "t.parquet")
	if err != nil || len(got) != 2 || got[0].ID != "a" || got[1].Topics[0] != "algebra > quadratics" || got[1].Calls != 3 {
		t.Fatalf("%+v %v", got, err)
	}
	srows := []Summary{{ID: "x", CoreIdea: "Use symmetry.", CoreIdeaWords: 2, Keywords: []string{"symmetry"}, Confidence: 0.9}}
	if _, err := Summaries.Write(ctx, st, "s.parquet", srows); err != nil {
		t.Fatal(err)
	}
	gs, err := Read[Summary](ctx, st, "s.parquet")
	if err != nil || gs[0].CoreIdea != "Use symmetry." || gs[0].Keywords[0] != "symmetry" || len(gs[0].SupportingIdeas) != 0 {
		t.Fatalf("%+v %v", gs, err)
	}
}

// TestScanVerifiedRefusesChangedBytes: a part whose bytes differ from the
// hash its writer recorded (same size) is refused before fn sees a row; an
// intact one is read and its hash returned.
func TestScanVerifiedRefusesChangedBytes(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	o, err := Problems.Write(ctx, st, "r/problems/part-00000-of-00001.parquet", []Problem{{ID: "a"}, {ID: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	got, err := ScanVerified(ctx, st, o.Key, o.SHA256, func(rows []Problem) error { n += len(rows); return nil })
	if err != nil || got != o.SHA256 || n != 2 {
		t.Fatalf("intact: %s, %v, %d rows", got, err, n)
	}
	b, _ := store.ReadAll(ctx, st, o.Key)
	b[len(b)/3] ^= 1
	if _, err := store.Put(ctx, st, o.Key, b, store.Replace); err != nil {
		t.Fatal(err)
	}
	n = 0
	_, err = ScanVerified(ctx, st, o.Key, o.SHA256, func(rows []Problem) error { n += len(rows); return nil })
	var ch *ChangedError
	if !errors.As(err, &ch) || ch.Want != o.SHA256 || ch.Got == o.SHA256 || n != 0 {
		t.Errorf("changed: %v, %d rows used", err, n)
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, in := range All() {
		if seen[in.Name] || in.Version < 1 || in.Key == "" || in.Doc == "" || in.Schema == nil {
			t.Errorf("dataset %+v: duplicate, or without version, key or doc", in)
		}
		seen[in.Name] = true
	}
	if !Volatile("r/timings/part-00000-of-00001.parquet") || !Volatile("r/judge_timings/part-00000-of-00001.parquet") || Volatile("r/runs/part-00000-of-00001.parquet") {
		t.Error("Volatile does not follow Measurement")
	}
}
