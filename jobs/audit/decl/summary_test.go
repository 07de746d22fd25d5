package decl

import (
	"strings"
	"testing"
)

// TestLeakage: the summary's counts are read from the statistics of the
// audit's reduce, and a flagged pair warns that the release will refuse
// it.
func TestLeakage(t *testing.T) {
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
