package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// good is a row every test file may hold; goodRows makes n of them.
func goodRows(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"uid": "g%d", "statement": "Find x%d.", "solution": "x = %d."}`+"\n", i, i, i)
	}
	return b.String()
}

// TestDamagedRows: each damaged line is one reject with its reason, on its
// line, and the good rows around it are all kept.
func TestDamagedRows(t *testing.T) {
	tests := []struct {
		name, line    string
		reason, field string
		detail        string // in the reject's detail
	}{
		{"null line", `null`, dataset.ReasonNotObject, "", "a JSON null, not an object"},
		{"array line", `[1, 2]`, dataset.ReasonNotObject, "", "a JSON array"},
		{"string line", `"just text"`, dataset.ReasonNotObject, "", "a JSON string"},
		{"number line", `42`, dataset.ReasonNotObject, "", "a JSON number"},
		{"lone high surrogate, lower case", `{"uid": "s1", "statement": "a \ud800 b", "solution": "s"}`, dataset.ReasonInvalidUTF8, "statement", `lone surrogate escape \ud800`},
		{"lone high surrogate, upper case", `{"uid": "s2", "statement": "a \uD800 b", "solution": "s"}`, dataset.ReasonInvalidUTF8, "statement", `lone surrogate escape \uD800`},
		{"lone low surrogate", `{"uid": "s3", "statement": "ok", "solution": "\uDC00"}`, dataset.ReasonInvalidUTF8, "solution", `\uDC00`},
		{"high surrogate then a non-low one", `{"uid": "s4", "statement": "\uD83D\u0041", "solution": "s"}`, dataset.ReasonInvalidUTF8, "statement", `\uD83D`},
		{"surrogate in the id", `{"uid": "\udfff", "statement": "ok", "solution": "s"}`, dataset.ReasonInvalidUTF8, "uid", ""},
		{"duplicate key", `{"uid": "d1", "statement": "A.", "statement": "B.", "solution": "s"}`, dataset.ReasonDuplicateKey, "statement", `"statement" appears more than once`},
		{"duplicate key spelt with an escape", `{"uid": "d2", "statement": "A.", "solution": "s", "solu\u0074ion": "t"}`, dataset.ReasonDuplicateKey, "solution", ""},
		{"duplicate unmapped key", `{"uid": "d3", "statement": "A.", "solution": "s", "x": 1, "x": 2}`, dataset.ReasonDuplicateKey, "x", ""},
		{"NUL in the statement", `{"uid": "c1", "statement": "a\u0000b", "solution": "s"}`, dataset.ReasonControlChar, "statement", "NUL (U+0000) at byte 1"},
		{"form feed in the solution", `{"uid": "c2", "statement": "ok", "solution": "\frac{1}{2}"}`, dataset.ReasonControlChar, "solution", "form feed"},
		{"escape in the statement", `{"uid": "c3", "statement": "\u001b[31m", "solution": "s"}`, dataset.ReasonControlChar, "statement", "U+001B"},
		{"C1 control in the statement", `{"uid": "c4", "statement": "a\u0085b", "solution": "s"}`, dataset.ReasonControlChar, "statement", "U+0085"},
		{"tab in the id", `{"uid": "c5\t", "statement": "ok", "solution": "s"}`, dataset.ReasonControlChar, "uid", "tab"},
		{"NUL in the id", `{"uid": "c\u00006", "statement": "ok", "solution": "s"}`, dataset.ReasonControlChar, "uid", "NUL"},
		{"raw NUL byte", "{\"uid\": \"c7\", \"statement\": \"a\x00b\", \"solution\": \"s\"}", dataset.ReasonMalformed, "", ""},
		{"boolean as id", `{"uid": true, "statement": "ok", "solution": "s"}`, dataset.ReasonWrongType, "uid", "boolean"},
		{"list of lists as solution", `{"uid": "w3", "statement": "ok", "solution": [["a"]]}`, dataset.ReasonWrongType, "solution", "array of arrays"},
		{"list with a lone surrogate", `{"uid": "w4", "statement": "ok", "solution": ["a", "\udc00"]}`, dataset.ReasonInvalidUTF8, "solution", "lone surrogate"},
		{"empty list as solution", `{"uid": "w5", "statement": "ok", "solution": []}`, dataset.ReasonEmpty, "solution", ""},
		{"object as id", `{"uid": {"n": 1}, "statement": "ok", "solution": "s"}`, dataset.ReasonWrongType, "uid", "object"},
		{"null statement", `{"uid": "n1", "statement": null, "solution": "s"}`, dataset.ReasonMissingField, "statement", ""},
		{"truncated object", `{"uid": "t1", "statement": "ok", "sol`, dataset.ReasonMalformed, "", "unexpected end"},
		{"two objects on a line", `{"uid": "t2", "statement": "a", "solution": "b"} {"uid": "t3"}`, dataset.ReasonMalformed, "", ""},
		{"bad UTF-8 outside strings", "{\"uid\": \"u1\", \"statement\": \"ok\", \"solution\": \"s\"}\xff", dataset.ReasonInvalidUTF8, "", "line is not valid UTF-8"},
		// JSON's white space is space, tab, LF and CR only: a Unicode
		// space (NBSP, VT, an ideographic space) around the object is junk
		// in the line, as encoding/json says, not white space to trim.
		{"NBSP after the object", `{"uid": "j1", "statement": "ok", "solution": "s"}` + "\u00a0", dataset.ReasonMalformed, "", "after top-level value"},
		{"VT after the object", `{"uid": "j2", "statement": "ok", "solution": "s"}` + "\v", dataset.ReasonMalformed, "", `invalid character '\v' after top-level value`},
		{"ideographic space after the object", `{"uid": "j3", "statement": "ok", "solution": "s"}` + "\u3000", dataset.ReasonMalformed, "", "after top-level value"},
		{"NBSP before the object", "\u00a0" + `{"uid": "j4", "statement": "ok", "solution": "s"}`, dataset.ReasonMalformed, "", "looking for beginning of value"},
		{"a line of NBSP only", "\u00a0\u00a0", dataset.ReasonMalformed, "", "looking for beginning of value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := goodRows(2) + tt.line + "\n" + goodRows(3)[len(goodRows(2)):] // good rows g0, g1, <line>, g2
			probs, rejs, err := runShards(t, setup(t, map[string][]byte{"in.jsonl": []byte(body)}, plainSource), 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(probs) != 3 {
				t.Errorf("%d problems, want the 3 good rows: %+v", len(probs), probs)
			}
			if len(rejs) != 1 {
				t.Fatalf("rejects %+v, want one", rejs)
			}
			r := rejs[0]
			if r.Line != 3 || r.Reason != tt.reason || r.Field != tt.field || !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("reject %+v, want line 3 reason %s field %q detail with %q", r, tt.reason, tt.field, tt.detail)
			}
			// A row rejected for a duplicate key still names its id, so
			// that it can be found in the source by id.
			if m := regexp.MustCompile(`^\{"uid": "(d[0-9])"`).FindStringSubmatch(tt.line); tt.reason == dataset.ReasonDuplicateKey && m != nil && r.ID != m[1] {
				t.Errorf("duplicate-key reject has id %q, want %q", r.ID, m[1])
			}
		})
	}
}

