package ontology

// DescentCalls is the expected number of scorer calls of a top-down
// traversal that, at every node with children, makes one call and keeps
// one child drawn uniformly: 0 at a leaf, else 1 + the mean over the
// children. Topic assignment always keeps the best-scoring child (scores
// are divided by their maximum), so this is the traversal's floor; a text
// that keeps k children at a node pays for k subtrees. It needs no text,
// so `saber plan` can forecast tag's calls before the corpus exists.
func (t *Tree) DescentCalls() float64 {
	memo := make([]float64, t.Len())
	done := make([]bool, t.Len())
	var calls func(i int) float64
	calls = func(i int) float64 {
		if done[i] {
			return memo[i]
		}
		kids := t.Children(i)
		v := 0.0
		if len(kids) > 0 {
			sum := 0.0
			for _, c := range kids {
				sum += calls(c)
			}
			v = 1 + sum/float64(len(kids))
		}
		memo[i], done[i] = v, true
		return v
	}
	if t.Len() == 0 {
		return 0
	}
	return calls(t.Root())
}
