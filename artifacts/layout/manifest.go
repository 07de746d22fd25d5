package layout

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

// Object is one input or output object with its content hash.
type Object struct {
	URI    string `json:"uri"`
	Key    string `json:"key,omitempty"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Rows   int64  `json:"rows,omitempty"`
	// Dataset is the run dataset the object is a part of; empty for a
	// report or a file outside the run (a raw source, an ontology).
	Dataset string `json:"dataset,omitempty"`
	// Unread marks an input part the shard did not open: only its row
	// count (from its manifest) placed the shard's range. Its SHA-256 is
	// then the writer's; every other input's was taken from the bytes as
	// they were read.
	Unread bool `json:"unread,omitempty"`
	// Offset and Length, when Length > 0, say the shard read only bytes
	// [Offset, Offset+Length) of a file outside the run (an ingest shard's
	// byte range of a large JSONL file): SHA256 is of those bytes, Size is
	// still the whole file's, which is what staleness compares.
	Offset int64 `json:"offset,omitempty"`
	Length int64 `json:"length,omitempty"`
}

// Listing is one path a shard expanded (layout.Files: a glob, a folder or
// a file, as resolved, e.g. /data/in/*.jsonl or s3://b/corpus/) and the
// URIs of the files it matched, sorted, as layout.Files names them.
type Listing struct {
	Path  string   `json:"path"`
	Files []string `json:"files"`
}

// Manifest marks a shard of a step done and says what it read, what it
// wrote and what determined the bytes. Outputs' hashes are what `saber
// verify` recomputes; inputs' hashes tie the shard to exactly the data it
// saw; Config, InputsHash and CodeVersion are what staleness compares.
type Manifest struct {
	Stage string `json:"stage"`
	Step  string `json:"step"`
	Run   string `json:"run"`
	// Dataset is the dataset under whose _done/ this copy lives, and
	// Format that dataset's format version (FORMAT.md).
	Dataset string `json:"dataset,omitempty"`
	Format  int    `json:"format,omitempty"`
	Shard   int    `json:"shard"`
	Shards  int    `json:"shards"`
	// Rows are Dataset's rows in this shard.
	Rows int64 `json:"rows"`
	// Outputs are every object the shard wrote, of every dataset and
	// report of its step.
	Outputs []Object `json:"outputs"`
	Inputs  []Object `json:"inputs"`
	// Listings are the paths outside the run (globs, folders, files) that
	// the shard expanded into the files it read, each with the files it
	// matched then: staleness lists each path again and compares, so that
	// a file added under a glob or folder (or gone from it) makes the
	// shard stale. Inputs alone name only the files that were there.
	// Absent from a manifest an older saber wrote: its matches are
	// unknown and not compared.
	Listings []Listing `json:"listings,omitempty"`
	// Config holds the configuration that determines the shard's bytes,
	// one dotted key per leaf ("dedup.threshold": "0.8"), and ConfigHash
	// its SHA-256; InputsHash covers the inputs' keys and hashes; Hash
	// covers all three and CodeVersion.
	Config      map[string]string `json:"config,omitempty"`
	ConfigHash  string            `json:"config_hash"`
	InputsHash  string            `json:"inputs_hash,omitempty"`
	Hash        string            `json:"hash,omitempty"`
	CodeVersion string            `json:"code_version"`
	Started     time.Time         `json:"started"`
	Finished    time.Time         `json:"finished"`
	Host        string            `json:"host,omitempty"`
	Slurm       map[string]string `json:"slurm,omitempty"`
	Stats       map[string]int64  `json:"stats,omitempty"`
	// LLM describes each model server the shard sent requests to, as the
	// server itself answered: a single-model server (llama-server, TEI)
	// serves whatever model name it is asked for, so the configured name
	// does not say which model answered. Provenance only: in no hash.
	LLM []LLMServer `json:"llm,omitempty"`
	// Digest is the SHA-256 of the manifest's own JSON with Digest empty
	// (Digest): every field, outputs, rows and stats included. Hash covers
	// only what determined the bytes, so without it a hand-edited `rows`
	// or output hash would be served; every reader (ReadDone) recomputes
	// it and refuses a manifest whose content no longer matches.
	Digest string `json:"digest,omitempty"`
}

// Digest is the SHA-256, in hex, of the JSON encoding of m with its Digest
// field empty. encoding/json writes struct fields in declaration order and
// map keys sorted, and a decoded manifest encodes to the same bytes, so a
// reader recomputes the writer's digest from the decoded fields.
func Digest(m *Manifest) (string, error) {
	c := *m
	c.Digest = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// DamagedError says a completion manifest cannot be trusted: it does not
// decode (cut short, empty, not JSON), it has no digest, or its digest does
// not match its content (edited after it was written). That is bad input,
// not a bug and not worth a retry (exit 2): the cure is to redo the shard
// that wrote it with --force, which removes the manifest first.
type DamagedError struct {
	URI     string
	Dataset string
	Spec    shard.Spec // from the manifest's name
	Reason  string
	Err     error // the decoding error, if any
	// Redo is the command that redoes the shard. The layout does not know
	// which stage writes Dataset; the pipeline, which does, fills it in
	// (a message without it still says what to run).
	Redo string
}

func (e *DamagedError) Error() string {
	redo := e.Redo
	if redo == "" {
		redo = fmt.Sprintf("run the stage that writes %s on shard %s with --force", e.Dataset, e.Spec)
	}
	msg := fmt.Sprintf("manifest %s is damaged: %s", e.URI, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + "; its shard must be redone: " + redo
}

func (e *DamagedError) Unwrap() error { return e.Err }

// ExitCode makes DamagedError a jobs/stage ExitCoder: bad input (2),
// whatever the stage wraps around it.
func (e *DamagedError) ExitCode() int { return 2 }

// LLMServer is one model server of a shard: where its settings are in the
// config ("llm", "retrievers.e5"), the configured base URL and model, the
// server's model list (GET /models: ids and size metadata) and the
// system_fingerprint values of its chat answers.
type LLMServer struct {
	Settings     string           `json:"settings"`
	BaseURL      string           `json:"base_url,omitempty"`
	Model        string           `json:"model"`
	Models       []LLMServerModel `json:"models,omitempty"`
	ModelsError  string           `json:"models_error,omitempty"`
	Fingerprints []string         `json:"system_fingerprints,omitempty"`
}

// LLMServerModel is one entry of a server's model list with its numeric
// metadata (n_params, size, n_embd, max_model_len, ...).
type LLMServerModel struct {
	ID   string             `json:"id"`
	Meta map[string]float64 `json:"meta,omitempty"`
}

// Spec returns the manifest's shard.
func (m *Manifest) Spec() shard.Spec { return shard.Spec{Index: m.Shard, Count: m.Shards} }

// Objects returns the outputs of the manifest that are parts of dataset.
func (m *Manifest) Objects(dataset string) []Object {
	prefix := DatasetPrefix(m.Run, dataset)
	var out []Object
	for _, o := range m.Outputs {
		if strings.HasPrefix(o.Key, prefix) && !strings.Contains(o.Key[len(prefix):], "/") {
			out = append(out, o)
		}
	}
	return out
}

// WriteDone writes the manifest write-once. If another run of the same
// shard won the race, its manifest is accepted when its outputs hash the
// same (WriteShardDone, comparing every output).
func WriteDone(ctx context.Context, st store.Store, key string, m *Manifest) error {
	_, err := WriteShardDone(ctx, st, key, m, nil)
	return err
}

// WriteShardDone writes the manifest write-once and returns the manifest
// stored under key. If another run of the same shard won the race, its manifest
// is accepted (and returned) when its outputs are the same objects with the
// same hashes, leaving out the parts of measurement datasets (timings, for
// which measurement reports true; nil means none), whose bytes no two runs
// share: each run's measurement part has its own name
// (MeasurementKey), so the winner's stays stored as its manifest says, and
// the loser's is left unnamed for the caller to remove.
func WriteShardDone(ctx context.Context, st store.Store, key string, m *Manifest, measurement func(key string) bool) (*Manifest, error) {
	digest, err := Digest(m)
	if err != nil {
		return nil, fmt.Errorf("encode manifest %s: %w", st.URI(key), err)
	}
	m.Digest = digest
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode manifest %s: %w", st.URI(key), err)
	}
	_, err = store.Put(ctx, st, key, append(data, '\n'), store.Once)
	if errors.Is(err, store.ErrExist) {
		old, rerr := ReadDone(ctx, st, key)
		if rerr != nil {
			return nil, fmt.Errorf("write %s: exists and unreadable: %w", st.URI(key), rerr)
		}
		if !sameOutputs(results(old.Outputs, measurement), results(m.Outputs, measurement)) {
			return nil, fmt.Errorf("write %s: another run finished this shard with different outputs", st.URI(key))
		}
		return old, nil
	}
	if err != nil {
		return nil, fmt.Errorf("write manifest %s: %w", st.URI(key), err)
	}
	return m, nil
}

// results drops the objects measurement reports as measurements.
func results(objs []Object, measurement func(key string) bool) []Object {
	if measurement == nil {
		return objs
	}
	out := make([]Object, 0, len(objs))
	for _, o := range objs {
		if !measurement(o.Key) {
			out = append(out, o)
		}
	}
	return out
}

func sameOutputs(a, b []Object) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].SHA256 != b[i].SHA256 {
			return false
		}
	}
	return true
}

