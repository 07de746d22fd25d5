package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// scanRowCases are lines a real corpus holds, and lines that are almost
// JSON: each must get json.Valid's verdict from scanRow.
var scanRowCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":-0.5e+10,"b":[1,2,{"c":null}],"d":true,"e":false}`,
	`{"problem":"Find $\\frac{1}{2}$","solution":"\\boxed{3}","level":"Level 5"}`,
	`{"s":"é \u00e9 \ud83d\ude00","t":"tab\there"}`, `{"k":"\ud800"}`, `{"a":"x","a":"y"}`,
	`[1,2,3]`, `"just a string"`, `42`, `null`, `true`, `-`, `01`, `1.`, `1e`, `.5`, `-01`, `1.5E-3`,
	`{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1`, `{"a":"unterminated}`, `{"a":"bad \x escape"}`,
	`{"a":"\u12"}`, `{"a":"\u12G4"}`, "{\"a\":\"raw\ttab\"}", "{\"a\":\"raw\nnewline\"}",
	"{\"a\":\"\x7f del\"}", "{\"a\":\"\xff bad utf8\"}", `{"a":[}`, `{"a":[1,]}`, `{"a":[1 2]}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":falsey}`, `{"a":{"b":{"c":[[[]]]}}}`, `{"a":1} {"b":2}`,
	`{"a":1}x`, `{"":""}`, `{"a\"b":"c\\"}`, "{\"a\":1}\r", "\t{\"a\":1}\n", `{"a":"\/"}`,
	`[]`, `[ ]`, `{"a":-}`, `{"a":- 1}`, `{"a":1e+}`, `{"a":0.0e0}`, `{"a":00}`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
}

// TestScanRowAgreesWithValid: scanRow's verdict is json.Valid's, its
// members are the object's members in order, and its flags say what the
// slow checks would find.
func TestScanRowAgreesWithValid(t *testing.T) {
	for _, c := range scanRowCases {
		checkScanRow(t, []byte(c))
	}
}

// TestScanRowMutations holds scanRow to json.Valid on thousands of
// damaged rows: real rows (MATH's when present, generated ones otherwise)
// with bytes deleted, inserted, replaced or cut off, chosen from the bytes
// that matter to JSON's grammar.
func TestScanRowMutations(t *testing.T) {
	rows := [][]byte{
		[]byte(`{"id":"x1","problem":"If $x^2 = 4$, find \\(x\\).","solution":["$x=2$","or $x=-2$"],"answer":2,"meta":{"level":"Level 3","tags":[]}}`),
		[]byte(`{"q":"Caf\u00e9 \"quoted\" é","a":-1.25e-3,"ok":true,"none":null}`),
	}
	if f, err := os.Open("../../../shared/data/math/MATH_test.jsonl"); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for i := 0; i < 40 && sc.Scan(); i++ {
			rows = append(rows, append([]byte(nil), sc.Bytes()...))
		}
		f.Close()
	}
	const alphabet = "{}[]\",:\\ufnrt0123456789-+.eE \t\n\x00\x1f\x7f\xc3\xa9\xff"
	rng := rand.New(rand.NewPCG(7, 11))
	cases := 0
	for _, row := range rows {
		checkScanRow(t, row)
		for k := 0; k < 300; k++ {
			b := append([]byte(nil), row...)
			for m := 1 + rng.IntN(3); m > 0 && len(b) > 0; m-- {
				i := rng.IntN(len(b))
				c := alphabet[rng.IntN(len(alphabet))]
				switch rng.IntN(4) {
				case 0:
					b = append(b[:i], b[i+1:]...)
				case 1:
					b = append(b[:i], append([]byte{c}, b[i:]...)...)
				case 2:
					b[i] = c
				case 3:
					b = b[:i]
				}
			}
			checkScanRow(t, b)
			cases++
		}
	}
	if cases < 600 {
		t.Fatalf("only %d mutated rows", cases)
	}
}

// FuzzScanRow: go test -fuzz FuzzScanRow ./jobs/ingest explores further.
func FuzzScanRow(f *testing.F) {
	for _, c := range scanRowCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkScanRow(t, b) })
}

func checkScanRow(t *testing.T, b []byte) {
	t.Helper()
	members, ok := scanRow(b, nil)
	if want := json.Valid(b); ok != want {
		t.Fatalf("scanRow(%q) ok = %v, json.Valid = %v", b, ok, want)
	}
	if !ok {
		return
	}
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if trimmed[0] != '{' {
		if len(members) != 0 {
			t.Fatalf("scanRow(%q) gave members of a non-object", b)
		}
		return
	}
	want := objectMembers(bytes.TrimRight(trimmed, " \t\r\n"))
	if len(members) != len(want) {
		t.Fatalf("scanRow(%q): %d members, want %d", b, len(members), len(want))
	}
	for i, m := range members {
		if !bytes.Equal(m.key, want[i].key) || !bytes.Equal(m.val, want[i].val) {
			t.Fatalf("scanRow(%q) member %d = %q:%q, want %q:%q", b, i, m.key, m.val, want[i].key, want[i].val)
		}
		if isStr := m.val[0] == '"'; isStr != (m.flags&fString != 0) {
			t.Fatalf("member %q: string flag %v", m.val, !isStr)
		}
		if m.flags&fString == 0 {
			continue
		}
		if esc := bytes.IndexByte(m.val, '\\') >= 0; esc != (m.flags&fEscape != 0) {
			t.Fatalf("member %q: escape flag %v, want %v", m.val, !esc, esc)
		}
		if u := bytes.Contains(m.val, []byte(`\u`)); !u && m.flags&fUEscape != 0 {
			t.Fatalf("member %q: \\u flag without a \\u", m.val)
		}
		if ascii := !bytes.ContainsFunc(m.val, func(r rune) bool { return r >= utf8.RuneSelf }); ascii == (m.flags&fNonASCII != 0) {
			t.Fatalf("member %q: non-ASCII flag %v", m.val, !ascii)
		}
		// The fast path reads a string as the careful one does.
		if got, want := memberValue("f", m, nil), jsonValue("f", m.val, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("member %q: memberValue %+v, jsonValue %+v", m.val, got, want)
		}
	}
}
