package judge

import (
	"slices"
	"testing"
)

// TestSendGroups: every call is in exactly one group, a group holds one
// query's calls in their order, and a query's calls are split only when
// the queries are fewer than the workers, into enough groups for all of
// them.
func TestSendGroups(t *testing.T) {
	a, b, c := &tournament{}, &tournament{}, &tournament{}
	// Two orders of a round of a (3 matches), b (2) and c (1): call i+6 is
	// call i swapped.
	round := []*tournament{a, a, a, b, b, c, a, a, a, b, b, c}
	queryOf := func(i int) *tournament { return round[i] }
	for _, tc := range []struct {
		workers int
		want    [][]int
	}{
		{1, [][]int{{0, 1, 2, 6, 7, 8}, {3, 4, 9, 10}, {5, 11}}},
		{3, [][]int{{0, 1, 2, 6, 7, 8}, {3, 4, 9, 10}, {5, 11}}},
		{4, [][]int{{0, 1, 2}, {6, 7, 8}, {3, 4}, {9, 10}, {5}, {11}}},
		{12, [][]int{{0}, {1, 2}, {6}, {7, 8}, {3}, {4}, {9}, {10}, {5}, {11}}},
	} {
		got := sendGroups(len(round), tc.workers, queryOf)
		if !slices.EqualFunc(got, tc.want, slices.Equal[[]int]) {
			t.Errorf("%d workers: %v, want %v", tc.workers, got, tc.want)
		}
	}
	if g := sendGroups(0, 4, queryOf); len(g) != 0 {
		t.Errorf("no calls: %v", g)
	}
}
