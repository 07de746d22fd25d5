package minhash

import (
	"fmt"
	"testing"
)

func TestNumbers(t *testing.T) {
	tests := []struct{ in, want string }{
		{`Find $\frac{1}{2} + 3.5$.`, "[1 2 3 5]"},
		{`Find $\frac {1} {2}+3.5$ .`, "[1 2 3 5]"},
		{`There are 1{,}000 balls and 35 boxes.`, "[000 1 35]"},
		{`No numbers here.`, "[]"},
		{`Problem 3. Find 7 apples.`, "[7]"},
		{`Q12) Find 7 apples.`, "[7]"},
		{`#4 Find 7 apples.`, "[7]"},
		{`12. Find 7 apples.`, "[7]"},
		{`12 apples and 7 pears.`, "[12 7]"},
		{`Let $x_2 = 10$ and $x^2 = 10$.`, "[10 10 2 2]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(Numbers(tt.in)); got != tt.want {
			t.Errorf("Numbers(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestFinalQuestion(t *testing.T) {
	tests := []struct{ in, want string }{
		{"A box has red balls. How many are blue?", "how many are blue"},
		{"A box has red balls.   How many are blue?  \n", "how many are blue"},
		{"Let $x = 1.5$. Find $x. y$ please.", "find x y please"},
		{"Compute the following. $$\\int_0^1 x\\,dx$$", "int 0 1 x dx"},
		{"One sentence only", "one sentence only"},
		{"e.g. this", "this"},
		// MATH: the sentence end sits inside display maths, or only a
		// closing delimiter follows it; the question is what precedes.
		{"How many numbers are in the list $$ 6,10,14,\\ldots,82,86? $$", "how many numbers are in the list 6 10 14 ldots 82 86"},
		{"Simplify \\[\n\\left(\\frac{1}{2}\\right)^{-1}.\n\\]", "simplify left frac 1 2 right 1"},
		{"Let \\(x = 2.\\). Find \\(x^2\\).", "find x 2"},
		{"What is 2? $$", "what is 2"},
	}
	for _, tt := range tests {
		if got := FinalQuestion(tt.in); got != tt.want {
			t.Errorf("FinalQuestion(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGuard(t *testing.T) {
	preamble := "A bag contains five red marbles and seven blue marbles. Two marbles are drawn at random without replacement, and the colour of each is noted before the next draw. "
	tests := []struct {
		name string
		a, b string
		want GuardReason
	}{
		{"multi-part, different sub-questions", preamble + "What is the probability that both are red?", preamble + "What is the probability that both are blue?", GuardQuestion},
		{"exercise differing in one number", "Find the sum of the first 20 positive odd integers and explain your method.", "Find the sum of the first 30 positive odd integers and explain your method.", GuardNumbers},
		{"decimal vs integer", "A rod of length $3.5$ metres is cut into equal pieces. How many pieces?", "A rod of length $35$ metres is cut into equal pieces. How many pieces?", GuardNumbers},
		{"repeated number", "Compute $2 + 2 + 3$. What is the result?", "Compute $2 + 3 + 3$. What is the result?", GuardNumbers},
		{"MATH: min of x vs min of y", `Let $(x,y)$ be an ordered pair of real numbers that satisfies the equation $x^2+y^2=14x+48y$. What is the minimum value of $x$?`, `Let $(x,y)$ be an ordered pair of real numbers that satisfies the equation $x^2+y^2=14x+48y$. What is the minimum value of $y$?`, GuardQuestion},
		{"MATH: same diagram, different question", `In the diagram, $AE=24$. [asy] draw(A--B); [/asy] Find the length of $CE.$`, `In the diagram, $AE=24$. [asy] draw(A--B); [/asy] Find the area of quadrilateral $ABCD$.`, GuardQuestion},
		{"true copy, instruction appended", preamble + "What is the probability that both are red?", preamble + "What is the probability that both are red? Express your answer as a common fraction.", ""},
		{"true copy, white space", preamble + "What is the probability that both are red?", "  " + preamble + "What is the   probability\nthat both are red?\n", ""},
		{"true copy, LaTeX spacing", `If $\frac{1}{2}x+3=7$, what is $x$?`, `If $\frac {1}{2} x + 3 = 7$ , what is $x$ ?`, ""},
		{"true copy, question inside display maths", "How many numbers are in the list $$ 6,10,14,\\ldots,82,86? $$", "How many numbers are in the list  $  $ 6,10,14,\\ldots,82,86?  $  $ ", ""},
		{"true copy, CRLF line ends", "Simplify  \\[\n\\left(\\frac{123}{321}\\right)^{-1}.\n\\]", "Simplify  \\[\r\n\\left(\\frac{123}{321}\\right)^{-1}.\r\n\\]", ""},
		{"MATH: the same words about other maths", "The graph of $y = f(x)$ is shown. Enter the letter of the graph of $y = |f(x)|.$", "The graph of $y = f(x)$ is shown. Enter the letter of the graph of $y = f(|x|).$", GuardQuestion},
		{"MATH: another angle", "$ABCDEFGH$ shown below is a cube. Find $\\sin \\angle GAC$.\n\n[asy]draw((0,0)--(1,1));[/asy]", "$ABCDEFGH$ shown below is a cube. Find $\\sin \\angle HAC$.\n\n[asy]draw((0,0)--(1,1));[/asy]", GuardQuestion},
		{"true copy, maths spacing and dfrac", "Let $x = 3$. Find $\\dfrac{1}{x} + \\left( x \\right)$.", "Let $x=3$. Find $\\frac {1}{x}+\\left(x\\right)$.", ""},
		{"true copy, figure before the question, re-flowed", "A hexagon is inscribed in a circle: [asy]\ndraw(circle((0,0), 1));\nlabel(\"$105^\\circ$\", (0,1), N);\n[/asy] What is the measure of $\\alpha$, in degrees?", "A hexagon is inscribed in a circle: [asy] draw(circle((0,0), 1)); label(\"$105^\\circ$\", (0,1), N); [/asy] What is the measure of $\\alpha$, in degrees?", ""},
		{"true copy, full stops inside and outside maths", "Let $f$ be a linear function for which $f(6) - f(2) = 12.$ What is $f(12) - f(2)?$", "Let $f$ be a linear function for which $f(6)-f(2)=12$. What is $f(12)-f(2)?$", ""},
		{"true copy, display maths as inline", "The first term is $a_1 = 2007$ and the second term is $a_2 = 2008.$  Furthermore, \\[a_n + a_{n + 1} = n\\]for all $n \\ge 1.$  Determine $a_{1000}.$", "The first term is $a_1=2007$ and the second term is $a_2=2008$.  Furthermore, $a_n+a_{n+1}=n$ for all $n\\ge 1$.  Determine $a_{1000}$.", ""},
		{"MATH: a sign apart", "Compute $\\cos (-150^\\circ)$.", "Compute $\\cos 150^\\circ$.", GuardQuestion},
		{"true copy, maths delimiters spaced", "The range of $f(x)$ is $[-3,5].$  Let $h(x) = 2f(x) - 7.$  Find the range of $h(x).$", "The range of  $ f(x) $  is  $ [-3,5]. $   Let  $ h(x) = 2f(x) - 7. $   Find the range of  $ h(x). $ ", ""},
		{"identical statements", "Compute $1+1$. $$", "Compute $1+1$. $$", ""},
		{"true copy, thin spaces and dfrac-free", `Evaluate $\sum_{k=1}^{10}\, k^2$. Give the value.`, `Evaluate $\sum_{k = 1}^{10} k^{2}$.  Give the value.`, ""},
	}
	for _, tt := range tests {
		if got := Guard(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Guard = %q, want %q", tt.name, got, tt.want)
		}
	}
}
