package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// summedStats adds up the stats of every ingest shard's manifest, as
// saber stats does.
func summedStats(t *testing.T, cfg *config.Config) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := layout.Complete(ctx, root, cfg.Run, "problems")
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]int64{}
	for _, m := range ms {
		for k, v := range m.Stats {
			sum[k] += v
		}
	}
	return sum
}

func ids(probs []dataset.Problem) string {
	var out []string
	for _, p := range probs {
		out = append(out, p.ID)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func TestFieldMapValidation(t *testing.T) {
	src := func(extra string) string {
		return "ingest: {sources: [{name: a, paths: [a.jsonl], " + extra + "}]}"
	}
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"lists value", src("lists: {solution: first}"), []string{`ingest.sources[0].lists.solution: "first" is not join or explode (one element: an index path in fields:, e.g. solutions[0])`}},
		{"lists key", src("lists: {answer: explode}"), []string{`ingest.sources[0].lists.answer: "answer" is not a problem field`}},
		{"two explode", src("fields: {statement: p, solution: s}, lists: {statement: explode, solution: explode}"), []string{"ingest.sources[0].lists: explode is set for solution and statement; at most one field per source may explode"}},
		{"explode id", src("fields: {id: i}, lists: {id: explode}"), []string{"ingest.sources[0].lists.id: an id cannot explode"}},
		{"explode a template", src("template: {solution: \"{s}\"}, lists: {solution: explode}"), []string{"ingest.sources[0].lists.solution: explode needs fields.solution"}},
		{"files and fields", src("fields: {solution: s}, files: {solution: s_path}"), []string{"ingest.sources[0].files.solution: fields.solution is set too; a field comes from fields:, files: or template:, not two"}},
		{"files id", src("files: {id: p}"), []string{"ingest.sources[0].files.id: an id cannot come from a side file"}},
		{"template and fields", src("fields: {solution: s}, template: {solution: \"{s} {a}\"}"), []string{"ingest.sources[0].template.solution: fields.solution is set too"}},
		{"template unclosed", src("template: {solution: \"{s\"}"), []string{"ingest.sources[0].template.solution: unclosed { at byte 0 (a literal brace is {{)"}},
		{"template stray brace", src("template: {solution: \"a } b {s}\"}"), []string{"ingest.sources[0].template.solution: } without { at byte 2"}},
		{"template empty name", src("template: {solution: \"{} {s}\"}"), []string{"ingest.sources[0].template.solution: empty {} at byte 0"}},
		{"template no name", src("template: {solution: \"plain\"}"), []string{"ingest.sources[0].template.solution: names no input field"}},
		{"where no op", src("where: [{field: answer}]"), []string{"ingest.sources[0].where[0]: set exactly one of is, not, in, not_in (has none)"}},
		{"where two ops", src("where: [{field: answer, is: a, not_in: [b]}]"), []string{"ingest.sources[0].where[0]: set exactly one of is, not, in, not_in (has is, not_in)"}},
		{"where no field", src("where: [{not: x}]"), []string{"ingest.sources[0].where[0].field: required"}},
		{"where list in is", src("where: [{field: a, not: [x, y]}]"), []string{"ingest.sources[0].where[0].not: a list of values; use in: or not_in: for membership"}},
		{"where map value", src("where: [{field: a, in: [{x: 1}]}]"), []string{"ingest.sources[0].where[0].in[0]: a mapping is not a value; want a string, a number, a boolean or []"}},
		{"where map value of is", src("where: [{field: a, is: {x: 1}}]"), []string{"ingest.sources[0].where[0].is: a mapping is not a value"}},
		{"where is null", src("where: [{field: a, is: null}]"), []string{`ingest.sources[0].where[0].is: null matches nothing (an absent or null field matches no value); quote it ("null")`}},
		{"where not ~", src("where: [{field: a, not: ~}]"), []string{"ingest.sources[0].where[0].not: null matches nothing"}},
		{"where null in a list", src("where: [{field: a, not_in: [x, null]}]"), []string{"ingest.sources[0].where[0].not_in[1]: null matches nothing"}},
		{"where not a mapping", src("where: [answer]"), []string{"cannot unmarshal !!str `answer` into a where: condition ({field: F, is: V})"}},
		{"where unknown op", src("where: [{field: a, equals: x}]"), []string{"unknown key ingest.sources[0].where[0].equals (valid here: field, ignore_case, in, is, not, not_in)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte("run: r\nroot: d\n"+tt.yaml+"\n"), Section)
			if err == nil || stage.ExitCode(err) != stage.ExitBadInput {
				t.Fatalf("err = %v, want a config error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant %q in it", err, w)
				}
			}
		})
	}
	// A template or a side file stands in for the default field name.
	cfg, err := config.Parse([]byte("run: r\nroot: d\n"+src("template: {statement: \"{q}\"}, files: {solution: sol}, where: [{field: a, not_in: [NONE, \"\", 0, []]}], lists: {subject: join}")+"\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	if s := Section.Of(cfg).Sources[0]; s.Fields.Statement != "" || s.Fields.Solution != "" {
		t.Errorf("defaults filled a field a template or side file builds: %+v", s.Fields)
	}
}

