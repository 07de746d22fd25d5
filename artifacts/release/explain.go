package release

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// The files that let a release explain itself to someone without saber's
// code: what the TREC files are (trec/README.md) and how to rebuild the
// release from its raw sources (REPRODUCE.md with reproduce/run.yaml).

// systems are the evaluated systems in file order.
func (c *Contents) systems() []System {
	out := make([]System, 0, len(c.Runs))
	for s := range c.Runs {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b System) int {
		return cmp.Or(strings.Compare(a.Retriever, b.Retriever), strings.Compare(a.Setting, b.Setting))
	})
	return out
}

// systemsPhrase says how many runs there are and of what: "30 runs
// (10 retrievers × 3 settings)".
func (c *Contents) systemsPhrase() string {
	rs, ss := map[string]bool{}, map[string]bool{}
	for s := range c.Runs {
		rs[s.Retriever], ss[s.Setting] = true, true
	}
	if len(rs)*len(ss) == len(c.Runs) {
		return fmt.Sprintf("%d runs (%d retrievers × %d settings)", len(c.Runs), len(rs), len(ss))
	}
	return fmt.Sprintf("%d runs (%d retrievers over %d settings)", len(c.Runs), len(rs), len(ss))
}

func (c *Contents) trecReadme() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# TREC files of %s %s\n\n", c.Meta.Name, c.Meta.Version)
	b.WriteString("Plain-text files that trec_eval, ir_measures, pytrec_eval and similar tools read.\n\n")
	b.WriteString("- `qrels.txt`: `query 0 doc level`, one line per rated candidate. The level is the rating rounded half up to an integer 0–5 (a rating within 1e-9 below a half, the fit's precision, counts as the half).\n")
	b.WriteString("- `ratings.tsv`: a header `query\\tdoc\\trating`, then the exact real-valued rating in [0, 5] of every candidate, the shortest decimal that reads back to the same float64. These are the benchmark's labels.\n")
	fmt.Fprintf(&b, "- `runs/<retriever>.<setting>.run`: `query Q0 doc rank score tag`, each query's candidates as the system ranked them: %s.\n\n", c.systemsPhrase())
	b.WriteString("## Scores in the runs\n\n")
	b.WriteString("A run's score is derived from its rank: `n − rank + 1` for a query of n candidates. Scores are strictly decreasing in rank order within every query, so no tool meets a tie, and trec_eval (which sorts by score, then by document id descending) ranks them exactly as the rank column says. The ranks are the systems' own, their ties broken by document id ascending. The systems' raw scores are not in the release.\n\n")
	b.WriteString("## The metric\n\n")
	b.WriteString("The benchmark's metric is nDCG@10 with **exponential gain** 2^rating − 1 over the real-valued ratings of `ratings.tsv`, discount log2(rank + 1), the ideal DCG from the query's own rated candidates, and the mean over queries; `data/results.parquet` holds it for every run (gain `exponential`), with the linear-gain variant (gain = rating) beside it.\n\n")
	b.WriteString("`trec_eval -m ndcg_cut.10 qrels.txt runs/X.run` uses the integer levels with linear gain, so its figure is not the benchmark's. To compute the benchmark's number from these files: for each query, sort the run's lines by score descending (ties, of which there are none, by document id descending), take the first 10, sum (2^rating − 1)/log2(rank + 1) with ratings from `ratings.tsv`, divide by the same sum over the query's ratings sorted descending, and average over the queries.\n")
	return b.Bytes()
}

// stagesThatMadeIt are the stages of the steps upstream of the release and
// the release itself: what the rebuild runs (saber run orders them), and
// nothing beside the main line that would need inputs the release does
// not list.
func (c *Contents) stagesThatMadeIt() []string {
	out := []string{"release"}
	for _, p := range c.Meta.Upstream {
		if !slices.Contains(out, p.Stage) {
			out = append(out, p.Stage)
		}
	}
	slices.Sort(out)
	return out
}

