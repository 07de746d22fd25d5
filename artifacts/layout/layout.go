// Package layout owns every path under a run's root, <root>/<run>/, and the
// completion manifests that say what is done there. Nothing else builds a
// key of a run: stages, the executor, Slurm submission, verify and the
// release all ask this package, so the layout is changed (and documented,
// in FORMAT.md beside this file) in one place.
//
//	<run>/<dataset>/part-<i>-of-<n>.parquet        shard i's rows of a dataset
//	<run>/<dataset>/_done/part-<i>-of-<n>.json     its completion manifest
//	<run>/reports/<name>                           human-readable reports
//	<run>/release/<version>/                       the release folder (data/, beir/, mteb/, trec/, card, …)
//	<run>/_cache/llm/<xx>/<sha256>                 cached LLM answers (write-once)
//	<run>/_checkpoints/<stage>/part-<i>-of-<n>/    a shard's checkpoints (judge rounds)
//	<run>/_jobs.json                               Slurm job ids of `saber submit`
//	<run>/_lease.json                              the lease of the `saber run` working on the run
//	<run>/_lease-heartbeat.<id>.json               its holder's heartbeat
//	<run>/_local.json                              what the last `saber run` did: how it ended, the shards that failed
//	<run>/<dataset>/part-<i>-of-<n>.<sha>.parquet  a measurement dataset's part (timings), named by its bytes
//
// A shard is done when the manifest of every dataset its step writes
// exists. Each is a full copy of the step's manifest (what was read, what
// was written, what determined the bytes), written last and write-once, so
// nothing half-written is ever visible as done, and any one of them tells
// a reviewer the whole story of the shard.
package layout

import (
	"fmt"
	"strings"

	"github.com/saber-math/saber/shard"
)

// PartName is the file name of shard i of n for a dataset: part-00002-of-00007.
func PartName(s shard.Spec, ext string) string {
	return fmt.Sprintf("part-%05d-of-%05d%s", s.Index, s.Count, ext)
}

// ParsePartName inverts PartName; ok is false for other names.
func ParsePartName(name, ext string) (s shard.Spec, ok bool) {
	var i, n int
	if !strings.HasSuffix(name, ext) {
		return shard.Spec{}, false
	}
	if _, err := fmt.Sscanf(strings.TrimSuffix(name, ext), "part-%05d-of-%05d", &i, &n); err != nil {
		return shard.Spec{}, false
	}
	s = shard.Spec{Index: i, Count: n}
	if PartName(s, ext) != name || s.Check() != nil {
		return shard.Spec{}, false
	}
	return s, true
}

// DatasetPrefix is <run>/<dataset>/, under which a dataset's parts live.
func DatasetPrefix(run, dataset string) string { return run + "/" + dataset + "/" }

// DataKey is <run>/<dataset>/part-<i>-of-<n>.parquet.
func DataKey(run, dataset string, s shard.Spec) string {
	return DatasetPrefix(run, dataset) + PartName(s, ".parquet")
}

// DonePrefix is <run>/<dataset>/_done/, under which a dataset's manifests live.
func DonePrefix(run, dataset string) string { return DatasetPrefix(run, dataset) + "_done/" }

// DoneKey is <run>/<dataset>/_done/part-<i>-of-<n>.json.
func DoneKey(run, dataset string, s shard.Spec) string {
	return DonePrefix(run, dataset) + PartName(s, ".json")
}

// ReportsPrefix is <run>/reports/.
func ReportsPrefix(run string) string { return run + "/reports/" }

// ReportKey is <run>/reports/<name>.
func ReportKey(run, name string) string { return ReportsPrefix(run) + name }

// ReleasePrefix is <run>/release/<version>/, the release folder.
func ReleasePrefix(run, version string) string { return run + "/release/" + version + "/" }

// ReleaseKey is <run>/release/<version>/<path>.
func ReleaseKey(run, version, path string) string { return ReleasePrefix(run, version) + path }

// LLMCachePrefix is where the LLM client caches answers, shared by every
// stage and shard of the run: <run>/_cache/llm.
func LLMCachePrefix(run string) string { return run + "/_cache/llm" }

// CheckpointPrefix is where one shard of a stage keeps its checkpoints:
// <run>/_checkpoints/<stage>/part-<i>-of-<n>.
func CheckpointPrefix(run, stage string, s shard.Spec) string {
	return run + "/_checkpoints/" + stage + "/" + PartName(s, "")
}

// LeaseKey is the run's lease: the one `saber run` allowed to work on the
// run at a time holds it (jobs/pipeline/lease.go). It is per run, not per
// root, so that runs sharing a root do not wait for each other.
func LeaseKey(run string) string { return run + "/_lease.json" }

// LeaseHeartbeatKey is where the lease holder whose lease id is id renews
// its heartbeat: an object of its own, so that a holder whose lease was
// broken and taken by another can never overwrite the new holder's.
func LeaseHeartbeatKey(run, id string) string { return run + "/_lease-heartbeat." + id + ".json" }

// LocalRunKey is the record of the local executor's last run on the run
// (jobs/pipeline/localrecord.go): when it ended, how, and each shard whose
// last attempt failed, with its exit code and log, so that `saber status`,
// another process, can show a local failure as it shows a Slurm one.
func LocalRunKey(run string) string { return run + "/_local.json" }

// MeasurementKey is the key of shard s's part of a measurement dataset
// (timings, whose bytes no rerun reproduces), named by the first 16 hex
// digits of its SHA-256: <run>/<dataset>/part-<i>-of-<n>.<sha16>.parquet.
// Two processes finishing the same shard write two objects instead of one
// replacing the other, so whichever manifest wins names bytes that are
// stored (a fixed name let the loser's bytes replace the winner's).
func MeasurementKey(run, dataset string, s shard.Spec, sha256hex string) string {
	return DatasetPrefix(run, dataset) + PartName(s, "."+sha256hex[:16]+".parquet")
}

// JobsKey is where `saber submit` records the run's Slurm job ids.
func JobsKey(run string) string { return run + "/_jobs.json" }

// DatasetOf returns the dataset a key of the run belongs to
// (<run>/<dataset>/part-…), or "" for reports, caches and other keys.
func DatasetOf(run, key string) string {
	rest, ok := strings.CutPrefix(key, run+"/")
	if !ok {
		return ""
	}
	ds, name, ok := strings.Cut(rest, "/")
	if !ok || strings.HasPrefix(ds, "_") || ds == "reports" || ds == "release" || strings.Contains(name, "/") {
		return ""
	}
	return ds
}
