// Package shard plans shards: which of a stage's n shards this process is,
// which keys it owns, and how shards are cut into Slurm arrays.
//
// A stage runs as n shards; shard i owns the i-th contiguous range of its
// sorted keys. The shard comes from --shard i/n or, on Slurm, from the array
// environment, whose offsets Chunks chooses when `saber submit` cuts a stage
// into arrays (`saber plan` counts them the same way). The package is pure
// planning: where a shard's outputs and completion manifests live is
// artifacts/layout's business.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec is shard Index of Count (0 ≤ Index < Count).
type Spec struct {
	Index, Count int
}

// String renders "i/n".
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Parse reads "i/n".
func Parse(v string) (Spec, error) {
	a, b, ok := strings.Cut(v, "/")
	if !ok {
		return Spec{}, fmt.Errorf("shard %q: want i/n, e.g. 0/4", v)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("shard %q: want integers i/n, e.g. 0/4", v)
	}
	s := Spec{Index: i, Count: n}
	return s, s.Check()
}

// Check reports a shard outside 0 ≤ i < n.
func (s Spec) Check() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: want 0 ≤ i < n", s.Index, s.Count)
	}
	return nil
}

// FromEnv reads the Slurm array environment: the shard index is
// SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN and the count is
// SLURM_ARRAY_TASK_COUNT. `saber submit` instead sets SABER_SHARD_COUNT,
// because it submits arrays of only the missing shards (--array=3,7,12),
// whose task count is not the stage's shard count: then the index is
// SLURM_ARRAY_TASK_ID + SABER_SHARD_OFFSET (the offset splits stages larger
// than the cluster's MaxArraySize over several arrays). ok is false outside
// an array.
func FromEnv(getenv func(string) string) (s Spec, ok bool, err error) {
	id := getenv("SLURM_ARRAY_TASK_ID")
	if id == "" {
		return Spec{}, false, nil
	}
	atoi := func(name, v string) (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%s=%q: not an integer", name, v)
		}
		return n, nil
	}
	task, err := atoi("SLURM_ARRAY_TASK_ID", id)
	if err != nil {
		return Spec{}, true, err
	}
	if n := getenv("SABER_SHARD_COUNT"); n != "" {
		count, err := atoi("SABER_SHARD_COUNT", n)
		if err != nil {
			return Spec{}, true, err
		}
		offset := 0
		if v := getenv("SABER_SHARD_OFFSET"); v != "" {
			if offset, err = atoi("SABER_SHARD_OFFSET", v); err != nil {
				return Spec{}, true, err
			}
		}
		s = Spec{Index: task + offset, Count: count}
		return s, true, s.Check()
	}
	min := 0
	if v := getenv("SLURM_ARRAY_TASK_MIN"); v != "" {
		if min, err = atoi("SLURM_ARRAY_TASK_MIN", v); err != nil {
			return Spec{}, true, err
		}
	}
	count, err := atoi("SLURM_ARRAY_TASK_COUNT", getenv("SLURM_ARRAY_TASK_COUNT"))
	if err != nil {
		return Spec{}, true, err
	}
	s = Spec{Index: task - min, Count: count}
	return s, true, s.Check()
}

// Resolve picks the shard: the flag when given, else the Slurm environment,
// else def (a stage's whole range: 0/1 for a single task).
func Resolve(flag string, getenv func(string) string, def Spec) (Spec, error) {
	if flag != "" {
		return Parse(flag)
	}
	s, ok, err := FromEnv(getenv)
	if err != nil || ok {
		return s, err
	}
	return def, def.Check()
}

// Range returns the half-open range [lo, hi) of n sorted keys owned by the
// shard. Sizes differ by at most one; the first n%Count shards get one more.
func (s Spec) Range(n int) (lo, hi int) {
	q, r := n/s.Count, n%s.Count
	lo = s.Index*q + min(s.Index, r)
	hi = lo + q
	if s.Index < r {
		hi++
	}
	return lo, hi
}
