package text

import (
	"regexp"
	"strings"
)

// Drawing code and links say nothing about a solution's idea, but their
// words (draw, label, dir, unitsize, http, png) would win sentence and topic
// scores on real corpora: MATH puts Asymptote in a tenth of its geometry
// solutions. An unclosed block runs to the end of the text, as a renderer
// would read it.
var (
	reAsy   = regexp.MustCompile(`(?is)\[asy\].*?(?:\[/asy\]|\z)`)
	reTikz  = regexp.MustCompile(`(?s)\\begin\{tikzpicture\}.*?(?:\\end\{tikzpicture\}|\z)`)
	reImage = regexp.MustCompile(`!\[[^\]\n]*\]\([^)\n]*\)`)
	reURL   = regexp.MustCompile(`(?i)\b(?:https?://|ftp://|www\.)[^\s<>()\[\]{}"']+`)
)

// Clean removes what the offline backends must not score: Asymptote blocks
// ([asy]…[/asy]), TikZ pictures (\begin{tikzpicture}…\end{tikzpicture}),
// markdown images (![alt](target)) and URLs. Each removal leaves one space,
// so the words on either side stay apart; the rest of s is unchanged.
func Clean(s string) string {
	if !strings.Contains(s, "[") && !strings.Contains(s, "tikzpicture") && !strings.Contains(s, "://") && !strings.Contains(s, "www.") {
		return s
	}
	// Images before URLs: an image's target is a URL, and removing that
	// first would leave "![alt]( )".
	for _, re := range []*regexp.Regexp{reAsy, reTikz, reImage} {
		s = re.ReplaceAllString(s, " ")
	}
	// A URL's trailing punctuation usually ends the sentence: keep it.
	return reURL.ReplaceAllStringFunc(s, func(u string) string {
		return " " + u[len(strings.TrimRight(u, ".,;:!?")):]
	})
}
