package minhash

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	minhashlsh "github.com/ekzhu/minhash-lsh"
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
			if x.Bands() != tt.bands || x.Rows() != tt.rows {
				t.Errorf("Bands, Rows = %d, %d", x.Bands(), x.Rows())
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
			for range 3 { // the same answer every time
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

// TestIndexEqualsBruteForce checks Query against a scan of every added
// signature for band equality, over shapes and signatures that share
// values in some bands and not others (families of near copies), and again
// with every hash of one band forced equal, so that only the comparison of
// values tells candidates from collisions.
func TestIndexEqualsBruteForce(t *testing.T) {
	for _, shape := range [][2]int{{14, 8}, {1, 6}, {5, 3}, {20, 1}} {
		bands, rows := shape[0], shape[1]
		t.Run(fmt.Sprintf("%dx%d", bands, rows), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(bands), uint64(rows)))
			var sigs [][]uint64
			for fam := 0; fam < 60; fam++ {
				base := make([]uint64, bands*rows)
				for k := range base {
					base[k] = rng.Uint64N(4) // few values: bands often agree by chance too
				}
				for range 1 + rng.IntN(4) {
					s := slices.Clone(base)
					for k := range s {
						if rng.IntN(3) == 0 {
							s[k] = rng.Uint64N(4)
						}
					}
					sigs = append(sigs, s)
				}
			}
			brute := func(q []uint64) []int {
				var out []int
				for id, s := range sigs {
					for b := range bands {
						if slices.Equal(s[b*rows:(b+1)*rows], q[b*rows:(b+1)*rows]) {
							out = append(out, id)
							break
						}
					}
				}
				return out
			}
			x, err := NewIndex(bands, rows)
			if err != nil {
				t.Fatal(err)
			}
			for id, s := range sigs {
				x.Add(id, s)
			}
			x.Build()
			for id, s := range sigs {
				if got, want := x.Query(s), brute(s); !slices.Equal(got, want) {
					t.Fatalf("Query(sig of %d) = %v, brute force %v", id, got, want)
				}
			}
			// Every document's band 0 hashing like the query's.
			slices.Sort(x.tables[0].slots)
			for id, s := range sigs {
				h := x.bandHash(s, 0)
				for k := range x.tables[0].hashes {
					x.tables[0].hashes[k] = h
				}
				x.tables[0].buildDir()
				if got, want := x.Query(s), brute(s); !slices.Equal(got, want) {
					t.Fatalf("band 0 colliding: Query(sig of %d) = %v, brute force %v", id, got, want)
				}
			}
		})
	}
}

// TestIndexMatchesLibrary checks that Query gives the candidates of
// github.com/ekzhu/minhash-lsh, the index SPEC §3 names and the one this
// replaced, set to the same bands × rows (the library picks its shape from a
// threshold: 0.65 gives 14 × 8 for 112 values), on near copies and random
// signatures.
func TestIndexMatchesLibrary(t *testing.T) {
	const bands, rows = 14, 8
	lib := minhashlsh.NewMinhashLSH64(bands*rows, 0.65)
	if k, l := lib.Params(); k != rows || l != bands {
		t.Fatalf("library shape (k, l) = (%d, %d), want (%d, %d)", k, l, rows, bands)
	}
	x, err := NewIndex(bands, rows)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHasher(bands*rows, 3)
	rng := rand.New(rand.NewPCG(3, 4))
	var sigs [][]uint64
	for range 300 {
		a, b := pairWithJaccard(rng, 40+rng.IntN(40), rng.IntN(20), rng.IntN(20))
		sigs = append(sigs, h.Signature(a), h.Signature(b))
	}
	for id, s := range sigs {
		x.Add(id, s)
		lib.Add(id, s)
	}
	x.Build()
	lib.Index()
	found := 0
	for id, s := range sigs {
		var want []int
		for _, k := range lib.Query(s) {
			want = append(want, k.(int))
		}
		slices.Sort(want)
		got := x.Query(s)
		if !slices.Equal(got, want) {
			t.Fatalf("Query(sig of %d) = %v, library %v", id, got, want)
		}
		found += len(got) - 1
	}
	if found == 0 {
		t.Fatal("no candidate pairs at all: the test checks nothing")
	}
	t.Logf("%d candidates besides the query itself over %d signatures", found, len(sigs))
}
