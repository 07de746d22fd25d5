package report

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
)

// planSummary is the page's plan against actuals: the forecast saved in
// report.plan, each step's counts beside what its manifests recorded.
type planSummary struct {
	File  string // report.plan; "" when none is set
	Steps []planStep
	// Later are the steps whose actuals this page does not show: report
	// reads none of their outputs, and they may run after it (`saber plan
	// --compare --forecast FILE` compares them).
	Later []string
	// Checked and Within count the metrics with an actual, and those
	// within their tolerance of the forecast (plan.Metric.Tolerance).
	Checked, Within int
}

type planStep struct {
	Name         string
	Shards, Done int
	Rows         []planRow
}

type planRow struct {
	Name, Basis      string
	Forecast         float64
	Actual, Ratio    float64
	HasActual, Close bool
	// Hours marks a GPU-hours row: shown to three digits, and close
	// within 25% rather than 10%.
	Hours bool
}

// plan reads report.plan and puts the actuals of the steps whose
// statistics report may read (the writers of its declared inputs) beside
// the forecast. The actuals are those of manifests of complete datasets
// upstream of report, so the page is the same bytes on every rerun.
func (s *site) plan(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	if cfg.Plan == "" {
		return nil
	}
	s.Plan.File = cfg.Plan
	uri := env.Config.Resolve(cfg.Plan)
	f, err := layout.OpenFile(ctx, uri, env.Config.Storage)
	if err != nil {
		return stage.BadInput(fmt.Errorf("report.plan: %w", err))
	}
	raw, err := store.ReadAll(ctx, f.Store, f.Key)
	if err != nil {
		return stage.BadInput(fmt.Errorf("report.plan: %w", err))
	}
	sum := sha256.Sum256(raw)
	env.AddFile(layout.Object{URI: uri, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(raw))})
	steps, err := plan.Parse(raw, cfg.Plan)
	if err != nil {
		return stage.BadInput(fmt.Errorf("report.plan: %w (write it with saber plan --json > FILE)", err))
	}
	// A step whose output report does not declare is not upstream of it.
	upstream := func(ds string) (bool, error) {
		_, err := env.Upstream(ctx, ds)
		var undeclared *stage.UndeclaredError
		if errors.As(err, &undeclared) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("report.plan: actuals of %s: %w", ds, err)
		}
		return true, nil
	}
	manifests := func(ds string, shards int) ([]*layout.Manifest, error) {
		if ok, err := upstream(ds); !ok {
			return nil, err
		}
		var out []*layout.Manifest
		for _, m := range env.Writers(ds) {
			if m.Shards == shards {
				out = append(out, m)
			}
		}
		return out, nil
	}
	for _, st := range steps {
		if ok, err := upstream(st.Output); err != nil {
			return err
		} else if !ok || st.Output == "" {
			s.Plan.Later = append(s.Plan.Later, st.Name)
			continue
		}
		done, err := manifests(st.Output, st.Shards)
		if err != nil {
			return err
		}
		if err := plan.Actuals(st, done, manifests); err != nil {
			return err
		}
		if len(st.Metrics) == 0 {
			continue // a step with no counts (calibrate, audit's reduce)
		}
		ps := planStep{Name: st.Name, Shards: st.Shards, Done: st.Done}
		for _, m := range st.Metrics {
			r := planRow{Name: m.Name, Basis: m.Basis, Forecast: m.Value, Hours: m.GPUs > 0}
			if m.Actual != nil {
				r.HasActual, r.Actual = true, *m.Actual
				if m.Ratio != nil {
					r.Ratio = *m.Ratio
				} else {
					r.Ratio = math.Inf(1)
				}
				if m.Held != nil {
					r.Basis += fmt.Sprintf("; the shards held their GPUs for %.3g GPU-hours (wall time × GPUs)", *m.Held)
				}
				r.Close = m.Within()
				s.Plan.Checked++
				if r.Close {
					s.Plan.Within++
				}
			}
			ps.Rows = append(ps.Rows, r)
		}
		s.Plan.Steps = append(s.Plan.Steps, ps)
	}
	return nil
}
