package tag

import (
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/lib/ontology"
)

func TestCommonTopics(t *testing.T) {
	s := ontology.PathSep
	rows := []dataset.TopicRow{
		{Topics: []string{"a", "a" + s + "x", "a" + s + "x"}},
		{Topics: []string{"a" + s + "x", "b" + s + "y"}},
		{Topics: []string{"a" + s + "x"}},
		{Topics: nil},
	}
	got := commonTopics(rows, 1)
	if len(got) != 1 || got[0].Topic != "a"+s+"x" || got[0].Docs != 3 || got[0].Share != 0.75 {
		t.Errorf("commonTopics = %+v, want a%sx on 3 of 4 documents", got, s)
	}
	if all := commonTopics(rows, 10); len(all) != 2 || all[1].Topic != "b"+s+"y" {
		t.Errorf("commonTopics(all) = %+v: domains must be left out", all)
	}
}
