package text

import "testing"

func TestClean(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "No drawing here, $x=1$.", "No drawing here, $x=1$."},
		{"asy", "See below.[asy]draw((0,0)--(1,1));\nlabel(\"$A$\",(0,0));[/asy]Then $AB=2$.", "See below. Then $AB=2$."},
		{"asy upper case", "A [ASY]draw(c);[/ASY] B", "A   B"},
		{"asy unclosed", "Text [asy]draw((0,0)--(1,1));", "Text  "},
		{"two asy", "a [asy]x[/asy] b [asy]y[/asy] c", "a   b   c"},
		{"tikz", "Draw it: \\begin{tikzpicture}\\draw (0,0) -- (1,1);\\end{tikzpicture} done.", "Draw it:   done."},
		{"image", "The figure ![triangle](https://x.org/a.png) shows it.", "The figure   shows it."},
		{"url", "Source: https://artofproblemsolving.com/wiki?id=3 and www.example.com/x.", "Source:   and  ."},
		{"bracket not asy", "The interval [0, 1] stays.", "The interval [0, 1] stays."},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("%s: Clean(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}
