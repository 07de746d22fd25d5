package stage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/shard"
)

// Why says how a done shard differs from what the current config, inputs
// and code would make. A shard is stale when its config or inputs
// changed; a code change alone is reported but keeps it current (a
// reviewer must see it; recomputing is asked for with --rerun-code).
type Why struct {
	// Config lists the keys whose values changed, old → new.
	Config []config.Change `json:"config,omitempty"`
	// Inputs says which inputs changed: a part of an input dataset
	// recomputed with other bytes, an input dataset now incomplete, a
	// file changed or gone, a listed path (a glob, a folder) that matches
	// other files now.
	Inputs []string `json:"inputs,omitempty"`
	// Pending are input datasets that are not complete now (their writer
	// is being recomputed): not stale yet — once they are complete again
	// they are compared like any other input.
	Pending []string `json:"pending,omitempty"`
	// Unrecorded: the manifest predates recorded configurations (an older
	// saber made it); its config cannot be compared.
	Unrecorded bool `json:"unrecorded,omitempty"`
	// Code is "old → new" when other code built the shard.
	Code string `json:"code,omitempty"`
}

// Stale reports whether the shard must not be served as current.
func (w Why) Stale() bool { return len(w.Config) > 0 || len(w.Inputs) > 0 || w.Unrecorded }

// String is one line: what changed.
func (w Why) String() string {
	var parts []string
	if w.Unrecorded {
		parts = append(parts, "made by an older saber that did not record its configuration")
	}
	for _, c := range w.Config {
		parts = append(parts, "config "+c.String())
	}
	parts = append(parts, w.Inputs...)
	for _, ds := range w.Pending {
		parts = append(parts, "input "+ds+" is not complete now")
	}
	if w.Code != "" {
		parts = append(parts, "code "+w.Code)
	}
	return strings.Join(parts, "; ")
}

// Current are the parts of the run's datasets as their manifests say now,
// by dataset; a dataset that is not complete maps to an error. It caches
// what it read, so that many shards' checks read each manifest once.
type Current struct {
	st    store.Store
	run   string
	ms    map[string][]*layout.Manifest
	err   map[string]error
	files map[string]string   // input file URI → what changed ("" when nothing)
	lists map[string][]string // listed path → the files it matches now
}

// NewCurrent reads manifests of the run in st as they are asked for.
func NewCurrent(st store.Store, run string) *Current {
	return &Current{st: st, run: run, ms: map[string][]*layout.Manifest{}, err: map[string]error{}, files: map[string]string{}, lists: map[string][]string{}}
}

// Manifests returns every manifest of a dataset, whatever their shard
// counts (nil when none).
func (c *Current) Manifests(ctx context.Context, dataset string) ([]*layout.Manifest, error) {
	if ms, ok := c.ms[dataset]; ok {
		return ms, c.err[dataset]
	}
	ms, err := layout.Manifests(ctx, c.st, c.run, dataset)
	c.ms[dataset], c.err[dataset] = ms, err
	return ms, err
}

// Forget drops what was read of a dataset (after invalidating it).
func (c *Current) Forget(dataset string) {
	delete(c.ms, dataset)
	delete(c.err, dataset)
}

// Parts returns the parts of a complete dataset, by key.
func (c *Current) Parts(ctx context.Context, dataset string) (map[string]layout.Object, error) {
	ms, err := c.Manifests(ctx, dataset)
	if err != nil {
		return nil, err
	}
	set, err := layout.CompleteSet(dataset, c.st.URI(layout.DonePrefix(c.run, dataset)), ms)
	if err != nil {
		return nil, err
	}
	out := map[string]layout.Object{}
	for _, m := range set {
		for _, o := range m.Objects(dataset) {
			out[o.Key] = o
		}
	}
	return out, nil
}

// Staleness compares a done shard's manifest m with what cfg, the run's
// current inputs (in in) and this code would make it. It reads only
// manifests, the sizes of input files outside the run, and the listings
// of the paths (globs, folders) the shard expanded into them.
func Staleness(ctx context.Context, cfg *config.Config, st Stage, step Step, m *layout.Manifest, in store.Store) (Why, error) {
	return StalenessIn(ctx, cfg, st, step, m, NewCurrent(in, cfg.Run))
}

// StalenessIn is Staleness against cached manifests.
func StalenessIn(ctx context.Context, cfg *config.Config, st Stage, step Step, m *layout.Manifest, cur *Current) (Why, error) {
	var w Why
	if m.Config == nil {
		w.Unrecorded = true
	} else {
		w.Config = config.Diff(m.Config, st.StepConfigValues(cfg, step))
	}
	if v := CodeVersion(); m.CodeVersion != v {
		w.Code = m.CodeVersion + " → " + v
	}
	recorded := map[string]map[string]layout.Object{}
	var files []layout.Object
	for _, o := range m.Inputs {
		if o.Dataset == "" {
			files = append(files, o)
			continue
		}
		if recorded[o.Dataset] == nil {
			recorded[o.Dataset] = map[string]layout.Object{}
		}
		recorded[o.Dataset][o.Key] = o
	}
	names := make([]string, 0, len(recorded))
	for ds := range recorded {
		names = append(names, ds)
	}
	sort.Strings(names)
	for _, ds := range names {
		now, err := cur.Parts(ctx, ds)
		var inc *layout.IncompleteError
		if errors.As(err, &inc) {
			w.Pending = append(w.Pending, ds)
			continue
		}
		if err != nil {
			return Why{}, err
		}
		w.Inputs = append(w.Inputs, compareParts(ds, recorded[ds], now)...)
	}
	// A path that matches other files now names the files added and gone;
	// a file gone from a listing is not looked up again below.
	gone := map[string]bool{}
	for _, l := range m.Listings {
		now, ok := cur.lists[l.Path]
		if !ok {
			var err error
			if now, err = listFiles(ctx, cfg, l.Path); err != nil {
				return Why{}, err
			}
			cur.lists[l.Path] = now // one listing per path however many shards expanded it
		}
		added, removed := setDiff(l.Files, now)
		for _, f := range removed {
			gone[f] = true
		}
		if msg := listingChanged(l.Path, added, removed); msg != "" {
			w.Inputs = append(w.Inputs, msg)
		}
	}
	for _, f := range files {
		if gone[f.URI] {
			continue
		}
		key := f.URI + "\x00" + fmt.Sprint(f.Size)
		msg, seen := cur.files[key]
		if !seen {
			var err error
			if msg, err = fileChanged(ctx, cfg, f); err != nil {
				return Why{}, err
			}
			cur.files[key] = msg // one Stat per file however many shards read it
		}
		if msg != "" {
			w.Inputs = append(w.Inputs, msg)
		}
	}
	return w, nil
}