func TestTemplateParse(t *testing.T) {
	lits, names, err := parseTemplate("{solution}\n\nFinal answer: {{${ answer }$}}")
	if err != nil || fmt.Sprintf("%q %q", lits, names) != `["" "\n\nFinal answer: {$" "$}"] ["solution" "answer"]` {
		t.Errorf("%q %q %v", lits, names, err)
	}
}

// TestWhereFilters: rows failing a where: condition are counted per
// source as filtered — not rejected, not in the reject share (1 reject
// of 4 rows passes the default 0.5; with the 5 filtered it would not) —
// for is,
// not, in and not_in, on sentinel strings, numbers, empty lists and nested
// paths; every shard count sums to the same counts.
func TestWhereFilters(t *testing.T) {
	lines := []string{
		`{"id": 1, "q": "Q1", "s": "S1", "answer": "4", "meta": {"kind": "calc"}, "sols": ["a"]}`,
		`{"id": 2, "q": "Q2", "s": "S2", "answer": "NONE", "meta": {"kind": "calc"}, "sols": ["a"]}`, // sentinel
		`{"id": 3, "q": "Q3", "s": "S3", "answer": "", "meta": {"kind": "calc"}, "sols": ["a"]}`,     // empty answer
		`{"id": 4, "q": "Q4", "s": "S4", "answer": 0, "meta": {"kind": "calc"}, "sols": ["a"]}`,      // number sentinel
		`{"id": 5, "q": "Q5", "s": "S5", "answer": "7", "meta": {"kind": "proof"}, "sols": ["a"]}`,   // nested kind
		`{"id": 6, "q": "Q6", "s": "S6", "answer": "7", "meta": {"kind": "calc"}, "sols": []}`,       // empty list
		`{"id": 7, "q": "Q7", "s": "S7", "meta": {"kind": "calc"}, "sols": ["b"]}`,                   // no answer: kept
		`{"id": 8, "q": "Q8", "s": "", "answer": "9", "meta": {"kind": "calc"}, "sols": ["c"]}`,      // kept, then rejected
		`{"id": 9, "q": "Q9", "s": "S9", "answer": "9", "meta": {"kind": "calc"}, "sols": ["c"]}`,
	}
	src := `    - name: f
      paths: [in.jsonl]
      fields: {id: id, statement: q, solution: s}
      where:
        - {field: answer, not_in: ["NONE", "", 0]}
        - {field: meta.kind, is: calc}
        - {field: sols, not: []}
        - {field: meta.kind, in: [calc, algebra]}
`
	for _, n := range []int{1, 3} {
		cfg := setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))}, src)
		probs, rejs, err := runShards(t, cfg, n)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(probs); got != "1,7,9" {
			t.Errorf("%d shards: problems %s, want 1,7,9", n, got)
		}
		if len(rejs) != 1 || rejs[0].Line != 8 || rejs[0].Reason != dataset.ReasonEmpty {
			t.Errorf("%d shards: rejects %+v; want only line 8 (filtered rows are no rejects)", n, rejs)
		}
		st := summedStats(t, cfg)
		for k, v := range map[string]int64{"filtered": 5, "source_f_filtered": 5, "source_f_accepted": 3, "source_f_rejected": 1, "problems_total": 3, "rows_read": 4} {
			if st[k] != v {
				t.Errorf("%d shards: %s = %d, want %d (all %v)", n, k, st[k], v, st)
			}
		}
	}

	// The reduce's log gives each source's counts.
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))}, src)
	root, _ := store.Open(context.Background(), cfg.RootURI(), cfg.Storage)
	var log bytes.Buffer
	for _, step := range Stage.Steps { // the reduce sees every source whole and logs it
		if _, err := stage.RunShard(context.Background(), cfg, Stage, step, shard.Spec{Index: 0, Count: 1}, root, zerolog.New(&log), stage.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(log.String(), `"source":"f","accepted":3,"filtered":5,"rejected":1,"excluded":0,"message":"source read"`) {
		t.Errorf("log has no counts of source f:\n%s", log.String())
	}

	// Every row filtered: the source yields nothing, which is exit 2.
	cfg = setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))},
		"    - {name: f, paths: [in.jsonl], fields: {statement: q, solution: s}, where: [{field: meta.kind, is: geometry}]}\n")
	_, _, err := runShards(t, cfg, 1)
	if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "source f: no row accepted, all 9 filtered by ingest.sources[0].where") {
		t.Errorf("all filtered: %v", err)
	}
	// A condition on a field no row has is a typo, as in fields:.
	cfg = setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))},
		"    - {name: f, paths: [in.jsonl], fields: {statement: q, solution: s}, where: [{field: answr, not: NONE}]}\n")
	_, _, err = runShards(t, cfg, 1)
	if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), `ingest.sources[0].where[0].field is "answr", but no row of its files has that field`) {
		t.Errorf("typo in where: %v", err)
	}
}

