// Package unionfind is a disjoint-set forest over the integers [0, n), with
// union by size and path halving, so a sequence of m operations costs
// O(m·α(n)), where α is the inverse Ackermann function.
package unionfind

import "fmt"

// UF is a disjoint-set forest over [0, n). The zero value is an empty forest
// (n = 0). A UF is not safe for concurrent use: Find mutates it.
type UF struct {
	parent []int
	size   []int // size[r] is the size of the set rooted at r; meaningless elsewhere
}

// New returns n singleton sets {0}, {1}, ..., {n−1}. It panics if n < 0.
func New(n int) *UF {
	if n < 0 {
		panic(fmt.Sprintf("unionfind: New(%d): negative size", n))
	}
	u := &UF{parent: make([]int, n), size: make([]int, n)}
	for i := range u.parent {
		u.parent[i] = i
		u.size[i] = 1
	}
	return u
}

// Len returns n, the number of elements.
func (u *UF) Len() int { return len(u.parent) }

// Find returns the representative of x's set, halving the path on the way
// (every visited node is re-pointed to its grandparent). Two elements are in
// the same set exactly when Find returns the same value for both. It panics if
// x is outside [0, n).
func (u *UF) Find(x int) int {
	u.check(x)
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

// Union merges the sets of a and b and reports whether they were distinct.
// The root of the larger set becomes the root of the union (on a tie, a's
// root). It panics if a or b is outside [0, n).
func (u *UF) Union(a, b int) bool {
	ra, rb := u.Find(a), u.Find(b)
	if ra == rb {
		return false
	}
	if u.size[ra] < u.size[rb] {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
	u.size[ra] += u.size[rb]
	return true
}

// Groups returns every set, singletons included, each sorted ascending, and
// the sets sorted by their first (smallest) member. The result depends only
// on the partition, not on the order of the Union calls. It runs in
// O(n·α(n)).
func (u *UF) Groups() [][]int {
	n := len(u.parent)
	if n == 0 {
		return nil
	}
	// slot[r] is 1 + the index in groups of the group rooted at r.
	slot := make([]int, n)
	var groups [][]int
	for x := range n {
		r := u.Find(x)
		if slot[r] == 0 {
			groups = append(groups, make([]int, 0, u.size[r]))
			slot[r] = len(groups)
		}
		g := slot[r] - 1
		groups[g] = append(groups[g], x)
	}
	return groups
}

func (u *UF) check(x int) {
	if x < 0 || x >= len(u.parent) {
		panic(fmt.Sprintf("unionfind: element %d outside [0, %d)", x, len(u.parent)))
	}
}
