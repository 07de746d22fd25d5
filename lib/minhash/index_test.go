package minhash

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestThreshold(t *testing.T) {
	tests := []struct {
		bands, rows int
		want        float64
	}{
		{14, 8, 0.7190},
		{1, 8, 1},
		{20, 5, 0.5493},
		{9, 13, 0.8445},
	}
	for _, tt := range tests {
		if got := Threshold(tt.bands, tt.rows); math.Abs(got-tt.want) > 1e-4 {
			t.Errorf("Threshold(%d, %d) = %.4f, want %.4f", tt.bands, tt.rows, got, tt.want)
		}
	}
}

func TestNewIndex(t *testing.T) {
	tests := []struct {
		bands, rows int
		wantErr     string // substring; "" for success
	}{
		{14, 8, ""},
		{0, 8, "at least 1 band"},
		{14, 0, "at least 1 band"},
		{-1, -1, "at least 1 band"},
		{1, 112, ""},
		{4, 4, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.bands, tt.rows), func(t *testing.T) {
			x, err := NewIndex(tt.bands, tt.rows)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "minhash: ") {
					t.Fatalf("NewIndex(%d, %d) error = %v, want one containing %q", tt.bands, tt.rows, err, tt.wantErr)
				}
				if x != nil {
					t.Errorf("NewIndex returned an index with an error")
				}
				return
			}
			if err != nil {
				t.Fatalf("NewIndex(%d, %d): %v", tt.bands, tt.rows, err)
			}
			if k, l := x.lsh.Params(); k != tt.rows || l != tt.bands {
				t.Errorf("library params (k, l) = (%d, %d), want (%d, %d)", k, l, tt.rows, tt.bands)
			}
			if x.Bands() != tt.bands || x.Rows() != tt.rows {
				t.Errorf("Bands, Rows = %d, %d", x.Bands(), x.Rows())
			}
			// The cached second call gives the same shape.
			y, err := NewIndex(tt.bands, tt.rows)
			if err != nil {
				t.Fatal(err)
			}
			if k, l := y.lsh.Params(); k != tt.rows || l != tt.bands {
				t.Errorf("cached: library params (k, l) = (%d, %d)", k, l)
			}
		})
	}
}

// TestScanThreshold checks the scan with fake library parameters, since every
// shape the real library is asked for in practice is reachable.
func TestScanThreshold(t *testing.T) {
	tests := []struct {
		name        string
		bands, rows int
		params      func(numHash int, t float64) (k, l int)
		wantT       float64
		wantErr     string
	}{
		{
			name: "first matching threshold wins", bands: 14, rows: 8,
			params: func(n int, t float64) (int, int) {
				if t >= 0.3 && t <= 0.7 {
					return 8, 14
				}
				return 1, n
			},
			wantT: 0.3,
		},
		{
			name: "unreachable shape", bands: 14, rows: 8,
			params:  func(n int, t float64) (int, int) { return 7, 16 },
			wantErr: "minhash: the LSH library cannot be set to 14 bands × 8 rows",
		},
		{
			name: "real library, 14 x 8", bands: 14, rows: 8, params: libParams,
			wantT: 0.65,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var probes []float64
			got := scanThreshold(tt.bands, tt.rows, func(n int, th float64) (int, int) {
				if n != tt.bands*tt.rows {
					t.Fatalf("asked for %d hashes, want %d", n, tt.bands*tt.rows)
				}
				probes = append(probes, th)
				return tt.params(n, th)
			})
			if tt.wantErr != "" {
				if got.err == nil || got.err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", got.err, tt.wantErr)
				}
				if len(probes) != 197 || probes[0] != 0.01 || probes[196] != 0.99 {
					t.Errorf("probed %d thresholds from %v, want 197 from 0.01 to 0.99", len(probes), probes[:1])
				}
				return
			}
			if got.err != nil || math.Abs(got.t-tt.wantT) > 1e-12 {
				t.Errorf("scan = (%v, %v), want %v", got.t, got.err, tt.wantT)
			}
		})
	}
}

