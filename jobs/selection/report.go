package selection

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	lthresholds "github.com/saber-math/saber/lib/thresholds"
)

// Report is what select writes for people (select.md) and programs
// (select.json): eligibility per domain, candidates per category, overlap of
// the two signals and the distribution of each similarity.
type Report struct {
	// Provenance names the backends and models of the topics and
	// summaries the pairs were scored from.
	Provenance readers.Provenance `json:"provenance"`
	TauTopic   float64            `json:"tau_topic"`
	TauSumm    float64            `json:"tau_summ"`
	Calibrated bool               `json:"calibrated"`
	K          int                `json:"k"`

	Domains []DomainRow `json:"domains"`
	// NoDomain counts queries whose document has no domain among Domains.
	NoDomain  int64       `json:"queries_without_domain"`
	Shortfall []Shortfall `json:"shortfall,omitempty"`
	// Failed is the shortfall error when select stopped on it.
	Failed string `json:"failed,omitempty"`

	// Pairs summarises every stored pair at the final thresholds;
	// Candidates the selected ones.
	Pairs      Signals `json:"pairs"`
	Candidates Signals `json:"candidates"`

	domainIndex map[string]int
	topicVals   [3][]float64 // candidates' sim_topic per category
	summVals    [3][]float64
}

// DomainRow is one domain's line.
type DomainRow struct {
	Domain string `json:"domain"`
	// Queries is the domain's documents with at least one stored pair.
	Queries  int64 `json:"queries_with_pairs"`
	Eligible int   `json:"eligible"`
	Wanted   int   `json:"wanted"`
	Selected int   `json:"selected"`
	// Candidates per category: topic, summary, both.
	Candidates [3]int64 `json:"candidates"`
}

// Signals counts pairs by which thresholds they pass and histograms both
// similarities.
type Signals struct {
	// Topic, Summary and Both count pairs per category; Neither counts
	// stored pairs (over a floor) under both final thresholds.
	Topic   int64 `json:"topic_only"`
	Summary int64 `json:"summary_only"`
	Both    int64 `json:"both"`
	Neither int64 `json:"neither"`
	// Overlap is Both / (Topic + Summary + Both): the Jaccard overlap of
	// the topic-relevant and summary-relevant sets.
	Overlap float64 `json:"overlap"`
	// HistTopic and HistSumm count similarities in 20 bins of width 0.05
	// over [0, 1] (the last bin includes 1).
	HistTopic [histBins]int64 `json:"hist_sim_topic"`
	HistSumm  [histBins]int64 `json:"hist_sim_summ"`
	// Quantiles of each similarity per category (candidates only, exact):
	// min, p10, p25, median, p75, p90, max.
	QuantTopic map[string][7]float64 `json:"quantiles_sim_topic,omitempty"`
	QuantSumm  map[string][7]float64 `json:"quantiles_sim_summ,omitempty"`
}

const histBins = lthresholds.HistBins

func newReport(th dataset.Threshold, calibrated bool, domains []string, k int) *Report {
	r := &Report{TauTopic: th.TauTopic, TauSumm: th.TauSumm, Calibrated: calibrated, K: k, domainIndex: map[string]int{}}
	for i, d := range domains {
		r.domainIndex[d] = i
		r.Domains = append(r.Domains, DomainRow{Domain: d})
	}
	return r
}

func bin(v float64) int { return lthresholds.Bin(v) }

func (s *Signals) add(p *dataset.Pair, cat string) {
	switch cat {
	case "topic":
		s.Topic++
	case "summary":
		s.Summary++
	case "both":
		s.Both++
	default:
		s.Neither++
	}
	s.HistTopic[bin(p.SimTopic)]++
	s.HistSumm[bin(p.SimSumm)]++
}

func (r *Report) addPair(p *dataset.Pair, cat string) { r.Pairs.add(p, cat) }

// addCounts adds one query's pairs as `pair_counts` gives them: per
// category (topic, summary, both, neither) and histogrammed.
func (r *Report) addCounts(n [4]int64, histTopic, histSumm []int32) {
	s := &r.Pairs
	s.Topic, s.Summary, s.Both, s.Neither = s.Topic+n[0], s.Summary+n[1], s.Both+n[2], s.Neither+n[3]
	for i := range s.HistTopic {
		s.HistTopic[i] += int64(histTopic[i])
		s.HistSumm[i] += int64(histSumm[i])
	}
}

func (r *Report) addQuery(domain string) {
	if i, ok := r.domainIndex[domain]; ok {
		r.Domains[i].Queries++
	} else {
		r.NoDomain++
	}
}

func (r *Report) setDomain(d string, eligible, wanted, selected int) {
	row := &r.Domains[r.domainIndex[d]]
	row.Eligible, row.Wanted, row.Selected = eligible, wanted, selected
}

func (r *Report) addCandidate(c *dataset.Candidate, domain string) {
	p := dataset.Pair{SimTopic: c.SimTopic, SimSumm: c.SimSumm}
	r.Candidates.add(&p, c.Category)
	ci := catIndex(c.Category)
	if i, ok := r.domainIndex[domain]; ok {
		r.Domains[i].Candidates[ci]++
	}
	r.topicVals[ci] = append(r.topicVals[ci], c.SimTopic)
	r.summVals[ci] = append(r.summVals[ci], c.SimSumm)
}

