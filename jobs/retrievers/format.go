package retrievers

import (
	"strings"
	"unicode"
)

// formatter turns raw texts into what the model sees: the instruction on
// the query (App. D.9), then the model's templates (Table 3).
type formatter struct {
	query, doc string // templates with {text} (and {instruction} in query)
	instr      string // instruction in prepend form ({query} optional), "" = none
	field      bool   // the model has an {instruction} field: do not prepend
	queryExtra map[string]any
	docExtra   map[string]any
}

func newFormatter(s Spec) (formatter, error) {
	f, err := s.format()
	if err != nil {
		return formatter{}, err
	}
	instr, err := instructionText(s.Instruction)
	if err != nil {
		return formatter{}, err
	}
	return formatter{
		query: f.Query, doc: f.Doc, instr: instr,
		field:      strings.Contains(f.Query, placeholderInstruction) || (s.Kind == KindChat && strings.Contains(s.Prompt, placeholderInstruction)),
		queryExtra: f.QueryExtra, docExtra: f.DocExtra,
	}, nil
}

// instructionField is the instruction as a dedicated field's value: the
// text without its {query} marker.
func (f formatter) instructionField() string {
	return strings.TrimSpace(strings.ReplaceAll(f.instr, placeholderQuery, ""))
}

// Query formats a query text: with an instruction and no instruction field,
// the instruction is prepended (at its {query}, else followed by a space),
// then the query template is filled.
func (f formatter) Query(q string) string {
	if f.instr != "" && !f.field {
		if strings.Contains(f.instr, placeholderQuery) {
			q = strings.NewReplacer(placeholderQuery, q).Replace(f.instr)
		} else {
			q = f.instr + " " + q
		}
	}
	return strings.NewReplacer(placeholderText, q, placeholderInstruction, f.instructionField()).Replace(f.query)
}

// Doc formats a document text: never with the instruction.
func (f formatter) Doc(d string) string {
	return strings.NewReplacer(placeholderText, d).Replace(f.doc)
}

// Chunks splits text into non-overlapping pieces of at most maxWords
// white-space separated words (App. C.2's chunking, with words standing in
// for the server's tokens, which saber cannot count). Each piece is the
// original text from its first word's first byte to its last word's last
// byte, so line breaks and spacing inside a piece survive. A text of at
// most maxWords words, and any text when maxWords ≤ 0, is one piece,
// returned unchanged (so is a text without words).
func Chunks(text string, maxWords int) []string {
	if maxWords <= 0 {
		return []string{text}
	}
	type span struct{ lo, hi int }
	var words []span
	in := false
	for i, r := range text {
		sp := unicode.IsSpace(r)
		switch {
		case !sp && !in:
			words = append(words, span{lo: i})
			in = true
		case sp && in:
			words[len(words)-1].hi = i
			in = false
		}
	}
	if in {
		words[len(words)-1].hi = len(text)
	}
	if len(words) <= maxWords {
		return []string{text}
	}
	var out []string
	for i := 0; i < len(words); i += maxWords {
		j := min(i+maxWords, len(words)) - 1
		out = append(out, text[words[i].lo:words[j].hi])
	}
	return out
}