// ReadDone reads a manifest; a missing one wraps store.ErrNotExist. One
// that is empty, cut short, not a manifest, without a digest or whose
// digest does not match its content is a *DamagedError (exit 2).
func ReadDone(ctx context.Context, st store.Store, key string) (*Manifest, error) {
	data, err := store.ReadAll(ctx, st, key)
	if err != nil {
		return nil, err
	}
	damaged := func(reason string, err error) error {
		e := &DamagedError{URI: st.URI(key), Reason: reason, Err: err}
		e.Dataset, e.Spec = doneKeyParts(key)
		return e
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, damaged("it is empty", nil)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, damaged("it does not decode", err)
	}
	if dec.More() {
		return nil, damaged("it holds more than one JSON value", nil)
	}
	// Refused, not read as before: a manifest without a digest may have
	// been edited, and nothing could tell.
	if m.Digest == "" {
		return nil, damaged("it has no digest of its content (written by an older saber, or edited)", nil)
	}
	want, err := Digest(&m)
	if err != nil {
		return nil, damaged("its content does not encode", err)
	}
	if want != m.Digest {
		return nil, damaged("its content does not match its digest (edited after it was written)", nil)
	}
	return &m, nil
}

// doneKeyParts reads the dataset and the shard from a manifest key,
// <run>/<dataset>/_done/part-<i>-of-<n>.json.
func doneKeyParts(key string) (dataset string, s shard.Spec) {
	s, _ = ParsePartName(path.Base(key), ".json")
	return path.Base(path.Dir(path.Dir(key))), s
}