// TestWhereValuesAsWritten: a where: value compares as the config writes
// it, unquoted or not — 1.0 is the text 1.0, not the number 1 — as a
// row's number is its JSON text: not_in: [1.0, 007, 0x10, 1e3, 2.50]
// drops the rows that hold those texts (as strings or as JSON numbers)
// and keeps 7, 16, 1000, 2.5 and 1, which the YAML decoder's numbers
// would have read them as.
func TestWhereValuesAsWritten(t *testing.T) {
	answers := []string{`"1.0"`, `1.0`, `"007"`, `"0x10"`, `"1e3"`, `1e3`, `"2.50"`, `2.50`, // dropped
		`7`, `"7"`, `16`, `1000`, `2.5`, `"2.5"`, `1`, `"1"`, `true`} // kept
	var lines []string
	for i, a := range answers {
		lines = append(lines, fmt.Sprintf(`{"id": %d, "q": "Q%d", "s": "S", "answer": %s, "flag": %s}`, i, i, a, a))
	}
	for _, tt := range []struct{ where, want string }{
		{`[{field: answer, not_in: [1.0, 007, 0x10, 1e3, 2.50]}]`, "10,11,12,13,14,15,16,8,9"},
		{`[{field: answer, not_in: ["1.0", "007", "0x10", "1e3", "2.50"]}]`, "10,11,12,13,14,15,16,8,9"}, // quoted: the same
		{`[{field: answer, in: [1.0, 0x10]}]`, "0,1,3"},
		{`[{field: answer, is: 2.50}]`, "6,7"},
		{`[{field: answer, is: 1e3}]`, "4,5"},
		{`[{field: flag, is: true}]`, "16"}, // a boolean is its text, true
	} {
		cfg := setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))},
			"    - {name: f, paths: [in.jsonl], fields: {id: id, statement: q, solution: s}, where: "+tt.where+"}\n")
		probs, rejs, err := runShards(t, cfg, 1)
		if err != nil {
			t.Fatalf("%s: %v", tt.where, err)
		}
		if got := ids(probs); got != tt.want || len(rejs) != 0 {
			t.Errorf("where: %s kept %s (rejects %+v), want %s", tt.where, got, rejs, tt.want)
		}
	}
}

