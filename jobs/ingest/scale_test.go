package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

// scaleCorpus is a generated corpus in three files: big.jsonl, split into
// byte ranges, holding a repeated id far from its first occurrence and a
// bad row deep inside; more.jsonl, repeating some of big's ids (they lose
// to big's, an earlier file); and tail.jsonl.gz, read whole.
func scaleCorpus(t *testing.T) (files map[string][]byte, total int, want map[string]string) {
	t.Helper()
	var gen bytes.Buffer
	if err := synth.Write(&gen, synth.Config{N: 1500, Seed: 7, DupFrac: synth.DefaultDupFrac}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(gen.String(), "\n"), "\n")
	var big, more, tail bytes.Buffer
	want = map[string]string{}
	n := 0 // lines of big.jsonl so far
	put := func(l string) { big.WriteString(l + "\n"); n++ }
	at := map[int]int{} // row of lines → its line in big.jsonl
	for i, l := range lines[:1200] {
		put(l)
		at[i] = n
		if i == 700 {
			put(`{"id": "bad-700", "statement": "", "solution": "s"}`)
			want[fmt.Sprintf("big.jsonl:%d", n)] = "empty_field"
		}
		if i == 1000 {
			put(lines[3]) // row 3's id again, in another range
			want[fmt.Sprintf("big.jsonl:%d", n)] = fmt.Sprintf("duplicate_id first seen at big.jsonl:%d", at[3])
		}
		if i%100 == 50 {
			put("") // blank lines count in line numbers
		}
	}
	for _, l := range lines[1200:1400] {
		more.WriteString(l + "\n")
	}
	more.WriteString(lines[10] + "\n" + lines[1100] + "\n")
	want["more.jsonl:201"] = fmt.Sprintf("duplicate_id first seen at big.jsonl:%d", at[10])
	want["more.jsonl:202"] = fmt.Sprintf("duplicate_id first seen at big.jsonl:%d", at[1100])
	zw := gzip.NewWriter(&tail)
	for _, l := range lines[1400:] {
		zw.Write([]byte(l + "\n"))
	}
	zw.Close()
	files = map[string][]byte{"big.jsonl": big.Bytes(), "more.jsonl": more.Bytes(), "tail.jsonl.gz": tail.Bytes()}
	return files, big.Len() + more.Len() + tail.Len(), want
}

const scaleSource = `    - name: synth
      paths: [big.jsonl, more.jsonl, tail.jsonl.gz]
      fields: {id: id, subject: domain, source: source}
`

