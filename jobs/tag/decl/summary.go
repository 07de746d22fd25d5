package decl

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is tag's part of the run summary: topics per document, and a
// warning when a topic is implausibly common.
func summary(ctx context.Context, s *stage.Summarizer) error {
	if st := s.Stats(ctx, dataset.Topics.Name); st != nil && st["documents"] > 0 {
		s.Line("topics", "%.2f per document, %d documents without (%s)", float64(st["topics_total"])/float64(st["documents"]), st["no_topics"], s.Where(dataset.Topics.Name))
		s.Warn(TopicWarning(st))
	}
	return nil
}

// TopicWarning is the warning of tag's implausible_topics count: a topic
// on more of a shard's documents than the ontology's size makes plausible
// is a scorer matching words every text has, and the log alone is where
// nobody looks.
func TopicWarning(st map[string]int64) string {
	n := st[StatImplausibleTopics]
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d topic(s) on more documents than the ontology's size makes plausible (tag's log names them and their shares): the offline tagger may be matching words every text has; use tag.backend: llm or give the ontology's nodes keywords (tag.max_topic_share sets a fixed share instead)", n)
}