// TestIndexQuery plants a near-duplicate pair and an unrelated pair among
// random documents, with datatrove's 14 × 8 shape.
func TestIndexQuery(t *testing.T) {
	const bands, rows = 14, 8
	h := NewHasher(bands*rows, 1)
	x, err := NewIndex(bands, rows)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	nearA, nearB := pairWithJaccard(rng, 90, 5, 5) // J = 0.9
	farA, farB := pairWithJaccard(rng, 10, 45, 45) // J = 0.1
	docs := map[int][]uint64{7: nearA, 3: nearB, 20: farA, 11: farB}
	// A cluster of three exact duplicates, to check sorting of longer answers.
	dup := randomSet(rng, 50)
	for _, id := range []int{42, 5, 17} {
		docs[id] = dup
	}
	for id := 100; id < 400; id++ {
		docs[id] = randomSet(rng, 50)
	}
	ids := make([]int, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	sigs := map[int][]uint64{}
	for _, id := range ids {
		sigs[id] = h.Signature(docs[id])
		x.Add(id, sigs[id])
	}
	if got := x.Query(sigs[7]); got != nil {
		t.Errorf("Query before Build = %v, want nil", got)
	}
	x.Build()

	tests := []struct {
		name string
		id   int
		want []int
	}{
		{"near duplicate found", 7, []int{3, 7}},
		{"near duplicate found from the other side", 3, []int{3, 7}},
		{"unrelated pair not found", 20, []int{20}},
		{"unrelated pair not found from the other side", 11, []int{11}},
		{"cluster sorted", 17, []int{5, 17, 42}},
		{"random document alone", 250, []int{250}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 3 { // deterministic order despite map iteration in the library
				if got := x.Query(sigs[tt.id]); !slices.Equal(got, tt.want) {
					t.Fatalf("Query(sig of %d) = %v, want %v", tt.id, got, tt.want)
				}
			}
		})
	}
	if j := EstimatedJaccard(sigs[7], sigs[3]); j < 0.8 {
		t.Errorf("planted pair: estimated J = %.3f, want >= 0.8", j)
	}

	// A document added after Build is searchable after the next Build.
	late := h.Signature(nearA)
	x.Add(1000, late)
	if got := x.Query(late); !slices.Equal(got, []int{3, 7}) {
		t.Errorf("before rebuild: Query = %v, want [3 7]", got)
	}
	x.Build()
	if got := x.Query(late); !slices.Equal(got, []int{3, 7, 1000}) {
		t.Errorf("after rebuild: Query = %v, want [3 7 1000]", got)
	}
	// An unseen, unrelated signature has no candidates.
	if got := x.Query(h.Signature(randomSet(rng, 50))); got != nil {
		t.Errorf("Query(unrelated) = %v, want nil", got)
	}
}

func TestIndexPanicsOnWrongLength(t *testing.T) {
	x, err := NewIndex(14, 8)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(){
		"Add":   func() { x.Add(1, make([]uint64, 111)) },
		"Query": func() { x.Query(make([]uint64, 113)) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if s, ok := recover().(string); !ok || !strings.HasPrefix(s, "minhash: ") {
					t.Errorf("panic = %q, want a minhash: message", s)
				}
			}()
			f()
		})
	}
}

// BenchmarkIndex adds 100K random 112-value signatures to a 14 × 8 index,
// builds it and queries every signature once.
func BenchmarkIndex(b *testing.B) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(5, 6))
	sigs := make([][]uint64, n)
	for i := range sigs {
		sigs[i] = make([]uint64, 112)
		for j := range sigs[i] {
			sigs[i][j] = rng.Uint64N(MersennePrime)
		}
	}
	if _, err := NewIndex(14, 8); err != nil { // fill the threshold cache
		b.Fatal(err)
	}
	b.ReportAllocs()
	var add, build, query time.Duration
	for b.Loop() {
		t0 := time.Now()
		x, _ := NewIndex(14, 8)
		for i, s := range sigs {
			x.Add(i, s)
		}
		t1 := time.Now()
		x.Build()
		t2 := time.Now()
		for _, s := range sigs {
			if len(x.Query(s)) != 1 {
				b.Fatal("random signature collided")
			}
		}
		t3 := time.Now()
		add += t1.Sub(t0)
		build += t2.Sub(t1)
		query += t3.Sub(t2)
	}
	docs := float64(b.N * n)
	b.ReportMetric(float64((add+build+query).Nanoseconds())/docs, "ns/doc")
	b.ReportMetric(float64(add.Nanoseconds())/docs, "add-ns/doc")
	b.ReportMetric(float64(build.Nanoseconds())/docs, "build-ns/doc")
	b.ReportMetric(float64(query.Nanoseconds())/docs, "query-ns/doc")
}