// Done reports whether a manifest exists.
func Done(ctx context.Context, st store.Store, key string) (bool, error) {
	_, err := st.Stat(ctx, key)
	if errors.Is(err, store.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// IncompleteError says a dataset is not (yet) fully written.
type IncompleteError struct {
	Dataset string
	Msg     string
}

func (e *IncompleteError) Error() string { return "dataset " + e.Dataset + ": " + e.Msg }

// Manifests reads every manifest of a dataset, in key order, whatever their
// shard counts; a name that is not a part name is skipped.
func Manifests(ctx context.Context, st store.Store, run, dataset string) ([]*Manifest, error) {
	keys, err := ManifestKeys(ctx, st, run, dataset)
	if err != nil {
		return nil, err
	}
	var out []*Manifest
	for _, k := range keys {
		m, err := ReadShardDone(ctx, st, k)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ManifestKeys lists the keys of a dataset's manifests, in key order; a
// name that is not a part name is skipped.
func ManifestKeys(ctx context.Context, st store.Store, run, dataset string) ([]string, error) {
	prefix := DonePrefix(run, dataset)
	infos, err := st.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", st.URI(prefix), err)
	}
	var keys []string
	for _, in := range infos {
		if _, ok := ParsePartName(path.Base(in.Key), ".json"); ok && path.Dir(in.Key)+"/" == prefix {
			keys = append(keys, in.Key)
		}
	}
	return keys, nil
}

// ReadShardDone is ReadDone that also checks the manifest is of the shard
// its name says.
func ReadShardDone(ctx context.Context, st store.Store, key string) (*Manifest, error) {
	m, err := ReadDone(ctx, st, key)
	if err != nil {
		return nil, err
	}
	if _, s := doneKeyParts(key); m.Spec() != s {
		return nil, &DamagedError{URI: st.URI(key), Dataset: m.Dataset, Spec: s, Reason: fmt.Sprintf("it says shard %s", m.Spec())}
	}
	return m, nil
}

// Complete reads every manifest of a dataset and checks they form one full
// set of shards 0..n-1 of the same n. It returns them in shard order.
func Complete(ctx context.Context, st store.Store, run, dataset string) ([]*Manifest, error) {
	ms, err := Manifests(ctx, st, run, dataset)
	if err != nil {
		return nil, err
	}
	return CompleteSet(dataset, st.URI(DonePrefix(run, dataset)), ms)
}

// CompleteSet checks that ms (one dataset's manifests) form one full set
// of shards 0..n-1 of the same n, and returns them in shard order; where
// names the manifests' folder in messages.
func CompleteSet(dataset, where string, ms []*Manifest) ([]*Manifest, error) {
	byCount := map[int][]*Manifest{}
	for _, m := range ms {
		byCount[m.Shards] = append(byCount[m.Shards], m)
	}
	if len(byCount) == 0 {
		return nil, &IncompleteError{Dataset: dataset, Msg: fmt.Sprintf("no completed shards under %s (run its stage first)", where)}
	}
	if len(byCount) > 1 {
		counts := make([]int, 0, len(byCount))
		for n := range byCount {
			counts = append(counts, n)
		}
		sort.Ints(counts)
		return nil, &IncompleteError{Dataset: dataset, Msg: fmt.Sprintf("manifests for several shard counts %v under %s; the stale ones go with `saber run --rerun-stale`", counts, where)}
	}
	for n, set := range byCount {
		sort.Slice(set, func(i, j int) bool { return set[i].Shard < set[j].Shard })
		if len(set) != n {
			var missing []int
			have := map[int]bool{}
			for _, m := range set {
				have[m.Shard] = true
			}
			for i := 0; i < n; i++ {
				if !have[i] {
					missing = append(missing, i)
				}
			}
			return nil, &IncompleteError{Dataset: dataset, Msg: fmt.Sprintf("%d of %d shards done; missing %v", len(set), n, missing)}
		}
		return set, nil
	}
	panic("unreachable")
}

// SumStats adds up the statistics every shard of a dataset recorded in its
// manifest: the one source of a stage's counts for the run summary, `saber
// stats` and the demo, so that two of them cannot disagree. A dataset that
// is not complete (its stage not run, or not finished) gives an
// *IncompleteError.
func SumStats(ctx context.Context, st store.Store, run, dataset string) (map[string]int64, error) {
	ms, err := Complete(ctx, st, run, dataset)
	if err != nil {
		return nil, err
	}
	total := map[string]int64{}
	for _, m := range ms {
		for k, v := range m.Stats {
			total[k] += v
		}
	}
	return total, nil
}
