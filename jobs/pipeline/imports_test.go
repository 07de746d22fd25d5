package pipeline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stagePackage is the import path of the package that defines fn: the
// function name runtime reports ("…/jobs/pairs.run", "…/jobs/x.init.func1")
// up to the first dot after the last slash.
func stagePackage(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	slash := strings.LastIndex(name, "/")
	if dot := strings.Index(name[slash+1:], "."); dot >= 0 {
		return name[:slash+1+dot]
	}
	return name
}

// TestNoStageImportsAnotherStage enforces the layout rule that no stage
// package imports another's code (shared config goes to jobs/config,
// readers to jobs/readers, pure algorithms to lib/): a stage that imports
// another takes its section, its staleness and its build with it. Another
// stage's declaration (jobs/<stage>/decl: its config section and steps,
// no code) may be imported. The stage packages are the directories under
// jobs/ with a decl subpackage, and the registry must declare a stage for
// each of them; every non-test Go file of each, whatever its build
// constraints, and of its subdirectories is read.
func TestNoStageImportsAnotherStage(t *testing.T) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	root := filepath.Join(filepath.Dir(self), "..", "..") // the module root
	module := strings.TrimSuffix(stagePackage(Select), "/jobs/pipeline")

	owner := map[string]string{} // stage package → its directory's name
	decls, err := filepath.Glob(filepath.Join(root, "jobs", "*", "decl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decls {
		name := filepath.Base(filepath.Dir(d))
		owner[module+"/jobs/"+name] = name
	}
	if len(owner) < 10 || len(owner) > len(Stages) {
		t.Fatalf("found %d stage packages (%v) for %d registered stages: the decl-to-package mapping is broken", len(owner), owner, len(Stages))
	}
	pkgs := make([]string, 0, len(owner))
	for p := range owner {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	// stageOf is the stage package an import path is in (itself or a
	// package under it), or "".
	stageOf := func(imp string) string {
		for _, p := range pkgs {
			if imp == p || strings.HasPrefix(imp, p+"/") {
				return p
			}
		}
		return ""
	}

	fset := token.NewFileSet()
	for _, p := range pkgs {
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(p, module+"/")))
		files := 0
		err := filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(file, ".go") || strings.HasSuffix(file, "_test.go") {
				return nil
			}
			files++
			f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, spec := range f.Imports {
				imp, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					return err
				}
				if other := stageOf(imp); other != "" && other != p && imp != other+"/decl" {
					rel, _ := filepath.Rel(root, file)
					t.Errorf("%s (stage %s) imports %s, the package of stage %s: no stage package imports another's code (its decl may be imported); move what both need to its decl, jobs/config, jobs/readers or lib/",
						filepath.ToSlash(rel), owner[p], imp, owner[other])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("reading %s: %v", p, err)
		}
		if files == 0 {
			t.Errorf("stage package %s: no Go files under %s", p, dir)
		}
	}
}

// floors are the module's top-level directories from the bottom up: a
// package may import the module's packages of its own floor and of the
// floors below it, never of one above (lib imports only lib; cmd anything).
// README.md states the same order (TestReadmeStatesImportRule).
var floors = []string{"lib", "shard", "artifacts", "jobs", "slurm", "cmd"}

// floorOf is the index in floors of a module-relative path's top-level
// directory ("jobs/stage/errors.go", "jobs/stage"), or -1.
func floorOf(rel string) int {
	top, _, _ := strings.Cut(rel, "/")
	return slices.Index(floors, top)
}

// TestImportsGoOneWay enforces the layering of README.md: every non-test
// Go file of the module, whatever its build constraints, imports only the
// module's packages of its own floor or below. A shared piece that a lower
// floor needs moves down (as shard.Chunks did from slurm); it is never
// reached for upward. A file outside every floor is an error too, so that a
// new top-level directory is given its place rather than escaping the rule.
func TestImportsGoOneWay(t *testing.T) {
	root, module := moduleRoot(t)
	fset := token.NewFileSet()
	files := make([]int, len(floors))
	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if file != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(file, "go.mod")); err == nil && file != root {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(file, ".go") || strings.HasSuffix(file, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, file)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		floor := floorOf(rel)
		if floor < 0 {
			t.Errorf("%s is in none of the floors %v: add its directory to floors and to README.md's import rule", rel, floors)
			return nil
		}
		files[floor]++
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			local, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				if imp == module {
					t.Errorf("%s imports %s, the module root, which is in no floor", rel, imp)
				}
				continue
			}
			if to := floorOf(local); to < 0 || to > floor {
				t.Errorf("%s imports %s: %s may import only %v of this module; move what it needs from there down to %s or below",
					rel, imp, floors[floor], floors[:floor+1], floors[floor])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", root, err)
	}
	for i, n := range files {
		if n == 0 {
			t.Errorf("no Go files in %s/: the walk of %s is broken", floors[i], root)
		}
	}
}

// TestReadmeStatesImportRule: README.md's sentence on the import order
// names floors, in order, so that the document cannot drift from the rule
// TestImportsGoOneWay enforces.
func TestReadmeStatesImportRule(t *testing.T) {
	root, _ := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ") // the sentence may wrap
	const lead = "Imports go one way: "
	quoted := make([]string, len(floors))
	for i, f := range floors {
		quoted[i] = "`" + f + "`"
	}
	want := lead + strings.Join(quoted, " ← ")
	if n := strings.Count(readme, lead); n != 1 {
		t.Fatalf("README.md states the import order %d times, want once, as %q", n, want)
	}
	if !strings.Contains(readme, want) {
		i := strings.Index(readme, lead)
		got := readme[i:min(len(readme), i+len(want)+20)]
		t.Errorf("README.md says %q…, want %q (the floors of TestImportsGoOneWay)", got, want)
	}
}

// moduleRoot returns the module's root directory, found from this file, and
// its module path, read from go.mod.
func moduleRoot(t *testing.T) (root, module string) {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	root = filepath.Join(filepath.Dir(self), "..", "..")
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return root, strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	t.Fatalf("%s/go.mod: no module line", root)
	return "", ""
}

// TestStageSectionsLiveInTheirStage checks that every stage's config
// section is declared by that stage's own decl package, never by
// jobs/config: a section another stage reads is read through the owning
// stage's declaration, so its defaults, checks and staleness stay the
// owner's.
func TestStageSectionsLiveInTheirStage(t *testing.T) {
	for _, s := range Stages {
		if s.Section == nil {
			continue
		}
		typ := reflect.TypeOf(s.Section).String()
		if !strings.Contains(typ, "/decl.") || strings.Contains(typ, "/jobs/config.") {
			t.Errorf("stage %s: section %s is %s, not a type of the stage's decl package", s.Name, s.Section.SectionName(), typ)
		}
	}
}

// TestRuntimeFunctionsShort keeps the runtime and the executors readable:
// no function of jobs/stage, jobs/pipeline or slurm (tests aside) is over
// 80 lines; a longer one is split into the steps it takes.
func TestRuntimeFunctionsShort(t *testing.T) {
	root, _ := moduleRoot(t)
	fset := token.NewFileSet()
	for _, dir := range []string{"jobs/stage", "jobs/pipeline", "slurm"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v (%d files)", dir, err, len(files))
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > 80 {
					rel, _ := filepath.Rel(root, file)
					t.Errorf("%s: %s is %d lines, over 80", filepath.ToSlash(rel), fd.Name.Name, n)
				}
			}
		}
	}
}