// TestGoodRowsKept: what looks odd but is valid stays a row, with its text
// as encoding/json decodes it.
func TestGoodRowsKept(t *testing.T) {
	tests := []struct{ name, line, statement string }{
		{"surrogate pair, mixed case", `{"uid": "k1", "statement": "smile \uD83D\ude00", "solution": "s"}`, "smile 😀"},
		{"escaped backslash before u", `{"uid": "k2", "statement": "\\ud800 is text", "solution": "s"}`, `\ud800 is text`},
		{"replacement character as such", `{"uid": "k3", "statement": "� and \ud83d\ude00", "solution": "s"}`, "� and 😀"},
		{"line breaks and tabs in text", `{"uid": "k4", "statement": "a\n\tb\r\nc", "solution": "s"}`, "a\n\tb\r\nc"},
		{"nested object with equal keys", `{"uid": "k5", "statement": "n", "solution": "s", "meta": {"a": 1, "b": {"a": [1, {"a": 2}]}}}`, "n"},
		{"braces and quotes in strings", `{"uid": "k6", "statement": "{\"a\": [}", "solution": "s", "x": "]}"}`, `{"a": [}`},
		{"CRLF line ending", "{\"uid\": \"k7\", \"statement\": \"crlf\", \"solution\": \"s\"}\r", "crlf"},
		{"bare CR as white space before a nested object", "{\"uid\": \"k10\", \"statement\": \"cr\", \"solution\": \"s\", \"meta\":\r{\"a\": 1}}", "cr"},
		{"spaces everywhere", ` { "uid" : "k8" , "statement" : "sp" , "solution" : "s" } `, "sp"},
		{"byte-order mark", "\xef\xbb\xbf{\"uid\": \"k9\", \"statement\": \"bom\", \"solution\": \"s\"}", "bom"},
		// Two unmapped keys with different bad bytes are two keys, not a
		// duplicate (decoded, both would be U+FFFD).
		{"two unmapped keys of bad bytes", "{\"uid\": \"k11\", \"statement\": \"bad keys\", \"solution\": \"s\", \"\xff\": 1, \"\xfe\": 2}", "bad keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.line + "\n" + goodRows(1) // first, where the file's shape is judged too
			probs, rejs, err := runShards(t, setup(t, map[string][]byte{"in.jsonl": []byte(body)}, plainSource), 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(rejs) != 0 || len(probs) != 2 {
				t.Fatalf("problems %+v, rejects %+v; want both rows", probs, rejs)
			}
			var got []string
			for _, p := range probs {
				got = append(got, p.Statement)
			}
			if !strings.Contains(strings.Join(got, "|"), tt.statement) {
				t.Errorf("statements %q, want %q among them", got, tt.statement)
			}
		})
	}
}

