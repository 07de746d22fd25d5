package topics

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	defaultont "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/synth"
)

// mathDir holds MATH_train.jsonl and MATH_test.jsonl (Hendrycks et al.'s
// MATH, 12,500 problems), beside the repository.
const mathDir = "../../../shared/data/math"

// mathDomain maps a MATH subject to the domain of the default ontology that
// should hold its problems.
var mathDomain = map[string]string{
	"Algebra":                "Algebra",
	"Intermediate Algebra":   "Algebra",
	"Prealgebra":             "Algebra",
	"Geometry":               "Geometry",
	"Number Theory":          "Number Theory",
	"Counting & Probability": "Combinatorics",
	"Precalculus":            "Calculus and Analysis",
}

type mathRow struct {
	Problem  string `json:"problem"`
	Solution string `json:"solution"`
	Type     string `json:"type"`
}

func readMATH(t testing.TB) []mathRow {
	var rows []mathRow
	for _, name := range []string{"MATH_train.jsonl", "MATH_test.jsonl"} {
		f, err := os.Open(filepath.Join(mathDir, name))
		if os.IsNotExist(err) {
			t.Skipf("MATH data not present: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for line := 1; sc.Scan(); line++ {
			var r mathRow
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s line %d: %v", name, line, err)
			}
			if _, ok := mathDomain[r.Type]; !ok {
				t.Fatalf("%s line %d: unknown type %q", name, line, r.Type)
			}
			rows = append(rows, r)
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f.Close()
	}
	return rows
}

func defaultTree(t testing.TB) *ontology.Tree {
	tr, err := defaultTreeErr()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func defaultTreeErr() (*ontology.Tree, error) { return defaultont.DefaultTree() }

// assignAll runs Assign over texts on GOMAXPROCS goroutines.
func assignAll(t testing.TB, tr *ontology.Tree, s Scorer, texts []Text) []Assignment {
	out := make([]Assignment, len(texts))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(texts); i += workers {
				a, err := Assign(context.Background(), tr, s, texts[i], DefaultTau, DefaultMaxCalls)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("text %d: %w", i, err)
					}
					mu.Unlock()
					return
				}
				out[i] = a
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	return out
}

// logShape logs the mean number of topics per text and the depth
// distribution of the topics.
func logShape(t testing.TB, tr *ontology.Tree, as []Assignment) {
	topics, calls := 0, 0
	depth := map[int]int{}
	for _, a := range as {
		topics += len(a.Topics)
		calls += a.Calls
		for _, n := range a.Topics {
			depth[tr.Depth(n)]++
		}
	}
	var ds []string
	for d := 1; d <= 8; d++ {
		if depth[d] > 0 {
			ds = append(ds, fmt.Sprintf("%d: %.1f%%", d, 100*float64(depth[d])/float64(topics)))
		}
	}
	t.Logf("topics per text %.2f, scorer calls per text %.2f; topic depths %s",
		float64(topics)/float64(len(as)), float64(calls)/float64(len(as)), strings.Join(ds, ", "))
}

// TestMATHDomainAgreement is the bar of the lexical scorer on the default
// ontology: on MATH, the main domain of a problem's topics must be the domain
// of its MATH subject (mathDomain) for at least 80% of the problems.
func TestMATHDomainAgreement(t *testing.T) {
	rows := readMATH(t)
	start := time.Now()
	tr := defaultTree(t)
	lex := NewLexical(tr)
	texts := make([]Text, len(rows))
	for i, r := range rows {
		texts[i] = Text{Statement: r.Problem, Solution: r.Solution}
	}
	as := assignAll(t, tr, lex, texts)
	elapsed := time.Since(start)

	domains := append(append([]string(nil), domainOrder...), "(none)")
	conf := map[string]map[string]int{}
	total := map[string]int{}
	hit := map[string]int{}
	agree := 0
	for i, r := range rows {
		got := "(none)"
		if d := MainDomain(tr, as[i].Topics); d >= 0 {
			got = tr.Label(d)
		}
		if conf[r.Type] == nil {
			conf[r.Type] = map[string]int{}
		}
		conf[r.Type][got]++
		total[r.Type]++
		if got == mathDomain[r.Type] {
			hit[r.Type]++
			agree++
		}
	}
	overall := float64(agree) / float64(len(rows))
	t.Logf("MATH: %d problems in %v (GOMAXPROCS %d); main domain agrees with the subject's for %.1f%%",
		len(rows), elapsed.Round(time.Millisecond), runtime.GOMAXPROCS(0), 100*overall)
	types := make([]string, 0, len(total))
	for ty := range total {
		types = append(types, ty)
	}
	sort.Strings(types)
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %6s %6s", "subject", "n", "agree")
	for _, d := range domains {
		fmt.Fprintf(&b, " %8.8s", d)
	}
	for _, ty := range types {
		fmt.Fprintf(&b, "\n%-22s %6d %5.1f%%", ty, total[ty], 100*float64(hit[ty])/float64(total[ty]))
		for _, d := range domains {
			fmt.Fprintf(&b, " %8d", conf[ty][d])
		}
	}
	t.Logf("per subject, and confusion (columns: main domain found):\n%s", b.String())
	logShape(t, tr, as)
	if overall < 0.80 {
		t.Errorf("MATH domain agreement %.3f < 0.80", overall)
	}
}

// TestSynthDomainAgreement checks the lexical scorer on the synthetic corpus:
// the main domain must be the row's Domain for at least 90% of 2,000 rows.
func TestSynthDomainAgreement(t *testing.T) {
	tr := defaultTree(t)
	lex := NewLexical(tr)
	cfg := synth.Config{N: 2000, Seed: 1}
	rows := make([]synth.Problem, cfg.N)
	texts := make([]Text, cfg.N)
	for i := range rows {
		rows[i] = synth.Generate(cfg, i)
		texts[i] = Text{Statement: rows[i].Statement, Solution: rows[i].Solution}
	}
	as := assignAll(t, tr, lex, texts)
	agree := 0
	miss := map[string]int{}
	for i, p := range rows {
		d := MainDomain(tr, as[i].Topics)
		if d >= 0 && tr.Label(d) == p.Domain {
			agree++
		} else {
			miss[p.Domain+"/"+p.Template]++
		}
	}
	frac := float64(agree) / float64(len(rows))
	t.Logf("synth: main domain agrees with the row's domain for %.1f%% of %d rows; misses by template: %v",
		100*frac, len(rows), miss)
	logShape(t, tr, as)
	if frac < 0.90 {
		t.Errorf("synth domain agreement %.3f < 0.90", frac)
	}
}
