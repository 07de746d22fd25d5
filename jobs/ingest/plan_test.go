package ingest

import (
	"fmt"
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

// TestMoreRows: room for the rest of the shard at the rate so far, at
// least a quarter more (geometric growth when estimates fall short), at
// most double.
// TestRowChunks: rows come back in order, in place (at), across chunks.
func TestRowChunks(t *testing.T) {
	var c rowChunks
	if got := c.flat(); len(got) != 0 {
		t.Fatalf("empty: %d rows", len(got))
	}
	const n = 2*rowChunk + 17
	for i := range n {
		c.add(dataset.IngestRow{Line: int64(i)})
	}
	for i := rowChunk - 1; i < n; i += rowChunk / 2 {
		c.at(i).Start = 7
	}
	if c.len() != n {
		t.Fatalf("len %d, want %d", c.len(), n)
	}
	got := c.flat()
	for i, r := range got {
		wantStart := int64(0)
		if i >= rowChunk-1 && (i-(rowChunk-1))%(rowChunk/2) == 0 {
			wantStart = 7
		}
		if r.Line != int64(i) || r.Start != wantStart {
			t.Fatalf("row %d: line %d start %d", i, r.Line, r.Start)
		}
	}
	if len(got) != n || cap(got) != n || c.len() != 0 {
		t.Fatalf("flat: %d rows, cap %d; after: %d", len(got), cap(got), c.len())
	}
}
