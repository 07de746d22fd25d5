package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	pzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// TestKeptZstdMatchesParquetGo: the kept encoders give parquet-go's codec's
// bytes, page after page (an encoder reused), across collections, from
// several writers at once, and decode back.
func TestKeptZstdMatchesParquetGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var pages [][]byte
	for _, n := range []int{0, 1, 100, 64 << 10, 1 << 20, 1<<20 + 12345} {
		var b bytes.Buffer
		for b.Len() < n {
			fmt.Fprintf(&b, "Find $x^%d + %d$ when $x = %d$. ", rng.IntN(9), rng.IntN(1000), rng.IntN(50))
			if rng.IntN(4) == 0 {
				b.WriteByte(byte(rng.IntN(256))) // some bytes that do not repeat
			}
		}
		pages = append(pages, b.Bytes()[:n])
	}
	for _, c := range []struct {
		name string
		kept *keptZstd
		ref  pzstd.Level
	}{{"better", betterZstd, pzstd.SpeedBetterCompression}, {"default", defaultZstd, pzstd.SpeedDefault}} {
		t.Run(c.name, func(t *testing.T) { testKeptZstd(t, c.kept, &pzstd.Codec{Level: c.ref, Concurrency: 1}, pages) })
	}
}

func testKeptZstd(t *testing.T, kept *keptZstd, ref *pzstd.Codec, pages [][]byte) {
	want := make([][]byte, len(pages))
	for i, p := range pages {
		w, err := ref.Encode(nil, p)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = bytes.Clone(w)
	}
	check := func(t *testing.T, round int) {
		for i, p := range pages {
			got, err := kept.Encode(make([]byte, 0, 10), p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want[i]) {
				t.Errorf("round %d, page %d (%d bytes): %d bytes compressed, parquet-go's codec %d", round, i, len(p), len(got), len(want[i]))
			}
			back, err := kept.Decode(nil, got)
			if err != nil || !bytes.Equal(back, p) {
				t.Errorf("round %d, page %d: decoded %d bytes (%v), want %d", round, i, len(back), err, len(p))
			}
		}
	}
	for round := range 3 {
		check(t, round)
		runtime.GC()
	}
	var wg sync.WaitGroup
	for w := range 8 { // more writers than encoders kept
		wg.Go(func() { check(t, 10+w) })
	}
	wg.Wait()
}
