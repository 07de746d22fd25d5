package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/shard"
)

// configWith is testConfig with more top-level YAML (benchmark: …).
func configWith(t *testing.T, dir, run, extra string) *config.Config {
	t.Helper()
	y := fmt.Sprintf("run: %s\nroot: %s\nseed: 1\nlog: {progress_seconds: 0}\n"+
		"evaluate: {retrievers: [%s], settings: [%s]}\nreport: {resamples: 50, k: 5}\n%s",
		run, dir, strings.Join(testRetrievers, ", "), strings.Join(testSettings, ", "), extra)
	path := filepath.Join(dir, run+".yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, Section)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// mscOntology is a small ontology in the MSC's style: its own top-level
// labels (lower-case words), in its own order, none of MathWorld's five
// but Geometry.
const mscOntology = `{"nodes": [
  {"id": "00", "label": "General and overarching topics"},
  {"id": "05", "label": "Combinatorics"},
  {"id": "05A", "label": "Enumerative combinatorics"},
  {"id": "11", "label": "Number theory"},
  {"id": "11A", "label": "Elementary number theory"},
  {"id": "51", "label": "Geometry"}
], "edges": [{"parent": "05", "child": "05A"}, {"parent": "11", "child": "11A"}]}
`

// TestReportDomainsFromOntology: the tables list the domains of the run's
// ontology in its order (or benchmark.domains's), matching the queries'
// labels case-insensitively and spelling them as the ontology does; a
// label that matches none comes after, alphabetically, and queries without
// a domain last. Nothing of MathWorld's five is assumed.
func TestReportDomainsFromOntology(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "msc.json"), []byte(mscOntology), 0o644); err != nil {
		t.Fatal(err)
	}
	onto := "benchmark: {ontology: {file: " + filepath.Join(dir, "msc.json")
	labels := []string{"number theory", "Topology", "COMBINATORICS", "Geometry", "Number Theory", ""}
	for _, tc := range []struct {
		run, extra string
		want       []string
	}{
		{"onto", onto + "}}\n", []string{"Combinatorics", "Number theory", "Geometry", "Topology", NoDomain}},
		{"conf", onto + "}, domains: [geometry, NUMBER THEORY, combinatorics]}\n", []string{"Geometry", "Number theory", "Combinatorics", "Topology", NoDomain}},
		// Configured domains only: a domain of the ontology that
		// benchmark.domains leaves out is not a known one, and keeps the
		// queries' spelling.
		{"part", onto + "}, domains: [number theory]}\n", []string{"Number theory", "COMBINATORICS", "Geometry", "Topology", NoDomain}},
	} {
		t.Run(tc.run, func(t *testing.T) {
			root := openStore(t, dir)
			fabricate(t, root, tc.run, fabOptions{queries: 12, docs: 5, ranges: 1, domains: labels})
			if _, err := runReport(t, configWith(t, dir, tc.run, tc.extra), root, false); err != nil {
				t.Fatal(err)
			}
			md, err := os.ReadFile(filepath.Join(dir, tc.run, "reports", Table1+".md"))
			if err != nil {
				t.Fatal(err)
			}
			head := "| Retriever | Overall | " + strings.Join(tc.want, " | ") + " | full-full |"
			if !strings.Contains(string(md), head) {
				t.Errorf("table1.md lacks %q:\n%s", head, md)
			}
			js, err := os.ReadFile(filepath.Join(dir, tc.run, "reports", ReportLeaderboard))
			if err != nil {
				t.Fatal(err)
			}
			var lb struct{ Domains []string }
			if err := json.Unmarshal(js, &lb); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(lb.Domains, tc.want) {
				t.Errorf("leaderboard domains %q, want %q", lb.Domains, tc.want)
			}
			// The results' scopes: both spellings of number theory are
			// one domain, with its 4 queries (two labels × 12/6).
			res, err := dataset.Read[dataset.Result](t.Context(), root, layout.DataKey(tc.run, dataset.Results.Name, shard.Spec{Index: 0, Count: 1}))
			if err != nil {
				t.Fatal(err)
			}
			n := map[string]int32{}
			for _, r := range res {
				n[r.Scope] = r.Queries
			}
			for _, d := range tc.want {
				if want := map[bool]int32{true: 4, false: 2}[d == "Number theory"]; n[d] != want {
					t.Errorf("domain %s: %d queries, want %d", d, n[d], want)
				}
			}
			if len(n) != len(tc.want)+1 {
				t.Errorf("queries per scope %v", n)
			}
		})
	}
}

