package dataset

import (
	"bytes"
	"fmt"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/zstd"

	aontology "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/lib/relevance"
	"github.com/saber-math/saber/lib/synth/corpusdist"
)

// pairDict is Pair with dictionary-encoded query and category.
type pairDict struct {
	Query    string  `parquet:"query,dict"`
	Doc      string  `parquet:"doc"`
	SimTopic float64 `parquet:"sim_topic"`
	SimSumm  float64 `parquet:"sim_summ"`
	Category string  `parquet:"category,dict"`
}

// pairDictAll also dictionary-encodes the similarities, which take few
// distinct values (BMA over few topic sets, Jaccard of small sets).
type pairDictAll struct {
	Query    string  `parquet:"query,dict"`
	Doc      string  `parquet:"doc"`
	SimTopic float64 `parquet:"sim_topic,dict"`
	SimSumm  float64 `parquet:"sim_summ,dict"`
	Category string  `parquet:"category,dict"`
}

func benchPairs(b *testing.B) []Pair {
	tree, err := aontology.DefaultTree()
	if err != nil {
		b.Fatal(err)
	}
	gen, err := corpusdist.New(tree, 1, corpusdist.DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	const n = 12000
	docs := gen.Docs(n)
	topics, tokens := map[string][]int{}, map[string][]string{}
	for _, d := range docs {
		topics[d.ID], tokens[d.ID] = d.Topics, d.Tokens
	}
	c := relevance.NewCorpus(tree, topics, tokens)
	f := relevance.NewFinder(c, 0.858, 0.211)
	var out []Pair
	for q := range c.IDs {
		for _, p := range f.Query(q) {
			out = append(out, Pair{Query: c.IDs[q], Doc: p.Doc, SimTopic: p.SimTopic, SimSumm: p.SimSumm, Category: p.Category})
		}
	}
	return out
}

// cpuNow is the process's user + system CPU time in ns: on a shared
// machine wall time measures the neighbours.
func cpuNow() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func writeAs[T any](b *testing.B, rows []T, codec compress.Codec) int {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.Compression(codec), parquet.PageBufferSize(1<<20),
		parquet.CreatedBy("saber", "", ""), parquet.MaxRowsPerRowGroup(rowGroupRows))
	for s := 0; s < len(rows); s += rowGroupRows {
		if _, err := w.Write(rows[s:min(s+rowGroupRows, len(rows))]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Len()
}

// BenchmarkPairsEncoding writes the `pairs` of a 12K-document corpusdist
// corpus (~560K pairs) with each codec and encoding: ns/op is the write,
// B/pair the bytes stored.
func BenchmarkPairsEncoding(b *testing.B) {
	rows := benchPairs(b)
	dict := make([]pairDict, len(rows))
	dictAll := make([]pairDictAll, len(rows))
	for i, r := range rows {
		dict[i] = pairDict(r)
		dictAll[i] = pairDictAll(r)
	}
	codecs := []struct {
		name  string
		codec compress.Codec
	}{
		{"zstd-better", &zstd.Codec{Level: zstd.SpeedBetterCompression, Concurrency: 1}},
		{"zstd-default", &zstd.Codec{Level: zstd.SpeedDefault, Concurrency: 1}},
		{"zstd-fastest", &zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}},
		{"snappy-fast", fastSnappy{}},
	}
	for _, c := range codecs {
		for _, enc := range []string{"plain", "dict", "dict-all"} {
			b.Run(fmt.Sprintf("%s/%s", c.name, enc), func(b *testing.B) {
				var size int
				cpu0 := cpuNow()
				for b.Loop() {
					switch enc {
					case "plain":
						size = writeAs(b, rows, c.codec)
					case "dict":
						size = writeAs(b, dict, c.codec)
					default:
						size = writeAs(b, dictAll, c.codec)
					}
				}
				b.ReportMetric(float64(cpuNow()-cpu0)/float64(b.N)/float64(len(rows)), "CPU-ns/pair")
				b.ReportMetric(float64(size)/float64(len(rows)), "B/pair")
				b.ReportMetric(float64(len(rows)), "pairs")
			})
		}
	}
}
