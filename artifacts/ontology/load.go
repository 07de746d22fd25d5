package ontology

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/saber-math/saber/lib/ontology"
)

// Formats are the ontology file formats Load reads, as benchmark.ontology
// .format and `saber ontology stats --format` name them.
var Formats = []string{"json", "csv", "mathworld", "jskos", "skos"}

// Source is an ontology file as its caller read it. Name is the file's
// path or URI (its extension and the messages use it); Body its bytes;
// Format one of Formats, or "" or "auto" to detect it. Edges reads the
// MathWorld edges file; nil when none is configured. Fields, when set,
// reads Body as a concept list of the user's own (JSON array, JSON lines
// or CSV) through that field map; Format is then auto, json or csv.
type Source struct {
	Name   string
	Body   []byte
	Format string
	Edges  func() ([]byte, error)
	Fields *ontology.FieldMap
}

// Load is the one ontology loader of saber: `saber ontology` and every
// stage that reads benchmark.ontology call it, so a file reads the same
// everywhere. It returns the DAG (not validated: BuildTree validates) and
// the format it was read as. Errors are the input's fault; the caller
// wraps them with the setting that named the file.
func Load(src Source) (*ontology.DAG, string, error) {
	if src.Fields != nil {
		return loadFieldMapped(src)
	}
	format, err := DetectFormat(src.Name, src.Body, src.Format)
	if err != nil {
		return nil, "", err
	}
	if format == "mathworld" {
		if src.Edges == nil {
			return nil, format, fmt.Errorf("a MathWorld nodes file needs its TSV edges file")
		}
	} else if src.Edges != nil {
		return nil, format, fmt.Errorf("an edges file goes with the mathworld format only, not %s", format)
	}
	r := bytes.NewReader(src.Body)
	var d *ontology.DAG
	switch format {
	case "json":
		d, err = ontology.ReadJSON(r)
	case "csv":
		d, err = ontology.ReadCSV(r)
	case "jskos":
		d, err = ontology.ReadJSKOS(r)
	case "skos":
		d, err = ontology.ReadSKOS(r)
	case "mathworld":
		edges, eerr := src.Edges()
		if eerr != nil {
			return nil, format, eerr
		}
		d, err = ontology.ReadMathWorld(r, bytes.NewReader(edges))
	}
	if err != nil {
		return nil, format, fmt.Errorf("%s (read as %s): %w", src.Name, format, err)
	}
	return d, format, nil
}

// loadFieldMapped reads a concept list through src.Fields: CSV by a .csv
// name or format csv, else JSON (an array or JSON lines, told apart by the
// content). The published formats have fixed fields, so a field map with
// one of them is an error rather than ignored.
func loadFieldMapped(src Source) (*ontology.DAG, string, error) {
	format := src.Format
	switch format {
	case "", "auto":
		format = "json"
		if strings.EqualFold(filepath.Ext(src.Name), ".csv") {
			format = "csv"
		}
	case "json", "csv":
	default:
		return nil, format, fmt.Errorf("a field map reads json or csv concept lists, not the %s format, whose fields are fixed; drop the field map or the format", format)
	}
	if src.Edges != nil {
		return nil, format, fmt.Errorf("an edges file goes with the mathworld format only, not a field-mapped concept list")
	}
	var d *ontology.DAG
	var err error
	if format == "csv" {
		d, err = ontology.ReadConceptsCSV(bytes.NewReader(src.Body), *src.Fields)
	} else {
		d, err = ontology.ReadConceptsJSON(bytes.NewReader(src.Body), *src.Fields)
	}
	if err != nil {
		return nil, format, fmt.Errorf("%s (read as a %s concept list through the field map): %w", src.Name, format, err)
	}
	return d, format, nil
}

// DetectFormat returns format when it is set (not "" or "auto"), else the
// format name's extension and body's content imply: .csv is csv; .json and
// .jsonld are a SKOS scheme in JSON-LD when the document has @graph or
// @context keys, else saber's own JSON; .jsonl and .ndjson are JSKOS when
// the first record has notation or prefLabel, else a MathWorld nodes file.
// Content decides between formats that share an extension, because MSC's
// JSKOS and the MathWorld crawl are both newline-delimited JSON.
func DetectFormat(name string, body []byte, format string) (string, error) {
	if format != "" && format != "auto" {
		for _, f := range Formats {
			if f == format {
				return format, nil
			}
		}
		return "", fmt.Errorf("unknown format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".csv":
		return "csv", nil
	case ".json", ".jsonld":
		if hasJSONLDKeys(body) {
			return "skos", nil
		}
		return "json", nil
	case ".jsonl", ".ndjson":
		if firstRecordHas(body, "notation", "prefLabel") {
			return "jskos", nil
		}
		return "mathworld", nil
	default:
		return "", fmt.Errorf("cannot tell the format of %s from its extension %q; give the format (one of %s)", name, ext, strings.Join(Formats, ", "))
	}
}

// hasJSONLDKeys reports whether the top-level JSON value is an object with
// an @graph or @context key, or an array whose first object has @id or
// @type. It reads only the top level's keys, not the values.
func hasJSONLDKeys(body []byte) bool {
	var top any
	if json.Unmarshal(body, &top) != nil {
		return false
	}
	switch t := top.(type) {
	case map[string]any:
		_, g := t["@graph"]
		_, c := t["@context"]
		return g || c
	case []any:
		if len(t) > 0 {
			if o, ok := t[0].(map[string]any); ok {
				_, id := o["@id"]
				_, ty := o["@type"]
				return id || ty
			}
		}
	}
	return false
}

// firstRecordHas reports whether the first non-blank line of body is a JSON
// object with one of keys.
func firstRecordHas(body []byte, keys ...string) bool {
	for rest := body; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var o map[string]json.RawMessage
		if json.Unmarshal(line, &o) != nil {
			return false
		}
		for _, k := range keys {
			if _, ok := o[k]; ok {
				return true
			}
		}
		return false
	}
	return false
}