// TestByteOrderMark: a UTF-8 BOM opening a file, or a part of one made by
// concatenating such files, is not part of the row it precedes (plain and
// compressed).
func TestByteOrderMark(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	body := bom + goodRows(3) + bom + strings.ReplaceAll(goodRows(2), `"g`, `"h`)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(bom + strings.ReplaceAll(goodRows(3), `"g`, `"z`)))
	zw.Close()
	src := "    - {name: b, paths: [in.jsonl, in.jsonl.gz], fields: {id: uid}}\n"
	probs, rejs, err := runShards(t, setup(t, map[string][]byte{"in.jsonl": []byte(body), "in.jsonl.gz": gz.Bytes()}, src), 1)
	if err != nil || len(probs) != 8 || len(rejs) != 0 {
		t.Fatalf("%d problems, rejects %+v, err %v; want all 8 rows", len(probs), rejs, err)
	}
}

// TestFileLevelDamage: a file that is not JSON lines at all, a field map
// naming a field no row has, and paths that name folders stop ingest with
// exit 2 and a message that says what is wrong, not a reject per line.
func TestFileLevelDamage(t *testing.T) {
	array := `[{"uid": "a", "statement": "s", "solution": "t"},` + "\n" + `{"uid": "b", "statement": "s", "solution": "t"}]`
	tests := []struct {
		name   string
		files  map[string][]byte
		source string
		want   []string
	}{
		{"JSON array forced to JSON lines", map[string][]byte{"in.json": []byte(array)},
			"{name: s, paths: [in.json], format: jsonl}", []string{"in.json: a JSON array, but format: jsonl is set", "set format: json"}},
		{"JSON lines forced to a JSON array", map[string][]byte{"in.json": []byte(goodRows(2))},
			"{name: s, paths: [in.json], format: json}", []string{"in.json: format: json is set, but the file does not start with '['"}},
		{"JSON array truncated inside an element", map[string][]byte{"in.json": []byte(array[:40])},
			"{name: s, paths: [in.json]}", []string{"in.json: JSON array at byte 40: the file ends inside element 1"}},
		{"JSON array without its closing bracket", map[string][]byte{"in.json": []byte(array[:len(array)-1])},
			"{name: s, paths: [in.json]}", []string{"ends after element 2 without its closing ']'"}},
		{"JSON array with a missing comma", map[string][]byte{"in.json": []byte(strings.Replace(array, ",\n", "\n", 1))},
			"{name: s, paths: [in.json]}", []string{`'{' after element 1, want ',' or ']'`}},
		{"JSON array with a trailing comma", map[string][]byte{"in.json": []byte(strings.TrimSuffix(array, "]") + ",]")},
			"{name: s, paths: [in.json]}", []string{`']' where element 3 should be`}},
		{"JSON array followed by more", map[string][]byte{"in.json": []byte(array + "\n" + array)},
			"{name: s, paths: [in.json]}", []string{"after the array's closing ']'; a file holds one array"}},
		{"empty JSON array", map[string][]byte{"in.json": []byte(" [ ]\n")},
			"{name: s, paths: [in.json]}", []string{"in.json: no rows"}},
		{"pretty-printed document", map[string][]byte{"in.json": []byte("{\n  \"statement\": \"s\",\n  \"solution\": \"t\"\n}\n")},
			"{name: s, paths: [in.json]}", []string{"in.json: a JSON document spread over several lines"}},
		{"CR-only line endings", map[string][]byte{"in.jsonl": []byte(strings.ReplaceAll(goodRows(3), "\n", "\r"))},
			"{name: s, paths: [in.jsonl], fields: {id: uid}}", []string{"in.jsonl: lines end in a carriage return only"}},
		{"CR-only line endings, longer than a line may be", map[string][]byte{"in.jsonl": []byte(strings.ReplaceAll(goodRows(50), "\n", "\r"))},
			"{name: s, paths: [in.jsonl], fields: {id: uid}}", []string{"in.jsonl: lines end in a carriage return only"}},
		{"UTF-16", map[string][]byte{"in.jsonl": append([]byte{0xff, 0xfe}, utf16le(goodRows(2))...)},
			"{name: s, paths: [in.jsonl]}", []string{"in.jsonl: UTF-16 text", "iconv"}},
		{"gzip not named .gz", map[string][]byte{"in.jsonl": gzipped(goodRows(2))},
			"{name: s, paths: [in.jsonl]}", []string{"in.jsonl: gzip data in a file whose name does not end in .gz"}},
		{"typo in the id field", map[string][]byte{"in.jsonl": []byte(goodRows(3))},
			"{name: s, paths: [in.jsonl], fields: {id: unique_idd}}", []string{`source s: ingest.sources[0].fields.id is "unique_idd", but no row of its files has that field; fields seen: solution, statement, uid`}},
		{"typo in the statement field", map[string][]byte{"in.jsonl": []byte(goodRows(3))},
			"{name: s, paths: [in.jsonl], fields: {id: uid, statement: problem}}", []string{`fields.statement is "problem"`, "fields seen: solution, statement, uid"}},
		{"typo in an optional field", map[string][]byte{"in.jsonl": []byte(goodRows(3))},
			"{name: s, paths: [in.jsonl], fields: {id: uid, subject: typ}}", []string{`fields.subject is "typ"`}},
		{"empty folder", map[string][]byte{"d/": nil},
			"{name: s, paths: [d]}", []string{`"d" matched no files`, "is a folder with no files under it"}},
		{"folder named like a file", map[string][]byte{"in.jsonl/": nil},
			"{name: s, paths: [in.jsonl]}", []string{`"in.jsonl" matched no files`, "is a folder with no files under it"}},
		{"pattern that matches only folders", map[string][]byte{"a.jsonl/": nil, "b.jsonl/": nil},
			"{name: s, paths: [\"*.jsonl\"]}", []string{"matches only folders", "a.jsonl", "b.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := setupTree(t, tt.files, "    - "+tt.source+"\n")
			_, _, err := runShards(t, cfg, 1)
			if err == nil || stage.ExitCode(err) != stage.ExitBadInput {
				t.Fatalf("err = %v (exit %d), want exit 2", err, stage.ExitCode(err))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant %q in it", err, w)
				}
			}
		})
	}
}

