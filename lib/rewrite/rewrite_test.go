package rewrite

import (
	"strings"
	"testing"
)

func TestRewrite(t *testing.T) {
	for _, c := range []struct {
		name, in string
		// keep must survive, gone must not.
		keep, gone []string
	}{
		{"variables renamed consistently, numbers kept",
			"Find all real $x$ with $x^2 - 5x + 6 = 0$ and $x > y$.",
			[]string{"5", "6 = 0", "Determine"}, []string{"$x$", "x^2"}},
		{"commands and constants kept",
			"Compute $\\lim_{x \\to 0} \\frac{e^{4x} - 1}{7x}$.",
			[]string{"\\lim_", "\\to 0", "\\frac{e^{4", "Calculate"}, []string{"{x \\to"}},
		{"names replaced everywhere",
			"Noah claims that $36^{1876}$ modulo $29$ is small. Noah is right. Calculate that remainder.",
			[]string{"36^{1876}", "29"}, []string{"Noah"}},
		{"notation swapped",
			"Show that $a \\leq b \\cdot c$ for all positive integers $a$.",
			[]string{"Prove that", "positive whole numbers", "\\times", "\\le "}, []string{"\\leq", "\\cdot"}},
		{"small numbers spelled out, others kept",
			"A park is $12$ feet long and $5$ feet wide; a path is $120$ feet. Find $x$ with $x = 12$.",
			[]string{"twelve feet", "five feet", "$120$", "= 12"}, []string{"$12$", "$5$"}},
		{"escaped dollar is text",
			"A pen costs \\$3. How many pens cost \\$12?",
			[]string{"\\$3", "\\$12", "What is the number of"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := Rewrite(c.in, 7)
			if out != Rewrite(c.in, 7) {
				t.Fatal("not deterministic")
			}
			if out == c.in {
				t.Fatalf("unchanged: %q", out)
			}
			for _, k := range c.keep {
				if !strings.Contains(out, k) {
					t.Errorf("%q lost %q", out, k)
				}
			}
			for _, g := range c.gone {
				if strings.Contains(out, g) {
					t.Errorf("%q still has %q", out, g)
				}
			}
			if r := Check(c.in, out, 0.5, 2); r != "" {
				t.Errorf("the rewrite is invalid (%s): %q", r, out)
			}
		})
	}
}

func TestRenamingIsABijection(t *testing.T) {
	in := "Let $a$, $b$, $c$ satisfy $a+b+c=0$ and $ab+bc+ca = -3$. Find $a^3+b^3+c^3$."
	out := Rewrite(in, 1)
	// Three distinct variables stay three distinct letters, none of a, b, c.
	segs := split(out)
	seen := map[byte]bool{}
	for _, s := range segs {
		if s.math {
			letters(s.text, func(_ int, c byte) { seen[c] = true }, nil)
		}
	}
	if len(seen) != 3 || seen['a'] || seen['b'] || seen['c'] {
		t.Fatalf("variables after renaming: %v in %q", seen, out)
	}
	if !strings.Contains(out, "= -3") {
		t.Fatalf("constant changed: %q", out)
	}
}

func TestReorder(t *testing.T) {
	in := "First fact. Second fact. What is asked?"
	if got, want := reorder(in), "Second fact. First fact. What is asked?"; got != want {
		t.Fatalf("reorder = %q, want %q", got, want)
	}
	if got := reorder("One. Two?"); got != "One. Two?" {
		t.Fatalf("two sentences reordered: %q", got)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		orig, rw, want string
	}{
		{"Find $x$.", "Determine $y$.", ""},
		{"Find $x$.", "  ", ReasonEmpty},
		{"Find $x$.", " Find $x$. ", ReasonIdentical},
		{"Find $x$ such that the long condition holds.", "x", ReasonLengthRatio},
		{"Find $x$.", strings.Repeat("Determine y. ", 10), ReasonLengthRatio},
	} {
		if got := Check(c.orig, c.rw, 0.5, 2); got != c.want {
			t.Errorf("Check(%q, %q) = %q, want %q", c.orig, c.rw, got, c.want)
		}
	}
}