// TestExplode: lists: explode gives one row per element, ids <id>#<k>
// (1-based), content-hash ids for rows without one; a template naming the
// exploded field gets each element; a bad element's reject says which;
// the rows are the same for any shard count.
func TestExplode(t *testing.T) {
	lines := []string{
		`{"id": 10, "q": "Q10", "sols": ["first", "second", "third"], "ans": 3}`,
		`{"q": "Qx", "sols": ["one", "two"], "ans": 2}`,
		`{"id": 11, "q": "Q11", "sols": "single", "ans": 1}`,
		`{"id": 12, "q": "Q12", "sols": ["ok", "` + strings.Repeat("x", 250) + `"], "ans": 5}`,
		`{"id": 13, "q": "Q13", "sols": [], "ans": 0}`,
	}
	src := `    - name: e
      paths: [in.jsonl]
      id_prefix: "e/"
      max_reject_share: 0.9
      fields: {id: id, statement: q, solution: sols}
      lists: {solution: explode}
`
	var before []dataset.Problem
	for _, n := range []int{1, 3} {
		cfg := setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))}, src)
		probs, rejs, err := runShards(t, cfg, n)
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(probs, func(i, j int) bool { return probs[i].ID < probs[j].ID })
		byID := map[string]string{}
		var hashed []string
		for _, p := range probs {
			byID[p.ID] = p.Solution
			if !strings.HasPrefix(p.ID, "e/") {
				hashed = append(hashed, p.Solution)
			}
		}
		if byID["e/10#1"] != "first" || byID["e/10#2"] != "second" || byID["e/10#3"] != "third" || byID["e/11"] != "single" || byID["e/12#1"] != "ok" {
			t.Errorf("%d shards: %v", n, byID)
		}
		if sort.Strings(hashed); strings.Join(hashed, ",") != "one,two" || len(probs) != 7 {
			t.Errorf("%d shards: rows without id gave %v; %d problems", n, hashed, len(probs))
		}
		sort.Slice(rejs, func(i, j int) bool { return rejs[i].Line < rejs[j].Line })
		if len(rejs) != 2 || rejs[0].Line != 4 || rejs[0].Reason != dataset.ReasonOversize || !strings.Contains(rejs[0].Detail, "(element 2 of sols)") ||
			rejs[1].Line != 5 || rejs[1].Reason != dataset.ReasonEmpty {
			t.Errorf("%d shards: rejects %+v", n, rejs)
		}
		if before != nil && fmt.Sprint(before) != fmt.Sprint(probs) {
			t.Errorf("%d shards differ from 1", n)
		}
		before = probs
	}

	// A template that names the exploded field fills each element.
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines[:2], "\n"))}, `    - name: e
      paths: [in.jsonl]
      fields: {id: id, statement: q, solution: sols}
      lists: {solution: explode}
      template: {subject: "{sols} / {ans}"}
`)
	probs, _, err := runShards(t, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, p := range probs {
		subjects = append(subjects, p.Subject)
	}
	if sort.Strings(subjects); strings.Join(subjects, ",") != "first / 3,one / 2,second / 3,third / 3,two / 2" {
		t.Errorf("subjects %v", subjects)
	}
}

// TestTemplate: fields combined by a template; a row without a named
// field is a missing_field reject naming it; a name no row has is exit 2
// naming the template.
func TestTemplate(t *testing.T) {
	lines := []string{
		`{"q": "Q1", "s": "Since 2+2=4.", "answer": 4}`,
		`{"q": "Q2", "s": "Trivially.", "answer": "yes"}`,
		`{"q": "Q3", "s": "No answer here."}`,
		`{"q": "Q4", "s": "Listed.", "answer": ["a", "b"]}`,
	}
	src := `    - name: t
      paths: [in.jsonl]
      max_reject_share: 0.5
      fields: {statement: q}
      template: {solution: "{s}\n\nFinal answer: {answer}"}
`
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))}, src)
	probs, rejs, err := runShards(t, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	sols := map[string]string{}
	for _, p := range probs {
		sols[p.Statement] = p.Solution
	}
	if sols["Q1"] != "Since 2+2=4.\n\nFinal answer: 4" || sols["Q2"] != "Trivially.\n\nFinal answer: yes" || sols["Q4"] != "Listed.\n\nFinal answer: a\n\nb" {
		t.Errorf("solutions %q", sols)
	}
	if len(rejs) != 1 || rejs[0].Line != 3 || rejs[0].Reason != dataset.ReasonMissingField || rejs[0].Field != "answer" || !strings.Contains(rejs[0].Detail, "used by template.solution") {
		t.Errorf("rejects %+v", rejs)
	}
	cfg = setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))}, strings.Replace(src, "{answer}", "{answr}", 1))
	_, _, err = runShards(t, cfg, 1)
	if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "ingest.sources[0].template.solution uses {answr}, but no row of its files has that field") {
		t.Errorf("typo in template: %v", err)
	}
}

