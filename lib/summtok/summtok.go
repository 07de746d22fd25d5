// Package summtok is the tokeniser of solution summaries (SPEC §3
// "Summaries", paper App. B.1) and their Jaccard similarity.
//
// A summary's tokens are the maximal [a-z0-9]+ runs of its lower-cased text,
// minus the stop words: scikit-learn's ENGLISH_STOP_WORDS (EnglishStopWords,
// 318 words) and a list of our own (MathStopWords). Two summaries are compared
// by the Jaccard similarity of their token sets,
//
//	J(A, B) = |A ∩ B| / |A ∪ B|   (0 when A and B are both empty).
//
// Lower-casing follows Python's str.lower, so the package agrees token for
// token with the reference re.findall(r'[a-z0-9]+', s.lower()) (minus the
// stop words) in testdata/reference.py, also on non-ASCII input: only two
// non-ASCII characters lower-case to something containing ASCII letters,
// U+212A KELVIN SIGN → "k", which joins the run it is in, and U+0130 LATIN
// CAPITAL LETTER I WITH DOT ABOVE → "i" + U+0307, which ends the run after the
// "i". Every other non-ASCII rune, and every byte of invalid UTF-8, separates
// tokens.
//
// EnglishStopWords was generated with Debian's python3-sklearn
// 1.2.1+dfsg-1 (scikit-learn 1.2.1) by
//
//	/usr/bin/python3 -c "from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as S; print('\n'.join(sorted(S)))"
//
// which testdata/gen.sh runs to write the golden file
// testdata/sklearn_stop_words.txt; TestEnglishStopWordsGolden checks the two
// agree.
//
// docs/algorithms.md#topics-and-summaries-tag-summarize specifies the
// summarize stage whose summaries it compares.
package summtok

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// EnglishStopWords is exactly scikit-learn's ENGLISH_STOP_WORDS (318 words),
// sorted. Treat it as read-only.
var EnglishStopWords = []string{
	"a", "about", "above", "across", "after", "afterwards", "again", "against", "all", "almost",
	"alone", "along", "already", "also", "although", "always", "am", "among", "amongst", "amoungst",
	"amount", "an", "and", "another", "any", "anyhow", "anyone", "anything", "anyway", "anywhere",
	"are", "around", "as", "at", "back", "be", "became", "because", "become", "becomes",
	"becoming", "been", "before", "beforehand", "behind", "being", "below", "beside", "besides", "between",
	"beyond", "bill", "both", "bottom", "but", "by", "call", "can", "cannot", "cant",
	"co", "con", "could", "couldnt", "cry", "de", "describe", "detail", "do", "done",
	"down", "due", "during", "each", "eg", "eight", "either", "eleven", "else", "elsewhere",
	"empty", "enough", "etc", "even", "ever", "every", "everyone", "everything", "everywhere", "except",
	"few", "fifteen", "fifty", "fill", "find", "fire", "first", "five", "for", "former",
	"formerly", "forty", "found", "four", "from", "front", "full", "further", "get", "give",
	"go", "had", "has", "hasnt", "have", "he", "hence", "her", "here", "hereafter",
	"hereby", "herein", "hereupon", "hers", "herself", "him", "himself", "his", "how", "however",
	"hundred", "i", "ie", "if", "in", "inc", "indeed", "interest", "into", "is",
	"it", "its", "itself", "keep", "last", "latter", "latterly", "least", "less", "ltd",
	"made", "many", "may", "me", "meanwhile", "might", "mill", "mine", "more", "moreover",
	"most", "mostly", "move", "much", "must", "my", "myself", "name", "namely", "neither",
	"never", "nevertheless", "next", "nine", "no", "nobody", "none", "noone", "nor", "not",
	"nothing", "now", "nowhere", "of", "off", "often", "on", "once", "one", "only",
	"onto", "or", "other", "others", "otherwise", "our", "ours", "ourselves", "out", "over",
	"own", "part", "per", "perhaps", "please", "put", "rather", "re", "same", "see",
	"seem", "seemed", "seeming", "seems", "serious", "several", "she", "should", "show", "side",
	"since", "sincere", "six", "sixty", "so", "some", "somehow", "someone", "something", "sometime",
	"sometimes", "somewhere", "still", "such", "system", "take", "ten", "than", "that", "the",
	"their", "them", "themselves", "then", "thence", "there", "thereafter", "thereby", "therefore", "therein",
	"thereupon", "these", "they", "thick", "thin", "third", "this", "those", "though", "three",
	"through", "throughout", "thru", "thus", "to", "together", "too", "top", "toward", "towards",
	"twelve", "twenty", "two", "un", "under", "until", "up", "upon", "us", "very",
	"via", "was", "we", "well", "were", "what", "whatever", "when", "whence", "whenever",
	"where", "whereafter", "whereas", "whereby", "wherein", "whereupon", "wherever", "whether", "which", "while",
	"whither", "who", "whoever", "whole", "whom", "whose", "why", "will", "with", "within",
	"without", "would", "yet", "you", "your", "yours", "yourself", "yourselves",
}

