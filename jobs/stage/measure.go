package stage

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
)

// dropMeasurements removes the measurement parts among objs that kept (the
// shard's manifest as stored) does not name: this run's own parts when
// another run of the shard finished first and its manifest won, or the
// parts of the manifest a redo replaced. Each measurement part has a name
// of its own (layout.MeasurementKey), so these are garbage no manifest
// serves; a failed delete only leaves one behind, and is logged.
func dropMeasurements(ctx context.Context, st store.Store, kept *layout.Manifest, log zerolog.Logger, objs []layout.Object) {
	named := map[string]bool{}
	for _, o := range kept.Outputs {
		named[o.Key] = true
	}
	for _, o := range objs {
		if !dataset.Volatile(o.Key) || named[o.Key] {
			continue
		}
		if err := st.Delete(ctx, o.Key); err != nil {
			log.Warn().Err(err).Str("object", st.URI(o.Key)).Msg("could not remove a measurement part no manifest names")
		}
	}
}
