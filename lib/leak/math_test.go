package leak

import (
	"bufio"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/saber-math/saber/lib/minhash"
)

// mathProblem is a MATH row (../shared/data/math, see its README).
type mathProblem struct {
	ID       string `json:"unique_id"`
	Problem  string `json:"problem"`
	Solution string `json:"solution"`
	Type     string `json:"type"`
}

// readMATH reads both MATH splits, sorted by id; the test skips when the
// data is absent (a fresh clone without ../shared).
func readMATH(t testing.TB) []mathProblem {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/data/math")
	if err != nil {
		t.Fatal(err)
	}
	var out []mathProblem
	for _, name := range []string{"MATH_train.jsonl", "MATH_test.jsonl"} {
		f, err := os.Open(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			t.Skipf("MATH data not present at %s", dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var p mathProblem
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, p)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// reword is the copy an honest rewording makes of a statement: variables
// renamed consistently (every identifier letter in math shifted by 7 in
// the alphabet), sentences reordered (the last one first) and a few
// words changed.
func reword(s string, synonym bool) string {
	var b strings.Builder
	math := ""
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case math == "" && strings.HasPrefix(s[i:], `\$`):
			b.WriteString(`\$`)
			i++
			continue
		case math == "" && c == '$':
			math = "$"
			if strings.HasPrefix(s[i:], "$$") {
				math = "$$"
				b.WriteByte('$')
				i++
			}
		case math != "" && strings.HasPrefix(s[i:], math):
			b.WriteString(math)
			i += len(math) - 1
			math = ""
			continue
		case math != "" && c == '\\' && i+1 < len(s) && isASCIILetter(s[i+1]):
			j := i + 1
			for j < len(s) && isASCIILetter(s[j]) {
				j++
			}
			b.WriteString(s[i:j])
			i = j - 1
			continue
		case math != "" && c == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
			continue
		case math != "" && c >= 'a' && c <= 'z':
			c = 'a' + (c-'a'+7)%26
		case math != "" && c >= 'A' && c <= 'Z':
			c = 'A' + (c-'A'+7)%26
		}
		b.WriteByte(c)
	}
	s = b.String()
	// Sentences: split after ". " etc. outside math, rotate the last first.
	var sents []string
	start := 0
	math = ""
	for i := 0; i < len(s); i++ {
		switch {
		case math == "" && strings.HasPrefix(s[i:], `\$`):
			i++
		case math == "" && strings.HasPrefix(s[i:], "$$"):
			math = "$$"
			i++
		case math == "" && s[i] == '$':
			math = "$"
		case math != "" && s[i] == '\\':
			i++
		case math != "" && strings.HasPrefix(s[i:], math):
			i += len(math) - 1
			math = ""
		case math == "" && (s[i] == '.' || s[i] == '?' || s[i] == '!') && i+1 < len(s) && s[i+1] == ' ':
			sents = append(sents, strings.TrimSpace(s[start:i+1]))
			start = i + 1
		}
	}
	sents = append(sents, strings.TrimSpace(s[start:]))
	if len(sents) > 1 {
		sents = append([]string{sents[len(sents)-1]}, sents[:len(sents)-1]...)
	}
	s = strings.Join(sents, " ")
	if synonym {
		// One word changed: the first of these found.
		for _, r := range [][2]string{{"Find ", "Determine "}, {"Compute ", "Evaluate "}, {"What is ", "What's "},
			{" integer", " whole number"}, {"Suppose ", "Assume "}, {" such that ", " so that "}, {"Let ", "Take "}} {
			if strings.Contains(s, r[0]) {
				s = strings.Replace(s, r[0], r[1], 1)
				break
			}
		}
	}
	return s
}

// TestMATHRewordedCopies: every MATH problem against its reworded copy
// (same solution) is flagged when the copy renames its variables and
// reorders its sentences; when it also changes one word, all but a
// handful of four-word statements ("Compute $e^{\pi i}.$" → "Evaluate
// …", where the changed word is the only word left once the variables are
// masked) are.
func TestMATHRewordedCopies(t *testing.T) {
	probs := readMATH(t)
	for _, tc := range []struct {
		name      string
		synonym   bool
		maxMissed int
	}{{"renamed and reordered", false, 0}, {"renamed, reordered and one word changed", true, 5}} {
		t.Run(tc.name, func(t *testing.T) {
			var missed, unchanged int
			var scores []float64
			for _, p := range probs {
				copy := reword(p.Problem, tc.synonym)
				if copy == p.Problem {
					unchanged++
				}
				res := DefaultRule.Compare(Extract(p.Problem, p.Solution), Extract(copy, p.Solution))
				scores = append(scores, res.Score)
				if !res.Equivalent {
					missed++
					t.Logf("missed %s (%s):\n  %q\n  %q", p.ID, res.Reason, p.Problem, copy)
				}
			}
			slices.Sort(scores)
			t.Logf("%d problems (%d left as they were): %d reworded copies missed; shingle Jaccard quantiles 0.1%% %.3f 1%% %.3f 50%% %.3f", len(probs), unchanged, missed,
				scores[len(scores)/1000], scores[len(scores)/100], scores[len(scores)/2])
			if unchanged > len(probs)/4 { // one-sentence statements without variables
				t.Errorf("reword left %d of %d statements as they were: the test would prove little", unchanged, len(probs))
			}
			if missed > tc.maxMissed {
				t.Errorf("%d of %d reworded copies not flagged, want at most %d", missed, len(probs), tc.maxMissed)
			}
		})
	}
}

// TestMATHDistinctPairs measures the rule's false positives on distinct
// MATH problems of the same type (the pairs most alike): every unordered
// pair of the type, and each problem's 50 nearest by shingle Jaccard (what
// an audit of a query's top documents sees). Pairs whose normalised
// statements are identical are MATH's own exact duplicates and not
// counted. The flagged pairs are logged. Measured: 50 of 12,371,806 pairs,
// every one also among the nearest (477,893 pairs); read one by one, 21 of
// them are MATH's own reworded duplicates (test/algebra/170 and
// train/algebra/1477; "greatest" and "largest integer value of x for
// which 5-4x>17"; …), one arguable (the same two-card draw with the suits
// renamed) and 28 false positives, templated problems with equal answers
// (the letters of NINE and THAT, odd/even compositions, the distinct prime
// factors of 315 and 735): 0.00023% of the pairs, 0.006% of the nearest.
// The bounds are about ten times what was measured, so that a change of
// rule or features that floods the audit fails here.
func TestMATHDistinctPairs(t *testing.T) {
	probs := readMATH(t)
	stride := 1
	if testing.Short() || raceEnabled {
		stride = 7
	}
	feats := make([]Features, len(probs))
	norm := make([]string, len(probs))
	for i, p := range probs {
		feats[i] = Extract(p.Problem, p.Solution)
		norm[i] = minhash.Normalize(p.Problem)
	}
	types := map[string][]int{}
	var names []string
	for i, p := range probs {
		if types[p.Type] == nil {
			names = append(names, p.Type)
		}
		types[p.Type] = append(types[p.Type], i)
	}
	sort.Strings(names)
	var pairs, identical, flagged int
	nearest := map[[2]int]bool{}
	var nnFlagged []string
	for _, name := range names {
		ids := types[name]
		type nb struct {
			j     int
			score float64
		}
		for a, i := range ids {
			if a%stride != 0 {
				continue
			}
			nbs := make([]nb, 0, len(ids))
			for b, j := range ids {
				if j == i {
					continue
				}
				// Compare flags nothing below JaccardNumbers (TestRule):
				// skip the evidence for the millions of pairs under it.
				score := minhash.Jaccard(feats[i].Shingles, feats[j].Shingles)
				nbs = append(nbs, nb{j, score})
				if b < a && b%stride == 0 {
					continue // counted from j
				}
				pairs++
				switch {
				case norm[i] == norm[j]:
					identical++
				case score >= DefaultRule.JaccardNumbers:
					if res := DefaultRule.Compare(feats[i], feats[j]); res.Equivalent {
						flagged++
						t.Logf("flagged %s / %s: %s", probs[i].ID, probs[j].ID, res.Reason)
					}
				}
			}
			sort.Slice(nbs, func(x, y int) bool {
				return cmp.Or(cmp.Compare(nbs[y].score, nbs[x].score), cmp.Compare(nbs[x].j, nbs[y].j)) < 0
			})
			for _, n := range nbs[:min(50, len(nbs))] {
				k := [2]int{min(i, n.j), max(i, n.j)}
				if nearest[k] || norm[i] == norm[n.j] {
					continue
				}
				nearest[k] = true
				if n.score >= DefaultRule.JaccardNumbers && DefaultRule.Compare(feats[i], feats[n.j]).Equivalent {
					nnFlagged = append(nnFlagged, probs[k[0]].ID+" / "+probs[k[1]].ID)
				}
			}
		}
	}
	rate := func(n, of int) float64 { return 100 * float64(n) / float64(max(of, 1)) }
	t.Logf("same-type pairs: %d (%d with identical statements), %d others flagged (%.5f%%)", pairs, identical, flagged, rate(flagged, pairs-identical))
	t.Logf("50 nearest of each problem: %d distinct pairs, %d flagged (%.4f%%)", len(nearest), len(nnFlagged), rate(len(nnFlagged), len(nearest)))
	if pairs == 0 || len(nearest) == 0 {
		t.Fatal("no pairs compared")
	}
	if r := rate(flagged, pairs-identical); r > 0.005 {
		t.Errorf("%.5f%% of distinct same-type pairs flagged, want ≤ 0.005%%", r)
	}
	if r := rate(len(nnFlagged), len(nearest)); r > 0.1 {
		t.Errorf("%.4f%% of nearest-neighbour pairs flagged, want ≤ 0.1%%", r)
	}
}