// TestShardsReadEachByteOnce is issue 20's bar: ingest with 8 shards reads
// each input byte once in total (counted by the map shards' bytes_read),
// and gives the same problems and rejects bytes as 1 and 3 shards; reject
// lines are the file's, whichever range a row was read in; a rerun is a
// no-op, and a grown input makes the map shards stale.
func TestShardsReadEachByteOnce(t *testing.T) {
	defer func(v int64) { minSpan = v }(minSpan)
	minSpan = 16 << 10 // split big.jsonl (about 600 KB) into many ranges
	defer func(v uint64) { groupMean = v }(groupMean)
	groupMean = 64 // problems in row groups of about 64 rows: some copied, some not
	files, total, want := scaleCorpus(t)
	statements := map[string]string{}
	for _, name := range []string{"big.jsonl", "more.jsonl"} {
		for _, l := range strings.Split(string(files[name]), "\n") {
			var row struct{ ID, Statement string }
			if json.Unmarshal([]byte(l), &row) == nil && row.Statement != "" {
				if _, dup := statements[row.ID]; !dup {
					statements[row.ID] = row.Statement
				}
			}
		}
	}
	zr, err := gzip.NewReader(bytes.NewReader(files["tail.jsonl.gz"]))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(zr)
	for {
		var row struct{ ID, Statement string }
		if dec.Decode(&row) != nil {
			break
		}
		statements[row.ID] = row.Statement
	}
	type result struct {
		problems, rejects []byte
		bytesRead         int64
		reread            int64
		ranges            int
		copied, encoded   int64 // problems' row groups
	}
	ctx := context.Background()
	runs := map[int]result{}
	for _, n := range []int{1, 3, 8} {
		cfg := setup(t, files, scaleSource)
		Section.Of(cfg).MaxTextBytes, Section.Of(cfg).MaxLineBytes = 1<<20, 4<<20
		probs, rejs, err := runShards(t, cfg, n)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		root, _ := store.Open(ctx, cfg.RootURI(), cfg.Storage)
		var r result
		one := shard.Spec{Index: 0, Count: 1}
		if r.problems, err = os.ReadFile(localPath(cfg, layout.DataKey(cfg.Run, "problems", one))); err != nil {
			t.Fatal(err)
		}
		if r.rejects, err = os.ReadFile(localPath(cfg, layout.DataKey(cfg.Run, "rejects", one))); err != nil {
			t.Fatal(err)
		}
		ms, err := layout.Complete(ctx, root, cfg.Run, "ingest_rows")
		if err != nil || len(ms) != n {
			t.Fatalf("%d shards: %d map manifests, %v", n, len(ms), err)
		}
		for _, m := range ms {
			r.bytesRead += m.Stats["bytes_read"]
			r.reread += m.Stats["bytes_reread"]
			for _, in := range m.Inputs {
				if in.Length > 0 {
					r.ranges++
				}
			}
		}
		red, err := layout.ReadDone(ctx, root, layout.DoneKey(cfg.Run, "problems", one))
		if err != nil {
			t.Fatal(err)
		}
		r.copied, r.encoded = red.Stats["row_groups_copied"], red.Stats["row_groups_encoded"]
		runs[n] = r
		if r.bytesRead != int64(total) {
			t.Errorf("%d shards read %d bytes in total (bytes_read), want the inputs' %d", n, r.bytesRead, total)
		}
		// What a range reads to find its first line is at most one line.
		if r.reread > int64(r.ranges)*(64<<10) {
			t.Errorf("%d shards: %d bytes re-read over %d ranges", n, r.reread, r.ranges)
		}
		got := map[string]string{}
		for _, rj := range rejs {
			k := fmt.Sprintf("%s:%d", rj.File, rj.Line)
			got[k] = rj.Reason
			if rj.Reason == "duplicate_id" {
				got[k] += " " + rj.Detail
			}
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%d shards: reject at %s = %q, want %q", n, k, got[k], v)
			}
		}
		if len(rejs) != len(want) || len(probs) != 1500 {
			t.Errorf("%d shards: %d problems, %d rejects %v", n, len(probs), len(rejs), got)
		}
		// Every problem is its row's, text and all (the reduce streams rows
		// from several parts at once into one writer).
		for _, p := range probs {
			if p.Statement != statements[p.ID] {
				t.Fatalf("%d shards: problem %s has statement %.60q, its row %.60q", n, p.ID, p.Statement, statements[p.ID])
			}
		}

		// A rerun is a no-op; a grown input makes the map shards stale.
		for i := 0; i < n; i++ {
			res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{})
			if err != nil || !res.Skipped {
				t.Fatalf("%d shards: rerun of map shard %d: %+v, %v; want skipped", n, i, res, err)
			}
		}
		if res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[1], one, root, zerolog.Nop(), stage.Options{}); err != nil || !res.Skipped {
			t.Fatalf("%d shards: rerun of the reduce: %+v, %v; want skipped", n, res, err)
		}
		if n == 8 {
			if err := os.WriteFile(filepath.Join(cfg.Dir(), "tail.jsonl.gz"), append(files["tail.jsonl.gz"], 0), 0o644); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				_, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{})
				if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "tail.jsonl.gz changed") {
					t.Errorf("map shard %d/8 after tail.jsonl.gz grew: %v; want stale", i, err)
				}
			}
		}
	}
	if runs[8].ranges < 8 || runs[1].ranges != 0 {
		t.Errorf("byte ranges read: %d with 8 shards, %d with 1; want big.jsonl split with 8, read whole with 1", runs[8].ranges, runs[1].ranges)
	}
	for _, n := range []int{3, 8} {
		if !bytes.Equal(runs[n].problems, runs[1].problems) || !bytes.Equal(runs[n].rejects, runs[1].rejects) {
			t.Errorf("%d shards: problems or rejects bytes differ from 1 shard's", n)
		}
	}
	// The ids of a shard's share are one run of the sorted ids but where
	// another file repeats them: the reduce copies most row groups from
	// the map shards and encodes those that straddle two shares or lose a
	// duplicate; from one shard, every group is the shard's own.
	if r := runs[1]; r.encoded != 0 || r.copied < 10 {
		t.Errorf("1 shard: %d row groups copied, %d encoded; want every one copied", r.copied, r.encoded)
	}
	for _, n := range []int{3, 8} {
		if r := runs[n]; r.copied < r.encoded || r.encoded == 0 {
			t.Errorf("%d shards: %d row groups copied, %d encoded; want most copied, some encoded", n, r.copied, r.encoded)
		}
	}
	t.Logf("8 shards: %d bytes read of %d, %d re-read at %d range boundaries; %d row groups copied, %d encoded", runs[8].bytesRead, total, runs[8].reread, runs[8].ranges, runs[8].copied, runs[8].encoded)
}

func localPath(cfg *config.Config, key string) string {
	return filepath.Join(strings.TrimPrefix(cfg.RootURI(), "file://"), filepath.FromSlash(key))
}
