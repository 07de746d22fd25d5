package pipeline

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	// commentBreak joins a comment's lines, so that a reference that wraps
	// is read whole.
	commentBreak = regexp.MustCompile(`\n[ \t]*// ?`)
	// runbookRef is a sentence that names RUNBOOK sections: "RUNBOOK §8",
	// "RUNBOOK.md §13", "RUNBOOK §9 (…), §11 (…) and §14 (…)".
	runbookRef = regexp.MustCompile(`RUNBOOK(?:\.md)? §[^\n]*?(?:\.\s|\.$|\n|$)`)
	// sectionRef is one section a sentence names, with the quoted title of
	// a part of it when given: §11, §14 ("The audit's settings").
	sectionRef = regexp.MustCompile(`§(\d+)(?: \("([^"]+)"\))?`)
	// runbookSection is the heading of a numbered section of RUNBOOK.md.
	runbookSection = regexp.MustCompile(`(?m)^## (\d+)\. `)
)

// TestRunbookReferencesExist: every "RUNBOOK §N" in the module's Go files
// (package docs point to the section that specifies what a package serves)
// names a section RUNBOOK.md has, and a quoted part ("§14 ("The audit's
// settings")") is in that section, so a renumbered or renamed section
// breaks the test rather than leaving a pointer to the wrong page.
func TestRunbookReferencesExist(t *testing.T) {
	root, _ := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "RUNBOOK.md"))
	if err != nil {
		t.Fatal(err)
	}
	runbook := string(b)
	sections := map[int]string{} // number → its text, heading included
	heads := runbookSection.FindAllStringSubmatchIndex(runbook, -1)
	for i, h := range heads {
		n, _ := strconv.Atoi(runbook[h[2]:h[3]])
		end := len(runbook)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		sections[n] = runbook[h[0]:end]
	}
	if len(sections) < 10 {
		t.Fatalf("RUNBOOK.md: found %d numbered sections (## N. Title); the pattern is broken", len(sections))
	}

	refs := 0
	err = filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if file != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(file, ".go") {
			return nil
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, file)
		text := commentBreak.ReplaceAllString(string(src), " ")
		for _, sentence := range runbookRef.FindAllString(text, -1) {
			for _, m := range sectionRef.FindAllStringSubmatch(sentence, -1) {
				refs++
				n, _ := strconv.Atoi(m[1])
				sec, ok := sections[n]
				switch {
				case !ok:
					t.Errorf("%s: %q names RUNBOOK §%d, which RUNBOOK.md does not have", filepath.ToSlash(rel), sentence, n)
				case m[2] != "" && !strings.Contains(strings.Join(strings.Fields(sec), " "), m[2]):
					t.Errorf("%s: %q names %q in RUNBOOK §%d, which does not contain it", filepath.ToSlash(rel), sentence, m[2], n)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", root, err)
	}
	if refs == 0 {
		t.Fatal("no RUNBOOK reference found: the pattern is broken")
	}
}
