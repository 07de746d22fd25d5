package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// StoredCheck is one object a manifest names, compared with the bytes
// stored under its key now.
type StoredCheck struct {
	// Manifest is the key of the manifest naming the object.
	Manifest string
	Key      string
	// Want is the manifest's SHA-256; Stored the stored object's, "" when
	// it is missing.
	Want, Stored string
	// Damaged, when set, says why the manifest itself cannot be trusted
	// (cut short, edited); Key is then empty.
	Damaged *layout.DamagedError
}

// OK reports whether the stored bytes are the ones the manifest names.
func (c StoredCheck) OK() bool { return c.Damaged == nil && c.Want == c.Stored }

// VerifyStored reads every completion manifest of the run, of every
// dataset the registry's steps write, and hashes every object each one
// names as stored now: measurement parts (timings) included, since a
// manifest must name the bytes stored even where no rerun reproduces them.
// Nothing is recomputed or written. An object several manifests name
// (each output dataset's manifest is a full copy) is hashed once.
func VerifyStored(ctx context.Context, cfg *config.Config) ([]StoredCheck, error) {
	return graph.VerifyStored(ctx, cfg)
}

// VerifyStored is the package-level VerifyStored over g's steps.
func (g *Graph) VerifyStored(ctx context.Context, cfg *config.Config) ([]StoredCheck, error) {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	hashes := map[string]string{}
	var checks []StoredCheck
	for _, n := range g.nodes {
		for _, ds := range n.Step.Outputs {
			keys, err := layout.ManifestKeys(ctx, root, cfg.Run, ds)
			if err != nil {
				return nil, err
			}
			for _, mkey := range keys {
				// A damaged manifest is a finding like a changed object:
				// reported with the others, not the end of the check.
				m, err := layout.ReadShardDone(ctx, root, mkey)
				var dm *layout.DamagedError
				if errors.As(err, &dm) {
					checks = append(checks, StoredCheck{Manifest: mkey, Damaged: dm})
					continue
				}
				if err != nil {
					return nil, err
				}
				for _, o := range m.Outputs {
					sum, seen := hashes[o.Key]
					if !seen {
						sum, err = hashObject(ctx, root, o.Key)
						if err != nil && !errors.Is(err, store.ErrNotExist) {
							return nil, err
						}
						hashes[o.Key] = sum
					}
					checks = append(checks, StoredCheck{Manifest: mkey, Key: o.Key, Want: o.SHA256, Stored: sum})
				}
			}
		}
	}
	return checks, nil
}

// PrintStored writes one line per object whose stored bytes differ from
// its manifest and a summary line, and returns whether all matched.
func PrintStored(w io.Writer, checks []StoredCheck) bool {
	bad, manifests := 0, map[string]bool{}
	for _, c := range checks {
		manifests[c.Manifest] = true
		if c.OK() {
			continue
		}
		bad++
		if c.Damaged != nil {
			fmt.Fprintf(w, "DAMAGED  %v\n", c.Damaged)
		} else if c.Stored == "" {
			fmt.Fprintf(w, "MISSING  %s: named by %s (sha256 %s) but not stored\n", c.Key, c.Manifest, c.Want)
		} else {
			fmt.Fprintf(w, "STORED   %s: %s says sha256 %s, the stored object hashes to %s\n", c.Key, c.Manifest, c.Want, c.Stored)
		}
	}
	fmt.Fprintf(w, "%d manifests, %d objects named: %d match their stored bytes, %d do not\n", len(manifests), len(checks), len(checks)-bad, bad)
	return bad == 0
}
