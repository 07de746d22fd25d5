package pipeline

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The docs are pages by audience under docs/, with RUNBOOK.md their index.
// Code cites a page and the section's anchor as GitHub renders it, e.g.
// docs/admin.md#slurm or docs/release.md#the-audits-settings; the pages
// link each other the same way. These tests keep every such reference
// pointing at a section that exists, so a renamed heading or a moved
// section breaks a test rather than leaving a pointer to the wrong page.

var (
	// codeDocRef is a doc page cited from code, comments or a message:
	// the page, and the anchor when given.
	codeDocRef = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:docs/[a-z0-9_-]+|RUNBOOK|README|artifacts/layout/FORMAT)\.md)(?:#([A-Za-z0-9_-]+))?`)
	// oldRunbookRef is a numbered section of the RUNBOOK before it became
	// an index: the RUNBOOK's "§8", the RUNBOOK.md's "section 13".
	oldRunbookRef = regexp.MustCompile(`RUNBOOK(?:\.md)?,? (?:§|section )\d+`)
	// mdLink is the target of a Markdown link: [text](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// mdHeading is an ATX heading.
	mdHeading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*$`)
	// mdInline is inline markup a heading's anchor leaves out.
	mdInline = regexp.MustCompile("[`*]")
	// indexRow is a row of RUNBOOK.md's table of its old sections.
	indexRow = regexp.MustCompile(`(?m)^\| §(\d+) [^|]*\|(.*)\|\s*$`)
)

// anchorOf is a heading's anchor as GitHub makes it: lower case, letters,
// digits, '_' and '-' kept, spaces made '-', everything else dropped.
func anchorOf(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(mdInline.ReplaceAllString(heading, "")) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors are the anchors of a Markdown file's headings (those in fenced
// blocks are not headings); a repeated one gets -1, -2, … as on GitHub.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inFence = !inFence
			continue
		}
		m := mdHeading.FindStringSubmatch(l)
		if inFence || m == nil {
			continue
		}
		a := anchorOf(m[1])
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}

// docPages reads the Markdown pages a reader is sent to: README.md,
// RUNBOOK.md, FORMAT.md and every page under docs/, by slash path from
// the module root.
func docPages(t *testing.T, root string) map[string]string {
	t.Helper()
	pages := map[string]string{}
	for _, p := range []string{"README.md", "RUNBOOK.md", "artifacts/layout/FORMAT.md"} {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		pages[p] = string(b)
	}
	md, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, f := range md {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages["docs/"+filepath.Base(f)] = string(b)
	}
	if len(pages) < 8 {
		t.Fatalf("found %d doc pages: README, RUNBOOK, FORMAT and docs/*.md expected", len(pages))
	}
	return pages
}

// TestDocReferencesExist: every doc page cited in the module's code —
// package docs point to the section that specifies what a package serves,
// and some messages tell the user where to read on — and every link
// between the doc pages names a file that exists and, with an anchor, a
// heading of that page. No code or page cites the RUNBOOK's old numbered
// sections: RUNBOOK.md is an index now, and they live in docs/.
func TestDocReferencesExist(t *testing.T) {
	root, _ := moduleRoot(t)
	pages := docPages(t, root)
	anchorsOf := map[string]map[string]bool{}
	for p, text := range pages {
		anchorsOf[p] = anchors(text)
	}
	check := func(where, page, anchor string) {
		a, ok := anchorsOf[page]
		switch {
		case !ok:
			t.Errorf("%s: cites %s, which is no doc page", where, page)
		case anchor != "" && !a[anchor]:
			t.Errorf("%s: cites %s#%s, which has no such heading", where, page, anchor)
		}
	}

	refs := 0
	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if file != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(file) {
		case ".go", ".yaml", ".yml", ".py", ".sh":
		default:
			if d.Name() != "Makefile" {
				return nil
			}
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, file)
		rel = filepath.ToSlash(rel)
		for _, m := range oldRunbookRef.FindAllString(string(src), -1) {
			t.Errorf("%s: %q cites a numbered RUNBOOK section; cite the docs/ page that holds it (RUNBOOK.md's table says which)", rel, m)
		}
		for _, m := range codeDocRef.FindAllStringSubmatch(string(src), -1) {
			refs++
			check(rel, m[1], m[2])
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", root, err)
	}
	if refs < 20 {
		t.Fatalf("found %d doc references in the code: the pattern is broken", refs)
	}

	links := 0
	for p, text := range pages {
		if m := oldRunbookRef.FindString(text); m != "" {
			t.Errorf("%s: %q cites a numbered RUNBOOK section; link the docs/ page that holds it", p, m)
		}
		inFence := false
		for i, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				where := p + ":" + strconv.Itoa(i+1)
				file, anchor, _ := strings.Cut(target, "#")
				if file == "" {
					check(where, p, anchor)
					continue
				}
				file = path.Clean(path.Join(path.Dir(p), file))
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(file))); err != nil {
					t.Errorf("%s: links %s, which does not exist", where, target)
					continue
				}
				if strings.HasSuffix(file, ".md") {
					check(where, file, anchor)
				}
			}
		}
	}
	if links < 50 {
		t.Fatalf("found %d links between the doc pages: the pattern is broken", links)
	}
}

// TestRunbookIndexMapsOldSections: RUNBOOK.md was 14 numbered sections,
// which older notes, commits and issues cite; its table still says where
// each of §1–§14 went, with a link (TestDocReferencesExist checks that the
// links resolve).
func TestRunbookIndexMapsOldSections(t *testing.T) {
	root, _ := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "RUNBOOK.md"))
	if err != nil {
		t.Fatal(err)
	}
	mapped := map[int]bool{}
	for _, m := range indexRow.FindAllStringSubmatch(string(b), -1) {
		n, _ := strconv.Atoi(m[1])
		if !mdLink.MatchString(m[2]) {
			t.Errorf("RUNBOOK.md: §%d's row links no page", n)
		}
		mapped[n] = true
	}
	for n := 1; n <= 14; n++ {
		if !mapped[n] {
			t.Errorf("RUNBOOK.md: the table of old sections has no row for §%d", n)
		}
	}
}
