// Command saber is the suite's front door: it runs the pipeline locally,
// verifies a shard, generates the synthetic corpus and runs the demo. Each
// stage also has its own binary (ingest, dedup, ...) for Slurm arrays.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
)

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = []command{
	{"run", "run stages locally as shard processes of the stage binaries", cmdRun},
	{"plan", "forecast shards, array jobs, LLM calls, tokens, GPU-hours and bytes per stage; --compare with the manifests' actuals", cmdPlan},
	{"submit", "submit the missing shards of each stage to Slurm as job arrays chained with afterok", cmdSubmit},
	{"status", "shards done per stage, and Slurm states, failures and logs of the run's jobs", cmdStatus},
	{"stats", "what each stage did: the statistics in its shard manifests, summed", cmdStats},
	{"cancel", "cancel the run's queued and running Slurm jobs", cmdCancel},
	{"lease", "show or break the run's lease, held by the saber run working on it (lease show|break)", cmdLease},
	{"verify", "recompute one shard into scratch storage and compare SHA-256s with its manifest", cmdVerify},
	{"demo", "generate a synthetic corpus and run every stage on it, on local disk", cmdDemo},
	{"synth", "write the procedural corpus (problems with worked solutions) as JSONL", cmdSynth},
	{"bench", "measure stage throughput and peak memory; prints a table", cmdBench},
	{"ontology", "inspect a topic ontology: DAG and tree statistics (ontology stats FILE)", cmdOntology},
	{"study", "judging studies: Swiss rounds vs exhaustive (study rounds), human agreement (study agreement)", cmdStudy},
	{"eval-run", "score an external TREC run against the benchmark's ratings (nDCG@10, as the report)", cmdEvalRun},
	{"export", "write a run's ratings and rankings as TREC qrels and run files (export trec)", cmdExport},
	{"release", "check a release folder, local or published (release verify DIR|s3://…)", cmdRelease},
	{"publish", "upload a run's release version write-once (local folder or s3://)", cmdPublish},
	{"mteb", "correlate MTEB scores with the report's overall nDCG (Pearson, Spearman; since a date; less rank gaps)", cmdMTEB},
	{"version", "print the code version", cmdVersion},
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `saber — build the SABER-Math benchmark and evaluate retrievers on it

Usage:
  saber <command> [flags]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, `
Run "saber <command> --help" for a command's flags. Start with:
  saber demo --out /tmp/saber-demo
`)
}

func main() {
	ctx, stop := stage.SignalContext(context.Background())
	defer stop()
	os.Exit(dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return stage.ExitBadInput
		}
		return stage.ExitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "saber: unknown command %q\n\n", args[0])
	usage(stderr)
	return stage.ExitBadInput
}

func cmdVersion(_ context.Context, _ []string, stdout, _ io.Writer) int {
	fmt.Fprintln(stdout, stage.CodeVersion())
	return stage.ExitOK
}

// fail prints err and returns its exit code.
func fail(stderr io.Writer, cmd string, err error) int {
	pipeline.ExplainDamaged(err, configPath)
	fmt.Fprintf(stderr, "saber %s: %v\n", cmd, err)
	return stage.ExitCode(err)
}
