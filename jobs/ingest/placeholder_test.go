package ingest

import (
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

func TestIsPathOnly(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"images/theorem_17.png", true},
		{"./sol/a.txt", true},
		{"/data/theoremqa/q12.json", true},
		{`C:\data\x.json`, true},
		{"  figure_3.png \n", true},
		{"https://example.org/problems/17", true},
		{"s3://bucket/prefix/a.md", true},
		{"1/2", false},
		{"a/b", false},
		{"3.5", false},
		{"x/y.z2", true}, // two segments ending in a name with an extension: no answer is written so
		{"$a/b.c$", false},
		{"The answer is in images/fig.png.", false},
		{"-", false},
		{"", false},
		{"e.g.", false},
		{"i.e", false},
	}
	for _, tt := range tests {
		if got := isPathOnly(tt.in); got != tt.want {
			t.Errorf("isPathOnly(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// theoremQA is a source shaped like the theorem QA set: explanations that
// are mostly a placeholder or a file path.
func theoremQA(explanations ...string) []byte {
	var b strings.Builder
	for i, e := range explanations {
		b.WriteString(`{"uid": "q` + string(rune('a'+i)) + `", "statement": "Prove theorem ` + string(rune('a'+i)) + `.", "solution": ` + jsonString(e) + "}\n")
	}
	return []byte(b.String())
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// TestPlaceholderRejects: a solution that is a placeholder (any case, any
// white space around it) or only a file path or URL is rejected with its
// own reason and the row's id; maths that merely looks like one ("1/2",
// "-5") is text. Past max_reject_share the source stops (exit 2).
func TestPlaceholderRejects(t *testing.T) {
	body := theoremQA("By induction.", "NONE", " n/a ", "null", "-", "images/q5.png", "https://example.org/q6", "1/2", "-5", "None")
	cfg := setup(t, map[string][]byte{"in.jsonl": body}, plainSource+"      max_reject_share: 0.9\n")
	probs, rejs, err := runShards(t, cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(probs); got != "qa,qh,qi" {
		t.Errorf("problems %s, want qa,qh,qi", got)
	}
	want := map[string]string{
		"qb": dataset.ReasonPlaceholder, "qc": dataset.ReasonPlaceholder, "qd": dataset.ReasonPlaceholder,
		"qe": dataset.ReasonPlaceholder, "qf": dataset.ReasonPathOnly, "qg": dataset.ReasonPathOnly, "qj": dataset.ReasonPlaceholder,
	}
	if len(rejs) != len(want) {
		t.Fatalf("%d rejects, want %d: %+v", len(rejs), len(want), rejs)
	}
	for _, r := range rejs {
		if want[r.ID] != r.Reason || r.Field != "solution" || r.Detail == "" {
			t.Errorf("reject %+v, want id set and reason %s on solution", r, want[r.ID])
		}
	}

	// The share gate counts them: 7 of 10 is over the default 0.5.
	cfg = setup(t, map[string][]byte{"in.jsonl": body}, plainSource)
	_, _, err = runShards(t, cfg, 1)
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "7 of 10 rows rejected") || !strings.Contains(err.Error(), "commonest reason placeholder (5 rows)") {
		t.Errorf("over the share: %v, want exit 2 naming placeholder", err)
	}

	// ingest.placeholders replaces the list; [] turns the check off.
	cfg = setup(t, map[string][]byte{"in.jsonl": theoremQA("By induction.", "TBD", "NONE")}, plainSource+"      max_reject_share: 0.9\n")
	Section.Of(cfg).Placeholders = []string{"tbd"}
	probs, rejs, err = runShards(t, cfg, 1)
	if err != nil || ids(probs) != "qa,qc" || len(rejs) != 1 || rejs[0].ID != "qb" || rejs[0].Reason != dataset.ReasonPlaceholder {
		t.Errorf("placeholders [tbd]: %v, problems %s, rejects %+v", err, ids(probs), rejs)
	}
}

func TestPlaceholdersConfig(t *testing.T) {
	parse := func(extra string) *config.Config {
		t.Helper()
		cfg, err := config.Parse([]byte("run: r\nroot: d\ningest: {"+extra+"sources: [{name: a, paths: [a.jsonl]}]}\n"), Section)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	if got := strings.Join(Section.Of(parse("")).Placeholders, ","); got != "NONE,N/A,null,-" {
		t.Errorf("default placeholders %s", got)
	}
	if p := Section.Of(parse("placeholders: [], ")).Placeholders; p == nil || len(p) != 0 {
		t.Errorf("placeholders: [] gave %#v, want an empty list (the check off)", p)
	}
	if _, err := config.Parse([]byte("run: r\nroot: d\ningest: {placeholders: [\" \"], sources: [{name: a, paths: [a.jsonl]}]}\n"), Section); err == nil || !strings.Contains(err.Error(), "ingest.placeholders[0]: empty") {
		t.Errorf("blank placeholder: %v", err)
	}
	cfg := setup(t, map[string][]byte{"in.jsonl": theoremQA("NONE")}, plainSource)
	Section.Of(cfg).Placeholders = []string{}
	probs, _, err := runShards(t, cfg, 1)
	if err != nil || len(probs) != 1 || probs[0].Solution != "NONE" {
		t.Errorf("placeholders: [] still rejects: %v %+v", err, probs)
	}
}

// TestRejectIDs: every reject of a row that had an id carries it, with
// the source's id_prefix, whatever the reason (issue 37).
func TestRejectIDs(t *testing.T) {
	lines := []string{
		`{"uid": "a", "statement": "Find x.", "solution": "x = 1."}`,
		`{"uid": "b", "statement": "Find y.", "solution": ""}`,
		`{"uid": "c", "statement": "Find z."}`,
		`{"uid": "d", "statement": "Find w.", "solution": {"x": 1}}`,
		`{"uid": "a", "statement": "Again.", "solution": "Dup."}`,
		"{\"uid\": \"f\", \"statement\": \"bad \xff bytes\", \"solution\": \"s\"}",
		`{"statement": "No id.", "solution": ""}`,
	}
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))}, plainSource+"      id_prefix: \"p/\"\n      max_reject_share: 0.9\n")
	_, rejs, err := runShards(t, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p/b", "p/c", "p/d", "p/a", "p/f", ""}
	if len(rejs) != len(want) {
		t.Fatalf("rejects %+v", rejs)
	}
	for i, w := range want {
		if rejs[i].ID != w {
			t.Errorf("reject at line %d (%s): id %q, want %q", rejs[i].Line, rejs[i].Reason, rejs[i].ID, w)
		}
	}
}

// TestWhereCase: a where: value no row has while a case variant is in
// rows stops ingest, naming both; ignore_case compares in any case.
func TestWhereCase(t *testing.T) {
	lines := `{"id": 1, "q": "Q1", "s": "S1", "kind": "NONE"}
{"id": 2, "q": "Q2", "s": "S2", "kind": "calc"}
{"id": 3, "q": "Q3", "s": "S3", "kind": "NONE"}
`
	src := func(cond string) string {
		return "    - {name: w, paths: [in.jsonl], fields: {id: id, statement: q, solution: s}, where: [" + cond + "]}\n"
	}
	for _, cond := range []string{"{field: kind, not: none}", "{field: kind, not_in: [x, none]}", "{field: kind, is: Calc}"} {
		cfg := setup(t, map[string][]byte{"in.jsonl": []byte(lines)}, src(cond))
		_, _, err := runShards(t, cfg, 2)
		if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "ingest.sources[0].where[0].") || !strings.Contains(err.Error(), "ignore_case") {
			t.Errorf("%s: %v, want exit 2 naming the value and its case variant", cond, err)
			continue
		}
		if !strings.Contains(err.Error(), `"none"`) && !strings.Contains(err.Error(), `"Calc"`) || !strings.Contains(err.Error(), `"NONE"`) && !strings.Contains(err.Error(), `"calc"`) {
			t.Errorf("%s: %v does not name both spellings", cond, err)
		}
	}
	// A value some row has exactly is fine even if another row has it in
	// another case; a value no row has in any case is fine (a sentinel).
	for _, cond := range []string{"{field: kind, not: NONE}", "{field: kind, not: notfound}"} {
		cfg := setup(t, map[string][]byte{"in.jsonl": []byte(lines)}, src(cond))
		if _, _, err := runShards(t, cfg, 1); err != nil {
			t.Errorf("%s: %v", cond, err)
		}
	}
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(lines)}, src("{field: kind, not: none, ignore_case: true}"))
	probs, _, err := runShards(t, cfg, 2)
	if err != nil || ids(probs) != "2" {
		t.Errorf("ignore_case: %v, problems %s, want 2", err, ids(probs))
	}
}

