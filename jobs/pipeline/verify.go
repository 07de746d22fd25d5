package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// Check is one output object compared with its manifest.
type Check struct {
	Key string
	// Want is the manifest's SHA-256, Got the recomputed object's, Stored
	// the object's in the run's storage; empty when absent on that side.
	Want, Got, Stored string
	WantRows, Rows    int64
	// Volatile marks a measurement (timings) that no rerun reproduces: it
	// is reported, never counted as a mismatch.
	Volatile bool
}

// OK reports a match of all three.
func (c Check) OK() bool { return c.Want != "" && c.Want == c.Got && c.Want == c.Stored }

// Verify recomputes one shard of a step into scratch storage, reading the
// same inputs, and compares the SHA-256 of every output with the shard's
// manifest. This is what a reproducibility reviewer runs. It also says how
// the shard's config, inputs and code differ from the current ones (Why):
// with another config the recomputation may differ for that reason alone.
// Nothing is written under the run's root, the LLM cache included.
func Verify(ctx context.Context, cfg *config.Config, st stage.Stage, step stage.Step, spec shard.Spec, scratchDir string, log zerolog.Logger) ([]Check, stage.Why, error) {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, stage.Why{}, stage.BadInput(err)
	}
	doneKey := stage.DoneKeys(cfg.Run, step, spec)[0]
	m, err := layout.ReadDone(ctx, root, doneKey)
	if errors.Is(err, store.ErrNotExist) {
		return nil, stage.Why{}, stage.BadInput(fmt.Errorf("%s %s shard %s is not done (no %s): nothing to verify", st.Name, step.Name, spec, root.URI(doneKey)))
	}
	if err != nil {
		return nil, stage.Why{}, err
	}
	why, err := stage.Staleness(ctx, cfg, st, step, m, root)
	if err != nil {
		return nil, stage.Why{}, err
	}
	if why.Stale() {
		log.Warn().Str("differences", why.String()).Msg("the shard ran with another config or other inputs; the recomputation may differ for that reason")
	}
	scratch, err := store.Open(ctx, scratchDir, store.Options{})
	if err != nil {
		return nil, why, err
	}
	res, err := stage.RunShard(ctx, cfg, st, step, spec, root, log, stage.Options{Out: scratch, SkipDoneCheck: true})
	if err != nil {
		return nil, why, fmt.Errorf("recompute: %w", err)
	}
	got := map[string]layout.Object{}
	for _, o := range res.Outputs {
		got[o.Key] = o
	}
	var checks []Check
	for _, w := range m.Outputs {
		c := Check{Key: w.Key, Want: w.SHA256, WantRows: w.Rows, Volatile: dataset.Volatile(w.Key)}
		if c.Stored, err = hashObject(ctx, root, w.Key); err != nil && !errors.Is(err, store.ErrNotExist) {
			return nil, why, err
		}
		key := w.Key
		if c.Volatile {
			// A measurement part is named by its bytes, which the
			// recomputation does not reproduce: match it by dataset.
			key = sameDataset(got, layout.DatasetOf(cfg.Run, w.Key))
		}
		if g, ok := got[key]; ok {
			c.Got, c.Rows = g.SHA256, g.Rows
			delete(got, key)
		}
		checks = append(checks, c)
	}
	for _, g := range res.Outputs {
		if _, extra := got[g.Key]; extra {
			checks = append(checks, Check{Key: g.Key, Got: g.SHA256, Rows: g.Rows})
		}
	}
	return checks, why, nil
}

// sameDataset returns the key of an object in got of dataset ds, or "".
func sameDataset(got map[string]layout.Object, ds string) string {
	for k, o := range got {
		if o.Dataset == ds {
			return k
		}
	}
	return ""
}

// PrintChecks writes one line per object and returns whether all matched.
func PrintChecks(w io.Writer, checks []Check) bool {
	ok := true
	for _, c := range checks {
		switch {
		case c.OK():
			fmt.Fprintf(w, "match    %s  %s (%d rows)\n", c.Got, c.Key, c.Rows)
		case c.Volatile && c.Want != "" && c.Got != "" && c.Stored == c.Want:
			fmt.Fprintf(w, "timing   %s  %s: measurements, not compared with the recomputation (%d rows, recomputed %d)\n", c.Want, c.Key, c.WantRows, c.Rows)
		case c.Volatile && c.Want != "" && c.Got != "":
			ok = false
			fmt.Fprintf(w, "STORED   %s: measurements; the stored object hashes to %q, not the manifest's %s (changed or lost since)\n", c.Key, c.Stored, c.Want)
		case c.Want == "":
			ok = false
			fmt.Fprintf(w, "EXTRA    %s  %s: recomputed but not in the manifest\n", c.Got, c.Key)
		case c.Got == "":
			ok = false
			fmt.Fprintf(w, "MISSING  %s  %s: in the manifest but not recomputed\n", c.Want, c.Key)
		case c.Want == c.Got:
			ok = false
			fmt.Fprintf(w, "STORED   %s: recomputed matches the manifest, but the stored object hashes to %q (changed or lost since)\n", c.Key, c.Stored)
		default:
			ok = false
			fmt.Fprintf(w, "DIFFER   %s: manifest %s (%d rows), recomputed %s (%d rows)\n", c.Key, c.Want, c.WantRows, c.Got, c.Rows)
		}
	}
	return ok
}

func hashObject(ctx context.Context, st store.Store, key string) (string, error) {
	obj, err := st.Open(ctx, key)
	if err != nil {
		return "", err
	}
	defer obj.Close()
	h := sha256.New()
	if _, err := io.Copy(h, store.Reader(obj)); err != nil {
		return "", fmt.Errorf("read %s: %w", st.URI(key), err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// TempScratch makes a scratch directory for Verify.
func TempScratch() (string, func(), error) {
	dir, err := os.MkdirTemp("", "saber-verify-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