// TestSideFiles: a field naming a file relative to the input reads its
// text; a missing file is a missing_file reject, an oversize one an
// oversize reject; each file read is an input of the shard, so changing
// one makes the shard stale.
func TestSideFiles(t *testing.T) {
	lines := []string{
		`{"q": "Q1", "sol": "sol/1.txt"}`,
		`{"q": "Q2", "sol": "../shared/2.txt"}`,
		`{"q": "Q3", "sol": "sol/missing.txt"}`,
		`{"q": "Q4", "sol": "sol/big.txt"}`,
		`{"q": "Q5", "sol": "sol/1.txt"}`,
		`{"q": "Q6", "sol": "/etc/passwd"}`,
	}
	files := map[string][]byte{
		"data/in.jsonl":    []byte(strings.Join(lines, "\n")),
		"data/sol/1.txt":   []byte("\xef\xbb\xbfOne, by induction."),
		"shared/2.txt":     []byte("Two."),
		"data/sol/big.txt": bytes.Repeat([]byte("x"), 300),
	}
	cfg := setupTree(t, files, `    - name: s
      paths: [data/in.jsonl]
      max_reject_share: 0.6
      fields: {statement: q}
      files: {solution: sol}
`)
	probs, rejs, err := runShards(t, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	sols := map[string]string{}
	for _, p := range probs {
		sols[p.Statement] = p.Solution
	}
	if len(sols) != 3 || sols["Q1"] != "One, by induction." || sols["Q2"] != "Two." || sols["Q5"] != "One, by induction." {
		t.Errorf("solutions %q", sols)
	}
	want := []struct {
		line   int64
		reason string
		detail string
	}{
		{3, dataset.ReasonMissingFile, "side file sol/missing.txt"},
		{4, dataset.ReasonOversize, "side file sol/big.txt: 300 bytes > max_text_bytes 200"},
		{6, dataset.ReasonMissingFile, `side-file path "/etc/passwd" is not relative to the input file`},
	}
	sort.Slice(rejs, func(i, j int) bool { return rejs[i].Line < rejs[j].Line })
	if len(rejs) != len(want) {
		t.Fatalf("rejects %+v", rejs)
	}
	for i, w := range want {
		if r := rejs[i]; r.Line != w.line || r.Reason != w.reason || r.Field != "sol" || !strings.Contains(r.Detail, w.detail) {
			t.Errorf("reject %d: %+v, want line %d %s %q", i, r, w.line, w.reason, w.detail)
		}
	}

	ctx := context.Background()
	root, _ := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	one := shard.Spec{Index: 0, Count: 1}
	// The map shard read the side files: its manifest records them.
	m, err := layout.ReadDone(ctx, root, layout.DoneKey(cfg.Run, dataset.IngestRows.Name, one))
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, o := range m.Inputs {
		uris = append(uris, strings.TrimPrefix(o.URI, cfg.Dir()+"/"))
	}
	if strings.Join(uris, ",") != "data/in.jsonl,data/sol/1.txt,shared/2.txt" {
		t.Errorf("inputs %v; want the side files read and the input", uris)
	}
	if err := os.WriteFile(filepath.Join(cfg.Dir(), "shared/2.txt"), []byte("Two, changed."), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	var stale *stage.StaleError
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), "shared/2.txt changed") {
		t.Errorf("changed side file: %v; want a stale error naming it", err)
	}
	// The field naming side files must be in some row, as any mapped field.
	cfg = setupTree(t, files, "    - {name: s, paths: [data/in.jsonl], fields: {statement: q}, files: {solution: soll}}\n")
	if _, _, err = runShards(t, cfg, 1); err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), `ingest.sources[0].files.solution is "soll", but no row of its files has that field`) {
		t.Errorf("typo in files: %v", err)
	}
}