// compareParts lists how an input dataset's parts differ from those a
// shard read: recomputed with other bytes, added or gone.
func compareParts(ds string, old, now map[string]layout.Object) []string {
	var changed, gone, added []string
	for k, o := range old {
		n, ok := now[k]
		switch {
		case !ok:
			gone = append(gone, base(k))
		case n.SHA256 != o.SHA256:
			changed = append(changed, base(k))
		}
	}
	for k := range now {
		if _, ok := old[k]; !ok {
			added = append(added, base(k))
		}
	}
	var out []string
	for _, l := range []struct {
		what  string
		parts []string
	}{{"changed", changed}, {"gone", gone}, {"new", added}} {
		if len(l.parts) > 0 {
			sort.Strings(l.parts)
			out = append(out, fmt.Sprintf("input %s %s: %s", ds, l.what, strings.Join(l.parts, ", ")))
		}
	}
	return out
}

func base(key string) string { return key[strings.LastIndex(key, "/")+1:] }

// fileChanged compares an input file outside the run with its record by
// size: rehashing raw corpora on every check would read them whole (a
// same-size edit is found by `saber verify`, which reads everything).
func fileChanged(ctx context.Context, cfg *config.Config, f layout.Object) (string, error) {
	file, err := layout.OpenFile(ctx, f.URI, cfg.Storage)
	if err != nil {
		return "input file " + f.URI + ": " + err.Error(), nil
	}
	info, err := file.Store.Stat(ctx, file.Key)
	if errors.Is(err, store.ErrNotExist) {
		return "input file " + f.URI + " is gone", nil
	}
	if err != nil {
		return "", fmt.Errorf("stat %s: %w", f.URI, err)
	}
	if info.Size != f.Size {
		return fmt.Sprintf("input file %s changed (%d bytes, was %d)", f.URI, info.Size, f.Size), nil
	}
	return "", nil
}

// listFiles is what path matches now, sorted (none: empty), as the
// shard's step listed it (layout.Files): a listing, no file is read.
func listFiles(ctx context.Context, cfg *config.Config, path string) ([]string, error) {
	fs, err := layout.Files(ctx, path, cfg.Storage, nil)
	if errors.Is(err, store.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list input path %s: %w", path, err)
	}
	uris := make([]string, len(fs))
	for i, f := range fs {
		uris[i] = f.URI
	}
	return sortedSet(uris), nil
}

// setDiff is what now has that old lacks, and what old has that now
// lacks; both sorted.
func setDiff(old, now []string) (added, removed []string) {
	in := func(s []string, x string) bool { _, ok := slices.BinarySearch(s, x); return ok }
	old = sortedSet(old)
	for _, f := range now {
		if !in(old, f) {
			added = append(added, f)
		}
	}
	for _, f := range old {
		if !in(now, f) {
			removed = append(removed, f)
		}
	}
	return added, removed
}

// listingChanged says how the files a path matches changed ("" when they
// did not), naming at most maxNamed files of each kind.
func listingChanged(path string, added, removed []string) string {
	if len(added) == 0 && len(removed) == 0 {
		return ""
	}
	const maxNamed = 10
	names := func(fs []string) string {
		if len(fs) <= maxNamed {
			return strings.Join(fs, ", ")
		}
		return fmt.Sprintf("%s and %d more", strings.Join(fs[:maxNamed], ", "), len(fs)-maxNamed)
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, fmt.Sprintf("%d new (%s)", len(added), names(added)))
	}
	if len(removed) > 0 {
		parts = append(parts, fmt.Sprintf("%d gone (%s)", len(removed), names(removed)))
	}
	return fmt.Sprintf("input path %s matches other files now: %s", path, strings.Join(parts, ", "))
}

// StaleError refuses to serve or build on stale shards: it names the
// stage, the shards, what changed, and what recomputes them.
type StaleError struct {
	Stage, Step string
	Shards      []shard.Spec
	Why         Why
	// Fix is the command (or flag) that recomputes them.
	Fix string
}

func (e *StaleError) Error() string {
	var specs []string
	for _, s := range e.Shards {
		specs = append(specs, s.String())
	}
	msg := fmt.Sprintf("%s %s: shard %s is stale: %s", e.Stage, e.Step, strings.Join(specs, ", "), e.Why)
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}