// MathStopWords is our list of words that carry no method in a solution
// summary, sorted. Treat it as read-only. It is disjoint from
// EnglishStopWords, and the rule that made it is:
//
//   - Verbs of the generic act of solving or stating, in all their forms (base,
//     -s, past, past participle, -ing): apply, calculate, compute, consider,
//     determine, find, get, give, let, note, obtain, prove, set, show, solve,
//     use. (Forms already in EnglishStopWords, such as find, found, get,
//     give and show, are not repeated.)
//   - Nouns for the problem, its parts and its answer, and for a generic
//     mathematical quantity, singular and plural: answer, equation,
//     expression, integer, number, problem, result, solution, step, term,
//     value.
//   - The adjective real (as in "real number").
//
// A word that names a method (substitution, induction, factor, complete,
// telescoping, ...) or an object with content (prime, triangle, polynomial,
// root, ...) is never a stop word. testdata/math_stop_words.txt is a copy,
// read by testdata/reference.py; TestMathStopWordsFile checks they agree.
var MathStopWords = []string{
	"answer", "answers", "applied", "applies", "apply", "applying", "calculate", "calculated", "calculates", "calculating",
	"compute", "computed", "computes", "computing", "consider", "considered", "considering", "considers", "determine", "determined",
	"determines", "determining", "equation", "equations", "expression", "expressions", "finding", "finds", "gave", "gets",
	"getting", "given", "gives", "giving", "got", "gotten", "integer", "integers", "let", "lets",
	"letting", "note", "noted", "notes", "noting", "number", "numbers", "obtain", "obtained", "obtaining",
	"obtains", "problem", "problems", "prove", "proved", "proven", "proves", "proving", "real", "result",
	"results", "set", "sets", "setting", "showed", "showing", "shown", "shows", "solution", "solutions",
	"solve", "solved", "solves", "solving", "step", "steps", "term", "terms", "use", "used",
	"uses", "using", "value", "values",
}

var stopWords = func() map[string]struct{} {
	m := make(map[string]struct{}, len(EnglishStopWords)+len(MathStopWords))
	for _, w := range EnglishStopWords {
		m[w] = struct{}{}
	}
	for _, w := range MathStopWords {
		m[w] = struct{}{}
	}
	return m
}()

// IsStopWord reports whether w is in EnglishStopWords or MathStopWords. The
// lists are lower case, so IsStopWord("The") is false.
func IsStopWord(w string) bool {
	_, ok := stopWords[w]
	return ok
}

// Tokens returns the tokens of s in order of appearance, with repeats: the
// maximal [a-z0-9]+ runs of the lower-cased s (see the package comment) that
// are not stop words. It returns nil when there are none.
func Tokens(s string) []string {
	var out []string
	buf := make([]byte, 0, 32)
	flush := func() {
		if len(buf) > 0 {
			if w := string(buf); !IsStopWord(w) {
				out = append(out, w)
			}
			buf = buf[:0]
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				buf = append(buf, c)
			case 'A' <= c && c <= 'Z':
				buf = append(buf, c+('a'-'A'))
			default:
				flush()
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '\u212a': // KELVIN SIGN: str.lower gives "k"
			buf = append(buf, 'k')
		case '\u0130': // I WITH DOT ABOVE: str.lower gives "i" + U+0307
			buf = append(buf, 'i')
			flush()
		default:
			flush()
		}
	}
	flush()
	return out
}

// Set returns the sorted, de-duplicated Tokens of s: the set that Jaccard
// compares. It returns nil when s has no tokens.
func Set(s string) []string {
	t := Tokens(s)
	slices.Sort(t)
	return slices.Compact(t)
}

// Jaccard returns |A ∩ B| / |A ∪ B| for sorted, de-duplicated sets a and b
// (as made by Set), computed as float64(|A∩B|) / float64(|A∪B|), the
// correctly rounded quotient of the exact counts; it is 0 when both are
// empty. The result is unspecified when a or b is not sorted and unique.
// It takes any ordered element type, so the pairs stage computes it on
// token sets relabelled to ranked ids (simjoin.Rank) and gets exactly the
// float64 the strings give.
func Jaccard[T cmp.Ordered](a, b []T) float64 {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
