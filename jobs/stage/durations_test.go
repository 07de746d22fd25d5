package stage

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

// TestShardDoneLogsMilliseconds: a duration in a log line carries its
// unit in the key — "took": 41 left a reader to guess seconds or
// milliseconds.
func TestShardDoneLogsMilliseconds(t *testing.T) {
	cfg := testConfig(t, "")
	var runs atomic.Int64
	st, step := testStage(&runs, nil)
	var logs bytes.Buffer
	if _, err := RunShard(context.Background(), cfg, st, step, shard.Spec{Index: 0, Count: 1}, store.NewMem(), zerolog.New(&logs), Options{}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if rec["message"] != "shard done" {
			continue
		}
		found = true
		if _, ok := rec["took"]; ok {
			t.Errorf("shard done logs took without a unit: %s", l)
		}
		if v, ok := rec["took_ms"].(float64); !ok || v < 0 || v != float64(int64(v)) {
			t.Errorf("shard done: took_ms %v, want whole milliseconds: %s", rec["took_ms"], l)
		}
	}
	if !found {
		t.Fatalf("no shard done line:\n%s", logs.String())
	}
}
