package main

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
)

// The docs are tested as code: a user copies a block or a command line
// before reading the prose around it, so each must work as written.

// repoRoot is the repository's root, from this package's folder.
const repoRoot = "../.."

// docFiles are the Markdown files a user reads: README, RUNBOOK (the
// index) and the pages under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "RUNBOOK.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(repoRoot, p)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// fence is one fenced block of a Markdown file.
type fence struct {
	file string
	line int // of the block's first line, 1-based
	lang string
	text string
}

func fences(t *testing.T, file string) []fence {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	var out []fence
	var cur *fence
	indent := "" // of the opening fence: a block in a list item is indented
	for i, l := range strings.Split(string(b), "\n") {
		trim := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(trim, "```"):
			cur = &fence{file: file, line: i + 2, lang: strings.TrimSpace(strings.TrimPrefix(trim, "```"))}
			indent = l[:len(l)-len(strings.TrimLeft(l, " "))]
		case cur != nil && trim == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += strings.TrimPrefix(l, indent) + "\n"
		}
	}
	return out
}

// configKeys are the top-level keys of a run config: the core's and every
// stage section's.
func configKeys() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeOf(config.Config{})
	for i := 0; i < t.NumField(); i++ {
		if name := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]; name != "" && name != "-" {
			keys[name] = true
		}
	}
	for _, d := range pipeline.Sections() {
		keys[d.SectionName()] = true
	}
	return keys
}