// TestReportProvenance: report.md, every table (Markdown and LaTeX) and
// leaderboard.json name the backend and model of the topics, summaries and
// judgments, as their writers' manifests record them; with any offline
// backend each says plainly that the numbers are not model judgments, and
// never otherwise.
func TestReportProvenance(t *testing.T) {
	dir := t.TempDir()
	const offline = "These numbers come from offline backends"
	for _, tc := range []struct {
		run                 string
		tag, summ, judge    map[string]string
		want                []string
		offline, judgeModel string
	}{
		{run: "off",
			want: []string{"topics: tag lexical backend (offline)", "summaries: summarize extractive backend (offline)", "judgments: judge lexical backend (offline)",
				offline + " — topics (lexical), summaries (extractive), judgments (lexical) — and are not model judgments; set tag.backend, summarize.backend, judge.backend: llm"},
			offline: "yes"},
		{run: "judged", judge: map[string]string{"judge.backend": "llm", "judge.llm.model": "judge-70b", "llm.model": "small"},
			want:    []string{"topics: tag lexical backend (offline)", "judgments: judge llm backend, model judge-70b", offline + " — topics (lexical), summaries (extractive) —"},
			offline: "yes", judgeModel: "judge-70b"},
		{run: "llm", tag: map[string]string{"tag.backend": "llm", "llm.model": "m"}, summ: map[string]string{"summarize.backend": "llm", "llm.model": "m"},
			judge: map[string]string{"judge.backend": "llm", "llm.model": "m"},
			want:  []string{"topics: tag llm backend, model m; summaries: summarize llm backend, model m; judgments: judge llm backend, model m."}, judgeModel: "m"},
	} {
		t.Run(tc.run, func(t *testing.T) {
			root := openStore(t, dir)
			fabricate(t, root, tc.run, fabOptions{queries: 10, docs: 5, ranges: 1, tag: tc.tag, summarize: tc.summ, judge: tc.judge})
			if _, err := runReport(t, configWith(t, dir, tc.run, ""), root, false); err != nil {
				t.Fatal(err)
			}
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(dir, tc.run, "reports", name))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			for _, name := range []string{ReportIndex, Table1 + ".md", Table7 + ".md", Table8 + ".md", TableSensitivity + ".md", Table1 + ".tex"} {
				text := read(name)
				if strings.HasSuffix(name, ".tex") {
					// The LaTeX comment, unwrapped.
					var lines []string
					for _, l := range strings.Split(text, "\n") {
						if strings.HasPrefix(l, "% ") {
							lines = append(lines, strings.TrimPrefix(l, "% "))
						}
					}
					text = strings.Join(lines, " ")
				} else {
					text = strings.SplitN(text, "\n\n", 3)[1] // the paragraph under the title
					if !strings.HasPrefix(text, "**Provenance.** Labels from: ") {
						t.Errorf("%s does not open with the provenance:\n%s", name, text)
					}
				}
				for _, w := range tc.want {
					if !strings.Contains(text, w) {
						t.Errorf("%s lacks %q:\n%s", name, w, text)
					}
				}
				if strings.Contains(text, offline) != (tc.offline != "") {
					t.Errorf("%s: offline wording present %v, want %v:\n%s", name, !(tc.offline != ""), tc.offline != "", text)
				}
			}
			var lb struct {
				Provenance struct {
					Labellers []struct {
						Labels, Stage, Backend, Model string
						Offline                       bool
					}
					Offline       bool
					Note, Warning string
				}
			}
			if err := json.Unmarshal([]byte(read(ReportLeaderboard)), &lb); err != nil {
				t.Fatal(err)
			}
			p := lb.Provenance
			if len(p.Labellers) != 3 || p.Labellers[2].Labels != "judgments" || p.Labellers[2].Stage != "judge" || p.Labellers[2].Model != tc.judgeModel ||
				p.Offline != (tc.offline != "") || (p.Warning != "") != (tc.offline != "") || !strings.Contains(p.Note+" "+p.Warning, tc.want[len(tc.want)-1]) {
				t.Errorf("leaderboard provenance %+v", p)
			}
		})
	}
}

func openStore(t *testing.T, dir string) store.Store {
	t.Helper()
	root, err := store.Open(t.Context(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return root
}