// TestUnreadableFolder: a folder ingest may not list says so, with exit 2.
func TestUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	cfg := setupTree(t, map[string][]byte{"d/in.jsonl": []byte(goodRows(1))}, "    - {name: s, paths: [d]}\n")
	d := filepath.Join(cfg.Dir(), "d")
	if err := os.Chmod(d, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(d, 0o755)
	_, _, err := runShards(t, cfg, 1)
	if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("err = %v (exit %d), want exit 2 and permission denied", err, stage.ExitCode(err))
	}
}

// setupTree is setup for files in folders; a name ending in / is an
// empty folder.
func setupTree(t *testing.T, files map[string][]byte, sources string) *config.Config {
	t.Helper()
	flat := map[string][]byte{}
	cfg := setup(t, flat, sources)
	for name, body := range files {
		p := filepath.Join(cfg.Dir(), name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

func utf16le(s string) []byte {
	var out []byte
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// TestRejectShare: a source from which no row is accepted, or more than
// max_reject_share of rows are rejected, stops ingest (exit 2) in every
// shard, naming the source and its commonest reject reason; at or below
// the share the run goes on. The verdict is the whole source's, whatever
// the shard count.
func TestRejectShare(t *testing.T) {
	bad := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `{"uid": "b%d", "statement": "Find y.", "solution": ""}`+"\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name   string
		body   string
		extra  string // appended to the source
		shards int
		want   []string // in the error; none: the run succeeds
	}{
		{"no row accepted", bad(3), "", 1, []string{"source plain: no row accepted, all 3 rejected", "commonest reason empty_field (3 rows), e.g. in.jsonl:1 field solution"}},
		{"no row accepted, 3 shards", bad(3), "", 3, []string{"source plain: no row accepted"}},
		{"6 of 10 rejected", goodRows(4) + bad(6), "", 2, []string{"source plain: 6 of 10 rows rejected (60.0%, over max_reject_share 0.5)", "empty_field", "raise ingest.max_reject_share"}},
		{"5 of 10 rejected", goodRows(5) + bad(5), "", 3, nil},
		{"6 of 10 under the source's own share", goodRows(4) + bad(6), "      max_reject_share: 0.7\n", 2, nil},
		{"excluded rows do not count", goodRows(6) + bad(3), "", 1, nil}, // 3 of 7 rejected once 2 are excluded (below); 5 of 9 if they counted
		{"all malformed", "{\"a\"\n{\"b\": \n", "", 1, []string{"no row accepted, all 2 rejected; commonest reason malformed_json"}},
		{"duplicate ids", goodRows(2) + goodRows(2) + goodRows(2), "", 1, []string{"commonest reason duplicate_id (4 rows)", "id_prefix"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := plainSource + tt.extra
			cfg := setup(t, map[string][]byte{"in.jsonl": []byte(tt.body)}, src)
			if strings.HasPrefix(tt.name, "excluded") {
				Section.Of(cfg).Exclude = []string{"g0", "g1"}
			}
			_, _, err := runShards(t, cfg, tt.shards)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || stage.ExitCode(err) != stage.ExitBadInput {
				t.Fatalf("err = %v (exit %d), want exit 2", err, stage.ExitCode(err))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant %q in it", err, w)
				}
			}
		})
	}
	// The map shards stage their rows; the reduce, which sees the whole
	// source, refuses it, and no problems manifest is written.
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(goodRows(4) + bad(6))}, plainSource)
	ctx := context.Background()
	root, _ := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	for i := 0; i < 3; i++ {
		spec := shard.Spec{Index: i, Count: 3}
		if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], spec, root, zerolog.Nop(), stage.Options{}); err != nil {
			t.Fatalf("map shard %s: %v", spec, err)
		}
	}
	one := shard.Spec{Index: 0, Count: 1}
	_, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[1], one, root, zerolog.Nop(), stage.Options{})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "source plain: 6 of 10 rows rejected") {
		t.Errorf("reduce: %v, want exit 2 naming the source", err)
	}
	if _, err := layout.ReadDone(ctx, root, layout.DoneKey(cfg.Run, "problems", one)); err == nil {
		t.Errorf("the reduce of a broken source wrote a manifest")
	}
}

