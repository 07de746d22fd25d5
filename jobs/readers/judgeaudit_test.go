package readers_test

import (
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/readers"
)

// TestSummarizeAuditPerDomain: counts per domain in the order given (an
// unknown domain after, alphabetically), a verdict missing in one order
// counts for position but not for consistency, and a run without an audit
// says how to turn it on.
func TestSummarizeAuditPerDomain(t *testing.T) {
	row := func(domain, w, sw string) dataset.JudgeAuditRow {
		return dataset.JudgeAuditRow{Domain: domain, Sample1: "a", Sample2: "b", Winner: w, SwappedWinner: sw,
			Consistent: w != "" && w == sw, Source: dataset.JudgeAuditSample}
	}
	rows := []dataset.JudgeAuditRow{
		row("Algebra", "a", "a"), // consistent: one first-position win of 2
		row("Algebra", "a", "b"), // both for the first position
		row("Geometry", "b", ""), // swapped order invalid: 1 verdict, second position
		row("Zoo", "b", "b"),     // consistent: the swapped verdict is first-position
	}
	s := readers.SummarizeAudit(rows, []string{"Geometry", "Algebra", "Number Theory"})
	var got []string
	for _, sc := range s.Scopes {
		got = append(got, sc.Scope)
	}
	if strings.Join(got, ",") != "overall,Geometry,Algebra,Zoo" {
		t.Errorf("scopes %v", got)
	}
	o := s.Overall()
	if o.Comparisons != 4 || o.Answered != 3 || o.Consistent.K != 2 || o.Consistent.N != 3 || o.FirstWins.K != 4 || o.FirstWins.N != 7 {
		t.Errorf("overall %+v", o)
	}
	if a := s.Scopes[2]; a.Consistent.K != 1 || a.Consistent.N != 2 || a.FirstWins.K != 3 || a.FirstWins.N != 4 {
		t.Errorf("Algebra %+v", a)
	}
	if md := s.Markdown(); !strings.Contains(md, "| Geometry | 1 | 0 | — | — | 0.000 |") {
		t.Errorf("report:\n%s", md)
	}
	if md := readers.SummarizeAudit(nil, nil).Markdown(); !strings.Contains(md, "set `judge.position_audit`") {
		t.Errorf("report without an audit:\n%s", md)
	}
}
