package tag

import (
	"sort"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/lib/ontology"
)

// topicShare is one topic and the share of tagged documents that carry it.
type topicShare struct {
	Topic string
	Docs  int
	Share float64
}

// commonTopics returns the k topics on most documents (all for k ≤ 0), most first (ties by
// path), each document counting a topic once. Domains (depth 1) are left
// out: a domain of a small ontology rightly holds a third of a corpus, and
// the domain_ counters report them. A topic below the domains on most of the
// corpus is a scorer matching words every text has, not a topic.
func commonTopics(rows []dataset.TopicRow, k int) []topicShare {
	docs := map[string]int{}
	for _, r := range rows {
		seen := map[string]bool{}
		for _, p := range r.Topics {
			if !seen[p] && containsSep(p) {
				seen[p] = true
				docs[p]++
			}
		}
	}
	out := make([]topicShare, 0, len(docs))
	for p, n := range docs {
		out = append(out, topicShare{Topic: p, Docs: n, Share: float64(n) / float64(max(len(rows), 1))})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Docs != out[j].Docs {
			return out[i].Docs > out[j].Docs
		}
		return out[i].Topic < out[j].Topic
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}

func containsSep(p string) bool {
	for i := 0; i+len(ontology.PathSep) <= len(p); i++ {
		if p[i:i+len(ontology.PathSep)] == ontology.PathSep {
			return true
		}
	}
	return false
}
