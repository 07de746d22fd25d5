package topics

import (
	"context"
	"hash/maphash"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/saber-math/saber/lib/ontology"
	libtext "github.com/saber-math/saber/lib/text"
)

// Lexical is the offline topic scorer, the demo's default backend: it scores
// a tag by the words and phrases of its label and keywords that occur in the
// text, crediting a node also for the phrases of the topics below it.
//
// Text. The statement and the solution are tokenised alike (see tokenize):
// lower-cased maximal [a-z0-9]+ runs, which include LaTeX command names
// without their backslash ("\binom" → "binom"); a trailing plural "s" is cut
// off, accents are dropped and a few spellings merged ("dfrac" → "frac",
// "leq" → "le"). A few marks become words: "%" is "percent", "n!" gives
// "factorial", the derivative mark of f'(x) gives "primemark", a numeral with
// a numeric subscript (121_5) gives "basenumeral", and a term such as 3x
// (digits then one letter) is read as "coefvar".
//
// Phrases. A node's phrases are its keywords, its label, and each word of
// its label that says something on its own (not "and", "of", "number",
// "theorem", … see labelStop), all of weight 1 — except that a node
// without keywords drops Greek letters (greekLetters) and its n words weigh
// 1/n each, so that a label-only ontology's node does not fire on one
// shared word (θ, "signature"). Phrases are tokenised like
// the text and match only as whole token sequences.
//
// Evidence. A phrase p occurring cs times in the statement and cl times in
// the solution has evidence
//
//	e(p) = StatementWeight·g(cs) + SolutionWeight·g(cl),  g(0) = 0, g(c) = 1 + ln c,
//
// so repetition adds only logarithmically. (Weighting the statement above the
// solution was tried, 1.2:1 and 1.5:1, and lowered the agreement with the
// MATH subjects and with the synthetic corpus's domains, so both count
// alike.)
//
// Subtree credit. A node is credited for every phrase of its subtree, each
// phrase once, with its weight at its shallowest occurrence there decayed by
// Decay per level below the node:
//
//	W(n, p)  = max over m in subtree(n) having p of Decay^(depth m − depth n)
//	score(n) = Σ_p W(n, p) · spec(p) · e(p)
//
// where spec(p) = 1 + ln(N/df(p)) / ln N favours phrases that few of the N
// ontology nodes (df(p) of them) use. A domain thus gets credit for all of
// its descendants' keywords, most for its own and its areas'.
//
// Parents. When a tag is an ancestor of other tags of the same call (the
// node whose children are being scored), it is scored as their reference
// instead: OwnWeight times the evidence of its own phrases that no node
// below it has, plus ParentDecay times the best score among those tags. So
// the traversal descends to a child that carries the evidence and stops at a
// node whose own phrases outweigh every child's subtree — the early stop of
// paper §3.2.2.
//
// Finally every score is raised to the power Gamma: a monotone sharpening
// under which fewer near-ties pass the threshold τ, so that fewer domains and
// siblings are kept on weak evidence.
//
// A tag is looked up by its Node in the tree given to NewLexical; a tag whose
// node or label does not match that tree is scored from its own label and
// keywords only. Scores are deterministic. A Lexical is safe for concurrent
// use; it caches the analysis of the last few texts it saw.
type Lexical struct {
	t       *ontology.Tree
	vocab   map[string]int32 // token → id
	phrases [][]int32        // phrase → token ids
	byFirst map[int32][]int32
	spec    []float64 // phrase → spec(p)
	union   [][]pw    // tree node → W(n, ·)·spec, by phrase
	ownX    [][]pw    // tree node → its own phrases that no descendant has, ·spec

	seed  maphash.Seed
	cache [lexCacheSlots]atomic.Pointer[analysis]
}

// Scoring constants of Lexical (see its doc comment). They were chosen on the
// agreement of the main domain with the MATH subjects and with the synthetic
// corpus's domains (see corpus_test.go); neither figure depends much on them
// near these values.
const (
	StatementWeight = 1.0
	SolutionWeight  = 1.0
	Decay           = 0.5
	ParentDecay     = 0.6
	OwnWeight       = 0.5
	Gamma           = 1.5
)

const lexCacheSlots = 64

// pw is a phrase and its weight.
type pw struct {
	p int32
	w float64
}

