package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/release"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	jobrelease "github.com/saber-math/saber/jobs/release"
	"github.com/saber-math/saber/jobs/stage"
)

const releaseHelp = `saber release — check a release folder

Usage:
  saber release verify DIR|s3://bucket/prefix/VERSION [--config run.yaml] [--json]

Checks a release folder wherever it lies — the one a run wrote
(<root>/<run>/release/<version>/), a published copy, or a download — for
its bytes and for what they mean:
  - every checksum of SHA256SUMS, and no file left out of it;
  - MANIFEST.json against the files (hash, size, rows of every table);
  - every Parquet file's schema against the table it declares; a file that
    does not decode is reported once, as corrupt;
  - the card's YAML header and its configs' data_files against the files;
  - croissant.json: conformsTo Croissant 1.0, the required name,
    description, url, creator, datePublished and license, every
    distribution's sha256 and size, every field's column and type;
  - the cross-references: every qrel's document in the corpus, every query
    with candidates and ratings, ratings in [0, 5] with their level, no
    query among its own candidates, no unaccepted leak;
  - every TREC run: each line's query a query and its document one of that
    query's candidates, ranks 1, 2, … with strictly decreasing scores (no
    ties), and data/results.parquet equal to the runs' nDCG@10;
  - every derived file rebuilt from the release's own tables, runs and
    MANIFEST.json and compared byte for byte: the BEIR and MTEB texts and
    qrels, the TREC qrels and ratings, the card (its counts and results
    table), Croissant, LICENSES.md, REPRODUCE.md, the topics' and
    summaries' terms. A difference names the file, the line or row, and
    the check.
The folder can also be checked without saber: sha256sum -c SHA256SUMS.

With --json the report (files checked, and every problem with its file) is
the only thing on stdout; the summary line goes to stderr.

Exit codes: 0 every check passed; 2 a check failed (one line per problem,
naming the file: the release differs from its record, as saber verify
reports bad data), and bad flags or a folder that does not exist or cannot
be read; 75 a transient failure reading it (rerun); 1 a bug.
`

func cmdRelease(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, releaseHelp)
		if len(args) == 0 {
			return stage.ExitBadInput
		}
		return stage.ExitOK
	}
	if args[0] != "verify" {
		fmt.Fprintf(stderr, "saber release: unknown command %q (commands: verify; see saber release --help)\n", args[0])
		return stage.ExitBadInput
	}
	fs := newFlags("release verify", releaseHelp, stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	storage := storageFlag(fs)
	// The folder comes first or last: flags may follow it.
	var dir string
	rest := args[1:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		dir, rest = rest[0], rest[1:]
	}
	if code, ok := parseWithArg(fs, rest, &dir); !ok {
		return code
	}
	if dir == "" {
		return fail(stderr, "release verify", stage.BadInput(errors.New("give the release folder: saber release verify DIR|s3://bucket/prefix")))
	}
	opts, err := storage()
	if err != nil {
		return fail(stderr, "release verify", err)
	}
	st, err := store.Open(ctx, strings.TrimSuffix(dir, "/"), opts)
	if err != nil {
		return fail(stderr, "release verify", stage.BadInput(err))
	}
	if err := releaseFolderExists(st); err != nil {
		return fail(stderr, "release verify", err)
	}
	rep, err := release.Verify(ctx, st)
	if err != nil {
		return fail(stderr, "release verify", err)
	}
	// With --json, stdout holds the report alone: the summary goes to
	// stderr, so that the output parses.
	summary := stdout
	if *asJSON {
		summary = stderr
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fail(stderr, "release verify", err)
		}
	} else {
		for _, p := range rep.Problems {
			fmt.Fprintf(stdout, "FAIL  %s\n", p)
		}
	}
	if !rep.OK() {
		// A release that differs from its record is bad data, not a bug
		// in saber: exit 2, as saber verify (exit 1 is kept for bugs).
		fmt.Fprintf(summary, "%s does NOT verify: %d problem(s) in %d files\n", st.URI(""), len(rep.Problems), rep.Files)
		return stage.ExitBadInput
	}
	fmt.Fprintf(summary, "%s verifies: SHA256SUMS and the %d files it lists, their checksums, schemas, card, Croissant metadata, cross-references, runs, results and every file derived from the tables\n", st.URI(""), rep.Files)
	return stage.ExitOK
}