// TestSubjectMapTypo: a subject_map key that is no row's subject stops
// ingest, naming the key, a case variant when one is there, and the
// subjects seen.
func TestSubjectMapTypo(t *testing.T) {
	lines := `{"id": 1, "q": "Q1", "s": "S1", "type": "Precalculus"}
{"id": 2, "q": "Q2", "s": "S2", "type": "Algebra"}
`
	src := func(m string) string {
		return "    - {name: m, paths: [in.jsonl], fields: {id: id, statement: q, solution: s, subject: type}, subject_map: " + m + "}\n"
	}
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(lines)}, src("{Precalclus: Calculus and Analysis}"))
	_, _, err := runShards(t, cfg, 2)
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), `subject_map has key "Precalclus", but no row's subject is that`) || !strings.Contains(err.Error(), "subjects seen: Algebra, Precalculus") {
		t.Errorf("typo: %v", err)
	}
	cfg = setup(t, map[string][]byte{"in.jsonl": []byte(lines)}, src("{precalculus: Calculus and Analysis}"))
	_, _, err = runShards(t, cfg, 1)
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), `rows have "Precalculus"`) {
		t.Errorf("case: %v", err)
	}
	cfg = setup(t, map[string][]byte{"in.jsonl": []byte(lines)}, src("{Precalculus: Calculus and Analysis}"))
	probs, _, err := runShards(t, cfg, 2)
	if err != nil || len(probs) != 2 || probs[0].Subject != "Calculus and Analysis" {
		t.Errorf("good map: %v %+v", err, probs)
	}
}