// greekLetters are the letters a label names its subject by ("Theta
// series", "Gamma function") and a solution writes as variables (θ for an
// angle, α for a root). In a label-only ontology, as single-word phrases,
// they put geometry in MSC's theta series; the whole label still matches.
// (With keywords, a node's evidence is there, and they stay: the default
// ontology was tuned with them.)
var greekLetters = map[string]bool{
	"alpha": true, "beta": true, "gamma": true, "delta": true, "epsilon": true, "zeta": true,
	"eta": true, "theta": true, "iota": true, "kappa": true, "lambda": true, "rho": true,
	"sigma": true, "tau": true, "phi": true, "chi": true, "psi": true, "omega": true,
}

// labelStop lists label words that say nothing on their own.
var labelStop = map[string]bool{
	"and": true, "of": true, "the": true, "in": true, "a": true, "an": true, "to": true, "for": true,
	"with": true, "on": true, "by": true, "number": true, "theory": true, "formula": true,
	"theorem": true, "rule": true, "principle": true, "problem": true, "application": true,
	"technique": true, "method": true, "property": true, "general": true, "generalized": true,
	"basic": true, "other": true, "special": true, "equation": true, "function": true,
	"right": true, "left": true, "value": true, "pair": true, "point": true, "time": true,
	"two": true, "three": true, "form": true, "between": true, "unit": true, "order": true,
	"last": true, "work": true, "dividing": true, "case": true, "sum": true, "product": true,
	"common": true, "law": true, "test": true, "one": true, "higher": true, "integer": true,
	"side": true, "given": true, "real": true, "length": true, "mean": true, "both": true,
	"possible": true, "square": true, "line": true, "base": true, "dot": true,
	"even": true, "odd": true, "difference": true, "power": true, "area": true, "angle": true,
	"root": true, "graph": true, "from": true, "at": true, "plane": true, "space": true,
	// Words of a classification's own structure (MSC's "None of the above,
	// but in this section", "Proceedings, conferences, collections").
	"section": true, "topic": true, "collection": true, "miscellaneous": true,
	// What every problem has: MSC's "Representations of solutions to
	// partial differential equations" is about partial differential
	// equations, and "solution" alone put 5% of MATH there.
	"solution": true,
}

// NewLexical prepares a lexical scorer for the nodes of t.
func NewLexical(t *ontology.Tree) *Lexical {
	l := &Lexical{
		t:       t,
		vocab:   make(map[string]int32),
		byFirst: make(map[int32][]int32),
		seed:    maphash.MakeSeed(),
	}
	phraseID := make(map[string]int32)
	intern := func(toks []string) int32 {
		key := strings.Join(toks, " ")
		if id, ok := phraseID[key]; ok {
			return id
		}
		ids := make([]int32, len(toks))
		for k, tok := range toks {
			id, ok := l.vocab[tok]
			if !ok {
				id = int32(len(l.vocab))
				l.vocab[tok] = id
			}
			ids[k] = id
		}
		p := int32(len(l.phrases))
		phraseID[key] = p
		l.phrases = append(l.phrases, ids)
		l.byFirst[ids[0]] = append(l.byFirst[ids[0]], p)
		return p
	}

	// Own phrases per tree node, and their document frequency over the
	// DAG's nodes (a node duplicated in the tree counts once).
	n := t.Len()
	own := make([]map[int32]float64, n)
	users := make(map[int32]map[string]bool)
	dag := make(map[string]bool)
	for i := 1; i < n; i++ {
		own[i] = ownPhrases(t.Label(i), t.Keywords(i), intern)
		dag[t.ID(i)] = true
		for p := range own[i] {
			if users[p] == nil {
				users[p] = make(map[string]bool)
			}
			users[p][t.ID(i)] = true
		}
	}
	l.spec = make([]float64, len(l.phrases))
	logN := math.Log(float64(max(len(dag), 2)))
	for p := range l.spec {
		l.spec[p] = 1 + math.Log(float64(len(dag))/float64(max(len(users[int32(p)]), 1)))/logN
	}

	// W(n, ·) and the phrases below n, children before parents: preorder
	// numbers a parent before its children, so walk the indices downwards.
	w := make([]map[int32]float64, n)
	below := make([]map[int32]bool, n)
	l.union = make([][]pw, n)
	l.ownX = make([][]pw, n)
	for i := n - 1; i >= 1; i-- {
		w[i] = make(map[int32]float64, len(own[i]))
		below[i] = make(map[int32]bool)
		for p, v := range own[i] {
			w[i][p] = v
		}
		for _, c := range t.Children(i) {
			for p, v := range w[c] {
				if dv := Decay * v; dv > w[i][p] {
					w[i][p] = dv
				}
				below[i][p] = true
			}
		}
		l.union[i] = l.sorted(w[i])
		x := make(map[int32]float64)
		for p, v := range own[i] {
			if !below[i][p] {
				x[p] = v
			}
		}
		l.ownX[i] = l.sorted(x)
	}
	return l
}

