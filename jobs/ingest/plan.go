package ingest

import (
	"strings"
)

// span is a part of one input that one map shard reads: the whole file,
// or bytes [start, end) of a large uncompressed JSONL file, whose lines are
// the ones whose first byte lies in [start, end) (the last may run past
// end; the first line starting at or after start is the span's first).
type span struct {
	file       int
	start, end int64
	size       int64 // the file's size
	whole      bool
}

// minSpan is the smallest byte range a JSONL file is split into: below it
// the cost of opening a file and finding a line boundary outweighs what
// one more shard's share saves. A variable so that tests split small files.
var minSpan int64 = 1 << 20

// splittable reports whether an input can be read in byte ranges: only
// uncompressed JSON lines, told from the name alone (planning uses sizes,
// never content): .jsonl and .ndjson, or any name with format: jsonl. A
// compressed stream has no seekable line boundaries, a JSON array
// (format: json, or a .json file, which may hold one) is one value, and a
// Parquet file is read whole (see plan).
func splittable(in input) bool {
	lower := strings.ToLower(in.key)
	for _, ext := range []string{".gz", ".zst", ".zstd"} {
		if strings.HasSuffix(lower, ext) {
			return false
		}
	}
	switch in.format {
	case "jsonl":
		return in.src.Format == "jsonl" || strings.HasSuffix(lower, ".jsonl") || strings.HasSuffix(lower, ".ndjson")
	}
	return false
}

// plan cuts the inputs, in source order, into units and gives each of
// shards shards a contiguous run of them, balanced by bytes; it returns
// shard's spans, units of one file merged. It depends only on the input
// list, the sizes and the shard count, so every shard (and every rerun)
// makes the same plan, and the units tile each file exactly.
//
// A splittable file is cut into ranges of about a quarter of one shard's
// share (at least minSpan), so that files of unequal sizes still balance;
// every other file is one unit. Parquet files are whole units too: a
// shard records the SHA-256 of what it read, and a share of row groups
// would be scattered column chunks plus a footer every shard reads; real
// Parquet corpora come as many files, which balance as units.
func plan(inputs []input, sizes []int64, shards, shard int) []span {
	var total int64
	for _, s := range sizes {
		total += s
	}
	chunk := max(minSpan, (total+int64(4*shards)-1)/int64(4*shards))
	var units []span
	for i, in := range inputs {
		size := sizes[i]
		if !splittable(in) || size <= chunk {
			units = append(units, span{file: i, start: 0, end: size, size: size, whole: true})
			continue
		}
		n := (size + chunk - 1) / chunk
		step := (size + n - 1) / n
		for a := int64(0); a < size; a += step {
			units = append(units, span{file: i, start: a, end: min(a+step, size), size: size})
		}
	}
	// Unit u goes to the shard holding the middle of its bytes in the
	// concatenated inputs: monotone in u, so each shard's units are
	// contiguous in source order.
	var mine []span
	var before int64
	for _, u := range units {
		n := u.end - u.start
		owner := 0
		if total > 0 {
			owner = int((2*before + n) * int64(shards) / (2 * total))
		}
		owner = min(owner, shards-1)
		before += n
		if owner != shard {
			continue
		}
		if k := len(mine) - 1; k >= 0 && mine[k].file == u.file && !u.whole {
			mine[k].end = u.end // the next range of the same file: read on
			continue
		}
		mine = append(mine, u)
	}
	for i := range mine {
		// Every range of a file in one shard: read it as a whole file.
		mine[i].whole = mine[i].whole || (mine[i].start == 0 && mine[i].end == mine[i].size)
	}
	return mine
}
