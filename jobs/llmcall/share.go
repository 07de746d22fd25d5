package llmcall

import (
	"fmt"

	"github.com/saber-math/saber/jobs/stage"
)

// InvalidShareError is a shard whose share of invalid results is above
// its threshold: nothing was written, and the message names the share,
// the threshold's key and one example. Exit 2: fix the model or prompt
// settings, or raise the threshold, then rerun (answers already received
// come from the LLM cache).
type InvalidShareError struct {
	// What the units are, as "documents rejected" or "judgments invalid".
	What           string
	Invalid, Total int64
	// Key is the threshold's config key, Max its value.
	Key    string
	Max    float64
	Sample string
}

func (e *InvalidShareError) Error() string {
	return fmt.Sprintf("%d of %d %s (%.1f%%), more than %s = %g allows: the backend, not a few odd inputs; check the llm settings (model, prompt, max_tokens) or raise %s; e.g. %s",
		e.Invalid, e.Total, e.What, 100*float64(e.Invalid)/float64(e.Total), e.Key, e.Max, e.Key, e.Sample)
}

// ExitCode is 2: the configuration (or the model it names) needs fixing.
func (e *InvalidShareError) ExitCode() int { return stage.ExitBadInput }

// CheckInvalidShare returns an *InvalidShareError when invalid/total is
// above max, else nil. key names max in the config (tag.max_invalid_share);
// sample is one invalid unit's reason.
func CheckInvalidShare(what string, invalid, total int64, key string, max float64, sample string) error {
	if total <= 0 || float64(invalid) <= max*float64(total) {
		return nil
	}
	return &InvalidShareError{What: what, Invalid: invalid, Total: total, Key: key, Max: max, Sample: sample}
}

// Share statistics every LLM stage records, so that `saber stats` shows
// the share of invalid units whatever the stage calls them.
const (
	StatInvalidShareCount = "invalid_share_count"
	StatInvalidShareOf    = "invalid_share_of"
)

// RecordInvalidShare records a shard's invalid units in its manifest and
// checks them against the threshold (CheckInvalidShare): above it the
// shard must fail without writing; at or below it, any invalid unit is
// logged as a warning with the share.
func RecordInvalidShare(env *stage.Env, what string, invalid, total int64, key string, max float64, sample string) error {
	env.Count(StatInvalidShareCount, invalid)
	env.Count(StatInvalidShareOf, total)
	if err := CheckInvalidShare(what, invalid, total, key, max, sample); err != nil {
		env.Log.Error().Int64("invalid", invalid).Int64("of", total).Float64("max_share", max).Str("key", key).Str("sample", sample).Msg("too many invalid results; no output written")
		return err
	}
	if invalid > 0 {
		env.Log.Warn().Int64("invalid", invalid).Int64("of", total).Float64("share", float64(invalid)/float64(total)).
			Float64("max_share", max).Str("key", key).Str("sample", sample).Msg(what + ": under the threshold, kept")
	}
	return nil
}
