package topics

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/saber-math/saber/lib/ontology"
)

func TestTokenize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Find the Sum of the ROOTS.", "find the sum of the root"},
		{`$\dbinom{5}{2} + \frac{1}{2} \leq 3$`, "binom 5 2 frac 1 2 le 3"},
		{"20% of 5! is $n!$, not 1,\\!000", "20 percent of 5 factorial is n factorial not 1 000"},
		{"$f'(x)$ and $y''$ but A'B' and Priya's", "f primemark x and y primemark primemark but a b and priya s"},
		{"$P'(x) = 0$", "p primemark x 0"},
		{"$121_5 + 73_{10} = a_1$", "121 basenumeral 5 73 basenumeral 10 a 1"},
		{"$3x + 12y = 7$", "coefvar coefvar 7"},
		{"L'Hôpital's rule, l'Hospital", "l hopital s rule l hopital"},
		{"the cdots, \\ldots and $\\times$ times", "the cdots ldots and times times"},
		{"π r² and 90°", "pi r and 90 circ"},
		{"analysis axis radius class", "analysis axis radius class"},
	}
	for _, c := range cases {
		got := strings.Join(tokenize(c.in, nil), " ")
		if got != c.want {
			t.Errorf("tokenize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// lexTree is the default ontology, built once.
var lexTree = sync.OnceValues(func() (*ontology.Tree, *Lexical) {
	tr, err := defaultTreeErr()
	if err != nil {
		panic(err)
	}
	return tr, NewLexical(tr)
})

func TestLexicalHandExamples(t *testing.T) {
	tr, lex := lexTree()
	cases := []struct {
		text   Text
		domain string
		topic  string // a topic must lie at or below this path of ids; "" to skip
	}{
		{Text{"Two fair six-sided dice are rolled. What is the probability that the sum of the numbers rolled is 7?",
			"There are 36 equally likely outcomes, 6 of which sum to 7, so the probability is $\\frac{1}{6}$."},
			"Combinatorics", "combinatorics > probability"},
		{Text{"A bag has 4 red and 6 blue marbles. Two marbles are drawn without replacement. What is the probability that both are red?",
			"The probability is $\\frac{4}{10}\\cdot\\frac{3}{9} = \\frac{2}{15}$."},
			"Combinatorics", ""},
		{Text{"Find the derivative of $f(x) = x^3 - 2x$ and evaluate $f'(2)$.",
			"By the power rule $f'(x) = 3x^2 - 2$, so $f'(2) = 10$."},
			"Calculus and Analysis", "calculus-analysis > differentiation"},
		{Text{"What is the greatest common divisor of $84$ and $126$?",
			"By the Euclidean algorithm, $\\gcd(126, 84) = \\gcd(84, 42) = 42$."},
			"Number Theory", ""},
		{Text{"In right triangle $ABC$ the legs have lengths 6 and 8. Find the length of the hypotenuse.",
			"By the Pythagorean theorem the hypotenuse is $\\sqrt{36+64} = 10$."},
			"Geometry", "geometry > triangles"},
		{Text{"The quadratic equation $x^2 - 5x + 6 = 0$ has two roots. What is the sum of the roots?",
			"By Vieta's formulas the sum of the roots is 5."},
			"Algebra", ""},
	}
	for _, c := range cases {
		a, err := Assign(context.Background(), tr, lex, c.text, DefaultTau, DefaultMaxCalls)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range a.Topics {
			got = append(got, tr.Path(n))
		}
		d := MainDomain(tr, a.Topics)
		if d < 0 || tr.Label(d) != c.domain {
			t.Errorf("%.40q: main domain %d, want %s (topics %v)", c.text.Statement, d, c.domain, got)
		}
		if c.topic != "" && !hasPrefix(got, c.topic) {
			t.Errorf("%.40q: topics %v, want %s among them", c.text.Statement, got, c.topic)
		}
	}
}

func hasPrefix(paths []string, p string) bool {
	for _, q := range paths {
		if q == p || strings.HasPrefix(q, p+ontology.PathSep) {
			return true
		}
	}
	return false
}

func TestLexicalScores(t *testing.T) {
	tr, lex := lexTree()
	ctx := context.Background()
	n := func(p string) int {
		i, ok := tr.Lookup(p)
		if !ok {
			t.Fatalf("no node %q", p)
		}
		return i
	}
	tag := func(i int) Tag { return Tag{Node: i, Label: tr.Label(i), Keywords: tr.Keywords(i)} }
	text := Text{Statement: "Two dice are rolled. What is the probability that both dice show a 6?"}

	// A domain gets credit for its descendants' keywords ("dice" is only
	// under Combinatorics › Probability › Dice).
	dom := make([]Tag, 0, 5)
	for _, d := range tr.Children(tr.Root()) {
		dom = append(dom, tag(d))
	}
	s, err := lex.Score(ctx, text, dom)
	if err != nil {
		t.Fatal(err)
	}
	comb := 3
	if dom[comb].Label != "Combinatorics" {
		t.Fatalf("domain order changed: %v", dom[comb].Label)
	}
	for k, v := range s {
		if k != comb && v >= s[comb] {
			t.Errorf("%s scores %v ≥ Combinatorics %v", dom[k].Label, v, s[comb])
		}
	}

	// As a parent among its children, a node whose evidence is in one child
	// scores below that child, so the traversal descends.
	p := n("combinatorics > probability")
	tags := []Tag{tag(p)}
	for _, c := range tr.Children(p) {
		tags = append(tags, tag(c))
	}
	s, err = lex.Score(ctx, text, tags)
	if err != nil {
		t.Fatal(err)
	}
	best, bestK := 0.0, -1
	for k, v := range s {
		if v > best {
			best, bestK = v, k
		}
	}
	if bestK < 1 || tags[bestK].Label != "Dice" {
		t.Errorf("best tag %d (%v), want Dice above its parent: %v", bestK, tags[max(bestK, 0)].Label, s)
	}

	// Deterministic, and the same through the cache and without it.
	again, _ := lex.Score(ctx, text, tags)
	fresh, _ := NewLexical(tr).Score(ctx, text, tags)
	if !reflect.DeepEqual(s, again) || !reflect.DeepEqual(s, fresh) {
		t.Errorf("scores differ: %v, %v, %v", s, again, fresh)
	}

	// A tag from elsewhere is scored from its own label and keywords.
	foreign := []Tag{
		{Node: -1, Label: "Dice Games", Keywords: []string{"dice", "roll"}},
		{Node: -1, Label: "Knots", Keywords: []string{"knot", "braid", "unknown word"}},
	}
	s, err = lex.Score(ctx, text, foreign)
	if err != nil {
		t.Fatal(err)
	}
	if !(s[0] > 0 && s[1] == 0) {
		t.Errorf("foreign tags scored %v, want > 0 and 0", s)
	}
}

func TestLexicalConcurrent(t *testing.T) {
	tr, _ := lexTree()
	lex := NewLexical(tr)
	texts := []Text{
		{Statement: "Find the remainder when $2^{100}$ is divided by 7."},
		{Statement: "Compute $\\int_0^1 x^2\\,dx$."},
		{Statement: "How many ways can 5 books be arranged on a shelf?"},
	}
	want := make([]Assignment, len(texts))
	for k, x := range texts {
		a, err := Assign(context.Background(), tr, NewLexical(tr), x, DefaultTau, 0)
		if err != nil {
			t.Fatal(err)
		}
		want[k] = a
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 50 {
				k := (g + r) % len(texts)
				a, err := Assign(context.Background(), tr, lex, texts[k], DefaultTau, 0)
				if err != nil || !reflect.DeepEqual(a, want[k]) {
					t.Errorf("goroutine %d: %+v, %v; want %+v", g, a, err, want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
}
