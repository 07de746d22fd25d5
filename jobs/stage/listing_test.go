package stage

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/shard"
)

// TestListedPathsAreComparedOnS3: a step that expands an s3:// glob and an
// s3:// folder (AddListing) records each with the files it matched; a
// done shard is current while they match the same files, and stale,
// naming the path and the file, once one is added under them or one is
// gone. Many shards' checks list each path once, and never read a file.
func TestListedPathsAreComparedOnS3(t *testing.T) {
	s3Env(t)
	ctx := context.Background()
	fake := gofakes3.New(s3mem.New()).Server()
	var lists, gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/raw") {
			if r.URL.Query().Has("list-type") || r.URL.Query().Has("prefix") {
				lists.Add(1)
			} else {
				gets.Add(1)
			}
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := testConfig(t, "storage:\n  s3:\n    endpoint: "+srv.URL+"\n    max_attempts: 2\n")
	if err := store.EnsureBucket(ctx, "s3://raw", cfg.Storage); err != nil {
		t.Fatal(err)
	}
	raw, err := store.Open(ctx, "s3://raw", cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	put := func(key string) {
		t.Helper()
		if _, err := store.Put(ctx, raw, key, []byte(`{"id": "x"}`+"\n"), store.Replace); err != nil {
			t.Fatal(err)
		}
	}
	put("corpus/a.jsonl")
	put("corpus/sub/x.jsonl")
	const glob, folder = "s3://raw/corpus/*.jsonl", "s3://raw/corpus/"
	step := Step{
		Name: "map", Outputs: []string{"problems"}, Shards: func(c *config.Config) int { return 2 },
		Run: func(ctx context.Context, env *Env) error {
			for _, p := range []string{glob, folder, glob} {
				fs, err := layout.Files(ctx, p, env.Config.Storage, nil)
				if err != nil {
					return err
				}
				var uris []string
				for _, f := range fs {
					uris = append(uris, f.URI)
				}
				env.AddListing(p, uris)
			}
			return WriteOutput(ctx, env, dataset.Problems, []dataset.Problem{{ID: env.Shard.String()}})
		},
	}
	st := Stage{Name: "test", Section: toySection, Steps: []Step{step}}
	root := store.NewMem()
	var ms []*layout.Manifest
	for i := 0; i < 2; i++ {
		res, err := RunShard(ctx, cfg, st, step, shard.Spec{Index: i, Count: 2}, root, zerolog.Nop(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, res.Manifest)
	}
	want := "[{" + folder + " [s3://raw/corpus/a.jsonl s3://raw/corpus/sub/x.jsonl]} {" + glob + " [s3://raw/corpus/a.jsonl]}]"
	if got := fmt.Sprint(ms[0].Listings); got != want {
		t.Fatalf("listings %s, want %s", got, want)
	}
	why := func() []string {
		t.Helper()
		cur := NewCurrent(root, cfg.Run)
		var first []string
		for i, m := range ms {
			w, err := StalenessIn(ctx, cfg, st, step, m, cur)
			if err != nil {
				t.Fatal(err)
			}
			if w.Stale() != (len(w.Inputs) > 0) || len(w.Config) > 0 {
				t.Errorf("shard %d: %+v", i, w)
			}
			if i == 0 {
				first = w.Inputs
			} else if strings.Join(w.Inputs, "\n") != strings.Join(first, "\n") {
				t.Errorf("shards differ: %q, %q", first, w.Inputs)
			}
		}
		return first
	}
	lists.Store(0)
	gets.Store(0)
	if w := why(); len(w) != 0 {
		t.Errorf("unchanged: %q", w)
	}
	if lists.Load() != 2 || gets.Load() != 0 {
		t.Errorf("two shards' checks listed %d times and read %d objects; want each of the 2 paths listed once, nothing read", lists.Load(), gets.Load())
	}

	put("corpus/b.jsonl")
	put("corpus/notes/readme.txt")
	got := strings.Join(why(), "\n")
	for _, w := range []string{
		"input path " + folder + " matches other files now: 2 new (s3://raw/corpus/b.jsonl, s3://raw/corpus/notes/readme.txt)",
		"input path " + glob + " matches other files now: 1 new (s3://raw/corpus/b.jsonl)",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("after adding files: %q\nlacks %q", got, w)
		}
	}

	for _, k := range []string{"corpus/b.jsonl", "corpus/notes/readme.txt", "corpus/a.jsonl"} {
		if err := raw.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	got = strings.Join(why(), "\n")
	for _, w := range []string{
		"input path " + folder + " matches other files now: 1 gone (s3://raw/corpus/a.jsonl)",
		"input path " + glob + " matches other files now: 1 gone (s3://raw/corpus/a.jsonl)",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("after removing a file: %q\nlacks %q", got, w)
		}
	}
}

// TestListingChangedNamesAtMostTen: a path that gains many files names ten
// of them, sorted, and counts the rest.
func TestListingChangedNamesAtMostTen(t *testing.T) {
	var old, now []string
	for i := 0; i < 25; i++ {
		f := fmt.Sprintf("in/%02d.jsonl", i)
		if i < 3 {
			old = append(old, f)
		}
		if i >= 1 {
			now = append(now, f)
		}
	}
	added, removed := setDiff(old, now)
	got := listingChanged("in/*.jsonl", added, removed)
	want := "input path in/*.jsonl matches other files now: 22 new (in/03.jsonl, in/04.jsonl, in/05.jsonl, in/06.jsonl, in/07.jsonl, in/08.jsonl, in/09.jsonl, in/10.jsonl, in/11.jsonl, in/12.jsonl and 12 more), 1 gone (in/00.jsonl)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if s := listingChanged("in/*.jsonl", nil, nil); s != "" {
		t.Errorf("unchanged: %q", s)
	}
}
