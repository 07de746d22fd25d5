package retrievers

import (
	"strings"
	"unicode"
)

// Formatter turns raw texts into what the model sees: the instruction on
// the query (App. D.9), then the model's templates (Table 3). jobs/retrieval
// formats every text it sends with the Formatter of its spec.
type Formatter struct {
	query, doc string // templates with {text} (and {instruction} in query)
	instr      string // instruction in prepend form ({query} optional), "" = none
	field      bool   // the model has an {instruction} field: do not prepend
	// QueryExtra and DocExtra are the format's extra request options of
	// queries and of documents (models.yaml query_extra, doc_extra: an
	// embedder's task_type).
	QueryExtra map[string]any
	DocExtra   map[string]any
}

// NewFormatter returns the formatter of s: its shipped format (if any)
// with its own templates on top, and its instruction resolved. It fails
// on an unknown format or instruction name, as Validate reports.
func NewFormatter(s Spec) (Formatter, error) {
	f, err := s.format()
	if err != nil {
		return Formatter{}, err
	}
	instr, err := instructionText(s.Instruction)
	if err != nil {
		return Formatter{}, err
	}
	k, _ := LookupKind(s.Kind)
	return Formatter{
		query: f.Query, doc: f.Doc, instr: instr,
		field:      strings.Contains(f.Query, PlaceholderInstruction) || (k.uses("prompt") && strings.Contains(s.Prompt, PlaceholderInstruction)),
		QueryExtra: f.QueryExtra, DocExtra: f.DocExtra,
	}, nil
}

// InstructionField is the instruction as a dedicated field's value: the
// text without its {query} marker.
func (f Formatter) InstructionField() string {
	return strings.TrimSpace(strings.ReplaceAll(f.instr, PlaceholderQuery, ""))
}

// Query formats a query text: with an instruction and no instruction field,
// the instruction is prepended (at its {query}, else followed by a space),
// then the query template is filled.
func (f Formatter) Query(q string) string {
	if f.instr != "" && !f.field {
		if strings.Contains(f.instr, PlaceholderQuery) {
			q = strings.NewReplacer(PlaceholderQuery, q).Replace(f.instr)
		} else {
			q = f.instr + " " + q
		}
	}
	return strings.NewReplacer(PlaceholderText, q, PlaceholderInstruction, f.InstructionField()).Replace(f.query)
}

// Doc formats a document text: never with the instruction.
func (f Formatter) Doc(d string) string {
	return strings.NewReplacer(PlaceholderText, d).Replace(f.doc)
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
