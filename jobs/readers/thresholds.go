package readers

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Thresholds returns the final thresholds calibrate chose (the row of scope
// "final" of `thresholds`), checked against the current floors.
func Thresholds(ctx context.Context, env *stage.Env) (dataset.Threshold, error) {
	topicFloor, summFloor := config.BenchmarkTopicFloor.Get(env.Config), config.BenchmarkSummFloor.Get(env.Config)
	parts, err := env.Upstream(ctx, dataset.Thresholds.Name)
	if err != nil {
		return dataset.Threshold{}, err
	}
	for _, p := range parts {
		rows, err := stage.ReadPart[dataset.Threshold](ctx, env, p)
		if err != nil {
			return dataset.Threshold{}, err
		}
		for _, r := range rows {
			if r.Scope == dataset.ScopeFinal {
				if r.TauTopic < topicFloor || r.TauSumm < summFloor {
					return dataset.Threshold{}, stage.BadInput(fmt.Errorf("thresholds (%v, %v) in %s are below the floors benchmark.topic_floor, benchmark.summ_floor (%v, %v): rerun calibrate",
						r.TauTopic, r.TauSumm, p.URI, topicFloor, summFloor))
				}
				return r, nil
			}
		}
	}
	return dataset.Threshold{}, stage.BadInput(fmt.Errorf("thresholds: no %q row", dataset.ScopeFinal))
}