// TestParquetShapes: the same field map reaches Parquet: dotted columns
// of a struct, a LIST column of strings joined or exploded, numbers as
// text, where: and a template over columns.
func TestParquetShapes(t *testing.T) {
	type meta struct {
		Kind string `parquet:"kind"`
	}
	type row struct {
		ID        int64    `parquet:"id"`
		Problem   string   `parquet:"problem"`
		Solutions []string `parquet:"solutions,list"`
		Answer    string   `parquet:"answer,optional"`
		Meta      meta     `parquet:"meta"`
		Year      int32    `parquet:"year"`
	}
	rows := []row{
		{1, "P1", []string{"a", "b"}, "4", meta{"calc"}, 2001},
		{2, "P2", []string{"c"}, "proof", meta{"calc"}, 2002},
		{3, "P3", nil, "5", meta{"calc"}, 2003},
		{4, "P4", []string{"d"}, "6", meta{"proof"}, 2004},
	}
	var pq bytes.Buffer
	if err := parquet.Write(&pq, rows); err != nil {
		t.Fatal(err)
	}
	src := `    - name: p
      paths: [in.parquet]
      id_prefix: "p/"
      fields: {id: id, statement: problem, solution: solutions, subject: year}
      template: {origin: "{meta.kind}-{answer}"}
      where: [{field: answer, not_in: [proof, notfound]}, {field: meta.kind, is: calc}, {field: solutions, not: []}]
`
	cfg := setup(t, map[string][]byte{"in.parquet": pq.Bytes()}, src)
	probs, rejs, err := runShards(t, cfg, 1)
	if err != nil || len(rejs) != 0 || len(probs) != 1 {
		t.Fatalf("%+v, %+v, %v", probs, rejs, err)
	}
	if p := probs[0]; p.ID != "p/1" || p.Solution != "a\n\nb" || p.Subject != "2001" || p.Origin != "calc-4" {
		t.Errorf("%+v", p)
	}
	if st := summedStats(t, cfg); st["source_p_filtered"] != 3 || st["source_p_accepted"] != 1 {
		t.Errorf("stats %v", st)
	}
	cfg = setup(t, map[string][]byte{"in.parquet": pq.Bytes()}, src+"      lists: {solution: explode}\n")
	probs, _, err = runShards(t, cfg, 1)
	if err != nil || ids(probs) != "p/1#1,p/1#2" {
		t.Errorf("explode: %v, %v", ids(probs), err)
	}
	// A list where one value is wanted is an error naming the column.
	cfg = setup(t, map[string][]byte{"in.parquet": pq.Bytes()}, "    - {name: p, paths: [in.parquet], fields: {id: solutions, statement: problem, solution: answer}}\n")
	if _, _, err = runShards(t, cfg, 1); err == nil || !strings.Contains(err.Error(), `column "solutions" (field id) is a list, want one value`) {
		t.Errorf("list id: %v", err)
	}
	// A struct column where a value is wanted names the columns to pick.
	cfg = setup(t, map[string][]byte{"in.parquet": pq.Bytes()}, "    - {name: p, paths: [in.parquet], fields: {statement: problem, solution: answer, subject: meta}}\n")
	if _, _, err = runShards(t, cfg, 1); err == nil || !strings.Contains(err.Error(), `column "meta" (field subject) is a group (a struct, or a list of structs or lists), want a string or a list of strings; name one of its columns: id, problem, solutions.list.element, answer, meta.kind, year`) {
		t.Errorf("struct column: %v", err)
	}
}

// TestSideURI: a side file's path resolves against its input's folder,
// locally by the file system's rules and on S3 within the bucket.
func TestSideURI(t *testing.T) {
	tests := []struct {
		in, rel, want string
		ok            bool
	}{
		{"/data/in.jsonl", "sol/1.txt", "/data/sol/1.txt", true},
		{"/data/json/in.jsonl", "../sol/1.txt", "/data/sol/1.txt", true},
		{"file:///data/in.jsonl", "1.txt", "/data/1.txt", true},
		{"s3://b/corpus/json/in.json", "../sol/1.txt", "s3://b/corpus/sol/1.txt", true},
		{"s3://b/in.json", "sol/./1.txt", "s3://b/sol/1.txt", true},
		{"s3://b/in.json", "../other/1.txt", "", false},
	}
	for _, tt := range tests {
		if got, ok := sideURI(tt.in, tt.rel); got != tt.want || ok != tt.ok {
			t.Errorf("sideURI(%q, %q) = %q, %v; want %q, %v", tt.in, tt.rel, got, ok, tt.want, tt.ok)
		}
	}
}

// TestMatches: condition values compare as text; [] matches only an
// empty list; an absent or unreadable value matches nothing.
func TestMatches(t *testing.T) {
	tests := []struct {
		row  string
		want any
		is   bool
	}{
		{`{"a": "NONE"}`, "NONE", true},
		{`{"a": "none"}`, "NONE", false},
		{`{"a": 0}`, 0, true},
		{`{"a": "0"}`, 0, true},
		{`{"a": 1.5}`, 1.5, true},
		{`{"a": true}`, true, true},
		{`{"a": ""}`, "", true},
		{`{"a": []}`, []any{}, true},
		{`{"a": []}`, "", true}, // an empty list's joined text is empty
		{`{"a": ["x"]}`, []any{}, false},
		{`{"a": ["NONE"]}`, "NONE", true},
		{`{"a": null}`, "", false},
		{`{}`, "", false},
		{`{"a": {"b": 1}}`, "", false},
	}
	for _, tt := range tests {
		rec := parseJSONLine(1, []byte(tt.row), map[string]string{refKey("a"): "a"}, nil)
		if got := matches(rec.vals[refKey("a")], tt.want, false); got != tt.is {
			t.Errorf("%s against %#v: %v, want %v", tt.row, tt.want, got, tt.is)
		}
	}
}
