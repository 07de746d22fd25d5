package decl

import (
	"strings"
	"testing"
)

// TestTopicWarning: tag's count of implausibly common topics, summed over
// the shards' manifests, becomes a console warning naming the fixes.
func TestTopicWarning(t *testing.T) {
	if w := TopicWarning(map[string]int64{"documents": 100}); w != "" {
		t.Errorf("no implausible topics: warning %q", w)
	}
	w := TopicWarning(map[string]int64{StatImplausibleTopics: 2})
	for _, want := range []string{"2 topic(s)", "plausible", "tag.backend: llm", "keywords"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}
