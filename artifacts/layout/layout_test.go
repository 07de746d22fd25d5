package layout

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

func TestManifestWriteOnceAndComplete(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	m := &Manifest{Stage: "ingest", Run: "r", Shard: 0, Shards: 2, Outputs: []Object{{Key: "r/problems/part-00000-of-00002.parquet", SHA256: "aa"}}}
	key := DoneKey("r", "problems", m.Spec())
	if done, _ := Done(ctx, st, key); done {
		t.Fatal("done before writing")
	}
	if err := WriteDone(ctx, st, key, m); err != nil {
		t.Fatal(err)
	}
	// A second finisher with the same outputs is accepted; with other outputs it is an error.
	if err := WriteDone(ctx, st, key, m); err != nil {
		t.Fatalf("same outputs: %v", err)
	}
	other := *m
	other.Outputs = []Object{{Key: m.Outputs[0].Key, SHA256: "bb"}}
	if err := WriteDone(ctx, st, key, &other); err == nil {
		t.Fatal("different outputs accepted")
	}
	_, err := Complete(ctx, st, "r", "problems")
	var inc *IncompleteError
	if !errors.As(err, &inc) || !strings.Contains(err.Error(), "missing [1]") {
		t.Fatalf("Complete with one of two shards: %v", err)
	}
	m1 := *m
	m1.Shard = 1
	if err := WriteDone(ctx, st, DoneKey("r", "problems", m1.Spec()), &m1); err != nil {
		t.Fatal(err)
	}
	ms, err := Complete(ctx, st, "r", "problems")
	if err != nil || len(ms) != 2 || ms[0].Shard != 0 || ms[1].Shard != 1 {
		t.Fatalf("Complete = %v, %v", ms, err)
	}
	// A stale manifest of another shard count makes the set ambiguous.
	m3 := *m
	m3.Shards = 3
	if err := WriteDone(ctx, st, DoneKey("r", "problems", m3.Spec()), &m3); err != nil {
		t.Fatal(err)
	}
	if _, err := Complete(ctx, st, "r", "problems"); !errors.As(err, &inc) {
		t.Fatalf("mixed shard counts: %v", err)
	}
	if _, err := Complete(ctx, st, "r", "nothing"); !errors.As(err, &inc) {
		t.Fatalf("empty dataset: %v", err)
	}
}

func TestManifestObjects(t *testing.T) {
	m := &Manifest{Run: "r", Outputs: []Object{
		{Key: "r/corpus/part-00000-of-00001.parquet"},
		{Key: "r/duplicates/part-00000-of-00001.parquet"},
		{Key: "r/corpus_extra/part-00000-of-00001.parquet"},
		{Key: "r/reports/corpus.md"},
	}}
	got := m.Objects("corpus")
	if len(got) != 1 || got[0].Key != "r/corpus/part-00000-of-00001.parquet" {
		t.Fatalf("Objects(corpus) = %v", got)
	}
}

func TestPartNames(t *testing.T) {
	s := shard.Spec{Index: 2, Count: 7}
	if got := DataKey("r", "corpus", s); got != "r/corpus/part-00002-of-00007.parquet" {
		t.Errorf("DataKey = %s", got)
	}
	if got := DoneKey("r", "corpus", s); got != "r/corpus/_done/part-00002-of-00007.json" {
		t.Errorf("DoneKey = %s", got)
	}
	if got := CheckpointPrefix("r", "judge", s); got != "r/_checkpoints/judge/part-00002-of-00007" {
		t.Errorf("CheckpointPrefix = %s", got)
	}
	if got, ok := ParsePartName("part-00002-of-00007.json", ".json"); !ok || got != s {
		t.Errorf("ParsePartName = %v, %v", got, ok)
	}
	for _, bad := range []string{"part-2-of-7.json", "part-00007-of-00007.json", "x.json", "part-00002-of-00007.parquet"} {
		if _, ok := ParsePartName(bad, ".json"); ok {
			t.Errorf("ParsePartName(%q) accepted", bad)
		}
	}
}