// TestDocsYAMLBlocksValidate: every ```yaml block in the docs parses, and
// one that is a run config or a fragment of one (its top-level keys are
// config keys) validates against the schema, unknown keys being errors —
// a fragment merged onto a minimal config (run and root) and the shared
// sections it leans on without defining them (llm:, retrievers:) as the
// same file's earlier blocks define them: the docs build one config up
// section by section.
func TestDocsYAMLBlocksValidate(t *testing.T) {
	keys := configKeys()
	n := 0
	for _, file := range docFiles(t) {
		carried := map[string]*yaml.Node{} // llm: and retrievers: of the file's earlier blocks
		for _, f := range fences(t, file) {
			if f.lang != "yaml" && f.lang != "yml" {
				continue
			}
			n++
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(f.text), &doc); err != nil {
				t.Errorf("%s:%d: the yaml block does not parse: %v", f.file, f.line, err)
				continue
			}
			if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
				continue
			}
			var top []string
			isConfig := false
			for i := 0; i < len(doc.Content[0].Content); i += 2 {
				k := doc.Content[0].Content[i].Value
				top = append(top, k)
				isConfig = isConfig || keys[k]
			}
			if !isConfig {
				continue
			}
			text := f.text
			base := 0
			for _, k := range []string{"root", "run"} {
				if !slices.Contains(top, k) {
					text = k + ": docs\n" + text
					base++
				}
			}
			for _, k := range []string{"llm", "retrievers"} {
				if i := slices.Index(top, k); i >= 0 {
					carried[k] = doc.Content[0].Content[2*i+1]
				} else if carried[k] != nil {
					b, err := yaml.Marshal(map[string]*yaml.Node{k: carried[k]})
					if err != nil {
						t.Fatal(err)
					}
					text += string(b)
				}
			}
			if _, err := pipeline.ParseConfig([]byte(text)); err != nil {
				t.Errorf("%s:%d: the yaml block (a run config%s) does not validate (its line 1 is the file's line %d; %d lines of run/root put before it): %v",
					f.file, f.line, map[bool]string{true: " fragment", false: ""}[base > 0], f.line, base, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no yaml blocks found: the extraction is broken")
	}
}

// inlineYAML is an inline code span holding a config fragment with a flow
// collection, as docs/corpus.md's field-map table writes them:
// `fields: {solution: "solutions[0]"}`.
var inlineYAML = regexp.MustCompile("`([a-z_]+: [\\[{][^`]*)`")

// TestDocsInlineYAMLParses: the config fragments quoted inline (tables of
// field maps) parse too: `fields: {solution: solutions[0]}` did not, and
// a user pasting it got a syntax error.
func TestDocsInlineYAMLParses(t *testing.T) {
	n := 0
	for _, file := range docFiles(t) {
		b, _ := os.ReadFile(filepath.Join(repoRoot, file))
		inFence := false
		for i, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			for _, m := range inlineYAML.FindAllStringSubmatch(l, -1) {
				n++
				var v any
				if err := yaml.Unmarshal([]byte(m[1]), &v); err != nil {
					t.Errorf("%s:%d: `%s` is not YAML: %v", file, i+1, m[1], err)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no inline fragments found: the extraction is broken")
	}
}

// flagsOf are the flags a command line may use: those its --help lists
// (Go's flag package prints each as "  -name ...").
var helpFlag = regexp.MustCompile(`(?m)^\s+-{1,2}([A-Za-z0-9][-A-Za-z0-9_.]*)`)

func helpFlags(out string) map[string]bool {
	m := map[string]bool{"help": true, "h": true}
	for _, f := range helpFlag.FindAllStringSubmatch(out, -1) {
		m[f[1]] = true
	}
	return m
}

// commandFlags are the flags of `saber <args…>` (a command and, when it
// has them, a subcommand) or of a stage binary, read from --help.
type commandFlags struct {
	saber map[string]map[string]bool
	bins  map[string]map[string]bool
}

func (c *commandFlags) forSaber(t *testing.T, words []string) (map[string]bool, string) {
	key := strings.Join(words, " ")
	if m, ok := c.saber[key]; ok {
		return m, key
	}
	var out bytes.Buffer
	dispatch(context.Background(), append(slices.Clone(words), "--help"), &out, &out)
	m := helpFlags(out.String())
	if len(m) <= 2 && len(words) > 1 {
		// Not a subcommand with flags of its own: its command's.
		return c.forSaber(t, words[:len(words)-1])
	}
	c.saber[key] = m
	return m, key
}

func (c *commandFlags) forBinary(t *testing.T, name string) map[string]bool {
	if m, ok := c.bins[name]; ok {
		return m
	}
	st, err := pipeline.Lookup(name)
	if err != nil {
		return nil
	}
	var out bytes.Buffer
	stage.Command(context.Background(), pipeline.Default().Binary(st), []string{"--help"}, &out, &out)
	m := helpFlags(out.String())
	c.bins[name] = m
	return m
}

// cmdLine is `saber …` or `bin/<name> …` in a doc or an example.
var cmdLine = regexp.MustCompile(`(?:^|[\s(` + "`" + `])((?:\./)?bin/([a-z-]+)|saber)\s+([^` + "`" + `#|\n]*)`)

// TestDocsCommandLinesUseRealFlags: every command line in the docs and in
// examples/ (their comments) uses only flags its binary has —
// `--stage ingest` for `saber run` was a flag that never existed.
func TestDocsCommandLinesUseRealFlags(t *testing.T) {
	cf := &commandFlags{saber: map[string]map[string]bool{}, bins: map[string]map[string]bool{}}
	known := map[string]bool{}
	for _, c := range commands {
		known[c.name] = true
	}
	files := docFiles(t)
	ex, _ := filepath.Glob(filepath.Join(repoRoot, "examples", "*"))
	for _, p := range ex {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(repoRoot, p)
			files = append(files, rel)
		}
	}
	checked := 0
	for _, file := range files {
		f, err := os.Open(filepath.Join(repoRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			for _, m := range cmdLine.FindAllStringSubmatch(sc.Text(), -1) {
				args := strings.Fields(m[3])
				var flags map[string]bool
				var what string
				if name := m[2]; m[1] == "saber" || name == "saber" {
					if len(args) == 0 || !known[args[0]] {
						continue // prose ("saber runs …"), not a command line
					}
					var words []string
					for _, a := range args {
						if strings.HasPrefix(a, "-") || len(words) == 2 {
							break
						}
						words = append(words, a)
					}
					flags, what = cf.forSaber(t, words)
					what = "saber " + what
				} else {
					if flags = cf.forBinary(t, name); flags == nil {
						t.Errorf("%s:%d: %s: no such binary (stages: %s)", file, line, m[1], strings.Join(pipeline.Names(), ", "))
						continue
					}
					what = "bin/" + name
				}
				checked++
				for _, a := range args {
					if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
						continue
					}
					name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
					name = strings.TrimRight(name, ".,;:)")
					if name == "" || !regexp.MustCompile(`^[A-Za-z][-A-Za-z0-9_]*$`).MatchString(name) {
						continue
					}
					if !flags[name] {
						t.Errorf("%s:%d: %s has no flag --%s (it has: %s)", file, line, what, name, flagList(flags))
					}
				}
			}
		}
		f.Close()
	}
	if checked < 20 {
		t.Fatalf("checked %d command lines: the extraction is broken", checked)
	}
}

func flagList(m map[string]bool) string {
	var out []string
	for k := range m {
		if k != "h" && k != "help" {
			out = append(out, "--"+k)
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestREADMEStageTable: the README's stage table is the registry's — its
// stages in the registry's order, each binary a cmd/ of that name, and
// the datasets it names (in backquotes) under reads and writes exactly
// what the stage's steps read from other stages and write.
func TestREADMEStageTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ stage, binary, reads, writes string }
	var rows []row
	for _, l := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		if !strings.HasPrefix(strings.TrimSpace(l), "|") || len(cells) != 5 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == "stage" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, row{cells[0], cells[1], cells[3], cells[4]})
	}
	var names []string
	for _, r := range rows {
		names = append(names, r.stage)
	}
	if want := pipeline.Names(); !slices.Equal(names, want) {
		t.Errorf("README stage table lists %v; the registry has %v", names, want)
	}
	datasets := regexp.MustCompile("`([a-z_]+)`")
	named := func(cell string) []string {
		var out []string
		for _, m := range datasets.FindAllStringSubmatch(cell, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
		sort.Strings(out)
		return out
	}
	for _, r := range rows {
		st, err := pipeline.Lookup(r.stage)
		if err != nil {
			continue // reported above
		}
		if want := "`bin/" + st.Name + "`"; r.binary != want {
			t.Errorf("README %s: binary %s, want %s", r.stage, r.binary, want)
		}
		if _, err := os.Stat(filepath.Join(repoRoot, "cmd", st.Name, "main.go")); err != nil {
			t.Errorf("README %s: no cmd/%s/main.go", r.stage, st.Name)
		}
		var reads, writes []string
		for _, step := range st.Steps {
			for _, ds := range step.Inputs {
				if !slices.Contains(writes, ds) && !slices.Contains(reads, ds) {
					reads = append(reads, ds) // not one its own earlier step wrote
				}
			}
			for _, ds := range step.Outputs {
				if !slices.Contains(writes, ds) {
					writes = append(writes, ds)
				}
			}
		}
		sort.Strings(reads)
		sort.Strings(writes)
		if got := named(r.reads); !slices.Equal(got, reads) {
			t.Errorf("README %s reads %v; the registry's steps read %v", r.stage, got, reads)
		}
		if got := named(r.writes); !slices.Equal(got, writes) {
			t.Errorf("README %s writes %v; the registry's steps write %v", r.stage, got, writes)
		}
	}
	if len(rows) == 0 {
		t.Fatal("no stage table in README.md")
	}
}

// TestREADMEConfigFlagsClaim: README says which commands take --config and
// --print-config; each one it names has both, in its --help.
func TestREADMEConfigFlagsClaim(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const claim = "every stage binary, `saber run` and `saber submit` also take `--config`\nand `--print-config`"
	if !strings.Contains(string(b), claim) {
		t.Fatalf("README no longer says %q: update this test with the sentence", claim)
	}
	cf := &commandFlags{saber: map[string]map[string]bool{}, bins: map[string]map[string]bool{}}
	check := func(what string, m map[string]bool) {
		for _, f := range []string{"config", "print-config"} {
			if !m[f] {
				t.Errorf("%s lacks --%s, which README says it has", what, f)
			}
		}
	}
	for _, name := range pipeline.Names() {
		check("bin/"+name, cf.forBinary(t, name))
	}
	for _, sub := range []string{"run", "submit"} {
		m, _ := cf.forSaber(t, []string{sub})
		check("saber "+sub, m)
	}
}