// sorted returns m as a slice by phrase, the weights multiplied by spec.
func (l *Lexical) sorted(m map[int32]float64) []pw {
	out := make([]pw, 0, len(m))
	for p, w := range m {
		out = append(out, pw{p, w * l.spec[p]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].p < out[j].p })
	return out
}

// ownPhrases returns the phrases of one node with their weights; intern
// returns a phrase's id, or −1 to leave it out.
func ownPhrases(label string, keywords []string, intern func([]string) int32) map[int32]float64 {
	own := make(map[int32]float64)
	add := func(toks []string) {
		if len(toks) == 0 {
			return
		}
		if p := intern(toks); p >= 0 {
			own[p] = 1
		}
	}
	for _, k := range keywords {
		add(tokenize(k, nil))
	}
	// Abbreviations (i.e., e.g., etc.) are no part of what a label names;
	// tokenised, "i.e." would be the two words "i" and "e".
	ltoks := tokenize(reAbbrev.ReplaceAllString(label, " "), nil)
	// A label made only of stop words and letters ("Other", "None of the
	// above, but in this section") names nothing a text could show: as a
	// phrase it would match most of a corpus.
	// A node with keywords has its evidence there, and each word of its
	// label counts in full (as tuned on the default ontology). A node with
	// only a label must not fire on one shared word: each of its n words
	// counts 1/n, so that "Signatures and data streams" needs more than
	// "signature"; the whole label still counts in full.
	var words []string
	for _, tok := range ltoks {
		if len(tok) > 2 && !labelStop[tok] && !englishStop[tok] && !(len(keywords) == 0 && greekLetters[tok]) {
			words = append(words, tok)
		}
	}
	wordWeight := 1.0
	if len(keywords) == 0 && len(words) > 0 {
		wordWeight = 1 / float64(len(words))
	}
	for _, w := range words {
		if p := intern([]string{w}); p >= 0 {
			own[p] = max(own[p], wordWeight)
		}
	}
	if len(words) > 0 {
		add(ltoks)
	}
	return own
}

// reAbbrev matches the Latin abbreviations of labels: letters each followed
// by a period (i.e., e.g., q.v.) and etc., cf., viz., resp.
var reAbbrev = regexp.MustCompile(`(?i)\b(?:[a-z]\.){2,}|\b(?:etc|cf|viz|resp|vs)\.`)

// englishStop lists English function words of three letters or more:
// words every solution has, which as single-word phrases of a label would
// credit a topic on nearly every document. The ordinals and quantifiers
// (first, several) qualify a label's subject ("General first-order partial
// differential equations", "Several complex variables") but open the
// steps of most solutions ("First, ..."): on MATH with MSC2020's classes,
// "first" alone put a tenth of the problems in 35Gxx. (labelStop lists
// the mathematical words that say nothing on their own.)
var englishStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`about above after again against all also among any are aren because been
		before being below both but can cannot could did does doing down during each else elsewhere etc
		ever every few further had has have having her here hers him his how into its itself just may
		more most much must neither nor not none now off once only onto other others our ours out over
		own per same she should since some such than that their theirs them themselves then there
		these they this those though through thus too under until upon very via was were what when
		where whether which while who whom whose why will with within without would yet you your
		first second third fourth next several various certain`) {
		m[normalize(w)] = true // as tokenize spells it: "does" → "doe"
	}
	return m
}()

// analysis is what Lexical derives from one text: the evidence e(p) of every
// phrase (0 for most), and per tree node its score and the evidence of its
// exclusive own phrases.
type analysis struct {
	stmt, sol string
	ev        []float64
	score     []float64
	ownX      []float64
}

