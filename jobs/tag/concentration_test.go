package tag

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/jobs/stage"
)

// TestImplausibleTopicWarns: 30 documents about one thing put one topic
// below the domains on all of them, far above what one of the default
// ontology's topics can plausibly hold: the shard warns in its log and
// counts the topic in the manifest (which `saber run`'s summary reports);
// a fixed tag.max_topic_share of 1 never warns, nor does a shard of fewer
// than MinConcentrationDocs documents.
func TestImplausibleTopicWarns(t *testing.T) {
	for _, c := range []struct {
		name  string
		docs  int
		tag   string
		warns bool
	}{
		{"from the ontology's size", 30, "{backend: lexical}", true},
		{"a fixed share of 1", 30, "{backend: lexical, max_topic_share: 1}", false},
		{"too few documents", MinConcentrationDocs - 1, "{backend: lexical}", false},
	} {
		cfg, root := failSetup(t, c.docs, "", c.tag)
		var logs bytes.Buffer
		res, err := stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], one, root, zerolog.New(&logs), stage.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := res.Manifest.Stats[StatImplausibleTopics]
		warned := strings.Contains(logs.String(), ImplausibleTopicMsg)
		if (n > 0) != c.warns || warned != c.warns {
			t.Errorf("%s: %s = %d, warned %v; want a warning %v\n%s", c.name, StatImplausibleTopics, n, warned, c.warns, logs.String())
		}
	}
}
