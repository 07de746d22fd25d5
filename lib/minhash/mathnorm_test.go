package minhash

import (
	"fmt"
	"testing"
)

func TestNormalizeMath(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"signs kept in prose and maths", "Find $x^2+y_1=-3$ if x > 0.", "find x ^ 2 + y _ 1 = - 3 if x > 0"},
		{"unicode relations as commands", "a ≤ b, c ≥ d, e ≠ f, g ± h, i ∓ j, k − l", "a le b c ge d e ne f g pm h i mp j k - l"},
		{"latex relations aliased", `$a \leq b \geq c \neq d \lt e$`, "a le b ge c ne d < e"},
		{"display maths in every delimiter", `\[x-1\] $$x-1$$ \(x-1\) $x-1$ \begin{align*}x-1\end{align*}`, "x - 1 x - 1 x - 1 x - 1 x - 1"},
		{"spaced display dollars", "list  $  $ 6,10?  $  $ ", "list 6 10"},
		{"inline spans side by side", "$x$ $y$", "x y"},
		{"escaped dollar is no delimiter", `cost \$5 and $x$`, "cost 5 and x"},
		{"latex spacing and sizing dropped", `$\left( \dfrac{1}{2} \right)\,x \quad y$`, "( frac 1 2 ) x y"},
		{"braces only separate", `$x^{10}$ $x^10$`, "x ^ 10 x ^ 10"},
		{"maths structure", `$|f(x)|$ $f(|x|)$ $[a,b)$`, "| f ( x ) | f ( | x | ) [ a b )"},
		{"set braces kept", `$\{1, 2\}$`, "{ 1 2 }"},
		{"white space in maths never matters", "$2x+1$ $2 x + 1$", "2 x + 1 2 x + 1"},
		{"factorial in maths only", "$5!$ Wow!", "5 ! wow"},
		{"apostrophes separate", "Lenny's and Lenny’s", "lenny s and lenny s"},
		{"accents and compatibility forms", "Éléonore ﬁnds x²", "eleonore finds x2"},
		{"lower case", "LET ABC Be $ABC$", "let abc be abc"},
		{"prose punctuation only separates", "Q12) (a) Find x/y.", "q12 a find x y"},
		{"letters and digits apart in maths only", "x2 and $x2$", "x2 and x 2"},
	}
	for _, tt := range tests {
		if got := NormalizeMath(tt.in); got != tt.want {
			t.Errorf("%s: NormalizeMath(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestSignFlipJaccard: a statement and its sign flip are not Jaccard 1,
// whatever delimiter holds the sign.
func TestSignFlipJaccard(t *testing.T) {
	for _, f := range []string{"$%s$", "$$%s$$", `\[%s\]`, `\(%s\)`, `\begin{equation}%s\end{equation}`} {
		body := "Let p and q be monic polynomials with integer coefficients such that " + f + " holds. Find p(1) + q(1)."
		a := fmt.Sprintf(body, "x^8 + 98x^4 + 1 = p(x) q(x)")
		b := fmt.Sprintf(body, "x^8 - 98x^4 + 1 = p(x) q(x)")
		if j := Jaccard(Shingles(NormalizeMath(a), 5), Shingles(NormalizeMath(b), 5)); j >= 1 {
			t.Errorf("%s: Jaccard %v, want < 1", f, j)
		}
		if j := Jaccard(Shingles(Normalize(a), 5), Shingles(Normalize(b), 5)); j != 1 {
			t.Errorf("%s: words-only Jaccard %v: the test no longer shows what NormalizeMath fixes", f, j)
		}
	}
}

func TestSentences(t *testing.T) {
	tests := []struct{ in, want string }{
		{"A box has red balls. How many are blue?", `["a box has red balls" "how many are blue"]`},
		{"Problem 3. Let $x = 1.$ Find $x + 1.$", `["let x = 1" "find x + 1"]`},
		{"Let\n\\[x^2 - 1 = 0.\\] Find $x$.", `["let x ^ 2 - 1 = 0" "find x"]`},
		{"Find x Express your answer as a fraction.", `["find x" "express your answer as a fraction"]`},
		{"Find it (No calculators.)", `["find it" "no calculators"]`},
		{"Compute it. [asy]draw((0,0)--(1,1));[/asy] Done.", `["find it" "done"]`},
	}
	for _, tt := range tests {
		if got := fmt.Sprintf("%q", Sentences(tt.in)); got != tt.want {
			t.Errorf("Sentences(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestGuardWholeStatements: the guard reads every sentence, display maths
// included, not only the final question.
func TestGuardWholeStatements(t *testing.T) {
	poly := "Let\n\\[x^8 %s 98x^4 + 1 = p(x) q(x),\\]where $p(x)$ and $q(x)$ are monic, non-constant polynomials with integer coefficients.  Find $p(1) + q(1).$"
	roots := "Let $f(x) = 3x^2 %s 2018x + 7$ be a quadratic function. Its two roots are real and distinct, and we call them $r$ and $s$. Compute $\\frac{1}{r} + \\frac{1}{s}$. Express your answer as a common fraction."
	abc := "Let $a$, $b$ and $c$ be %sreal numbers such that $a + b + c = 6$ and $ab + bc + ca = 9$. Find the largest possible value of $c$."
	seq := "A sequence is defined by $x_1 = 1$ and $x_{n+1} = \\sqrt{2 + x_n}$ for every integer $n \\ge 1$. %s Justify your answer."
	fig := "Find $XY$ in the triangle below.\n[asy]\ndraw(P--Q--R--P);\nlabel(\"$12\\sqrt{2}$\",%s);\n[/asy]"
	tests := []struct {
		name string
		a, b string
		want GuardReason
	}{
		{"sign in display maths", fmt.Sprintf(poly, "+"), fmt.Sprintf(poly, "-"), GuardSentence},
		{"sign in an earlier sentence, shared closing", fmt.Sprintf(roots, "-"), fmt.Sprintf(roots, "+"), GuardSentence},
		{"added constraint", fmt.Sprintf(abc, ""), fmt.Sprintf(abc, "positive "), GuardSentence},
		{"added question", fmt.Sprintf(abc, ""), fmt.Sprintf(abc, "") + " Also find the smallest possible value of $c$.", GuardQuestion},
		{"added sentence before the question", fmt.Sprintf(abc, ""), "Let $a$, $b$ and $c$ be real numbers such that $a + b + c = 6$ and $ab + bc + ca = 9$. Assume $a$ is an integer. Find the largest possible value of $c$.", GuardAdded},
		{"parts of a multi-part problem", fmt.Sprintf(seq, "(a) Show that the sequence is increasing."), fmt.Sprintf(seq, "(b) Show that the sequence is bounded."), GuardQuestion},
		{"the same words about another figure", fmt.Sprintf(fig, "(Q+R)/2,NE"), fmt.Sprintf(fig, "R/2,W"), GuardFigure},
		{"true copy, figure re-flowed", fmt.Sprintf(fig, "(Q+R)/2,NE"), fmt.Sprintf(fig, "(Q+R)/2, NE"), ""},
		{"true copy, display delimiters", fmt.Sprintf(poly, "+"), "Let $$x^8 + 98x^4 + 1 = p(x) q(x),$$ where $p(x)$ and $q(x)$ are monic, non-constant polynomials with integer coefficients. Find $p(1)+q(1)$.", ""},
		{"true copy, unicode minus and instruction", fmt.Sprintf(roots, "-"), fmt.Sprintf(roots, "−") + " Show your work.", ""},
		{"true copy, broken escaped dollar", "Larry and Lenny have $\\$$35. Larry has two-fifths of Lenny's amount. How many more dollars does Lenny have?", " Larry and Lenny have  $ \\ $  $ 35. Larry has two-fifths of Lenny's amount. How many more dollars does Lenny have?", ""},
	}
	for _, tt := range tests {
		if got := Guard(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Guard = %q, want %q\n%q\n%q", tt.name, got, tt.want, Sentences(tt.a), Sentences(tt.b))
		}
		if got := Guard(tt.b, tt.a); got != tt.want {
			t.Errorf("%s (swapped): Guard = %q, want %q", tt.name, got, tt.want)
		}
	}
}
