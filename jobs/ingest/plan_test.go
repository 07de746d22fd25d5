package ingest

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
)

// TestPlanTilesInputs: for any shard count, the shards' spans together
// tile every input exactly once, in source order (shard i's spans all come
// before shard i+1's); files that cannot be split (compressed, .json,
// Parquet) are whole spans; and the shards' bytes balance.
func TestPlanTilesInputs(t *testing.T) {
	defer func(v int64) { minSpan = v }(minSpan)
	minSpan = 1000
	src := &Source{Format: "auto"}
	mk := func(key, format string) input { return input{src: src, key: key, format: format} }
	inputs := []input{
		mk("a.jsonl", "jsonl"), mk("b.jsonl.gz", "jsonl"), mk("c.json", "jsonl"),
		mk("d.parquet", "parquet"), mk("e.ndjson", "jsonl"), mk("f.jsonl", "jsonl"),
	}
	sizes := []int64{90_000, 30_000, 20_000, 5_000, 40_000, 500}
	var total int64
	for _, s := range sizes {
		total += s
	}
	for shards := 1; shards <= 9; shards++ {
		t.Run(fmt.Sprint(shards), func(t *testing.T) {
			next := make([]int64, len(inputs)) // the next byte each file's spans must start at
			file := 0
			for i := 0; i < shards; i++ {
				var mine int64
				for _, sp := range plan(inputs, sizes, shards, i) {
					if sp.file < file || sp.start != next[sp.file] || sp.end <= sp.start || sp.size != sizes[sp.file] {
						t.Fatalf("shard %d: span %+v out of order (file %d, next byte %d)", i, sp, file, next[sp.file])
					}
					if !splittable(inputs[sp.file]) && !(sp.whole && sp.start == 0 && sp.end == sp.size) {
						t.Errorf("shard %d: %s split: %+v", i, inputs[sp.file].key, sp)
					}
					file, next[sp.file] = sp.file, sp.end
					mine += sp.end - sp.start
				}
				// A unit is at most a quarter of a share, or one unsplittable file.
				if share := total / int64(shards); mine > share+share/2+30_000 {
					t.Errorf("shard %d of %d has %d bytes, a share is %d", i, shards, mine, share)
				}
			}
			for f, n := range next {
				if n != sizes[f] {
					t.Errorf("%s read to byte %d of %d", inputs[f].key, n, sizes[f])
				}
			}
		})
	}
}

// TestRowChunks: rows stay in place (at) across chunks, and sorted orders
// them by ingest_rows' key (dataset.IngestRows.Compare on the rows they
// stand for), rows of equal keys in the order added.
func TestRowChunks(t *testing.T) {
	var c rowChunks
	if got := c.sorted(); len(got) != 0 {
		t.Fatalf("empty: %d rows", len(got))
	}
	const n = 2*rowChunk + 17
	for i := range n {
		// Ids run backwards in blocks of 10; each block's rows share
		// their key but for the line, and every fifth row shares
		// another's whole key.
		// Rows 3 apart share their id but for the file, 7 apart but for
		// the element; every 11th is a reject, with no id.
		r := c.add()
		r.id, r.line, r.file, r.elem = fmt.Sprintf("id-%05d", (n-i)/10), int64(i%5), int32(i%3), int32(i%7)
		if i%11 == 0 {
			r.id, r.reject = "", &dataset.Reject{Reason: "missing_field", Line: int64(i)}
		}
	}
	for i := rowChunk - 1; i < n; i += rowChunk / 2 {
		c.at(i).start = 7
	}
	if c.len() != n {
		t.Fatalf("len %d, want %d", c.len(), n)
	}
	for i := range n {
		if want := int64(i % 5); c.at(i).line != want {
			t.Fatalf("row %d: line %d, want %d", i, c.at(i).line, want)
		}
	}
	got := c.sorted()
	if len(got) != n {
		t.Fatalf("sorted: %d rows of %d", len(got), n)
	}
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	rows := make([]dataset.IngestRow, n) // as ingest_rows stores them
	for i := range rows {
		rows[i] = c.at(i).row()
	}
	sort.SliceStable(want, func(a, b int) bool { return dataset.IngestRows.Compare(&rows[want[a]], &rows[want[b]]) < 0 })
	if !slices.Equal(got, want) {
		t.Fatalf("sorted: %v…, want %v…", got[:12], want[:12])
	}
}