// Score implements Scorer.
func (l *Lexical) Score(_ context.Context, text Text, tags []Tag) ([]float64, error) {
	a := l.analyse(text)
	base := make([]float64, len(tags))
	known := make([]bool, len(tags))
	for k, tag := range tags {
		if tag.Node > 0 && tag.Node < len(a.score) && l.t.Label(tag.Node) == tag.Label {
			base[k], known[k] = a.score[tag.Node], true
			continue
		}
		// Not a node of l's tree: its own label and keywords only. Phrases
		// unknown to the tree cannot match (the analysis only counts known
		// ones), so they are left out.
		for p, w := range ownPhrases(tag.Label, tag.Keywords, l.lookup) {
			base[k] += w * l.spec[p] * a.ev[p]
		}
	}
	out := make([]float64, len(tags))
	for k, tag := range tags {
		out[k] = base[k]
		if !known[k] {
			continue
		}
		best, parent := 0.0, false
		for j, u := range tags {
			if known[j] && u.Node != tag.Node && l.t.IsAncestor(tag.Node, u.Node) {
				best, parent = max(best, base[j]), true
			}
		}
		if parent {
			out[k] = OwnWeight*a.ownX[tag.Node] + ParentDecay*best
		}
	}
	for k, v := range out {
		out[k] = math.Pow(v, Gamma)
	}
	return out, nil
}

// lookup returns the id of a known phrase, −1 for an unknown one.
func (l *Lexical) lookup(toks []string) int32 {
	ids := make([]int32, len(toks))
	for k, tok := range toks {
		id, ok := l.vocab[tok]
		if !ok {
			return -1
		}
		ids[k] = id
	}
next:
	for _, p := range l.byFirst[ids[0]] {
		if len(l.phrases[p]) != len(ids) {
			continue
		}
		for k, id := range ids {
			if l.phrases[p][k] != id {
				continue next
			}
		}
		return p
	}
	return -1
}

// analyse returns the analysis of text, from the cache when it is there.
func (l *Lexical) analyse(text Text) *analysis {
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.WriteString(text.Statement)
	h.WriteByte(0)
	h.WriteString(text.Solution)
	slot := &l.cache[h.Sum64()%lexCacheSlots]
	if a := slot.Load(); a != nil && a.stmt == text.Statement && a.sol == text.Solution {
		return a
	}
	a := &analysis{stmt: text.Statement, sol: text.Solution, ev: make([]float64, len(l.phrases))}
	var toks []string
	for part, weight := range [2]float64{StatementWeight, SolutionWeight} {
		s := text.Statement
		if part == 1 {
			s = text.Solution
		}
		// Drawing code and links would otherwise match labels such as
		// "Label" or "Direction" in every geometry solution.
		toks = tokenize(libtext.Clean(s), toks[:0])
		for p, c := range l.count(toks) {
			a.ev[p] += weight * (1 + math.Log(float64(c)))
		}
	}
	dot := func(ws []pw) float64 {
		s := 0.0
		for _, x := range ws {
			s += x.w * a.ev[x.p]
		}
		return s
	}
	n := l.t.Len()
	a.score = make([]float64, n)
	a.ownX = make([]float64, n)
	for i := 1; i < n; i++ {
		a.score[i] = dot(l.union[i])
		a.ownX[i] = dot(l.ownX[i])
	}
	slot.Store(a)
	return a
}

// count returns how often each known phrase occurs in toks (a phrase inside
// a longer matching phrase counts too).
func (l *Lexical) count(toks []string) map[int32]int {
	ids := make([]int32, len(toks))
	for k, tok := range toks {
		id, ok := l.vocab[tok]
		if !ok {
			id = -1
		}
		ids[k] = id
	}
	counts := make(map[int32]int)
	for i, id := range ids {
		if id < 0 {
			continue
		}
	next:
		for _, p := range l.byFirst[id] {
			ph := l.phrases[p]
			if i+len(ph) > len(ids) {
				continue
			}
			for k := 1; k < len(ph); k++ {
				if ids[i+k] != ph[k] {
					continue next
				}
			}
			counts[p]++
		}
	}
	return counts
}

// runeWords reads a few Unicode symbols as the words a LaTeX source would
// spell them with.
var runeWords = map[rune]string{
	'π': "pi", '°': "circ", '√': "sqrt", '≤': "le", '≥': "ge", '≡': "equiv", '∠': "angle",
	'△': "triangle", '×': "times", '∞': "infty", '∑': "sum", '∫': "int", '≠': "neq",
	'θ': "theta", 'α': "alpha", 'β': "beta", 'φ': "phi", 'ω': "omega",
}

