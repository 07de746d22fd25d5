package topics

import (
	"math/rand/v2"
	"testing"

	defaultont "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/lib/ontology"
)

// labelOnlyTree is the default ontology with every keyword removed: the
// shape of a classification such as MSC2020 that gives only labels and
// the hierarchy, on topics whose right answers mathDomain knows.
func labelOnlyTree(t testing.TB) *ontology.Tree {
	t.Helper()
	d, err := defaultont.Default()
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Nodes {
		d.Nodes[i].Keywords = nil
	}
	tr, err := ontology.BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// sampleMATH returns n MATH rows drawn without replacement with a fixed
// seed, so that the figures logged are comparable from run to run.
func sampleMATH(t testing.TB, n int) []mathRow {
	rows := readMATH(t)
	r := rand.New(rand.NewPCG(38, 2026))
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows[:min(n, len(rows))]
}

// topAgreement is the share of rows whose main domain is the domain of
// their MATH subject.
func topAgreement(t testing.TB, tr *ontology.Tree, rows []mathRow) float64 {
	texts := make([]Text, len(rows))
	for i, r := range rows {
		texts[i] = Text{Statement: r.Problem, Solution: r.Solution}
	}
	as := assignAll(t, tr, NewLexical(tr), texts)
	agree := 0
	for i, r := range rows {
		if d := MainDomain(tr, as[i].Topics); d >= 0 && tr.Label(d) == mathDomain[r.Type] {
			agree++
		}
	}
	return float64(agree) / float64(len(rows))
}

// TestLabelOnlyAgreement measures what issue 38 asks of the offline
// tagger on a seeded sample of 400 MATH problems: top-level agreement with
// MATH's subjects with the built-in ontology, and with the same ontology
// stripped of its keywords (label-only). The built-in figure is a bar
// (TestMATHDomainAgreement checks it on all of MATH); the label-only one
// is logged, and is why the tag stage's gate (KeywordShare under
// MinKeywordShare) stops the lexical tagger rather than let it tag.
func TestLabelOnlyAgreement(t *testing.T) {
	rows := sampleMATH(t, 400)
	built := topAgreement(t, defaultTree(t), rows)
	label := topAgreement(t, labelOnlyTree(t), rows)
	t.Logf("MATH sample of %d: top-level agreement %.1f%% with the built-in ontology, %.1f%% label-only",
		len(rows), 100*built, 100*label)
	if built < 0.80 {
		t.Errorf("built-in ontology: agreement %.3f < 0.80", built)
	}
}
