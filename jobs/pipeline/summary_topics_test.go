package pipeline

import (
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/tag"
)

// TestTopicWarning: tag's count of implausibly common topics, summed over
// the shards' manifests, becomes a console warning naming the fixes.
func TestTopicWarning(t *testing.T) {
	if w := topicWarning(map[string]int64{"documents": 100}); w != "" {
		t.Errorf("no implausible topics: warning %q", w)
	}
	w := topicWarning(map[string]int64{tag.StatImplausibleTopics: 2})
	for _, want := range []string{"2 topic(s)", "plausible", "tag.backend: llm", "keywords"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}

// TestRowsInAndLeakage: the summary's counts are read from the statistics
// of ingest's and the audit's reduces, where-filtered rows are counted as
// read (ingest's rows_read counts only those it staged), and a flagged
// pair warns that the release will refuse it.
func TestRowsInAndLeakage(t *testing.T) {
	r := RowsInOf(map[string]int64{"rows_read": 442, "filtered": 358, "problems_total": 430, "rejected_empty_solution": 7, "rejected_excluded": 5, "bytes_read": 1})
	if want := (RowsIn{Read: 800, Filtered: 358, Rejected: 12, Excluded: 5, Accepted: 430}); r != want {
		t.Errorf("RowsInOf: %+v, want %+v", r, want)
	}
	if got, want := r.String(), "800 read: 358 filtered out by where:, 12 rejected (5 of them by ingest.exclude), 430 accepted"; got != want {
		t.Errorf("RowsIn: %q, want %q", got, want)
	}
	a := LeakageOf(map[string]int64{"pairs": 5000, "leaks": 1, "invalid": 2, "queries": 100})
	if got, want := a.String(), "5000 pairs audited, 1 flagged, 2 without a usable answer"; got != want {
		t.Errorf("Leakage: %q, want %q", got, want)
	}
	if w := leakWarning(a, 0); !strings.Contains(w, "flagged 1 pair(s)") || !strings.Contains(w, "release.accept_leaks") || !strings.Contains(w, "ingest.exclude") {
		t.Errorf("leak warning %q names neither fix", w)
	}
	if w := leakWarning(Leakage{Pairs: 10}, 0); w != "" {
		t.Errorf("no flagged pair: warning %q", w)
	}
}
