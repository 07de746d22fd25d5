package retrievers_test

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/retrievers"
)

// A kind's Fields are keys of Spec, so that a typo cannot silently leave a
// field unusable by the kind.
func TestKindFieldsAreSpecKeys(t *testing.T) {
	var keys []string
	st := reflect.TypeFor[retrievers.Spec]()
	for i := range st.NumField() {
		keys = append(keys, strings.Split(st.Field(i).Tag.Get("yaml"), ",")[0])
	}
	for _, k := range retrievers.Kinds() {
		if !slices.Contains(retrievers.Families, k.Family) {
			t.Errorf("kind %s: family %q is not one of %q", k.Name, k.Family, retrievers.Families)
		}
		for _, f := range k.Fields {
			if !slices.Contains(keys, f) {
				t.Errorf("kind %s: field %q is not a key of Spec", k.Name, f)
			}
		}
	}
}

// docPassage returns the text of docs/algorithms.md from the first line
// containing start to the next blank line, lines joined by spaces.
func docPassage(t *testing.T, start string) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/algorithms.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("docs/algorithms.md: no %q", start)
	}
	s = s[i:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j]
	}
	return strings.Join(strings.Fields(s), " ")
}

var backticked = regexp.MustCompile("`([a-z_]+)`")

func ticked(s string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// The docs that list the kinds say what the registry says: the kinds, their
// frontier families, which take an instruction and which rank the whole
// deduplication pool.
func TestDocsAgreeWithKinds(t *testing.T) {
	names := retrievers.KindNames()

	// "Each spec has a `kind`: `embedding` (…), `rerank` (…), … or `plugin` (…)."
	p := docPassage(t, "Each spec has a `kind`:")
	p = p[:strings.Index(p, ". HTTP calls")]
	var listed []string
	for _, m := range regexp.MustCompile("`([a-z_]+)` \\(").FindAllStringSubmatch(p, -1) {
		listed = append(listed, m[1])
	}
	if !slices.Equal(listed, names) {
		t.Errorf("docs/algorithms.md lists kinds %q, the registry has %q", listed, names)
	}

	// "Family by kind: `embedding` → bi-encoder; `rerank`, … → cross-encoder; `plugin` and … → other".
	p = docPassage(t, "Family by kind:")
	p = p[len("Family by kind:"):strings.Index(p, " (on neither")]
	doc := map[string]string{}
	for _, part := range strings.Split(p, ";") {
		kinds, family, ok := strings.Cut(part, "→")
		if !ok {
			t.Fatalf("docs/algorithms.md: family part %q has no →", part)
		}
		for _, k := range ticked(kinds) {
			doc[k] = strings.TrimSpace(family)
		}
	}
	want := map[string]string{}
	for _, k := range retrievers.Kinds() {
		want[k.Name] = k.Family
	}
	if !reflect.DeepEqual(doc, want) {
		t.Errorf("docs/algorithms.md gives families %v, the registry %v", doc, want)
	}

	// "whose kind takes an instruction (`embedding`, …; not `plugin` or the lexical baselines)".
	p = docPassage(t, "whose kind takes an instruction (")
	p = p[:strings.Index(p, ")")]
	takes, not, _ := strings.Cut(p, ";")
	var wantTakes, wantNot []string
	for _, k := range retrievers.Kinds() {
		if k.TakesInstruction {
			wantTakes = append(wantTakes, k.Name)
		} else {
			wantNot = append(wantNot, k.Name)
		}
	}
	if got := ticked(takes); !slices.Equal(got, wantTakes) {
		t.Errorf("docs/algorithms.md: kinds that take an instruction %q, the registry's %q", got, wantTakes)
	}
	if got := ticked(not); !slices.Equal(got, wantNot) {
		t.Errorf("docs/algorithms.md: kinds that take no instruction %q, the registry's %q", got, wantNot)
	}

	// "over the whole pool (bi-encoders, kind `embedding`, …; the other kinds, `rerank`, … are left out …)".
	p = docPassage(t, "over the whole pool (bi-encoders")
	p = p[:strings.Index(p, ")")]
	bi, rest, _ := strings.Cut(p, ";")
	_, others, _ := strings.Cut(rest, "the other kinds")
	var wantBi, wantOthers []string
	for _, k := range retrievers.Kinds() {
		if k.BiEncoder {
			wantBi = append(wantBi, k.Name)
		} else {
			wantOthers = append(wantOthers, k.Name)
		}
	}
	if got := ticked(bi); !slices.Equal(got, wantBi) {
		t.Errorf("docs/algorithms.md: bi-encoder kinds on the whole pool %q, the registry's %q", got, wantBi)
	}
	if got := ticked(others); !slices.Equal(got, wantOthers) {
		t.Errorf("docs/algorithms.md: kinds left out of the whole pool %q, the registry's %q", got, wantOthers)
	}
}