// TestStatsAddUp: the stats of problems' manifests sum to the input's true
// counts for any shard count (saber stats adds them up); the reduce, which
// writes problems as one part, counts them all.
func TestStatsAddUp(t *testing.T) {
	var b strings.Builder
	b.WriteString(goodRows(20))
	b.WriteString(goodRows(3))                                              // 3 duplicate ids
	b.WriteString(`{"uid": "e1", "statement": "", "solution": "s"}` + "\n") // empty
	b.WriteString("{broken\n")                                              // malformed
	b.WriteString(`null` + "\n")                                            // not an object
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(n, " shards"), func(t *testing.T) {
			cfg := setup(t, map[string][]byte{"in.jsonl": []byte(b.String())}, plainSource)
			probs, rejs, err := runShards(t, cfg, n)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			root, _ := store.Open(ctx, cfg.RootURI(), cfg.Storage)
			ms, err := layout.Complete(ctx, root, cfg.Run, "problems")
			if err != nil || len(ms) != 1 {
				t.Fatalf("%d manifests, %v", len(ms), err)
			}
			sum := map[string]int64{}
			for _, m := range ms {
				for k, v := range m.Stats {
					sum[k] += v
				}
			}
			want := map[string]int64{
				"rows_read": 26, "problems_total": 20, "rejected_duplicate_id": 3,
				"rejected_empty_field": 1, "rejected_malformed_json": 1, "rejected_not_object": 1,
			}
			if len(probs) != 20 || len(rejs) != 6 {
				t.Fatalf("%d problems, %d rejects", len(probs), len(rejs))
			}
			for k, v := range want {
				if sum[k] != v {
					t.Errorf("%s summed over %d shards = %d, want %d (all: %v)", k, n, sum[k], v, sum)
				}
			}
		})
	}
}