// reproduce renders REPRODUCE.md.
func (c *Contents) reproduce() []byte {
	m := c.Meta
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Reproducing %s %s\n\n", m.Name, m.Version)
	b.WriteString("This release was built by saber from raw sources, and rebuilding it the same way gives the same bytes: every file of `SHA256SUMS` comes out identical, whatever shard counts or machines the rebuild uses.\n\n")
	fmt.Fprintf(&b, "## What made it\n\n- Code: saber at commit `%s`.\n- Config: `%s`, the run's effective config (every default filled in); its hash is `%s` and `%s` lists every step's config values.\n- Seed: %d.\n\n", m.CodeVersion, ReproduceConfig, m.ConfigHash, ManifestFile, m.Seed)
	b.WriteString("## Raw sources\n\nThe files the run read from outside its storage, by the name its config gives them (relative to the config's folder), and the stages that read them: ingest's are its `ingest.sources[].paths`; another stage's are named by that stage's section (an ontology, `report.plan`).\n\n| file | read by | bytes | SHA-256 |\n|---|---|--:|---|\n")
	for _, s := range m.Sources {
		fmt.Fprintf(&b, "| `%s` | %s | %d | `%s` |\n", s.Name, strings.Join(s.ReadBy, ", "), s.Size, s.SHA256)
	}
	if len(m.Sources) == 0 {
		b.WriteString("| (none recorded) | | | |\n")
	}
	b.WriteString("\n## Commands\n\n```sh\n")
	commit, dirty, _ := strings.Cut(m.CodeVersion, "+")
	fmt.Fprintf(&b, "git checkout %s && make build        # in a clone of saber\n", commit)
	b.WriteString("mkdir rebuild\n")
	fmt.Fprintf(&b, "cp <this release>/%s rebuild/run.yaml\n", ReproduceConfig)
	b.WriteString("# put the raw sources above under rebuild/, at the paths run.yaml names, and check them:\n")
	b.WriteString("(cd rebuild && sha256sum <the files>)   # must print the SHA-256 above\n")
	fmt.Fprintf(&b, "bin/saber run --config rebuild/run.yaml --stages %s\n", strings.Join(c.stagesThatMadeIt(), ","))
	fmt.Fprintf(&b, "diff <this release>/%s rebuild/<root>/<run>/release/%s/%s   # no output: the same bytes\n", SumsFile, m.Version, SumsFile)
	b.WriteString("```\n\n")
	if dirty != "" {
		fmt.Fprintf(&b, "**The binaries that built this release were not built from a clean checkout** (`+%s`: uncommitted changes): the commit alone does not rebuild it, and a release meant for others should be built from committed code.\n\n", dirty)
	}
	b.WriteString("`<root>` and `<run>` are run.yaml's `root` (always `data`: the config a release carries does not depend on where the run was stored; set another if you like) and `run`. The rebuild writes its release under `<root>/<run>/release/" + m.Version + "/`; `bin/saber release verify` checks it, and the `diff` of the two `SHA256SUMS` shows any file whose bytes differ.\n\n")
	b.WriteString("## What must be identical\n\nEvery file. The bytes depend on the raw sources, the config values that `MANIFEST.json` lists per step and the code; they do not depend on shard counts, the number of machines, the storage root, the date of the rebuild or the host. ")
	b.WriteString("A run with LLM backends reproduces only when its model server answers the same (the answers are cached in the run's storage: `<root>/<run>/_cache/llm/`); the offline backends always do.\n\n")
	b.WriteString("## Upstream datasets\n\nThe run datasets the release was read from, each with the SHA-256 of its rows in key order written as one Parquet part (what a run with one shard stores, whatever the shard count that wrote it):\n\n| dataset | rows | SHA-256 |\n|---|--:|---|\n")
	for _, d := range m.Datasets {
		fmt.Fprintf(&b, "| %s | %d | `%s` |\n", d.Dataset, d.Rows, d.SHA256)
	}
	return b.Bytes()
}
