package llmstage

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/llmconf"
)

// TestCheck: every problem is reported under the section's key, the
// backends in the stage's order; the llm settings are checked only for
// the llm backend.
func TestCheck(t *testing.T) {
	core := config.Default()
	withModel := config.Default()
	withModel.LLM.Model = "m"
	ok := Options{Backend: "offline"}
	ok.SetDefaults("offline")
	for _, tc := range []struct {
		name string
		core *config.Config
		set  func(*Options)
		want []string
	}{
		{"defaults", core, func(*Options) {}, nil},
		{"llm without a model", core, func(o *Options) { o.Backend = BackendLLM },
			[]string{"s.llm (with llm): llm: config: model is required"}},
		{"llm with the run's model", withModel, func(o *Options) { o.Backend = BackendLLM }, nil},
		{"the override's model", core, func(o *Options) { o.Backend, o.LLM = BackendLLM, &llmconf.Config{Model: "x"} }, nil},
		{"offline ignores the llm settings", core, func(o *Options) { o.LLM = &llmconf.Config{} }, nil},
		{"unknown backend", core, func(o *Options) { o.Backend = "gpt" }, []string{`s.backend: "gpt" is not one of offline, llm`}},
		{"everything wrong", core, func(o *Options) {
			o.Shards, o.ParseRetries, o.Workers, o.MaxInvalidShare = 0, -1, -1, 1.5
		}, []string{"s.shards: must be ≥ 1", "s: parse_retries and workers must be ≥ 0", "s.max_invalid_share: 1.5 must be in (0, 1]"}},
		{"max_invalid_share 0", core, func(o *Options) { o.MaxInvalidShare = 0 }, []string{"s.max_invalid_share: 0 must be in (0, 1]"}},
		{"negative workers", core, func(o *Options) { o.Workers = -2 }, []string{"s: parse_retries and workers must be ≥ 0"}},
	} {
		o := ok
		tc.set(&o)
		var got []string
		o.Check(tc.core, "s", []string{"offline", BackendLLM}, func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestSetDefaults: unset options take the shared defaults and the
// stage's backend; set ones are kept.
func TestSetDefaults(t *testing.T) {
	for _, tc := range []struct {
		in, want Options
	}{
		{Options{}, Options{Shards: 1, Backend: "lexical", ParseRetries: DefaultParseRetries, MaxInvalidShare: DefaultMaxInvalidShare}},
		{Options{Shards: 3, Backend: BackendLLM, ParseRetries: 5, MaxInvalidShare: 1, Workers: 2},
			Options{Shards: 3, Backend: BackendLLM, ParseRetries: 5, MaxInvalidShare: 1, Workers: 2}},
	} {
		got := tc.in
		got.SetDefaults("lexical")
		if got != tc.want {
			t.Errorf("SetDefaults(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestWorkers(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		configured int
		llm        bool
		conc       int
		want       int
	}{
		{3, true, 5, 3},
		{3, false, 5, 3},
		{0, true, 5, 5},
		{0, true, 0, llmconf.DefaultConcurrency},
		{0, false, 5, cores},
	} {
		if got := Workers(tc.configured, tc.llm, llmconf.Config{Concurrency: tc.conc}); got != tc.want {
			t.Errorf("Workers(%d, %v, concurrency %d) = %d, want %d", tc.configured, tc.llm, tc.conc, got, tc.want)
		}
	}
}
