package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	ontologyfile "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ontology"
)

const ontologyUsage = `saber ontology — inspect a topic ontology: a DAG of topics and the tree it
unfolds into (every node duplicated once per root path, SPEC §3)

Usage:
  saber ontology stats FILE [--edges FILE] [--format json|csv|mathworld|jskos|skos] [--roots id1,id2]
  saber ontology stats FILE --fields id=code,label=name,parents=broader[,keywords=kw] [--separator ';']
  saber ontology stats --config run.yaml   (benchmark.ontology, as the stages read it)

Subcommands:
  stats    print the shape of the DAG and of its tree
`

func cmdOntology(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			fmt.Fprint(stderr, ontologyUsage)
			return stage.ExitBadInput
		}
		fmt.Fprint(stdout, ontologyUsage)
		return stage.ExitOK
	}
	switch args[0] {
	case "stats":
		return ontologyStats(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "saber ontology: unknown subcommand %q\n\n%s", args[0], ontologyUsage)
	return stage.ExitBadInput
}

func ontologyStats(args []string, stdout, stderr io.Writer) int {
	const cmd = "ontology stats"
	fs := newFlags(cmd, `saber ontology stats — the shape of an ontology DAG and of its tree

Usage:
  saber ontology stats ontology.json
  saber ontology stats ontology.csv --roots alg,geo
  saber ontology stats mathworld_tree_nodes.jsonl --edges mathworld_tree_edges.tsv \
      --roots topics/Algebra,topics/Geometry,topics/NumberTheory,topics/Combinatorics,topics/CalculusandAnalysis

Formats (by FILE's extension and content unless --format is given):
  json       .json: {"nodes": [{"id", "label", "keywords"}], "edges": [{"parent", "child"}]}
  skos       .json/.jsonld with @graph or @context: SKOS concepts in JSON-LD
             (skos:notation, skos:prefLabel, skos:broader)
  jskos      .jsonl/.ndjson whose records have notation or prefLabel: JSKOS, as
             MSC2020 is published ({"uri", "notation": ["11A41"], "prefLabel": {"en"},
             "broader": [{"uri"}]}); ids are the notations (--roots 11-XX,05-XX)
  mathworld  other .jsonl: a MathWorld nodes file with --edges, the crawl's TSV edges file
  csv        .csv: header parent,child,label[,keywords]; an empty parent declares a root

A concept list of another shape (a JSON array of objects, JSON lines, or CSV
with a header) is read through --fields, which names its id, label, parents
and keywords fields (JSON paths such as meta.name allowed; parents and
keywords lists, or strings split by --separator); --config reads
benchmark.ontology (file, format, edges, fields, roots) from a run config.

Prints the DAG's nodes, edges, roots, nodes with several parents, depth
(nodes on the longest root path, a root is 1), branching and depth
histogram, then the same for the tree (with its virtual root at depth 0 and
the domains at 1) and each domain's size and depth. --roots first keeps only
the given nodes and their descendants, with the given nodes as the roots.
Exit 2 when the input cannot be read or is not a valid DAG; every problem is
listed.
`, stderr)
	edgesPath := fs.String("edges", "", "MathWorld edges `FILE` (TSV), with a .jsonl nodes FILE")
	format := fs.String("format", "", "input `format`: json, csv, mathworld, jskos or skos (default: by FILE's extension and content)")
	rootsFlag := fs.String("roots", "", "comma-separated `ids` to restrict to; they become the roots")
	fieldsFlag := fs.String("fields", "", "field map of a concept list: comma-separated `key=field` with keys id, label, parents, keywords")
	sep := fs.String("separator", "", "with --fields: the `separator` of string-valued parents and keywords (default \";\")")
	cfgPath := fs.String("config", "", "run config `FILE` whose benchmark.ontology to read instead of FILE and the flags")
	pos, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	if *cfgPath != "" {
		if len(pos) > 0 || *edgesPath != "" || *format != "" || *rootsFlag != "" || *fieldsFlag != "" || *sep != "" {
			fmt.Fprintf(stderr, "saber %s: --config reads benchmark.ontology; give no FILE nor other flags with it\n", cmd)
			return stage.ExitBadInput
		}
		cfg, _, err := loadConfig(*cfgPath)
		if err != nil {
			return fail(stderr, cmd, err)
		}
		d, t, err := readers.LoadOntologyDAG(context.Background(), cfg)
		if err != nil {
			return fail(stderr, cmd, err)
		}
		printOntologyStats(stdout, d.Stats(), t)
		return stage.ExitOK
	}
	var fields *ontology.FieldMap
	if *fieldsFlag != "" || *sep != "" {
		var err error
		if fields, err = parseFieldMap(*fieldsFlag, *sep); err != nil {
			return fail(stderr, cmd, stage.BadInput(err))
		}
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "saber %s: want exactly one FILE, got %d arguments\n", cmd, len(pos))
		fs.Usage()
		return stage.ExitBadInput
	}
	d, err := readOntology(pos[0], *edgesPath, *format, fields)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	if *rootsFlag != "" {
		var roots []string
		for _, r := range strings.Split(*rootsFlag, ",") {
			if r = strings.TrimSpace(r); r != "" {
				roots = append(roots, r)
			}
		}
		if d, err = d.Restrict(roots); err != nil {
			return fail(stderr, cmd, stage.BadInput(fmt.Errorf("--roots: %w", err)))
		}
	}
	t, err := ontology.BuildTree(d)
	if err != nil {
		var ve *ontology.ValidationError
		if errors.As(err, &ve) {
			fmt.Fprintf(stderr, "saber %s: %s is not a valid ontology DAG (%d problems):\n", cmd, pos[0], len(ve.Problems))
			for _, p := range ve.Problems {
				fmt.Fprintf(stderr, "  %s\n", p)
			}
			return stage.ExitBadInput
		}
		return fail(stderr, cmd, stage.BadInput(err))
	}
	printOntologyStats(stdout, d.Stats(), t)
	return stage.ExitOK
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, which it returns; ok is false when the command
// should return code.
func parseInterleaved(fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, stage.ExitOK, false
			}
			return nil, stage.ExitBadInput, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), 0, true // after "--" all is positional
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// readOntology reads path with the one loader every caller shares
// (artifacts/ontology.Load). Every error is bad input.
func readOntology(path, edgesPath, format string, fields *ontology.FieldMap) (*ontology.DAG, error) {
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	src := ontologyfile.Source{Name: path, Body: body, Format: format, Fields: fields}
	if edgesPath != "" {
		src.Edges = func() ([]byte, error) { return os.ReadFile(edgesPath) }
	}
	d, _, err := ontologyfile.Load(src)
	if err != nil {
		return nil, stage.BadInput(fmt.Errorf("%w (see --format, --edges and --fields)", err))
	}
	return d, nil
}