// releaseFolderExists refuses (exit 2) a local release folder that does
// not exist, naming it: listing one is empty, which Verify would report
// only as a missing SHA256SUMS. (An S3 prefix has no existence apart from
// its objects: an empty one is reported so.)
func releaseFolderExists(st store.Store) error {
	p, local := strings.CutPrefix(st.URI(""), "file://")
	if !local {
		return nil
	}
	p = filepath.FromSlash(strings.TrimSuffix(p, "/"))
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return stage.BadInput(fmt.Errorf("release folder %s does not exist: give the folder a run wrote (<root>/<run>/release/<version>/), a published copy or a download", p))
	}
	return nil
}

// parseWithArg parses flags and takes one positional argument into *arg
// when it is still empty.
func parseWithArg(fs interface {
	Parse([]string) error
	NArg() int
	Arg(int) string
}, args []string, arg *string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if strings.Contains(err.Error(), "help requested") {
			return stage.ExitOK, false
		}
		return stage.ExitBadInput, false
	}
	switch {
	case fs.NArg() == 1 && *arg == "":
		*arg = fs.Arg(0)
	case fs.NArg() > 0:
		return stage.ExitBadInput, false
	}
	return 0, true
}

func cmdPublish(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("publish", `saber publish — upload a release version, write-once

Usage:
  saber publish --config run.yaml --to s3://bucket/prefix [--version V]
  saber publish --config run.yaml --to /srv/releases

Verifies the run's release folder (<root>/<run>/release/<version>/, written by
the release stage) and copies it to <to>/<version>/: every object write-once
(S3: If-None-Match: *), SHA256SUMS last, so a reader that finds the checksums
finds every file they list. Files already there with the same SHA-256 are
skipped: publishing the same version twice uploads nothing, and a publish
killed midway resumes where it stopped. A version that holds any file with
other bytes is refused before anything is uploaded: a published version is
never overwritten; bump release.version. So is a version folder holding any
object the release does not list (a stray file). After the last upload the
target is listed and verified as a reader would: it must hold exactly the
files of SHA256SUMS, and every check of saber release verify must pass.

Exit codes: 0 published (or already there), 2 refused (a conflict, a release
that does not verify, bad flags), 75 interrupted or transient (rerun
resumes), 1 a bug.
`, stderr)
	cfgPath := fs.String("config", "", "run config `FILE`")
	to := fs.String("to", "", "where versions are published: s3://bucket/prefix or a local `DIR`")
	version := fs.String("version", "", "release `version` to publish (default release.version)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *to == "" {
		return fail(stderr, "publish", stage.BadInput(errors.New("--to s3://bucket/prefix or DIR is required")))
	}
	cfg, _, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "publish", err)
	}
	v := *version
	if v == "" {
		v = jobrelease.Section.Of(cfg).Version
	}
	src, err := releaseStore(ctx, cfg, v)
	if err != nil {
		return fail(stderr, "publish", err)
	}
	dst, err := store.Open(ctx, strings.TrimSuffix(*to, "/")+"/"+v, cfg.Storage)
	if err != nil {
		return fail(stderr, "publish", stage.BadInput(err))
	}
	fmt.Fprintf(stdout, "publishing %s to %s\n", src.URI(""), dst.URI(""))
	sum, err := release.Publish(ctx, src, dst, stdout)
	var conflict *release.ConflictError
	var unverified *release.NotVerifiedError
	var stray *release.StrayError
	if errors.As(err, &conflict) || errors.As(err, &unverified) || errors.As(err, &stray) {
		return fail(stderr, "publish", stage.BadInput(err))
	}
	if err != nil {
		return fail(stderr, "publish", err)
	}
	fmt.Fprintf(stdout, "published %s: %d uploaded (%d bytes), %d already there\nverify it with: saber release verify %s\n",
		dst.URI(""), sum.Uploaded, sum.Bytes, sum.Skipped, dst.URI(""))
	return stage.ExitOK
}

// releaseStore opens the run's release folder of version v.
func releaseStore(ctx context.Context, cfg *config.Config, v string) (store.Store, error) {
	uri := strings.TrimSuffix(cfg.RootURI(), "/") + "/" + strings.TrimSuffix(layout.ReleasePrefix(cfg.Run, v), "/")
	st, err := store.Open(ctx, uri, cfg.Storage)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	if _, err := st.Stat(ctx, release.SumsFile); err != nil {
		if errors.Is(err, store.ErrNotExist) {
			return nil, stage.BadInput(fmt.Errorf("%s has no release %s (no %s): run the release stage first (saber run --stages release)", st.URI(""), v, release.SumsFile))
		}
		return nil, err
	}
	return st, nil
}
