package dedup

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/lib/minhash"
)

// reportLimits: how many clusters and pairs the report shows.
const (
	reportClusters = 10
	reportPairs    = 20
	reportSnippet  = 600 // characters of a statement shown
)

// reportInput is what the reduce knows when it writes the report.
type reportInput struct {
	cfg        *Config
	problems   int
	candidates int
	guarded    map[minhash.GuardReason]int
	groups     [][]int // kept member first
	pairs      []pair  // confirmed, exact Jaccard
	sameNorms  []sameNorm
	probs      []dataset.Problem
}

// dedupReport renders reports/dedup.md: the cluster-size distribution, the
// largest clusters, the confirmed pairs nearest the threshold with both
// statements, so a user sees what was dropped and how close the calls were,
// and every pair identical after normalisation whose raw texts differ.
func dedupReport(in reportInput) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Dedup\n\n")
	fmt.Fprintf(&b, "Settings: threshold %.2f (exact Jaccard of word %d-gram shingles), guard %v, clustering %s, %d × %d LSH bands × rows.\n\n",
		in.cfg.Threshold, in.cfg.NGram, in.cfg.GuardOn(), in.cfg.Clustering, in.cfg.Bands, in.cfg.Rows)
	var clusters [][]int
	dropped := 0
	for _, g := range in.groups {
		if len(g) > 1 {
			clusters = append(clusters, g)
			dropped += len(g) - 1
		}
	}
	fmt.Fprintf(&b, "| problems | LSH candidate pairs | kept apart by the guard | confirmed pairs | clusters | dropped |\n|---:|---:|---:|---:|---:|---:|\n")
	guarded := 0
	for _, n := range in.guarded {
		guarded += n
	}
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d |\n\n", in.problems, in.candidates, guarded, len(in.pairs), len(clusters), dropped)
	if guarded > 0 {
		b.WriteString("Kept apart by the guard:")
		for i, r := range slices.Sorted(maps.Keys(in.guarded)) {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s %d", r, in.guarded[r])
		}
		b.WriteString(".\n\n")
	}

	fmt.Fprintf(&b, "## Cluster sizes\n\n| size | clusters |\n|---:|---:|\n")
	bySize := map[int]int{}
	for _, g := range clusters {
		bySize[len(g)]++
	}
	sizes := make([]int, 0, len(bySize))
	for s := range bySize {
		sizes = append(sizes, s)
	}
	sort.Ints(sizes)
	for _, s := range sizes {
		fmt.Fprintf(&b, "| %d | %d |\n", s, bySize[s])
	}

	fmt.Fprintf(&b, "\n## Largest clusters\n\n")
	largest := append([][]int(nil), clusters...)
	sort.SliceStable(largest, func(i, j int) bool { return len(largest[i]) > len(largest[j]) })
	if len(largest) == 0 {
		b.WriteString("None.\n")
	}
	for _, g := range largest[:min(len(largest), reportClusters)] {
		k := in.probs[g[0]]
		fmt.Fprintf(&b, "### %s (%s), %d members\n\n%s\n\nDropped:", k.ID, k.Source, len(g), quote(k.Statement))
		for _, m := range g[1:] {
			fmt.Fprintf(&b, " %s (%s)", in.probs[m].ID, in.probs[m].Source)
		}
		b.WriteString("\n\n")
	}

	fmt.Fprintf(&b, "## Confirmed pairs nearest the threshold\n\n")
	near := append([]pair(nil), in.pairs...)
	sort.SliceStable(near, func(i, j int) bool { return near[i].jaccard < near[j].jaccard })
	if len(near) == 0 {
		b.WriteString("None.\n")
	}
	for _, p := range near[:min(len(near), reportPairs)] {
		a, c := in.probs[p.i], in.probs[p.j]
		fmt.Fprintf(&b, "### %s ~ %s: Jaccard %.3f\n\n%s\n\n%s\n\n", a.ID, c.ID, p.jaccard, quote(a.Statement), quote(c.Statement))
	}
	sameNormSection(&b, in)
	return []byte(b.String())
}

// sameNormSection lists the candidate pairs whose statements are identical
// after normalisation but not as written: what normalisation treats as
// formatting decides these pairs, so a user can check that what differs
// (shown per pair) really is formatting.
func sameNormSection(b *strings.Builder, in reportInput) {
	fmt.Fprintf(b, "\n## Identical after normalisation, different raw text\n\n")
	if len(in.sameNorms) == 0 {
		b.WriteString("None.\n")
		return
	}
	fmt.Fprintf(b, "%d pairs. Normalisation (minhash.NormalizeMath) keeps words, digits, signs, operators and maths structure; what it drops is below for each pair.\n\n", len(in.sameNorms))
	for _, p := range in.sameNorms {
		a, c := in.probs[p.i], in.probs[p.j]
		verdict := "confirmed as duplicates"
		if p.reason != "" {
			verdict = "kept apart: " + string(p.reason)
		}
		onlyA, onlyB := runeDiff(a.Statement, c.Statement)
		fmt.Fprintf(b, "### %s ~ %s: %s\n\nCharacters that differ: only in %s %s; only in %s %s; first difference %s\n\n%s\n\n%s\n\n",
			a.ID, c.ID, verdict, a.ID, onlyA, c.ID, onlyB, firstDiff(a.Statement, c.Statement), quote(a.Statement), quote(c.Statement))
	}
}

// runeDiff describes the characters of a that b lacks and those of b that
// a lacks, as multisets: "`-` ×1, space ×3", or "none".
func runeDiff(a, b string) (string, string) {
	count := map[rune]int{}
	for _, r := range a {
		count[r]++
	}
	for _, r := range b {
		count[r]--
	}
	var onlyA, onlyB []string
	for _, r := range slices.Sorted(maps.Keys(count)) {
		switch n := count[r]; {
		case n > 0:
			onlyA = append(onlyA, fmt.Sprintf("%s ×%d", runeName(r), n))
		case n < 0:
			onlyB = append(onlyB, fmt.Sprintf("%s ×%d", runeName(r), -n))
		}
	}
	list := func(s []string) string {
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, ", ")
	}
	return list(onlyA), list(onlyB)
}

// runeName shows a rune in a report: white space by name, else in code.
func runeName(r rune) string {
	switch r {
	case ' ':
		return "space"
	case '\n':
		return "line feed"
	case '\r':
		return "carriage return"
	case '\t':
		return "tab"
	case '`':
		return "backtick"
	}
	if unicode.IsSpace(r) || !unicode.IsPrint(r) {
		return fmt.Sprintf("U+%04X", r)
	}
	return "`" + string(r) + "`"
}

// firstDiff shows where two texts first part, a few characters either
// side: `…x^2 -|3x…` against `…x^2 +|3x…`.
func firstDiff(a, b string) string {
	ra, rb := []rune(a), []rune(b)
	i := 0
	for i < len(ra) && i < len(rb) && ra[i] == rb[i] {
		i++
	}
	around := func(r []rune) string {
		lo, hi := max(0, i-20), min(len(r), i+20)
		s := strings.NewReplacer("\n", "⏎", "\r", "␍", "\t", "⇥", "`", "'").Replace(string(r[lo:i]) + "|" + string(r[i:hi]))
		return "`…" + s + "…`"
	}
	return fmt.Sprintf("at character %d: %s vs %s", i+1, around(ra), around(rb))
}

// quote renders a statement as a Markdown block quote, cut to reportSnippet.
func quote(s string) string {
	if r := []rune(s); len(r) > reportSnippet {
		s = string(r[:reportSnippet]) + " …"
	}
	return "> " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ")
}
