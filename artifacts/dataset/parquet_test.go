package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

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

// A dataset's streaming writer gives the bytes of its Write, with its
// options: a staging dataset's fast codec, another's zstd, over more rows
// than one row group holds, handed over in uneven batches and in whole
// row groups.
func TestDatasetWriterMatchesWrite(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	rows := make([]IngestRow, 3*rowGroupRows+1234)
	for i := range rows {
		rows[i] = IngestRow{File: int32(i % 3), Line: int64(i), ID: fmt.Sprintf("id-%06d", i)}
		if i%97 == 0 {
			rows[i].Reject = Reject{Input: "s", File: "f.jsonl", Reason: ReasonEmpty, Detail: "empty"}
		}
	}
	for _, ds := range []Dataset[IngestRow]{IngestRows, {Name: "not_staging", Compare: IngestRows.Compare}} {
		want, err := ds.Write(ctx, st, ds.Name+"/want", rows)
		if err != nil {
			t.Fatal(err)
		}
		w, err := ds.NewWriter(ctx, st, ds.Name+"/got")
		if err != nil {
			t.Fatal(err)
		}
		// More than a row group at once (one put as it is, some rows
		// buffered), uneven batches, then the rest: more than two row
		// groups, the first of them buffered.
		lo := 0
		for _, n := range []int{rowGroupRows + 10, 7001, 7001, len(rows) - rowGroupRows - 10 - 2*7001} {
			if err := w.Write(rows[lo : lo+n]); err != nil {
				t.Fatal(err)
			}
			lo += n
		}
		got, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got.SHA256 != want.SHA256 || got.Rows != want.Rows {
			t.Errorf("%s: streamed %d rows, SHA-256 %s; Write gave %d rows, %s", ds.Name, got.Rows, got.SHA256, want.Rows, want.SHA256)
		}
	}
	staged, _ := store.ReadAll(ctx, st, "ingest_rows/got")
	plain, _ := store.ReadAll(ctx, st, "not_staging/got")
	if bytes.Equal(staged, plain) {
		t.Error("the staging dataset's part has the bytes of a zstd part: its options were not used")
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
// hash its writer recorded (same size) is refused before fn sees a row,
// and OpenVerified refuses it too; an intact one is read and its hash
// returned. In memory (read whole, as on S3) and in a local folder (hashed
// in a pass of its own, then parsed from the file).
func TestScanVerifiedRefusesChangedBytes(t *testing.T) {
	ctx := context.Background()
	local, err := store.Open(ctx, t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]store.Store{"memory": store.NewMem(), "local": local} {
		rows := []Problem{{ID: "a"}, {ID: "b"}}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 3000 { // text zstd cannot shrink, for more than one hashing buffer
			b := make([]byte, 800)
			for j := range b {
				b[j] = byte('a' + rng.IntN(26))
			}
			rows = append(rows, Problem{ID: fmt.Sprintf("c%05d", i), Statement: string(b)})
		}
		o, err := Problems.Write(ctx, st, "r/problems/part-00000-of-00001.parquet", rows)
		if err != nil {
			t.Fatal(err)
		}
		if o.Size <= 1<<20 {
			t.Fatalf("%s: a part of %d bytes; the test wants more than one hashing buffer", name, o.Size)
		}
		obj, err := st.Open(ctx, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		if store.Local(obj) != (name == "local") {
			t.Fatalf("%s: store.Local says %v", name, store.Local(obj))
		}
		obj.Close()
		n := 0
		got, err := ScanVerified(ctx, st, o.Key, o.SHA256, func(rows []Problem) error { n += len(rows); return nil })
		if err != nil || got != o.SHA256 || n != len(rows) {
			t.Fatalf("%s, intact: %s, %v, %d rows", name, got, err, n)
		}
		if p, got, err := OpenVerified[Problem](ctx, st, o.Key, o.SHA256); err != nil || got != o.SHA256 || p.NumRows() != int64(len(rows)) {
			t.Fatalf("%s, intact, OpenVerified: %s, %v", name, got, err)
		} else {
			p.Close()
		}
		b, _ := store.ReadAll(ctx, st, o.Key)
		b[len(b)*2/3] ^= 1 // past the first hashing buffer
		if _, err := store.Put(ctx, st, o.Key, b, store.Replace); err != nil {
			t.Fatal(err)
		}
		n = 0
		_, err = ScanVerified(ctx, st, o.Key, o.SHA256, func(rows []Problem) error { n += len(rows); return nil })
		var ch *ChangedError
		if !errors.As(err, &ch) || ch.Want != o.SHA256 || ch.Got == o.SHA256 || n != 0 {
			t.Errorf("%s, changed: %v, %d rows used", name, err, n)
		}
		if _, _, err := OpenVerified[Problem](ctx, st, o.Key, o.SHA256); !errors.As(err, &ch) {
			t.Errorf("%s, changed, OpenVerified: %v", name, err)
		}
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

// TestCopyRowGroup: a part assembled from row groups copied out of other
// parts, and from rows cut with EndRowGroup, has the bytes of one written
// from the same rows cut at the same places; and the copy is verbatim (a
// byte flipped in a copied page reaches the output unchanged), which is
// what spares ingest's reduce decoding and compressing every problem.
func TestCopyRowGroup(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	var rows []Problem
	for i := range 3000 {
		rows = append(rows, Problem{ID: fmt.Sprintf("id-%05d", i), Source: "official",
			Statement: fmt.Sprintf("Find $x^%d$ for case %d.", i%7, i), Solution: fmt.Sprintf("It is %d.", i*31), Subject: "Algebra"})
	}
	// write writes groups, each ended with EndRowGroup (twice: the second
	// ends nothing), and returns the part's bytes.
	write := func(key string, groups ...[]Problem) []byte {
		t.Helper()
		w, err := NewWriter[Problem](ctx, st, key)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			if err := w.Write(g); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := w.EndRowGroup(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return readObject(t, st, key)
	}
	want := write("want", rows[:1000], rows[1000:2200], rows[2200:])
	write("a", rows[:1000], rows[1000:1500])
	b := write("b", rows[900:1000], rows[1000:2200], rows[2200:])

	// assemble copies a's first row group and b's second, then writes
	// the last rows.
	assemble := func() []byte {
		t.Helper()
		a, _, err := OpenVerified[Problem](ctx, st, "a", "")
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, _, err := OpenVerified[Problem](ctx, st, "b", "")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		w, err := NewWriter[Problem](ctx, st, "got")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		for _, rg := range []parquet.RowGroup{a.RowGroups()[0], b.RowGroups()[1]} {
			if err := w.CopyRowGroup(rg); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write(rows[2200:]); err != nil {
			t.Fatal(err)
		}
		o, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if o.Rows != int64(len(rows)) {
			t.Errorf("assembled %d rows, want %d", o.Rows, len(rows))
		}
		return readObject(t, st, "got")
	}
	if got := assemble(); !bytes.Equal(got, want) {
		t.Fatalf("assembled part: %d bytes, not those of writing its rows (%d bytes)", len(got), len(want))
	}

	// Flip the last byte of b's second row group's statement pages: a
	// verbatim copy carries it over, and only it.
	last := func(part []byte, rowGroup int) int64 {
		t.Helper()
		f, err := parquet.OpenFile(bytes.NewReader(part), int64(len(part)))
		if err != nil {
			t.Fatal(err)
		}
		md := f.Metadata().RowGroups[rowGroup].Columns[2].MetaData
		return md.DataPageOffset + md.TotalCompressedSize - 1
	}
	b[last(b, 1)] ^= 0xff
	at := last(want, 1) // where the copy puts it
	if _, err := store.Put(ctx, st, "b", b, store.Replace); err != nil {
		t.Fatal(err)
	}
	got := assemble()
	var differ []int
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			differ = append(differ, i)
		}
	}
	if len(got) != len(want) || len(differ) != 1 || int64(differ[0]) != at {
		t.Errorf("after flipping byte %d of a copied page: %d bytes (want %d), differing at %v: not a verbatim copy", at, len(got), len(want), differ)
	}

	if _, _, err := OpenVerified[Problem](ctx, st, "a", strings.Repeat("0", 64)); !errors.As(err, new(*ChangedError)) {
		t.Errorf("OpenVerified with another SHA-256: %v, want a ChangedError", err)
	}
}

// TestIngestProblemsWrittenAsProblems: ingest's reduce copies row groups
// of ingest_problems into problems and encodes the others itself, so the
// two must be written alike, or problems' bytes would depend on how many
// map shards there were.
func TestIngestProblemsWrittenAsProblems(t *testing.T) {
	if IngestProblems.format() != Problems.format() || Problems.format() != formatText {
		t.Errorf("ingest_problems written as %d, problems as %d; want both text (%d)", IngestProblems.format(), Problems.format(), formatText)
	}
}

// TestWriteChunks: Write's bytes do not depend on how the rows are split
// across calls (WriteRow's included), though it hands them to parquet-go
// a chunk at a time:
// groups ended by EndRowGroup, with several pages each, have the bytes of
// one parquet-go call per group, and groups cut at RowGroupRows those of
// WriteRows, whatever the calls' sizes.
func TestWriteChunks(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	var rows []Problem
	for i := range 5000 {
		// ~1.5 KB of statement a row, so that a group's statement column
		// fills several 1 MiB pages, cut wherever the page check falls,
		// past the first chunks too.
		rows = append(rows, Problem{ID: fmt.Sprintf("id-%05d", i), Source: "official",
			Statement: strings.Repeat(fmt.Sprintf("Find $x^%d$ for case %d. ", i%7, i*7919%1000), 60), Subject: "Algebra"})
	}
	groups := [][]Problem{rows[:4300], rows[4300:4301], rows[4301:]}
	var buf bytes.Buffer
	pw := parquet.NewGenericWriter[Problem](&buf, writerOptions(formatCompact)...)
	for _, g := range groups {
		if _, err := pw.Write(g); err != nil {
			t.Fatal(err)
		}
		if err := pw.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	want := buf.Bytes()
	f, err := parquet.OpenFile(bytes.NewReader(want), int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	pr := f.RowGroups()[0].ColumnChunks()[2].Pages()
	for {
		if _, err := pr.ReadPage(); err != nil {
			break
		}
		pages++
	}
	pr.Close()
	if pages < 5 {
		t.Fatalf("the first group's statements fill %d pages; the test needs several", pages)
	}

	// write writes rows in calls of the sizes given, in turn; a size of
	// 0 is one row through WriteRow.
	write := func(w *Writer[Problem], rows []Problem, sizes []int) {
		t.Helper()
		for i := 0; len(rows) > 0; i++ {
			n := min(sizes[i%len(sizes)], len(rows))
			var err error
			if n == 0 {
				n, err = 1, w.WriteRow(rows[0])
			} else {
				err = w.Write(rows[:n])
			}
			if err != nil {
				t.Fatal(err)
			}
			rows = rows[n:]
		}
	}
	splits := [][]int{{0}, {1}, {63, 1, 0, 100}, {WriteChunk}, {3*WriteChunk + 5, 7}, {1 << 20}}
	for _, sizes := range splits {
		key := fmt.Sprintf("calls-%v", sizes)
		w, err := NewWriter[Problem](ctx, st, key)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			write(w, g, sizes)
			if err := w.EndRowGroup(); err != nil {
				t.Fatal(err)
			}
			if w.Pending() != 0 {
				t.Fatalf("calls of %v: %d rows pending after EndRowGroup", sizes, w.Pending())
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := readObject(t, st, key); !bytes.Equal(got, want) {
			t.Errorf("calls of %v rows: %d bytes, not those of one parquet-go call per group (%d bytes)", sizes, len(got), len(want))
		}
	}

	// Past RowGroupRows, where Write cuts groups itself.
	var many []Problem
	for i := range 2*RowGroupRows + 3 {
		many = append(many, Problem{ID: fmt.Sprintf("m%06d", i), Statement: fmt.Sprint(i)})
	}
	o, err := WriteRows(ctx, st, "many", many)
	if err != nil {
		t.Fatal(err)
	}
	wantMany := readObject(t, st, o.Key)
	for _, sizes := range splits {
		key := fmt.Sprintf("many-%v", sizes)
		w, err := NewWriter[Problem](ctx, st, key)
		if err != nil {
			t.Fatal(err)
		}
		write(w, many, sizes)
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := readObject(t, st, key); !bytes.Equal(got, wantMany) {
			t.Errorf("%d rows in calls of %v: not WriteRows' bytes", len(many), sizes)
		}
	}
}

// TestWriteRefusesBrokenGroupCount checks that Write and WriteRow fail,
// instead of looping without handing over a row or cutting groups at the
// wrong rows, when the count of the row group's rows is past what the
// group can take (a bug of the Writer's own: put keeps it below
// rowGroupRows).
func TestWriteRefusesBrokenGroupCount(t *testing.T) {
	for _, group := range []int{rowGroupRows, rowGroupRows + 5} {
		for name, write := range map[string]func(*Writer[Problem]) error{
			"Write":    func(w *Writer[Problem]) error { return w.Write([]Problem{{ID: "a"}, {ID: "b"}}) },
			"WriteRow": func(w *Writer[Problem]) error { return w.WriteRow(Problem{ID: "a"}) },
		} {
			w, err := NewWriter[Problem](context.Background(), store.NewMem(), "broken")
			if err != nil {
				t.Fatal(err)
			}
			w.group = group
			done := make(chan error, 1)
			go func() { done <- write(w) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "a bug in dataset.Writer") {
					t.Errorf("group count %d: %s gave %v, want the bug named", group, name, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("group count %d: %s did not return", group, name)
			}
		}
	}
}

// readObject is the bytes of key in st.
func readObject(t *testing.T, st store.Store, key string) []byte {
	t.Helper()
	b, err := store.ReadAll(context.Background(), st, key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
