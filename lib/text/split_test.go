package text

import "testing"

func TestSplitMath(t *testing.T) {
	for _, c := range []struct {
		in, maths, words string
	}{
		{`Find all real $x$ with $x^2 = 4$.`, `$x$ $x^2 = 4$`, `Find all real with .`},
		{`How many primes are there?`, ``, `How many primes are there?`},
		{`$$\int_0^1 x\,dx$$`, `$$\int_0^1 x\,dx$$`, ``},
		{`Let \(a\) and \[b+c\] be given.`, `\(a\) \[b+c\]`, `Let and be given.`},
		{`Costs \$5 and $ is unbalanced`, ``, `Costs \$5 and $ is unbalanced`},
		{"Solve \\begin{align} x &= 1 \\end{align} now", `\begin{align}x &= 1\end{align}`, `Solve now`},
		{`Compute $ $ here`, ``, `Compute here`},
		{`$x$ .`, `$x$`, ``},
	} {
		m, w := SplitMath(c.in)
		if m != c.maths || w != c.words {
			t.Errorf("SplitMath(%q) = %q, %q; want %q, %q", c.in, m, w, c.maths, c.words)
		}
	}
}

func TestDelimitMath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`If the radius r is 5, find the area.`, `If the radius $r$ is $5$, find the area.`},
		{`Solve x + y = 10 and x - y = 2.`, `Solve $x + y = 10$ and $x - y = 2$.`},
		{`Already $x^2$ delimited, and f(x) = 3x too.`, `Already $x^2$ delimited, and $f(x) = 3x$ too.`},
		{`A cat and a dog.`, `A cat and a dog.`},
		{`Points x, y and the angle θ ≤ π.`, `Points $x$, $y$ and the angle $θ ≤ π$.`},
		{`The segment A-B has length 2.5cm`, `The segment $A-B$ has length $2.5cm$`},
	} {
		if got := DelimitMath(c.in); got != c.want {
			t.Errorf("DelimitMath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Normalising twice changes nothing.
	s := DelimitMath(`Let n be 7 and n^2 = 49.`)
	if again := DelimitMath(s); again != s {
		t.Errorf("DelimitMath is not idempotent: %q then %q", s, again)
	}
}

func TestLastBoxed(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`\boxed{If $r$ is 5}`, `If $r$ is 5`, true},
		{`first \boxed{a} then \boxed{b \{c\} {d}}`, `b \{c\} {d}`, true},
		{`\boxed{unclosed`, ``, false},
		{`no box`, ``, false},
		{`\boxed {x} and \boxed{`, `x`, true},
	} {
		got, ok := LastBoxed(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("LastBoxed(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
