package decl

// Explode and Join are the values of lists:.
const (
	ListJoin    = "join"
	ListExplode = "explode"
)

// DefaultJoin separates the elements of a list-valued field (solutions
// given as a list) joined into one text: a blank line, a paragraph break.
const DefaultJoin = "\n\n"

// FieldOf is the input field fields: maps a problem field to, "" when
// none (the field may come from files: or a template instead). The stage
// and its forecast (records.go) read a source's fields the same way.
func FieldOf(src *Source, field string) string {
	switch field {
	case "id":
		return src.Fields.ID
	case "statement":
		return src.Fields.Statement
	case "solution":
		return src.Fields.Solution
	case "subject":
		return src.Fields.Subject
	case "origin":
		return src.Fields.Origin
	case "source":
		return src.Fields.Source
	}
	return ""
}
