package text

import "testing"

type discardSink struct{ n int }

func (d *discardSink) Token(tok []byte) { d.n += len(tok) }
func (d *discardSink) Pair(i int)       { d.n += i }

// BenchmarkTokenize tokenises the first 1,000 MATH test problems
// (statement + solution), by Append (strings) and by Stream (no strings),
// with every tokeniser.
func BenchmarkTokenize(b *testing.B) {
	docs := readMATH(b, mathDataPath(b))[:1000]
	size := 0
	for _, d := range docs {
		size += len(d)
	}
	for _, tok := range []Tokenizer{Plain, Sklearn, Math} {
		b.Run("Append/"+tok.Name(), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var dst []string
			for b.Loop() {
				for _, d := range docs {
					dst = tok.Append(dst[:0], d)
				}
			}
		})
		b.Run("Stream/"+tok.Name(), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var sink discardSink
			for b.Loop() {
				for _, d := range docs {
					Stream(tok, d, &sink)
				}
			}
		})
	}
}
