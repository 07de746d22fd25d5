package topics

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	defaultont "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/lib/ontology"
)

// mscClasses is MSC2020's top and second-level classes in JSKOS (63 and
// 529 concepts): an ontology of a real classification's labels, without
// keywords, and with labels such as "General and overarching topics",
// "History and biography" and "Mathematics education" that name no
// mathematics a problem shows.
const mscClasses = "../../artifacts/ontology/testdata/msc2020-classes.jsonl"

func mscTree(t testing.TB) *ontology.Tree {
	t.Helper()
	body, err := os.ReadFile(mscClasses)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := defaultont.Load(defaultont.Source{Name: mscClasses, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ontology.BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// share is a node and the share of the documents whose topics lie in its
// subtree.
type share struct {
	label string
	n     int
	frac  float64
}

// shares returns, most first, the share of as holding each node at depth
// (1: the domains; 2: the classes below them) or below it, each document
// counting a node once.
func shares(tr *ontology.Tree, as []Assignment, depth int) []share {
	count := map[int]int{}
	for _, a := range as {
		seen := map[int]bool{}
		for _, n := range a.Topics {
			for n > 0 && tr.Depth(n) > depth {
				n = tr.Parent(n)
			}
			if n > 0 && tr.Depth(n) == depth && !seen[n] {
				seen[n] = true
				count[n]++
			}
		}
	}
	out := make([]share, 0, len(count))
	for n, c := range count {
		out = append(out, share{tr.ID(n) + " " + tr.Label(n), c, float64(c) / float64(len(as))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].n > out[j].n || out[i].n == out[j].n && out[i].label < out[j].label })
	return out
}

func formatShares(s []share, k int) string {
	var b strings.Builder
	for i := 0; i < k && i < len(s); i++ {
		fmt.Fprintf(&b, "\n  %5.1f%%  %s", 100*s[i].frac, s[i].label)
	}
	return b.String()
}

// TestMSCTopicShareOnMATH is the bar "no topic is assigned to more than
// the configured share" for MSC2020 on real text: the lexical scorer tags
// the 12,500 MATH problems with MSC's top and second-level classes, and no
// class below the top (what tag.max_topic_share, default 0.3, watches) nor
// any top class may hold more than that share of the corpus — a class on
// most of the corpus is a label matching words every solution has. The
// classes of no mathematics a problem shows (00 General, 01 History, 97
// Mathematics education) must stay rare.
func TestMSCTopicShareOnMATH(t *testing.T) {
	rows := readMATH(t)
	tr := mscTree(t)
	texts := make([]Text, len(rows))
	for i, r := range rows {
		texts[i] = Text{Statement: r.Problem, Solution: r.Solution}
	}
	as := assignAll(t, tr, NewLexical(tr), texts)
	none := 0
	for _, a := range as {
		if len(a.Topics) == 0 {
			none++
		}
	}
	top, second := shares(tr, as, 1), shares(tr, as, 2)
	t.Logf("MATH × MSC2020 classes: %d problems, %d without topics; commonest top classes:%s\ncommonest second-level classes:%s",
		len(rows), none, formatShares(top, 12), formatShares(second, 12))
	logShape(t, tr, as)
	const maxShare = 0.3 // tag.max_topic_share's default
	for _, s := range append(top, second...) {
		if s.frac > maxShare {
			t.Errorf("%s on %.1f%% of MATH, above %.0f%%", s.label, 100*s.frac, 100*maxShare)
		}
	}
	for _, s := range top {
		for _, p := range []string{"00-XX", "01-XX", "97-XX"} {
			if strings.HasPrefix(s.label, p) && s.frac > 0.02 {
				t.Errorf("%s on %.1f%% of MATH: a class of no mathematics a problem shows", s.label, 100*s.frac)
			}
		}
	}
}
