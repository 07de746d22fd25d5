package pipeline

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
)

// FormatDoc renders artifacts/layout/FORMAT.md: the run's layout, the
// manifests, and every dataset — its format version, writer and readers,
// key, whether it holds measurements, and its columns — from the dataset
// definitions and the steps' declarations, so the document cannot drift
// from the code (TestFormatDoc checks it).
func (g *Graph) FormatDoc() []byte {
	var b bytes.Buffer
	b.WriteString(formatHead)
	writers := map[string]string{}
	readers := map[string][]string{}
	for _, n := range g.nodes {
		for _, ds := range n.Step.Outputs {
			writers[ds] = n.String()
		}
		for _, ds := range n.Step.Inputs {
			readers[ds] = append(readers[ds], n.String())
		}
	}
	b.WriteString("| dataset | version | written by | read by | key | holds |\n|---|--:|---|---|---|---|\n")
	all := dataset.All()
	for _, in := range all {
		holds := "results"
		if in.Measurement {
			holds = "**measurements** (wall times: not reproduced by a rerun, not compared by verify)"
		}
		read := strings.Join(readers[in.Name], ", ")
		if read == "" {
			read = "—"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %d | %s | %s | %s | %s |\n", in.Name, in.Name, in.Version, writers[in.Name], read, in.Key, holds)
	}
	for _, in := range all {
		fmt.Fprintf(&b, "\n### %s\n\n%s. Format version %d; written by %s; key (%s).\n\n| column | Parquet type |\n|---|---|\n",
			in.Name, capital(in.Doc), in.Version, writers[in.Name], in.Key)
		for _, c := range in.Columns() {
			fmt.Fprintf(&b, "| `%s` | %s |\n", c.Name, c.Type)
		}
	}
	return b.Bytes()
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

const formatHead = `# The run layout and its datasets

<!-- Generated from artifacts/dataset and the stages' declarations by
     go test ./jobs/pipeline -run TestFormatDoc -update-format
     Do not edit by hand: the test fails when this file and the code differ. -->

This is the format of what saber writes under a run's root, for readers that are not saber
(DuckDB, pandas, Spark) and for reviewers. artifacts/layout owns every path; artifacts/dataset
defines every dataset, one Go struct each.

## Layout

    <root>/<run>/<dataset>/part-<i>-of-<n>.parquet      shard i of n of a dataset (zero-padded to 5 digits)
    <root>/<run>/<dataset>/_done/part-<i>-of-<n>.json   its completion manifest
    <root>/<run>/reports/<name>                         reports (Markdown, CSV, LaTeX, JSON, PNG, SVG)
    <root>/<run>/_cache/llm/<xx>/<sha256>               cached LLM answers, write-once, keyed by request
    <root>/<run>/_checkpoints/<stage>/part-<i>-of-<n>/  a running shard's checkpoints (judge's rounds)
    <root>/<run>/_jobs.json                             Slurm job ids of saber submit
    <root>/<run>/_lease.json                            the lease of the saber run working on the run
    <root>/<run>/_local.json                            the last saber run: how it ended, its failed shards
    <root>/<run>/<dataset>/part-<i>-of-<n>.<sha>.parquet  a measurement dataset's part, named by the
                                                        first 16 hex digits of its SHA-256

Parts are Parquet with zstd, rows sorted by the dataset's key, and the same rows always give the
same bytes. The parts of a dataset, in shard order, hold contiguous runs of its rows: reading
them in order reads the dataset in key order. Read a dataset's parts from its manifests (each
names its objects), not by listing: a measurement part (timings) is named by its bytes, so that
two processes finishing one shard store two objects and whichever manifest wins names bytes
that stay stored.

## Completion manifests

A shard of a step is done when every dataset the step writes has the shard's manifest. Each
manifest is a full copy of the step's record, written last and write-once (local: hard link;
S3: If-None-Match), so nothing half-written is ever visible as done. JSON fields:

| field | meaning |
|---|---|
| stage, step, run, shard, shards | which shard of which step |
| dataset, format | the dataset whose _done/ holds this copy, and its format version |
| rows | that dataset's rows in this shard |
| outputs | every object the shard wrote (all its datasets and reports): uri, key, sha256, size, rows, dataset |
| inputs | every object it read: parts of run datasets (sha256 of the bytes as read; unread: true for parts only counted) and files outside the run (raw sources, the ontology) |
| listings | each path outside the run that the shard expanded into files (an ingest source's glob, folder or file, as resolved), with the sorted URIs of the files it matched: listed again by every staleness check, so a file added under it or gone makes the shard stale; absent from manifests written before it was recorded (then not compared) |
| config | the configuration that determines the bytes, one dotted key per leaf ("dedup.threshold": "0.8"): the stage's own section and the shared keys it declares, without operational fields (shard counts, parallelism, timeouts, endpoints) |
| config_hash, inputs_hash, hash | SHA-256 of config, of the inputs' keys and hashes, and of both with code_version |
| code_version | the commit the binary was built from, with +dirty.<digest> for uncommitted changes |
| started, finished, host, slurm, stats | when, where, and what the shard counted |
| digest | SHA-256 of the manifest's own JSON encoding (Go's encoding/json of the decoded fields, compact) with digest "": every reader recomputes it, so a manifest edited after it was written (a rows count, a stat, an output's hash) is refused |

A manifest that is empty, cut short, not JSON, without a digest or whose digest does not match
is damaged: every reader refuses it with exit 2, naming it and the command that redoes its shard
(with --force).

A done shard is stale when its config, its inputs (their bytes, sizes, or the files its listed
paths match) or its shard count differ from what the current config and inputs give; saber never serves it as current (saber status shows it,
saber run refuses, --rerun-stale recomputes it and everything downstream).

## Datasets

`

// formatDocPath is where FormatDoc is kept, relative to this package.
const formatDocPath = "../../artifacts/layout/FORMAT.md"
