package readers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	defaultontology "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/topics"
)

// Ontology reads the configured ontology (benchmark.ontology; the built-in
// default when no file is set) as a tree, and records the files it read
// as the shard's inputs.
func Ontology(ctx context.Context, env *stage.Env) (*ontology.Tree, error) {
	_, tree, err := OntologyDAG(ctx, env)
	return tree, err
}

// OntologyDAG is Ontology with the DAG the tree was built from (restricted
// to benchmark.ontology.roots), for the release, which publishes both.
func OntologyDAG(ctx context.Context, env *stage.Env) (*ontology.DAG, *ontology.Tree, error) {
	dag, tree, files, err := loadOntology(ctx, env.Config)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		env.AddFile(f)
	}
	return dag, tree, nil
}

// LoadOntology reads the configured ontology outside a stage (saber's own
// commands): the tree and the files read, with their SHA-256 (none for the
// built-in default).
func LoadOntology(ctx context.Context, cfg *config.Config) (*ontology.Tree, []layout.Object, error) {
	_, tree, files, err := loadOntology(ctx, cfg)
	return tree, files, err
}

// LoadOntologyDAG is LoadOntology with the DAG the tree was built from
// (restricted to benchmark.ontology.roots), for `saber ontology stats
// --config`, which prints both.
func LoadOntologyDAG(ctx context.Context, cfg *config.Config) (*ontology.DAG, *ontology.Tree, error) {
	dag, tree, _, err := loadOntology(ctx, cfg)
	return dag, tree, err
}

func loadOntology(ctx context.Context, cfg *config.Config) (*ontology.DAG, *ontology.Tree, []layout.Object, error) {
	o := cfg.Benchmark.Ontology
	if o.File == "" {
		dag, err := defaultontology.Default()
		if err != nil {
			return nil, nil, nil, err
		}
		dag, tree, err := build(dag, o.Roots)
		return dag, tree, nil, err
	}
	read := func(key, p string) ([]byte, layout.Object, error) {
		uri := cfg.Resolve(p)
		f, err := layout.OpenFile(ctx, uri, cfg.Storage)
		if err != nil {
			return nil, layout.Object{}, stage.BadInput(fmt.Errorf("%s: %w", key, err))
		}
		b, err := store.ReadAll(ctx, f.Store, f.Key)
		if err != nil {
			return nil, layout.Object{}, stage.BadInput(fmt.Errorf("%s: %w", key, err))
		}
		sum := sha256.Sum256(b)
		return b, layout.Object{URI: uri, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b))}, nil
	}
	body, obj, err := read("benchmark.ontology.file", o.File)
	if err != nil {
		return nil, nil, nil, err
	}
	objs := []layout.Object{obj}
	src := defaultontology.Source{Name: o.File, Body: body, Format: o.Format}
	if f := o.Fields; f.Set() {
		src.Fields = &ontology.FieldMap{ID: f.ID, Label: f.Label, Parents: f.Parents, Keywords: f.Keywords, Separator: f.Separator}
	}
	if o.Edges != "" {
		src.Edges = func() ([]byte, error) {
			edges, eobj, err := read("benchmark.ontology.edges", o.Edges)
			objs = append(objs, eobj)
			return edges, err
		}
	}
	dag, _, err := defaultontology.Load(src)
	if err != nil {
		return nil, nil, nil, stage.BadInput(fmt.Errorf("benchmark.ontology.file: %w (see benchmark.ontology.format, benchmark.ontology.edges and benchmark.ontology.fields)", err))
	}
	dag, tree, err := build(dag, o.Roots)
	return dag, tree, objs, err
}

func build(dag *ontology.DAG, roots []string) (*ontology.DAG, *ontology.Tree, error) {
	if len(roots) > 0 {
		var err error
		if dag, err = dag.Restrict(roots); err != nil {
			return nil, nil, stage.BadInput(fmt.Errorf("benchmark.ontology.roots: %w", err))
		}
	}
	tree, err := ontology.BuildTree(dag)
	if err != nil {
		return nil, nil, stage.BadInput(fmt.Errorf("benchmark.ontology: %w", err))
	}
	return dag, tree, nil
}

type domainProj struct {
	ID     string `parquet:"id"`
	Domain string `parquet:"domain"`
}

// Domains returns the domains queries are drawn from — benchmark.domains,
// or every top-level domain of the configured ontology in SPEC §3's order —
// and each document's main domain from `topics` ("" when it has none). A
// configured domain the ontology lacks is bad input: it could never have a
// query. extra are further domain names that must be among them (select's
// domain_counts), with the key that names them.
func Domains(ctx context.Context, env *stage.Env, extraKey string, extra []string) ([]string, map[string]string, error) {
	tree, err := Ontology(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	all := topics.DomainLabels(tree)
	list := all
	if want := env.Config.Benchmark.Domains; len(want) > 0 {
		for _, d := range want {
			if !slices.Contains(all, d) {
				return nil, nil, stage.BadInput(fmt.Errorf("benchmark.domains: %q is not a top-level domain of the ontology (%s)", d, strings.Join(all, ", ")))
			}
		}
		list = want
	}
	for _, d := range slices.Sorted(slices.Values(extra)) {
		if !slices.Contains(list, d) {
			return nil, nil, stage.BadInput(fmt.Errorf("%s: %q is not one of the domains (%s)", extraKey, d, strings.Join(list, ", ")))
		}
	}
	parts, err := env.Upstream(ctx, dataset.Topics.Name)
	if err != nil {
		return nil, nil, err
	}
	dom := map[string]string{}
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(rows []domainProj) error {
			for _, r := range rows {
				dom[r.ID] = r.Domain
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return list, dom, nil
}