// TestJoinTemplate: join: on a field a template builds separates the
// elements of the list-valued input fields the template names; join: on a
// side-file field, or on a field nothing fills, is a config error.
func TestJoinTemplate(t *testing.T) {
	lines := `{"q": "Q1", "sols": ["A", "B"], "answer": "4"}` + "\n"
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(lines)},
		"    - {name: j, paths: [in.jsonl], fields: {statement: q}, template: {solution: \"{sols}\\n\\nAnswer: {answer}\"}, join: {solution: \"\\n---\\n\"}}\n")
	probs, _, err := runShards(t, cfg, 1)
	if err != nil || len(probs) != 1 || probs[0].Solution != "A\n---\nB\n\nAnswer: 4" {
		t.Errorf("join on a template: %v %+v", err, probs)
	}
	for _, tt := range []struct{ extra, want string }{
		{"files: {solution: path}, join: {solution: x}", "ingest.sources[0].join.solution: files.solution reads the field from a side file"},
		{"join: {origin: x}", "ingest.sources[0].join.origin: nothing fills origin"},
		{"join: {answer: x}", `ingest.sources[0].join.answer: "answer" is not a problem field`},
	} {
		_, err := config.Parse([]byte("run: r\nroot: d\ningest: {sources: [{name: a, paths: [a.jsonl], "+tt.extra+"}]}\n"), Section)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.extra, err, tt.want)
		}
	}
}
