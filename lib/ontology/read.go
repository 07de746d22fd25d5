package ontology

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ReadJSON reads a DAG in the package's own format, the JSON encoding of
// DAG:
//
//	{"nodes": [{"id": "alg", "label": "Algebra", "keywords": ["equation"]}, ...],
//	 "edges": [{"parent": "alg", "child": "alg/linear"}, ...]}
//
// Unknown fields, trailing data and an input without nodes are errors. The
// DAG is not validated.
func ReadJSON(r io.Reader) (*DAG, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var d DAG
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("ontology: JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("ontology: JSON: data after the top-level object")
	}
	if len(d.Nodes) == 0 {
		return nil, fmt.Errorf("ontology: JSON: no nodes")
	}
	return &d, nil
}

// mwNode is one line of the MathWorld nodes file; url and n_children are
// ignored.
type mwNode struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Depth   int      `json:"depth"`
	Parents []string `json:"parents"`
}

// mwRootKind marks the crawl's synthetic root node.
const mwRootKind = "root"

// ReadMathWorld reads the MathWorld crawl: nodes, a JSONL file of objects
// with id, name, kind ("root", "topic" or "entry"), depth and parents (other
// fields are ignored), and edges, a TSV file whose header is
//
//	parent_id	child_id	child_name	child_kind
//
// Label = name; MathWorld has no keywords. Nodes keep the order of the nodes
// file and edges the order of the edges file. The crawl's synthetic root (kind
// "root", id ROOT) is dropped with its edges, so the top-level topics
// (topics/Algebra, ...) are the DAG roots; BuildTree's virtual root takes its
// place. The edges file and the nodes' parents lists must describe the same
// edges: a mismatch is an error (it means the two files come from different
// crawls). The DAG is not validated.
func ReadMathWorld(nodes, edges io.Reader) (*DAG, error) {
	d := &DAG{}
	dropped := make(map[string]bool)
	parents := make(map[string][]string)
	err := readLines(nodes, func(line int, b []byte) error {
		if len(bytes.TrimSpace(b)) == 0 {
			return nil
		}
		var n mwNode
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("ontology: MathWorld nodes line %d: %w", line, err)
		}
		if n.Kind == mwRootKind {
			dropped[n.ID] = true
			return nil
		}
		d.Nodes = append(d.Nodes, Node{ID: n.ID, Label: n.Name})
		if _, dup := parents[n.ID]; !dup {
			parents[n.ID] = n.Parents
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(d.Nodes) == 0 {
		return nil, fmt.Errorf("ontology: MathWorld nodes: no nodes")
	}

	type pair struct{ p, c string }
	inEdges := make(map[pair]bool)
	var mismatch []string
	err = readLines(edges, func(line int, b []byte) error {
		f := strings.Split(strings.TrimRight(string(b), "\r"), "\t")
		if line == 1 {
			if len(f) < 2 || f[0] != "parent_id" || f[1] != "child_id" {
				return fmt.Errorf("ontology: MathWorld edges: header %q does not start with parent_id, child_id", string(b))
			}
			return nil
		}
		if len(f) == 1 && strings.TrimSpace(f[0]) == "" {
			return nil
		}
		if len(f) < 2 {
			return fmt.Errorf("ontology: MathWorld edges line %d: want at least 2 tab-separated fields, got %d", line, len(f))
		}
		e := Edge{Parent: f[0], Child: f[1]}
		inEdges[pair{e.Parent, e.Child}] = true
		if dropped[e.Parent] || dropped[e.Child] {
			return nil
		}
		if ps, ok := parents[e.Child]; ok && !contains(ps, e.Parent) {
			mismatch = append(mismatch, fmt.Sprintf("edge %q → %q (line %d) is not in the child's parents", e.Parent, e.Child, line))
		}
		d.Edges = append(d.Edges, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(inEdges) == 0 {
		return nil, fmt.Errorf("ontology: MathWorld edges: no edges")
	}
	for _, n := range d.Nodes {
		for _, p := range parents[n.ID] {
			if !inEdges[pair{p, n.ID}] {
				mismatch = append(mismatch, fmt.Sprintf("node %q lists parent %q, but the edges file has no such edge", n.ID, p))
			}
		}
	}
	if len(mismatch) > 0 {
		return nil, fmt.Errorf("ontology: MathWorld nodes and edges files disagree (%d mismatches); first: %s", len(mismatch), mismatch[0])
	}
	return d, nil
}

// readLines calls fn with each line of r (without its newline) and its
// 1-based number, stopping at the first error.
func readLines(r io.Reader, fn func(line int, b []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			if ferr := fn(line, bytes.TrimSuffix(b, []byte("\n"))); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("ontology: reading line %d: %w", line, err)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ReadCSV reads a DAG from CSV with the header
//
//	parent,child,label
//
// optionally followed by a fourth column, keywords, whose values are
// separated by ";". Each row declares its child node (with the row's label and
// keywords) and, when parent is not empty, the edge parent→child; a row with
// an empty parent declares a root. A node with several parents has several
// rows: their labels (and keywords) must agree or be empty. A node's label
// defaults to its id. Nodes are ordered by their first row, edges by row.
// Fields are trimmed of white space. A parent that is never a child is not
// made a node: Validate reports the edge as dangling. The DAG is not
// validated otherwise.
func ReadCSV(r io.Reader) (*DAG, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0 // every row has the header's width
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("ontology: CSV: empty input")
	}
	if err != nil {
		return nil, fmt.Errorf("ontology: CSV: %w", err)
	}
	for i := range header {
		header[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(header[i], "\uFEFF")))
	}
	want := []string{"parent", "child", "label", "keywords"}
	if (len(header) != 3 && len(header) != 4) || strings.Join(header, ",") != strings.Join(want[:len(header)], ",") {
		return nil, fmt.Errorf("ontology: CSV: header is %q, want \"parent,child,label\" or \"parent,child,label,keywords\"", strings.Join(header, ","))
	}

	d := &DAG{}
	index := make(map[string]int)
	rootLine := make(map[string]int) // declared roots → their line
	parentLine := make(map[string]int)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("ontology: CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		parent, child, label := rec[0], rec[1], rec[2]
		var kw []string
		if len(rec) == 4 {
			for _, k := range strings.Split(rec[3], ";") {
				if k = strings.TrimSpace(k); k != "" {
					kw = append(kw, k)
				}
			}
		}
		if child == "" {
			return nil, fmt.Errorf("ontology: CSV line %d: empty child", line)
		}
		i, ok := index[child]
		if !ok {
			i = len(d.Nodes)
			index[child] = i
			d.Nodes = append(d.Nodes, Node{ID: child})
		}
		n := &d.Nodes[i]
		switch {
		case label == "":
		case n.Label == "":
			n.Label = label
		case n.Label != label:
			return nil, fmt.Errorf("ontology: CSV line %d: node %q labelled %q here but %q before", line, child, label, n.Label)
		}
		switch {
		case kw == nil:
		case n.Keywords == nil:
			n.Keywords = kw
		case strings.Join(n.Keywords, ";") != strings.Join(kw, ";"):
			return nil, fmt.Errorf("ontology: CSV line %d: node %q has keywords %q here but %q before", line, child, kw, n.Keywords)
		}
		if parent == "" {
			rootLine[child] = line
		} else {
			parentLine[child] = line
			d.Edges = append(d.Edges, Edge{Parent: parent, Child: child})
		}
		if rl, pl := rootLine[child], parentLine[child]; rl > 0 && pl > 0 {
			return nil, fmt.Errorf("ontology: CSV: node %q is declared a root (line %d) but has a parent (line %d)", child, rl, pl)
		}
	}
	if len(d.Nodes) == 0 {
		return nil, fmt.Errorf("ontology: CSV: no rows after the header")
	}
	for i := range d.Nodes {
		if d.Nodes[i].Label == "" {
			d.Nodes[i].Label = d.Nodes[i].ID
		}
	}
	return d, nil
}
