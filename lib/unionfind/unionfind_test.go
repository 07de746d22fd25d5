package unionfind

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestUnionGroups(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		unions [][2]int
		merged []bool
		want   [][]int
	}{
		{name: "empty", n: 0, want: nil},
		{name: "singletons", n: 3, want: [][]int{{0}, {1}, {2}}},
		{name: "self union", n: 2, unions: [][2]int{{1, 1}}, merged: []bool{false}, want: [][]int{{0}, {1}}},
		{
			name:   "pair and repeat",
			n:      4,
			unions: [][2]int{{3, 1}, {1, 3}},
			merged: []bool{true, false},
			want:   [][]int{{0}, {1, 3}, {2}},
		},
		{
			name:   "chain merges transitively",
			n:      6,
			unions: [][2]int{{5, 4}, {4, 3}, {3, 2}, {2, 1}, {1, 0}, {0, 5}},
			merged: []bool{true, true, true, true, true, false},
			want:   [][]int{{0, 1, 2, 3, 4, 5}},
		},
		{
			name:   "groups ordered by first member",
			n:      7,
			unions: [][2]int{{6, 2}, {5, 0}, {4, 1}, {2, 4}},
			merged: []bool{true, true, true, true},
			want:   [][]int{{0, 5}, {1, 2, 4, 6}, {3}},
		},
		{
			name:   "union of two sets",
			n:      5,
			unions: [][2]int{{0, 1}, {2, 3}, {3, 4}, {1, 4}, {0, 2}},
			merged: []bool{true, true, true, true, false},
			want:   [][]int{{0, 1, 2, 3, 4}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := New(tt.n)
			if u.Len() != tt.n {
				t.Fatalf("Len() = %d, want %d", u.Len(), tt.n)
			}
			for i, p := range tt.unions {
				if got := u.Union(p[0], p[1]); got != tt.merged[i] {
					t.Errorf("Union(%d, %d) = %v, want %v", p[0], p[1], got, tt.merged[i])
				}
			}
			got := u.Groups()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Groups() = %v, want %v", got, tt.want)
			}
			// Find agrees with Groups.
			for _, g := range got {
				for _, x := range g {
					if u.Find(x) != u.Find(g[0]) {
						t.Errorf("Find(%d) != Find(%d) in group %v", x, g[0], g)
					}
				}
			}
			for i := 1; i < len(got); i++ {
				if u.Find(got[i][0]) == u.Find(got[i-1][0]) {
					t.Errorf("groups %v and %v share a root", got[i-1], got[i])
				}
			}
		})
	}
}

// TestGroupsOrderIndependent checks that Groups depends only on the
// partition: the same unions in random orders give the same result, which
// also matches a naive labelling.
func TestGroupsOrderIndependent(t *testing.T) {
	const n = 200
	rng := rand.New(rand.NewPCG(1, 2))
	pairs := make([][2]int, 150)
	for i := range pairs {
		pairs[i] = [2]int{rng.IntN(n), rng.IntN(n)}
	}
	// Naive labels: repeatedly relabel until stable.
	label := make([]int, n)
	for i := range label {
		label[i] = i
	}
	for changed := true; changed; {
		changed = false
		for _, p := range pairs {
			a, b := label[p[0]], label[p[1]]
			if a != b {
				lo, hi := min(a, b), max(a, b)
				for i := range label {
					if label[i] == hi {
						label[i] = lo
					}
				}
				changed = true
			}
		}
	}
	var want [][]int
	first := map[int]int{}
	for x := range n {
		g, ok := first[label[x]]
		if !ok {
			g = len(want)
			first[label[x]] = g
			want = append(want, nil)
		}
		want[g] = append(want[g], x)
	}
	for trial := range 5 {
		u := New(n)
		for _, i := range rng.Perm(len(pairs)) {
			p := pairs[i]
			if trial%2 == 1 {
				p[0], p[1] = p[1], p[0]
			}
			u.Union(p[0], p[1])
		}
		if got := u.Groups(); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: Groups() = %v, want %v", trial, got, want)
		}
	}
}

func TestPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"negative New", func() { New(-1) }},
		{"Find below range", func() { New(3).Find(-1) }},
		{"Find above range", func() { New(3).Find(3) }},
		{"Union out of range", func() { New(3).Union(0, 5) }},
		{"zero value Find", func() { new(UF).Find(0) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				s, ok := r.(string)
				if !ok || !strings.HasPrefix(s, "unionfind: ") {
					t.Errorf("panic = %v, want a string starting with %q", r, "unionfind: ")
				}
			}()
			tt.f()
		})
	}
}

func BenchmarkUnionFind(b *testing.B) {
	const n = 1 << 16
	rng := rand.New(rand.NewPCG(3, 4))
	pairs := make([][2]int, n)
	for i := range pairs {
		pairs[i] = [2]int{rng.IntN(n), rng.IntN(n)}
	}
	for b.Loop() {
		u := New(n)
		for _, p := range pairs {
			u.Union(p[0], p[1])
		}
		_ = u.Groups()
	}
}
