package leak

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestNumbers(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"none", "Prove that there are infinitely many primes.", nil},
		{"integers, repeats kept, sorted as strings", "Let x + y = 10 and xy = 21, with 10 > 2.", []string{"10", "10", "2", "21"}},
		{"leading zeros", "Code 007 and 0.", []string{"0", "7"}},
		{"decimals", "It costs 2.50 or 3.0 or .5, and the sentence ends at 4.", []string{"0.5", "2.5", "3", "4"}},
		{"thousands", "Between 1,000 and $1{,}000{,}000$ and $50\\,000$.", []string{"1000", "1000000", "50000"}},
		{"a list is not thousands", "The set {1,2,3} and 1,2345.", []string{"1", "1", "2", "2345", "3"}},
		{"tex fractions", `$\frac{3}{4} + \dfrac{1}{2} + \tfrac 5 6 + \frac12$`, []string{"1/2", "1/2", "3/4", "5/6"}},
		{"slash fractions", "Take 3/4 of 12, or 3 / 8.", []string{"12", "3/4", "3/8"}},
		{"fractions stay unreduced", `$\frac{2}{4}$`, []string{"2/4"}},
		{"non-integer fraction gives its numbers", `$\frac{x+1}{2}$`, []string{"1", "2"}},
		{"signs ignored", "$x = -3$ and $y=3$", []string{"3", "3"}},
		{"exponents and subscripts", "$x_1^2 + 10^{3}$", []string{"1", "10", "2", "3"}},
		{"ordinals", "the 2nd and 31st terms", []string{"2", "31"}},
		{"words are not numbers", "five apples", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Numbers(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Numbers(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestAnswer(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"none", "so it is 5.", "", false},
		{"plain", `The answer is $\boxed{58}$.`, "58", true},
		{"last one wins", `First $\boxed{1}$, finally $\boxed{2}$.`, "2", true},
		{"nested braces", `$\boxed{\frac{\sqrt{65}}{2}}$`, `\frac{\sqrt{65}}{2}`, true},
		{"dfrac and tfrac", `$\boxed{\dfrac{1}{2} + \tfrac34}$`, `\frac{1}{2}+\frac34`, true},
		{"spaces and tex spacing", `$\boxed{ 1 , \ 2 \,\; 3 }$`, "1,23", true},
		{"left right", `$\boxed{\left( 1, 2 \right]}$`, "(1,2]", true},
		{"null delimiters", `$\boxed{\left. x \right|}$`, "x|", true},
		{"rightarrow is kept", `$\boxed{a \rightarrow b}$`, `a\rightarrowb`, true},
		{"trailing period", `$\boxed{7.}$`, "7", true},
		{"escaped braces", `$\boxed{\{1, 2\}}$`, `\{1,2\}`, true},
		{"space before the brace", `\boxed {9}`, "9", true},
		{"fbox", `\fbox{4} then nothing`, "4", true},
		{"fbox after boxed", `\boxed{3} and \fbox{4}`, "4", true},
		{"another command", `\boxedx{3}`, "", false},
		{"never closes", `\boxed{3`, "", false},
		{"no brace", `\boxed 3`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Answer(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Answer(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"variables masked", "Let $x$ and $y$ be reals.", []string{"let _ and _ be reals"}},
		{"identifiers split into letters", "In triangle $ABC$, $AB = 3$.", []string{"in triangle _ _ _ _ _ 3"}},
		{"commands kept, greek masked", `Find $\sin \theta + \frac{\alpha}{2}$.`, []string{"find sin _ frac _ 2"}},
		{"sentences split outside math only", "Let $x = 3.5$. Find $x$? Done! Yes; no", []string{"let _ 3 5", "find _", "done", "yes", "no"}},
		{"line breaks split", "First line\n\nsecond line", []string{"first line", "second line"}},
		{"display math", `Compute $$\sum_{k=1}^n k.$$ Then stop.`, []string{"compute sum _ 1 _ _", "then stop"}},
		{"a sentence ending inside math", `Let $f(x) = 2^x.$ Find $f(3).$`, []string{"let _ _ 2 _", "find _ 3"}},
		{"math mid-sentence", `If $x = 1.$5 then`, []string{"if _ 1 5 then"}},
		{"escaped dollar is currency", `It costs \$5. Buy $n$ of them.`, []string{"it costs 5", "buy _ of them"}},
		{"paren and bracket math", `Solve \(ab=1\) and \[c\].`, []string{"solve _ _ 1 and _"}},
		{"one-letter words outside math", "A box holds a ball.", []string{"_ box holds _ ball"}},
		{"empty", "  . ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sentences(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Sentences(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// The pairs of TestCompare: a query and its variants.
const (
	qStatement = "Let $x$ and $y$ be positive integers with $x + y = 10$ and $xy = 21$. Find the value of $x^2 + y^2$."
	qSolution  = "We have $x^2 + y^2 = (x+y)^2 - 2xy = 100 - 42 = 58$, so the answer is $\\boxed{58}$."
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name                 string
		query                string // when not qStatement
		statement, solution  string
		qSolution            string // when not qSolution
		want                 bool
		reason               string
		minScore, maxScore   float64
		wantNumbersDifferent bool
	}{
		{name: "equal", statement: qStatement, solution: qSolution, want: true, reason: "same answer, shingles 1.00 ≥ 0.80", minScore: 1, maxScore: 1},
		{name: "renamed", statement: "Let $a$ and $b$ be positive integers with $a + b = 10$ and $ab = 21$. Find the value of $a^2 + b^2$.",
			solution: "Since $a^2+b^2=(a+b)^2-2ab$, it is $\\boxed{58}$.", want: true, minScore: 1, maxScore: 1},
		{name: "renamed and reordered", statement: "Find the value of $p^2 + q^2$. Let $p$ and $q$ be positive integers with $p + q = 10$ and $pq = 21$.",
			solution: "$\\boxed{58}$", want: true, minScore: 1, maxScore: 1},
		{name: "reworded", statement: "Find the value of $m^2 + n^2$, where $m$ and $n$ are positive integers with $m + n = 10$ and $mn = 21$.",
			solution: "$\\boxed{58}$.", want: true, reason: "same answer and numbers", minScore: 0.4, maxScore: 0.8},
		{name: "reworded beyond the shingles (a limit)", statement: "Two positive whole numbers $m$ and $n$ satisfy $mn = 21$ and $m + n = 10$. What is $m^2 + n^2$?",
			solution: "$\\boxed{58}$.", want: false, reason: "same answer, shingles", maxScore: 0.4},
		{name: "different numbers", statement: "Let $x$ and $y$ be positive integers with $x + y = 12$ and $xy = 35$. Find the value of $x^2 + y^2$.",
			solution: "$\\boxed{74}$", want: false, reason: "different answers", minScore: 0.5, maxScore: 0.99},
		{name: "different numbers, same answer by chance", statement: "Let $x$ and $y$ be positive integers with $x + y = 10$ and $xy = 3$. Find the value of $x + y + 48$.",
			solution: "$\\boxed{58}$", want: false, reason: "same answer, other numbers", maxScore: 0.8, wantNumbersDifferent: true},
		{name: "different answers", statement: qStatement, solution: "$\\boxed{59}$", want: false, reason: "different answers", minScore: 1, maxScore: 1},
		{name: "missing answer, near copy", statement: "Let $x$ and $y$ be positive integers with $x + y = 10$ and $xy = 21$. Find the value of $x^2 + y^2$!",
			solution: "It is 58.", want: true, reason: "no answer to compare; same numbers", minScore: 0.8, maxScore: 1},
		{name: "missing answers, reworded", statement: "Find $m^2 + n^2$. Here $m$ and $n$ are positive integers such that $m + n = 10$ and $mn = 21$.",
			solution: "It is 58.", qSolution: "58", want: false, reason: "no answer to compare; shingles", maxScore: 0.8},
		{name: "missing answer, other numbers", statement: "Let $x$ and $y$ be positive integers with $x + y = 10$ and $xy = 16$. Find the value of $x^2 + y^2$.",
			solution: "It is 68.", want: false, reason: "no answer to compare; other numbers", minScore: 0.8, wantNumbersDifferent: true},
		{name: "unrelated", statement: "How many subsets of $\\{1, 2, 3\\}$ have an odd sum?", solution: "$\\boxed{4}$", want: false, reason: "different answers", maxScore: 0.2},
		{name: "TeX numbers against text numbers", query: "A shop sells 1,000 pens at 2.50 dollars each and keeps 3/4 of the money. How much does it keep?",
			qSolution: "$\\boxed{1875}$", statement: "A shop sells $1{,}000$ pens at $2.5$ dollars each and keeps $\\dfrac{3}{4}$ of the money. How much does it keep?",
			solution: "It keeps $\\boxed{1875}$ dollars.", want: true, reason: "same answer and numbers", minScore: 0.4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qst, qs := qStatement, qSolution
			if tt.query != "" {
				qst = tt.query
			}
			if tt.qSolution != "" {
				qs = tt.qSolution
			}
			q, d := Extract(qst, qs), Extract(tt.statement, tt.solution)
			res := DefaultRule.Compare(q, d)
			if res.Equivalent != tt.want || !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("Compare = %v (%s, score %.3f), want %v with reason %q\nquery %q %q %v\ndoc   %q %q %v", res.Equivalent, res.Reason, res.Score, tt.want, tt.reason,
					Sentences(qst), q.Numbers, q.Answer, Sentences(tt.statement), d.Numbers, d.Answer)
			}
			if res.Score < tt.minScore || tt.maxScore > 0 && res.Score > tt.maxScore {
				t.Errorf("score %.3f, want in [%.2f, %.2f]", res.Score, tt.minScore, tt.maxScore)
			}
			if different := !slices.Equal(q.Numbers, d.Numbers); tt.wantNumbersDifferent && !different {
				t.Errorf("numbers %q and %q are equal, the case wants them different", q.Numbers, d.Numbers)
			}
			// Symmetric, and the evidence names the verdict and the features.
			back := DefaultRule.Compare(d, q)
			if back.Equivalent != res.Equivalent || back.Score != res.Score {
				t.Errorf("Compare(d, q) = %v %.3f, Compare(q, d) = %v %.3f", back.Equivalent, back.Score, res.Equivalent, res.Score)
			}
			verdict := "distinct: "
			if res.Equivalent {
				verdict = "equivalent: "
			}
			for _, w := range []string{Version, "numbers query " + strings.Join(q.Numbers, " ") + "\n", verdict + res.Reason} {
				if !strings.Contains(res.Evidence, w) {
					t.Errorf("evidence lacks %q:\n%s", w, res.Evidence)
				}
			}
		})
	}
}

// TestTexNumbersEqual: the numbers of a statement are the same in text and
// in TeX.
func TestTexNumbersEqual(t *testing.T) {
	a := Numbers("Take 3/4 of 1,000 and add 2.50.")
	b := Numbers(`Take $\dfrac{3}{4}$ of $1{,}000$ and add $2.5$.`)
	if !slices.Equal(a, b) || len(a) != 3 {
		t.Errorf("text %q, TeX %q", a, b)
	}
}

// TestRule: Compare never flags below JaccardNumbers (math_test.go relies on
// it to skip the evidence of most pairs), flags only with equal answers or
// none, and always at or above Jaccard with equal answers.
func TestRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	words := []string{"find", "let", "the", "sum", "of", "$x$", "$y$", "is", "2", "3", "5", "integer", "and"}
	gen := func() Features {
		var b strings.Builder
		for range 3 + rng.IntN(12) {
			b.WriteString(words[rng.IntN(len(words))] + " ")
			if rng.IntN(6) == 0 {
				b.WriteString(". ")
			}
		}
		sol := ""
		if rng.IntN(4) > 0 {
			sol = `\boxed{` + words[8+rng.IntN(3)] + "}"
		}
		return Extract(b.String(), sol)
	}
	for range 20000 {
		a, b := gen(), gen()
		res := DefaultRule.Compare(a, b)
		if res.Equivalent && res.Score < DefaultRule.JaccardNumbers {
			t.Fatalf("flagged at %.3f < %.2f: %s", res.Score, DefaultRule.JaccardNumbers, res.Evidence)
		}
		if res.Equivalent && a.HasAnswer && b.HasAnswer && a.Answer != b.Answer {
			t.Fatalf("flagged with different answers: %s", res.Evidence)
		}
		if a.HasAnswer && b.HasAnswer && a.Answer == b.Answer && res.Score >= DefaultRule.Jaccard && !res.Equivalent {
			t.Fatalf("equal answers at %.3f ≥ %.2f not flagged: %s", res.Score, DefaultRule.Jaccard, res.Evidence)
		}
	}
}

func TestRuleValidate(t *testing.T) {
	if err := DefaultRule.Validate(); err != nil {
		t.Error(err)
	}
	for _, r := range []Rule{{0, 0}, {0.5, 0.6}, {1.1, 0.5}, {0.8, 0}, {0.8, -1}} {
		if err := r.Validate(); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}
