package release

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
	pkg "github.com/saber-math/saber/artifacts/release"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
)

// lineage walks the manifests from the release's inputs back to ingest:
// every step that wrote a dataset the release was built from, directly or
// not, with its config values (which do not depend on shard counts), and
// the raw files those steps read (a source, an ontology), whole.
func lineage(ctx context.Context, env *stage.Env) ([]pkg.Provenance, []pkg.SourceFile, error) {
	type key struct{ stage, step, hash, code string }
	steps := map[key]*pkg.Provenance{}
	raw := map[string]layout.Object{} // by URI; whole-file reads first
	readBy := map[string][]string{}   // by URI, the stages that read it
	queue := slices.Clone(inputs)
	seen := map[string]bool{}
	for len(queue) > 0 {
		ds := queue[0]
		queue = queue[1:]
		if seen[ds] {
			continue
		}
		seen[ds] = true
		ms := env.Writers(ds)
		if len(ms) == 0 && slices.Contains(inputs, ds) {
			continue // an optional input the release did not read (judge_audit)
		}
		if len(ms) == 0 {
			var err error
			if ms, err = layout.Complete(ctx, env.In, env.Config.Run, ds); err != nil {
				return nil, nil, fmt.Errorf("trace %s back to the raw sources: %w", ds, err)
			}
		}
		for _, m := range ms {
			k := key{m.Stage, m.Step, m.ConfigHash, m.CodeVersion}
			p := steps[k]
			if p == nil {
				p = &pkg.Provenance{Stage: m.Stage, Step: m.Step, ConfigHash: m.ConfigHash, CodeVersion: m.CodeVersion, Config: m.Config}
				steps[k] = p
			}
			if !slices.Contains(p.Datasets, ds) {
				p.Datasets = append(p.Datasets, ds)
			}
			for _, in := range m.Inputs {
				switch {
				case in.Dataset != "":
					queue = append(queue, in.Dataset)
				case in.URI != "" && !in.Unread:
					if old, ok := raw[in.URI]; !ok || (old.Length > 0 && in.Length == 0) {
						raw[in.URI] = in
					}
					if !slices.Contains(readBy[in.URI], m.Stage) {
						readBy[in.URI] = append(readBy[in.URI], m.Stage)
					}
				}
			}
		}
	}
	var out []pkg.Provenance
	for _, p := range steps {
		slices.Sort(p.Datasets)
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b pkg.Provenance) int {
		return cmp.Or(strings.Compare(a.Stage, b.Stage), strings.Compare(a.Step, b.Step), strings.Compare(a.ConfigHash, b.ConfigHash), strings.Compare(a.CodeVersion, b.CodeVersion))
	})
	sources, err := sourceFiles(ctx, env, raw, readBy)
	return out, sources, err
}

// sourceFiles are the raw files with their whole-file SHA-256: the one the
// manifest recorded when a shard read the file whole, else the file hashed
// now (an ingest shard of a large file records only its byte range). A
// file is named by its path relative to the config's folder, so that the
// release does not depend on where the run was made.
func sourceFiles(ctx context.Context, env *stage.Env, raw map[string]layout.Object, readBy map[string][]string) ([]pkg.SourceFile, error) {
	var out []pkg.SourceFile
	for uri, o := range raw {
		by := slices.Clone(readBy[uri])
		slices.Sort(by)
		f := pkg.SourceFile{Name: sourceName(env, uri), Size: o.Size, SHA256: o.SHA256, ReadBy: by}
		if o.Length > 0 {
			sum, size, err := hashFile(ctx, env, uri)
			if err != nil {
				return nil, stage.BadInput(fmt.Errorf("hash the raw source %s for MANIFEST.json: %w (the release lists every raw source whole; restore the file or rerun ingest on it)", uri, err))
			}
			f.SHA256, f.Size = sum, size
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b pkg.SourceFile) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.SHA256, b.SHA256))
	})
	// Two URIs may name one file (file:///x and /x): one row, read by both's stages.
	merged := out[:0]
	for _, f := range out {
		if k := len(merged) - 1; k >= 0 && merged[k].Name == f.Name && merged[k].SHA256 == f.SHA256 && merged[k].Size == f.Size {
			merged[k].ReadBy = slices.Compact(slices.Sorted(slices.Values(append(merged[k].ReadBy, f.ReadBy...))))
			continue
		}
		merged = append(merged, f)
	}
	return merged, nil
}

func sourceName(env *stage.Env, uri string) string {
	p := strings.TrimPrefix(uri, "file://")
	if strings.Contains(p, "://") || !filepath.IsAbs(p) {
		return uri
	}
	if rel, err := filepath.Rel(env.Config.Dir(), p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return uri
}

func hashFile(ctx context.Context, env *stage.Env, uri string) (string, int64, error) {
	f, err := layout.OpenFile(ctx, uri, env.Config.Storage)
	if err != nil {
		return "", 0, err
	}
	obj, err := f.Store.Open(ctx, f.Key)
	if err != nil {
		return "", 0, err
	}
	defer obj.Close()
	h := sha256.New()
	n, err := io.Copy(h, store.Reader(obj))
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
