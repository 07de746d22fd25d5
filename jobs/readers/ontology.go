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
	"github.com/saber-math/saber/lib/domains"
	"github.com/saber-math/saber/lib/ontology"
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
	o := config.BenchmarkOntology.Get(cfg)
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

// DomainOrder returns the run's domains in the order every table lists
// them: benchmark.domains in the configured order, else the configured
// ontology's top-level labels in the ontology's order, each spelled as the
// ontology spells it (lib/domains matches case-insensitively). A configured
// domain the ontology lacks is bad input: it could never have a query. It
// records the ontology files as the shard's inputs.
func DomainOrder(ctx context.Context, env *stage.Env) ([]string, error) {
	tree, err := Ontology(ctx, env)
	if err != nil {
		return nil, err
	}
	return DomainOrderOf(tree, config.BenchmarkDomains.Get(env.Config))
}

// DomainOrderOf is DomainOrder for a tree already read (the release's)
// and benchmark.domains.
func DomainOrderOf(tree *ontology.Tree, configured []string) ([]string, error) {
	var top []string
	for _, d := range tree.Children(tree.Root()) {
		top = append(top, tree.Label(d))
	}
	list, err := domains.Resolve(top, configured)
	if err != nil {
		return nil, stage.BadInput(fmt.Errorf("benchmark.domains: %w", err))
	}
	return list, nil
}

// Domains returns the domains queries are drawn from (DomainOrder) and each
// document's main domain from `topics` ("" when it has none), spelled as
// in that list when it matches one case-insensitively. extra are further
// domain names that must be among them (select's domain_counts, matched
// case-insensitively too), with the key that names them.
func Domains(ctx context.Context, env *stage.Env, extraKey string, extra []string) ([]string, map[string]string, error) {
	list, err := DomainOrder(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	known := map[string]string{}
	for _, d := range list {
		known[domains.Key(d)] = d
	}
	for _, d := range slices.Sorted(slices.Values(extra)) {
		if _, ok := known[domains.Key(d)]; !ok {
			return nil, nil, stage.BadInput(fmt.Errorf("%s: %q is not one of the domains (%s; matched case-insensitively)", extraKey, d, strings.Join(list, ", ")))
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
				d := r.Domain
				if c, ok := known[domains.Key(d)]; ok {
					d = c
				}
				dom[r.ID] = d
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return list, dom, nil
}
