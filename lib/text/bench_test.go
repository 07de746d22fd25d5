package text

import "testing"

// BenchmarkTokenize tokenises the first 1,000 MATH test problems
// (statement + solution), by Append (strings) and by Spans (no strings),
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
		b.Run("Spans/"+tok.Name(), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var sp Spans
			for b.Loop() {
				for _, d := range docs {
					sp.Tokenize(tok, d)
				}
			}
		})
	}
}
