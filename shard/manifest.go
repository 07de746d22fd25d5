package shard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"time"

	"github.com/saber-math/saber/artifacts/store"
)

// Object is one input or output object with its content hash.
type Object struct {
	URI    string `json:"uri"`
	Key    string `json:"key,omitempty"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Rows   int64  `json:"rows,omitempty"`
}

// Manifest marks a shard done and says what it read and wrote. Outputs'
// hashes are what `saber verify` recomputes; inputs' hashes tie the shard to
// exactly the data it saw.
type Manifest struct {
	Stage       string            `json:"stage"`
	Step        string            `json:"step"`
	Run         string            `json:"run"`
	Shard       int               `json:"shard"`
	Shards      int               `json:"shards"`
	Rows        int64             `json:"rows"`
	Outputs     []Object          `json:"outputs"`
	Inputs      []Object          `json:"inputs"`
	ConfigHash  string            `json:"config_hash"`
	CodeVersion string            `json:"code_version"`
	Started     time.Time         `json:"started"`
	Finished    time.Time         `json:"finished"`
	Host        string            `json:"host,omitempty"`
	Slurm       map[string]string `json:"slurm,omitempty"`
	Stats       map[string]int64  `json:"stats,omitempty"`
}

// Spec returns the manifest's shard.
func (m *Manifest) Spec() Spec { return Spec{Index: m.Shard, Count: m.Shards} }

// WriteDone writes the manifest write-once. If another run of the same shard
// won the race, its manifest is accepted when its outputs hash the same.
func WriteDone(ctx context.Context, st store.Store, key string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest %s: %w", st.URI(key), err)
	}
	_, err = store.Put(ctx, st, key, append(data, '\n'), store.Once)
	if errors.Is(err, store.ErrExist) {
		old, rerr := ReadDone(ctx, st, key)
		if rerr != nil {
			return fmt.Errorf("write %s: exists and unreadable: %w", st.URI(key), rerr)
		}
		if !sameOutputs(old.Outputs, m.Outputs) {
			return fmt.Errorf("write %s: another run finished this shard with different outputs", st.URI(key))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
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

// ReadDone reads a manifest; a missing one wraps store.ErrNotExist.
func ReadDone(ctx context.Context, st store.Store, key string) (*Manifest, error) {
	data, err := store.ReadAll(ctx, st, key)
	if err != nil {
		return nil, err
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode manifest %s: %w", st.URI(key), err)
	}
	return &m, nil
}

// Done reports whether the shard's manifest exists.
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

// Complete reads every manifest of a dataset and checks they form one full
// set of shards 0..n-1 of the same n. It returns them in shard order.
func Complete(ctx context.Context, st store.Store, run, dataset string) ([]*Manifest, error) {
	prefix := run + "/" + dataset + "/_done/"
	infos, err := st.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", st.URI(prefix), err)
	}
	byCount := map[int][]*Manifest{}
	for _, in := range infos {
		s, ok := ParsePartName(path.Base(in.Key), ".json")
		if !ok {
			continue
		}
		m, err := ReadDone(ctx, st, in.Key)
		if err != nil {
			return nil, err
		}
		if m.Spec() != s {
			return nil, fmt.Errorf("manifest %s says shard %s", st.URI(in.Key), m.Spec())
		}
		byCount[s.Count] = append(byCount[s.Count], m)
	}
	if len(byCount) == 0 {
		return nil, &IncompleteError{Dataset: dataset, Msg: fmt.Sprintf("no completed shards under %s (run its stage first)", st.URI(prefix))}
	}
	if len(byCount) > 1 {
		counts := make([]int, 0, len(byCount))
		for n := range byCount {
			counts = append(counts, n)
		}
		sort.Ints(counts)
		return nil, &IncompleteError{Dataset: dataset, Msg: fmt.Sprintf("manifests for several shard counts %v under %s; remove the stale ones", counts, st.URI(prefix))}
	}
	for n, ms := range byCount {
		sort.Slice(ms, func(i, j int) bool { return ms[i].Shard < ms[j].Shard })
		if len(ms) != n {
			var missing []int
			have := map[int]bool{}
			for _, m := range ms {
				have[m.Shard] = true
			}
			for i := 0; i < n; i++ {
				if !have[i] {
					missing = append(missing, i)
				}
			}
			return nil, &IncompleteError{Dataset: dataset, Msg: fmt.Sprintf("%d of %d shards done; missing %v", len(ms), n, missing)}
		}
		return ms, nil
	}
	panic("unreachable")
}
