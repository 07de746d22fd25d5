package dedup

import (
	"fmt"
	"sort"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
)

// ReportDedup is the report the dedup reduce writes under <run>/reports/.
const ReportDedup = "dedup.md"

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
	guarded    int
	groups     [][]int // kept member first
	pairs      []pair  // confirmed, exact Jaccard
	probs      []dataset.Problem
}

// dedupReport renders reports/dedup.md: the cluster-size distribution, the
// largest clusters, and the confirmed pairs nearest the threshold with both
// statements, so a user sees what was dropped and how close the calls were.
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
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d |\n\n", in.problems, in.candidates, in.guarded, len(in.pairs), len(clusters), dropped)

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
	return []byte(b.String())
}

// quote renders a statement as a Markdown block quote, cut to reportSnippet.
func quote(s string) string {
	if r := []rune(s); len(r) > reportSnippet {
		s = string(r[:reportSnippet]) + " …"
	}
	return "> " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ")
}