// TestOversizeLine: a line far longer than max_line_bytes, in a gzip,
// zstd or plain file, is one oversize reject on its line; the rows around
// it are kept, and memory stays bounded by the limit, not the line: a run
// over a 64 MiB line allocates about what a run over a 1 KiB one does.
func TestOversizeLine(t *testing.T) {
	gen := func(w io.Writer, lineBytes int) {
		io.WriteString(w, goodRows(2))
		io.WriteString(w, `{"uid": "big", "statement": "`)
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for n := lineBytes; n > 0; n -= len(chunk) {
			w.Write(chunk[:min(n, len(chunk))])
		}
		io.WriteString(w, `", "solution": "s"}`+"\n")
		io.WriteString(w, goodRows(4)[len(goodRows(2)):])
	}
	file := func(name string, lineBytes int) []byte {
		var b bytes.Buffer
		switch {
		case strings.HasSuffix(name, ".gz"):
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
			gen(zw, lineBytes)
			zw.Close()
		case strings.HasSuffix(name, ".zst"):
			zw, _ := zstd.NewWriter(&b)
			gen(zw, lineBytes)
			zw.Close()
		default:
			gen(&b, lineBytes)
		}
		return b.Bytes()
	}
	// check runs ingest over body, checks its rows and rejects, and returns
	// the bytes one pass of reading the file allocates. (The whole run's
	// allocations are dominated by the zstd encoders of the Parquet
	// writers, whose pools make them vary by tens of MiB run to run.)
	check := func(t *testing.T, name string, body []byte, lineBytes int) uint64 {
		cfg := setup(t, map[string][]byte{name: body}, "    - {name: big, paths: ["+name+"], fields: {id: uid}}\n")
		probs, rejs, err := runShards(t, cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		size := lineBytes + len(`{"uid": "big", "statement": "", "solution": "s"}`)
		if len(probs) != 4 || len(rejs) != 1 || rejs[0].Line != 3 || rejs[0].Reason != dataset.ReasonOversize ||
			!strings.Contains(rejs[0].Detail, fmt.Sprintf("line of %d bytes > ingest.max_line_bytes 800", size)) {
			t.Fatalf("%d problems, rejects %+v; want 4 and one oversize reject on line 3", len(probs), rejs)
		}
		ctx := context.Background()
		ins, err := expand(ctx, cfg, &Section.Of(cfg).Sources[0], zerolog.Nop(), nil)
		if err != nil {
			t.Fatal(err)
		}
		env := &stage.Env{Log: zerolog.Nop()}
		prog := env.Progress("bytes", 0)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rows := 0
		if _, err := scan(ctx, ins[0], span{whole: true}, Section.Of(cfg).MaxLineBytes, prog, func(record) error { rows++; return nil }); err != nil || rows != 5 {
			t.Fatalf("scan: %d rows, %v", rows, err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	const big = 64 << 20
	for _, name := range []string{"big.jsonl.gz", "big.jsonl.zst", "big.jsonl"} {
		t.Run(name, func(t *testing.T) {
			small := check(t, name, file(name, 1<<10), 1<<10)
			large := check(t, name, file(name, big), big)
			// Reading the line whole would allocate its 64 MiB at least
			// (bufio.ReadBytes: about twice that); skipping it, nothing
			// but, for zstd, the frame's window (8 MiB at the default level).
			if large > small+16<<20 {
				t.Errorf("reading allocated %d KiB over a 64 MiB line, %d KiB over a 1 KiB one; want the line skipped, not held", large>>10, small>>10)
			}
			t.Logf("reading allocated %d KiB over a 64 MiB line, %d KiB over a 1 KiB one", large>>10, small>>10)
		})
	}
}

// FuzzParseJSONLine: no line makes the parser panic, every line is a row
// or a reject, and a row's fields are what encoding/json reads, or are
// flagged when it would have read them wrong.
func FuzzParseJSONLine(f *testing.F) {
	for _, s := range []string{
		`{"uid": "a", "statement": "s", "solution": "t"}`, `null`, `[1]`, `{"statement": "\ud800"}`,
		`{"statement": "a", "statement": "b"}`, `{"solution": "\\\"", "x": {"y": [1, "}"]}}`, `{"uid": 12, "statement": true}`,
		"{\"statement\": \"\xff\"}", `{"statement": "\uD83D\uDE00"}`, `{`, `{"a":1,}`, `{"":""}`,
	} {
		f.Add([]byte(s))
	}
	fields := map[string]string{"id": "uid", "statement": "statement", "solution": "solution"}
	f.Fuzz(func(t *testing.T, b []byte) {
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			return
		}
		r := parseJSONLine(1, b, fields, nil)
		if (r.reject == nil) == (r.vals == nil) {
			t.Fatalf("%q: want either a reject or fields: %+v", b, r)
		}
		if r.reject != nil {
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			t.Fatalf("%q read as a row, but encoding/json says %v", b, err)
		}
		if len(r.keys) != len(obj) {
			t.Fatalf("%q: keys %q, encoding/json has %d (a duplicate let through?)", b, r.keys, len(obj))
		}
		for field, name := range fields {
			v := r.vals[field]
			s, isString := obj[name].(string)
			if !isString || v.badUTF8 || v.badType != "" {
				continue
			}
			if v.s != s || !utf8.ValidString(v.s) {
				t.Fatalf("%q: field %s = %q, encoding/json reads %q", b, field, v.s, s)
			}
		}
	})
}

// TestParquetFieldInNoFile: a mapped optional column that no Parquet file
// of the source has is a typo (exit 2, naming the columns seen); one that
// only some files have is not.
func TestParquetFieldInNoFile(t *testing.T) {
	type withType struct {
		Problem     string `parquet:"problem"`
		Solution    string `parquet:"solution"`
		ProblemType string `parquet:"problem_type"`
	}
	type without struct {
		Problem  string `parquet:"problem"`
		Solution string `parquet:"solution"`
	}
	var a, b bytes.Buffer
	if err := parquet.Write(&a, []withType{{"P1", "S1", "Algebra"}}); err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(&b, []without{{"P2", "S2"}, {"P3", "S3"}}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"a.parquet": a.Bytes(), "b.parquet": b.Bytes()}
	src := "    - {name: n, paths: [a.parquet, b.parquet], fields: {statement: problem, subject: %s}}\n"
	probs, _, err := runShards(t, setup(t, files, fmt.Sprintf(src, "problem_type")), 1)
	if err != nil || len(probs) != 3 {
		t.Fatalf("column in one file of two: %d problems, %v", len(probs), err)
	}
	_, _, err = runShards(t, setup(t, files, fmt.Sprintf(src, "problem_typ")), 1)
	if err == nil || stage.ExitCode(err) != stage.ExitBadInput ||
		!strings.Contains(err.Error(), `fields.subject is "problem_typ", but no row of its files has that field; fields seen: problem, problem_type, solution`) {
		t.Fatalf("typo: %v (exit %d)", err, stage.ExitCode(err))
	}
}