// keepS lists words whose final "s" is not a plural: LaTeX dots, and
// "times" (the operator \times, kept apart from "time").
var keepS = map[string]bool{"dots": true, "cdots": true, "ldots": true, "vdots": true, "ddots": true, "times": true}

// synonyms merges spellings that mean the same for topic matching.
var synonyms = map[string]string{
	"dfrac": "frac", "tfrac": "frac", "dbinom": "binom", "tbinom": "binom", "leq": "le", "leqslant": "le", "geq": "ge", "geqslant": "ge",
	"hospital": "hopital", "varphi": "phi", "vartheta": "theta", "varepsilon": "epsilon", "varpi": "pi", "bold": "mathbf", "boldsymbol": "mathbf", "opital": "hopital",
}

// tokenize appends the tokens of s to dst (see Lexical): lower-cased maximal
// [a-z0-9]+ runs (accented Latin letters folded to plain ones) passed through
// normalize. Some marks become words:
//
//   - "%" gives "percent";
//   - "!" right after a letter, digit or closing bracket gives "factorial"
//     ("\!" is LaTeX spacing, not a factorial);
//   - an apostrophe after a lower-case letter, ")" or another apostrophe, or
//     after a capital and before "(" (f'(x), g'(2), P'(x)), and not before a
//     letter or digit, gives "primemark" — not A' (a point) or Priya's;
//   - "_" between a numeral and a digit or "{digit" (121_5, 73_{10}) gives
//     "basenumeral";
//   - the symbols of runeWords give their words.
func tokenize(s string, dst []string) []string {
	var buf []byte
	flush := func() {
		if len(buf) == 0 {
			return
		}
		dst = append(dst, normalize(string(buf)))
		buf = buf[:0]
	}
	var prev byte
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if f, ok := foldRune(r); ok {
				buf = append(buf, f)
				prev = f
				continue
			}
			flush()
			if w, ok := runeWords[r]; ok {
				dst = append(dst, w)
			}
			prev = 0
			continue
		}
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			buf = append(buf, c)
		case c >= 'A' && c <= 'Z':
			buf = append(buf, c+'a'-'A')
		default:
			flush()
			switch c {
			case '%':
				dst = append(dst, "percent")
			case '_':
				// A numeral with a numeric subscript, 121_5 or 73_{10}, is
				// written in a base.
				var n1, n2 byte
				if i+2 < len(s) {
					n1, n2 = s[i+1], s[i+2]
				} else if i+1 < len(s) {
					n1 = s[i+1]
				}
				if isDigit(prev) && (isDigit(n1) || n1 == '{' && isDigit(n2)) {
					dst = append(dst, "basenumeral")
				}
			case '!':
				if isAlnum(prev) || prev == ')' || prev == '}' {
					dst = append(dst, "factorial")
				}
			case '\'':
				var next byte
				if i+1 < len(s) {
					next = s[i+1]
				}
				lower := prev >= 'a' && prev <= 'z' || prev == ')' || prev == '\''
				upper := prev >= 'A' && prev <= 'Z' && (next == '(' || next == '\'')
				if (lower || upper) && !isAlnum(next) {
					dst = append(dst, "primemark")
				}
			}
		}
		prev = c
		i++
	}
	flush()
	return dst
}

// foldRune maps an accented Latin letter to its plain lower-case letter
// ("L'Hôpital" → "l", "hopital").
func foldRune(r rune) (byte, bool) {
	const from, to = "àáâãäåçèéêëìíîïñòóôõöùúûüýÿ", "aaaaaaceeeeiiiinooooouuuuyy"
	r = unicode.ToLower(r)
	k := 0
	for _, f := range from {
		if f == r {
			return to[k], true
		}
		k++
	}
	return 0, false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// normalize maps one token: digits followed by one letter (3x, 12y) become
// "coefvar", an algebraic term; a trailing plural "s" is removed from words
// longer than three letters not ending in "ss", "us" or "is" (nor in keepS);
// then synonyms are merged.
func normalize(tok string) string {
	if n := len(tok); n >= 2 && isDigit(tok[0]) && !isDigit(tok[n-1]) && allDigits(tok[:n-1]) {
		return "coefvar" // an algebraic term such as 3x
	}
	if n := len(tok); n > 3 && tok[n-1] == 's' && !keepS[tok] {
		switch tok[n-2] {
		case 's', 'u', 'i':
		default:
			tok = tok[:n-1]
		}
	}
	if s, ok := synonyms[tok]; ok {
		return s
	}
	return tok
}