// parseFieldMap reads --fields (id=code,label=name,...) and --separator.
func parseFieldMap(spec, sep string) (*ontology.FieldMap, error) {
	m := &ontology.FieldMap{Separator: sep}
	for _, kv := range strings.Split(spec, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		var dst *string
		switch k {
		case "id":
			dst = &m.ID
		case "label":
			dst = &m.Label
		case "parents":
			dst = &m.Parents
		case "keywords":
			dst = &m.Keywords
		}
		if !ok || dst == nil || v == "" {
			return nil, fmt.Errorf("--fields: %q is not key=field with key one of id, label, parents, keywords", kv)
		}
		*dst = v
	}
	return m, nil
}

func printOntologyStats(w io.Writer, ds ontology.Stats, t *ontology.Tree) {
	ts := t.Stats()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "DAG\n")
	fmt.Fprintf(tw, "  nodes\t%d\n", ds.Nodes)
	fmt.Fprintf(tw, "  edges\t%d\n", ds.Edges)
	fmt.Fprintf(tw, "  roots\t%d\n", ds.Roots)
	fmt.Fprintf(tw, "  several parents\t%d\n", ds.MultiParent)
	fmt.Fprintf(tw, "  max depth\t%d (nodes on the longest root path; a root is 1)\n", ds.MaxDepth)
	fmt.Fprintf(tw, "  leaves\t%d\n", ds.Leaves)
	fmt.Fprintf(tw, "  branching\tmean %.2f, max %d (over nodes with children)\n", ds.MeanBranching, ds.MaxBranching)
	fmt.Fprintf(tw, "  depth histogram\t%s\n", histogram(ds.DepthHistogram, 1))
	fmt.Fprintf(tw, "Tree (every node once per root path)\n")
	fmt.Fprintf(tw, "  nodes\t%d (the virtual root included)\n", ts.Nodes)
	fmt.Fprintf(tw, "  domains\t%d\n", ts.Roots)
	fmt.Fprintf(tw, "  max depth\t%d (virtual root 0, domains 1)\n", ts.MaxDepth)
	fmt.Fprintf(tw, "  leaves\t%d\n", ts.Leaves)
	fmt.Fprintf(tw, "  branching\tmean %.2f, max %d (virtual root left out)\n", ts.MeanBranching, ts.MaxBranching)
	fmt.Fprintf(tw, "  depth histogram\t%s\n", histogram(ts.DepthHistogram, 0))
	tw.Flush()

	size := make([]int, t.Len())
	below := make([]int, t.Len())
	for i := 1; i < t.Len(); i++ {
		d := t.Domain(i)
		size[d]++
		below[d] = max(below[d], t.Depth(i)-1)
	}
	fmt.Fprintln(w, "Domains")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  ID\tLABEL\tTREE NODES\tLEVELS BELOW\n")
	for _, d := range t.Children(t.Root()) {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\n", t.ID(d), t.Label(d), size[d], below[d])
	}
	tw.Flush()
}

// histogram formats h[from:] as "depth:count" pairs.
func histogram(h []int, from int) string {
	var parts []string
	for k := from; k < len(h); k++ {
		parts = append(parts, fmt.Sprintf("%d:%d", k, h[k]))
	}
	return strings.Join(parts, " ")
}
