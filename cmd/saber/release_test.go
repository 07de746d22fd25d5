package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/release"
	"github.com/saber-math/saber/artifacts/release/extread"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/store/storetest"
)

var (
	demoOnce sync.Once
	demoDir  string
	demoOut  string
	demoCode int
)

// demoRelease runs the demo once for these tests and returns its folder
// and the release folder.
func demoRelease(t *testing.T) (string, string) {
	t.Helper()
	demoOnce.Do(func() {
		dir, err := os.MkdirTemp("", "saber-release-")
		if err != nil {
			t.Fatal(err)
		}
		demoDir = dir
		demoOut, demoCode = saber(t, "demo", "--out", dir)
	})
	if demoCode != 0 {
		t.Fatalf("demo exit %d:\n%s", demoCode, demoOut)
	}
	return demoDir, filepath.Join(demoDir, "data", "demo", "release", "0.1.0-demo")
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-r", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
}

// TestDemoEndsWithARelease: make demo's release folder passes sha256sum -c
// and saber release verify; the demo says where it is and how to verify it;
// a flipped byte in any file, or a corpus row deleted, fails naming the file.
func TestDemoEndsWithARelease(t *testing.T) {
	_, rel := demoRelease(t)
	for _, want := range []string{"release              file://" + rel, "saber release verify " + rel, "sha256sum -c SHA256SUMS"} {
		if !strings.Contains(demoOut, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	cmd := exec.Command("sha256sum", "--quiet", "-c", release.SumsFile)
	cmd.Dir = rel
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	if out, code := saber(t, "release", "verify", rel); code != 0 || !strings.Contains(out, "verifies") {
		t.Fatalf("release verify: exit %d\n%s", code, out)
	}
	sums, _ := os.ReadFile(filepath.Join(rel, release.SumsFile))
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		files = append(files, strings.SplitN(line, "  ", 2)[1])
	}
	files = append(files, release.SumsFile)
	// Every file flipped in turn would take minutes; every kind, then a
	// sample of the rest.
	for i, f := range files {
		if !strings.HasPrefix(f, "data/") && i%4 != 0 && f != release.SumsFile && f != release.ManifestFile && f != release.CardFile && f != release.CroissantFile {
			continue
		}
		dir := filepath.Join(t.TempDir(), "r")
		copyDir(t, rel, dir)
		p := filepath.Join(dir, f)
		b, _ := os.ReadFile(p)
		b[len(b)/2] ^= 0x01
		os.WriteFile(p, b, 0o644)
		out, code := saber(t, "release", "verify", dir)
		if code != 2 || !strings.Contains(out, "FAIL  "+f+":") {
			t.Errorf("%s flipped: exit %d\n%s", f, code, out)
		}
	}
	// A corpus row deleted.
	dir := filepath.Join(t.TempDir(), "r")
	copyDir(t, rel, dir)
	p := filepath.Join(dir, "data", "corpus.parquet")
	b, _ := os.ReadFile(p)
	rows, err := dataset.Decode[release.Doc](b, p)
	if err != nil {
		t.Fatal(err)
	}
	less, _ := dataset.Encode(rows[1:])
	os.WriteFile(p, less, 0o644)
	if out, code := saber(t, "release", "verify", dir); code != 2 || !strings.Contains(out, "FAIL  data/corpus.parquet:") {
		t.Errorf("corpus row deleted: exit %d\n%s", code, out)
	}
}

// TestReleaseReadByIndependentReaders: DuckDB (not our Parquet code) reads
// every Parquet file of the demo release with the rows MANIFEST.json
// states and the values we wrote; a JSON-LD processor expands
// croissant.json; the BEIR files load as BEIR's loader reads them and hold
// the same ids as the MTEB layout and the tables; the card's YAML parses
// and its data_files match files.
func TestReleaseReadByIndependentReaders(t *testing.T) {
	_, rel := demoRelease(t)
	db := extread.NewDuckDB(t)
	var man release.Manifest
	b, _ := os.ReadFile(filepath.Join(rel, release.ManifestFile))
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	parquets := 0
	for _, f := range man.Files {
		if !strings.HasSuffix(f.Path, ".parquet") {
			continue
		}
		parquets++
		n, err := db.Count(filepath.Join(rel, f.Path))
		if err != nil || f.Rows == nil || n != *f.Rows {
			t.Errorf("duckdb: %s has %d rows (%v), MANIFEST.json says %v", f.Path, n, err, f.Rows)
		}
	}
	if parquets < 20 {
		t.Errorf("only %d Parquet files", parquets)
	}
	// Sample values: DuckDB's first rows are ours.
	qb, _ := os.ReadFile(filepath.Join(rel, "data/queries.parquet"))
	ours, err := dataset.Decode[release.Query](qb, "queries")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := db.Rows(filepath.Join(rel, "data/queries.parquet"), 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range theirs {
		topics := fmt.Sprint(r["topics"])
		if r["id"] != ours[i].ID || r["statement"] != ours[i].Statement || topics != fmt.Sprint(ours[i].Topics) || r["no_training"] != ours[i].NoTraining {
			t.Errorf("queries row %d: duckdb %v, ours %+v", i, r, ours[i])
		}
	}
	rq, err := db.Query("SELECT min(rating) AS lo, max(rating) AS hi, max(level) AS top FROM read_parquet(" + extread.SQLString(filepath.Join(rel, "data/qrels.parquet")) + ")")
	if err != nil || len(rq) != 1 || rq[0]["lo"].(float64) < 0 || rq[0]["hi"].(float64) > 5 || rq[0]["top"].(int64) > 5 {
		t.Errorf("qrels ratings through duckdb: %v, %v", rq, err)
	}
	if _, err := extread.JSONLDExpand(t, filepath.Join(rel, release.CroissantFile)); err != nil {
		t.Errorf("croissant.json does not expand: %v", err)
	}
	for _, setting := range release.Settings {
		corpus, queries, qrels, err := extread.ReadBEIR(filepath.Join(rel, "beir", setting), "test")
		if err != nil {
			t.Fatalf("beir %s: %v", setting, err)
		}
		ids, err := db.Query("SELECT _id FROM read_parquet(" + extread.SQLString(filepath.Join(rel, "mteb", setting, "corpus.parquet")) + ") ORDER BY _id")
		if err != nil {
			t.Fatal(err)
		}
		var mteb, beir []string
		for _, r := range ids {
			mteb = append(mteb, r["_id"].(string))
		}
		for id := range corpus {
			beir = append(beir, id)
		}
		slices.Sort(beir)
		if !slices.Equal(mteb, beir) {
			t.Errorf("%s: BEIR and MTEB corpora differ: %d vs %d ids", setting, len(beir), len(mteb))
		}
		pairs := 0
		for _, docs := range qrels {
			pairs += len(docs)
		}
		top, err := db.Query("SELECT count(*) AS n, sum(len(\"corpus-ids\")) AS docs FROM read_parquet(" + extread.SQLString(filepath.Join(rel, "mteb", setting, "top_ranked.parquet")) + ")")
		if err != nil || top[0]["n"] != int64(len(queries)) || top[0]["docs"] != int64(pairs) {
			t.Errorf("%s: MTEB top_ranked %v (%v); BEIR has %d queries, %d qrels", setting, top, err, len(queries), pairs)
		}
	}
	cb, _ := os.ReadFile(filepath.Join(rel, release.CardFile))
	parts := strings.SplitN(string(cb), "---\n", 3)
	var head struct {
		Configs []struct {
			Name  string `yaml:"config_name"`
			Files []struct {
				Split, Path string
			} `yaml:"data_files"`
		} `yaml:"configs"`
	}
	if len(parts) != 3 || yaml.Unmarshal([]byte(parts[1]), &head) != nil || len(head.Configs) != len(release.CardConfigs(release.Settings)) {
		t.Fatalf("card header: %d configs", len(head.Configs))
	}
	for _, c := range head.Configs {
		for _, f := range c.Files {
			m, _ := filepath.Glob(filepath.Join(rel, f.Path))
			if len(m) == 0 {
				t.Errorf("card config %s: %s matches no file", c.Name, f.Path)
			}
		}
	}
}

// TestPublishIsWriteOnce: publishing the same version twice uploads nothing
// the second time; a publish cut short resumes; other content under an
// existing version is refused with exit 2. Locally, and on S3 when a
// server runs (always under CI).
func TestPublishIsWriteOnce(t *testing.T) {
	dir, rel := demoRelease(t)
	cfg := filepath.Join(dir, "run.yaml")
	targets := []string{filepath.Join(t.TempDir(), "published")}
	if os.Getenv("AWS_ENDPOINT_URL_S3") != "" || os.Getenv("CI") == "true" {
		targets = append(targets, storetest.S3URI(t, store.Options{}))
	}
	sums, _ := os.ReadFile(filepath.Join(rel, release.SumsFile))
	nfiles := strings.Count(string(sums), "\n") + 1
	for _, to := range targets {
		out, code := saber(t, "publish", "--config", cfg, "--to", to)
		if code != 0 || !strings.Contains(out, fmt.Sprintf("%d uploaded", nfiles)) {
			t.Fatalf("publish to %s: exit %d\n%s", to, code, out)
		}
		out, code = saber(t, "publish", "--config", cfg, "--to", to)
		if code != 0 || !strings.Contains(out, "0 uploaded (0 bytes), "+fmt.Sprint(nfiles)+" already there") {
			t.Errorf("second publish to %s: exit %d\n%s", to, code, out)
		}
		out, code = saber(t, "release", "verify", to+"/0.1.0-demo")
		if code != 0 {
			t.Errorf("verify the published copy: exit %d\n%s", code, out)
		}
		// Cut short: the checksums and some files missing.
		st, err := store.Open(context.Background(), to+"/0.1.0-demo", store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{release.SumsFile, release.CardFile, "data/corpus.parquet"} {
			st.Delete(context.Background(), k)
		}
		out, code = saber(t, "publish", "--config", cfg, "--to", to)
		if code != 0 || !strings.Contains(out, "3 uploaded") {
			t.Errorf("resumed publish to %s: exit %d\n%s", to, code, out)
		}
		// Other content under the version: refused, nothing changed.
		st.Delete(context.Background(), release.SumsFile)
		store.Put(context.Background(), st, release.CardFile, []byte("another card"), store.Replace)
		out, code = saber(t, "publish", "--config", cfg, "--to", to)
		if code != 2 || !strings.Contains(out, "never overwritten") || !strings.Contains(out, release.CardFile) {
			t.Errorf("conflicting publish to %s: exit %d\n%s", to, code, out)
		}
		if got, _ := store.ReadAll(context.Background(), st, release.CardFile); !bytes.Equal(got, []byte("another card")) {
			t.Error("a refused publish changed the target")
		}
		if _, err := st.Stat(context.Background(), release.SumsFile); err == nil {
			t.Error("a refused publish wrote the checksums")
		}
	}
}
