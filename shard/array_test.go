package shard

import (
	"fmt"
	"strconv"
	"testing"
)

func TestChunks(t *testing.T) {
	tests := []struct {
		name     string
		indices  []int
		maxArray int
		want     string
	}{
		{"none", nil, 4, "[]"},
		{"one array", []int{0, 1, 3}, 4, "[{0 [0 1 3]}]"},
		{"split at the boundary", []int{0, 3, 4, 5, 9, 10}, 4, "[{0 [0 3]} {4 [4 5]} {8 [9 10]}]"},
		{"a gap skips an offset", []int{2, 13}, 4, "[{0 [2]} {12 [13]}]"},
		{"one per array", []int{0, 1, 2}, 1, "[{0 [0]} {1 [1]} {2 [2]}]"},
		{"Slurm default", []int{0, 1000, 1001, 2500}, DefaultMaxArraySize, "[{0 [0 1000]} {1001 [1001]} {2002 [2500]}]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(Chunks(tt.indices, tt.maxArray)); got != tt.want {
			t.Errorf("%s: Chunks(%v, %d) = %s, want %s", tt.name, tt.indices, tt.maxArray, got, tt.want)
		}
	}
}

// TestChunksRoundTrip: each shard of each chunk, submitted as task id
// index − offset with SABER_SHARD_OFFSET=offset, is the shard FromEnv
// reads back, and its task id is one Slurm accepts (< maxArray).
func TestChunksRoundTrip(t *testing.T) {
	const count, maxArray = 23, 5
	var missing []int
	for i := 0; i < count; i += 2 {
		missing = append(missing, i)
	}
	seen := 0
	for _, c := range Chunks(missing, maxArray) {
		for _, i := range c.Indices {
			task := i - c.Offset
			if task < 0 || task >= maxArray {
				t.Fatalf("shard %d in chunk at %d: task id %d outside [0, %d)", i, c.Offset, task, maxArray)
			}
			env := map[string]string{
				"SLURM_ARRAY_TASK_ID": strconv.Itoa(task),
				"SABER_SHARD_COUNT":   strconv.Itoa(count),
				"SABER_SHARD_OFFSET":  strconv.Itoa(c.Offset),
			}
			got, ok, err := FromEnv(func(k string) string { return env[k] })
			if !ok || err != nil || got != (Spec{i, count}) {
				t.Fatalf("shard %d (task %d, offset %d): FromEnv = %v, %v, %v", i, task, c.Offset, got, ok, err)
			}
			seen++
		}
	}
	if seen != len(missing) {
		t.Fatalf("chunks hold %d shards, want %d", seen, len(missing))
	}
}
