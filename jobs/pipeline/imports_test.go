package pipeline

import (
	"go/parser"
	"go/token"
	"io/fs"
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
// package imports another (shared config goes to jobs/config, readers to
// jobs/readers, pure algorithms to lib/): a stage that imports another
// takes its section, its staleness and its build with it. The stage
// packages are those whose functions run the registry's steps, so a new
// stage is covered as soon as it is registered; every non-test Go file of
// each, whatever its build constraints, and of its subdirectories is read.
func TestNoStageImportsAnotherStage(t *testing.T) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	root := filepath.Join(filepath.Dir(self), "..", "..") // the module root
	module := strings.TrimSuffix(stagePackage(Select), "/jobs/pipeline")

	owner := map[string]string{} // stage package → a stage it runs
	for _, s := range Stages {
		for _, st := range s.Steps {
			if p := stagePackage(st.Run); !strings.HasPrefix(p, module+"/jobs/") {
				t.Errorf("stage %s step %s: Run is in %s, not a package under %s/jobs", s.Name, st.Name, p, module)
			} else if _, seen := owner[p]; !seen {
				owner[p] = s.Name
			}
		}
	}
	if len(owner) < 10 {
		t.Fatalf("found only %d stage packages (%v): the Run-to-package mapping is broken", len(owner), owner)
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
				if other := stageOf(imp); other != "" && other != p {
					rel, _ := filepath.Rel(root, file)
					t.Errorf("%s (stage %s) imports %s, the package of stage %s: no stage package imports another; move what both need to jobs/config, jobs/readers or lib/",
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