func TestDatasetOf(t *testing.T) {
	for key, want := range map[string]string{
		"r/corpus/part-00000-of-00001.parquet":       "corpus",
		"r/corpus/_done/part-00000-of-00001.json":    "",
		"r/reports/table1.md":                        "",
		"r/_cache/llm/ab/abcd":                       "",
		"other/corpus/part-00000-of-00001.parquet":   "",
		"r/_checkpoints/judge/part-00000-of-00001/x": "",
	} {
		if got := DatasetOf("r", key); got != want {
			t.Errorf("DatasetOf(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, f := range []string{"a.jsonl", "b.jsonl", "c.parquet", "sub/d.jsonl"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := func(fs []File) string {
		var out []string
		for _, f := range fs {
			out = append(out, strings.TrimPrefix(f.URI, dir+"/"))
		}
		return strings.Join(out, ",")
	}
	for _, tt := range []struct {
		uri  string
		keep func(string) bool
		want string
	}{
		{dir + "/*.jsonl", nil, "a.jsonl,b.jsonl"},
		{dir + "/*/*.jsonl", nil, "sub/d.jsonl"},
		{dir + "/b.jsonl", nil, "b.jsonl"},
		{"file://" + dir + "/b.jsonl", nil, "file://" + dir + "/b.jsonl"},
		{dir, func(k string) bool { return strings.HasSuffix(k, ".jsonl") }, "file://" + dir + "/a.jsonl,file://" + dir + "/b.jsonl,file://" + dir + "/sub/d.jsonl"},
	} {
		fs, err := Files(ctx, tt.uri, store.Options{}, tt.keep)
		if err != nil || names(fs) != tt.want {
			t.Errorf("Files(%s) = %s, %v; want %s", tt.uri, names(fs), err, tt.want)
			continue
		}
		if b, err := store.ReadAll(ctx, fs[0].Store, fs[0].Key); err != nil || len(b) == 0 {
			t.Errorf("Files(%s)[0] unreadable: %v", tt.uri, err)
		}
	}
	for _, missing := range []string{dir + "/*.csv", dir + "/nope.jsonl"} {
		if _, err := Files(ctx, missing, store.Options{}, nil); !errors.Is(err, store.ErrNotExist) {
			t.Errorf("Files(%s) = %v, want not-exist", missing, err)
		}
	}
	if _, err := OpenFile(ctx, dir+"/", store.Options{}); err == nil {
		t.Error("OpenFile of a folder accepted")
	}
}

// TestWriteShardDoneMeasurements: a second finisher of a shard whose
// results match but whose measurement part differs (its own name, other
// bytes) is accepted and given the stored manifest; one whose results
// differ is refused; without the measurement rule both are refused.
func TestWriteShardDoneMeasurements(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	isTiming := func(key string) bool { return strings.Contains(key, "/timings/") }
	res := Object{Key: "r/runs/part-00000-of-00001.parquet", SHA256: "aa"}
	first := &Manifest{Stage: "evaluate", Run: "r", Shards: 1, Outputs: []Object{res, {Key: "r/timings/part-00000-of-00001.1111.parquet", SHA256: "11"}}}
	key := DoneKey("r", "runs", first.Spec())
	if got, err := WriteShardDone(ctx, st, key, first, isTiming); err != nil || got != first {
		t.Fatalf("first finisher: %v, %v", got, err)
	}
	for _, tc := range []struct {
		name    string
		outputs []Object
		rule    func(string) bool
		ok      bool
	}{
		{"other timings", []Object{res, {Key: "r/timings/part-00000-of-00001.2222.parquet", SHA256: "22"}}, isTiming, true},
		{"other timings, no rule", []Object{res, {Key: "r/timings/part-00000-of-00001.2222.parquet", SHA256: "22"}}, nil, false},
		{"other results", []Object{{Key: res.Key, SHA256: "bb"}, {Key: "r/timings/part-00000-of-00001.2222.parquet", SHA256: "22"}}, isTiming, false},
		{"a result missing", []Object{{Key: "r/timings/part-00000-of-00001.2222.parquet", SHA256: "22"}}, isTiming, false},
	} {
		second := *first
		second.Outputs = tc.outputs
		got, err := WriteShardDone(ctx, st, key, &second, tc.rule)
		if tc.ok && (err != nil || got == nil || got.Outputs[1].SHA256 != "11") {
			t.Errorf("%s: %v, %v; want the stored (first) manifest", tc.name, got, err)
		}
		if !tc.ok && err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// TestDamagedManifestIsBadInput: a manifest cut short, emptied, edited by
// hand (rows, a stat, an output's hash) or without a digest is refused by
// ReadDone and Manifests with a *DamagedError (exit 2) naming it and the
// shard to redo; an intact one reads back with its digest.
func TestDamagedManifestIsBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec := shard.Spec{Index: 2, Count: 3}
	key := DoneKey("r", "corpus", spec)
	file := filepath.Join(dir, filepath.FromSlash(key))
	m := &Manifest{Stage: "dedup", Step: "map", Run: "r", Dataset: "corpus", Shard: 2, Shards: 3, Rows: 7,
		Outputs: []Object{{Key: "r/corpus/part-00002-of-00003.parquet", SHA256: "aa", Rows: 7}}, Stats: map[string]int64{"kept": 7}}
	if err := WriteDone(ctx, st, key, m); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadDone(ctx, st, key)
	if err != nil || back.Digest == "" || back.Rows != 7 {
		t.Fatalf("intact manifest: %+v, %v", back, err)
	}

	edits := map[string]string{
		"truncated":  string(good[:len(good)/2]),
		"empty":      "",
		"blank":      "\n",
		"not json":   "{rows: 7}",
		"rows":       strings.Replace(string(good), `"rows": 7,`, `"rows": 8,`, 1),
		"stat":       strings.Replace(string(good), `"kept": 7`, `"kept": 70`, 1),
		"sha256":     strings.Replace(string(good), `"sha256": "aa"`, `"sha256": "bb"`, 1),
		"no digest":  strings.Replace(string(good), `"digest": "`+back.Digest+`"`, `"digest": ""`, 1),
		"two values": string(good) + string(good),
	}
	for name, body := range edits {
		t.Run(name, func(t *testing.T) {
			if body == string(good) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, read := range []func() error{
				func() error { _, err := ReadDone(ctx, st, key); return err },
				func() error { _, err := Manifests(ctx, st, "r", "corpus"); return err },
			} {
				err := read()
				var dm *DamagedError
				if !errors.As(err, &dm) || dm.ExitCode() != 2 || dm.Dataset != "corpus" || dm.Spec != spec {
					t.Fatalf("err = %#v, want a *DamagedError of corpus shard 2/3", err)
				}
				if msg := err.Error(); !strings.Contains(msg, st.URI(key)) || !strings.Contains(msg, "--force") || !strings.Contains(msg, "2/3") {
					t.Errorf("message %q does not name the manifest and the shard to redo with --force", msg)
				}
			}
		})
	}
	// The pipeline names the exact command.
	if err := os.WriteFile(file, good[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadDone(ctx, st, key)
	var dm *DamagedError
	errors.As(err, &dm)
	dm.Redo = "bin/dedup --config run.yaml --shard 2/3 --force"
	if !strings.HasSuffix(err.Error(), "its shard must be redone: bin/dedup --config run.yaml --shard 2/3 --force") {
		t.Errorf("message with the command: %q", err)
	}
}

// TestGlobSaysWhyAFolderCannotBeListed: a pattern whose folder is a file,
// or cannot be read, says so, instead of "matched no files"; a readable
// folder without matches still says that.
func TestGlobSaysWhyAFolderCannotBeListed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Files(ctx, filepath.Join(dir, "file", "*.jsonl"), store.Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a directory") || strings.Contains(err.Error(), "matched no files") {
		t.Errorf("a file as the folder: %v", err)
	}
	_, err = Files(ctx, filepath.Join(dir, "*.jsonl"), store.Options{}, nil)
	if !errors.Is(err, store.ErrNotExist) || !strings.Contains(err.Error(), "matched no files") {
		t.Errorf("no match in a readable folder: %v", err)
	}
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	for _, pat := range []string{filepath.Join("locked", "*.jsonl"), filepath.Join("top", "*", "*.jsonl")} {
		locked := filepath.Join(dir, "locked")
		if pat != filepath.Join("locked", "*.jsonl") {
			locked = filepath.Join(dir, "top", "sub")
		}
		if err := os.MkdirAll(locked, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		_, err = Files(ctx, filepath.Join(dir, pat), store.Options{}, nil)
		os.Chmod(locked, 0o755)
		if err == nil || !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("%s with an unreadable folder: %v", pat, err)
		}
	}
}