// quantiles returns min, p10, p25, p50, p75, p90, max with linear
// interpolation between order statistics (numpy's default).
func quantiles(v []float64) [7]float64 {
	var q [7]float64
	if len(v) == 0 {
		return q
	}
	s := slices.Clone(v)
	slices.Sort(s)
	for i, p := range []float64{0, 0.1, 0.25, 0.5, 0.75, 0.9, 1} {
		h := p * float64(len(s)-1)
		lo := int(math.Floor(h))
		hi := min(lo+1, len(s)-1)
		q[i] = s[lo] + (h-float64(lo))*(s[hi]-s[lo])
	}
	return q
}

func (r *Report) finish() {
	for _, s := range []*Signals{&r.Pairs, &r.Candidates} {
		if u := s.Topic + s.Summary + s.Both; u > 0 {
			s.Overlap = float64(s.Both) / float64(u)
		}
	}
	r.Candidates.QuantTopic, r.Candidates.QuantSumm = map[string][7]float64{}, map[string][7]float64{}
	for i, c := range Categories {
		r.Candidates.QuantTopic[c] = quantiles(r.topicVals[i])
		r.Candidates.QuantSumm[c] = quantiles(r.summVals[i])
	}
}

func writeReports(ctx context.Context, env *stage.Env, r *Report) error {
	r.finish()
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := stage.WriteReport(ctx, env, ReportJSON, append(js, '\n')); err != nil {
		return err
	}
	return stage.WriteReport(ctx, env, ReportMarkdown, r.Markdown())
}

// Markdown renders the report.
func (r *Report) Markdown() []byte {
	var b bytes.Buffer
	src := "fixed in the config"
	if r.Calibrated {
		src = "calibrated: see calibrate.md"
	}
	fmt.Fprintf(&b, "# Benchmark selection\n\n%sThresholds: τ_topic = %.6g, τ_summ = %.6g (%s); K = %d per category.\n\n", r.Provenance.Markdown(), r.TauTopic, r.TauSumm, src, r.K)
	if r.Failed != "" {
		fmt.Fprintf(&b, "**select stopped: %s**\n\n", r.Failed)
	}
	b.WriteString("## Queries per domain\n\n| domain | queries with pairs | eligible | wanted | selected | short by |\n|---|--:|--:|--:|--:|--:|\n")
	var tq, te, tw, ts int64
	for _, d := range r.Domains {
		shortBy := ""
		if d.Eligible < d.Wanted {
			shortBy = fmt.Sprint(d.Wanted - d.Eligible)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", d.Domain, d.Queries, d.Eligible, d.Wanted, d.Selected, shortBy)
		tq, te, tw, ts = tq+d.Queries, te+int64(d.Eligible), tw+int64(d.Wanted), ts+int64(d.Selected)
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | %d | %d | |\n", tq, te, tw, ts)
	if r.NoDomain > 0 {
		fmt.Fprintf(&b, "\n%d queries have no domain among these.\n", r.NoDomain)
	}
	b.WriteString("\n## Candidates per category\n\n| domain | topic-only | summary-only | both | total |\n|---|--:|--:|--:|--:|\n")
	var tc [3]int64
	for _, d := range r.Domains {
		c := d.Candidates
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", d.Domain, c[0], c[1], c[2], c[0]+c[1]+c[2])
		for i := range tc {
			tc[i] += c[i]
		}
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | %d | %d |\n", tc[0], tc[1], tc[2], tc[0]+tc[1]+tc[2])
	b.WriteString("\n## Overlap of the two signals\n\n| set | topic-only | summary-only | both | neither | overlap both / (topic ∪ summary) |\n|---|--:|--:|--:|--:|--:|\n")
	for _, x := range []struct {
		name string
		s    *Signals
	}{{"all stored pairs", &r.Pairs}, {"candidates", &r.Candidates}} {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.3f |\n", x.name, x.s.Topic, x.s.Summary, x.s.Both, x.s.Neither, x.s.Overlap)
	}
	b.WriteString("\n## Similarity distributions\n\nCandidates, exact quantiles per category:\n\n| similarity | category | min | p10 | p25 | median | p75 | p90 | max |\n|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range []struct {
		name string
		q    map[string][7]float64
	}{{"sim_topic", r.Candidates.QuantTopic}, {"sim_summ", r.Candidates.QuantSumm}} {
		for _, c := range Categories {
			q := x.q[c]
			fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", x.name, c, q[0], q[1], q[2], q[3], q[4], q[5], q[6])
		}
	}
	b.WriteString("\nAll stored pairs (over either floor) and candidates, counts per bin of width 0.05:\n\n| bin | pairs sim_topic | pairs sim_summ | candidates sim_topic | candidates sim_summ |\n|---|--:|--:|--:|--:|\n")
	for i := 0; i < histBins; i++ {
		lo, hi, close := float64(i)/histBins, float64(i+1)/histBins, ")"
		if i == histBins-1 {
			close = "]"
		}
		fmt.Fprintf(&b, "| [%.2f, %.2f%s | %d | %d | %d | %d |\n", lo, hi, close,
			r.Pairs.HistTopic[i], r.Pairs.HistSumm[i], r.Candidates.HistTopic[i], r.Candidates.HistSumm[i])
	}
	return b.Bytes()
}
