package stage

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/store"
)

// withStoreStats gives a shard's step a context under which every S3
// request counts in the returned Stats and every retry is logged with the
// shard's fields (stage, step, shard).
func withStoreStats(ctx context.Context, log zerolog.Logger) (context.Context, *store.Stats) {
	s := &store.Stats{}
	return store.WithStats(log.WithContext(ctx), s), s
}

// recordStore puts the shard's S3 request counts into its manifest, as
// llmcall.Record does for the LLM client's: s3_requests (attempts, retries
// included), s3_retries and s3_timeouts (retried attempts that stalled).
// A local root makes no requests and records nothing.
func (e *Env) recordStore(s *store.Stats) {
	req, retries, timeouts := s.Requests.Load(), s.Retries.Load(), s.Timeouts.Load()
	if req == 0 {
		return
	}
	e.Count("s3_requests", req)
	e.Count("s3_retries", retries)
	e.Count("s3_timeouts", timeouts)
	ev := e.Log.Info()
	if retries > 0 {
		ev = e.Log.Warn()
	}
	ev.Int64("requests", req).Int64("retries", retries).Int64("timeouts", timeouts).Msg("s3 requests")
}
