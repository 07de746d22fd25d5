package shard

import (
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Spec
		wantErr bool
	}{
		{"0/1", Spec{0, 1}, false},
		{"2/7", Spec{2, 7}, false},
		{" 3 / 4 ", Spec{3, 4}, false},
		{"4/4", Spec{}, true},
		{"-1/4", Spec{}, true},
		{"0/0", Spec{}, true},
		{"1", Spec{}, true},
		{"a/b", Spec{}, true},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Spec
		ok      bool
		wantErr bool
	}{
		{"no array", map[string]string{}, Spec{}, false, false},
		{"plain", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8", "SLURM_ARRAY_TASK_MIN": "0"}, Spec{3, 8}, true, false},
		{"offset", map[string]string{"SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_COUNT": "8", "SLURM_ARRAY_TASK_MIN": "10"}, Spec{2, 8}, true, false},
		{"no min", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"}, Spec{1, 2}, true, false},
		{"subset array", map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "3", "SABER_SHARD_COUNT": "12"}, Spec{7, 12}, true, false},
		{"subset array with offset", map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SABER_SHARD_COUNT": "2500", "SABER_SHARD_OFFSET": "2000"}, Spec{2007, 2500}, true, false},
		{"bad offset", map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SABER_SHARD_COUNT": "12", "SABER_SHARD_OFFSET": "x"}, Spec{}, true, true},
		{"bad id", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"}, Spec{}, true, true},
		{"missing count", map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, Spec{}, true, true},
		{"out of range", map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "2"}, Spec{5, 2}, true, true},
	}
	for _, tt := range tests {
		got, ok, err := FromEnv(func(k string) string { return tt.env[k] })
		if ok != tt.ok || (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("%s: FromEnv = %v, %v, %v; want %v, %v, err %v", tt.name, got, ok, err, tt.want, tt.ok, tt.wantErr)
		}
	}
}

func TestResolvePrefersFlag(t *testing.T) {
	env := map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"}
	got, err := Resolve("0/3", func(k string) string { return env[k] }, Spec{0, 1})
	if err != nil || got != (Spec{0, 3}) {
		t.Fatalf("Resolve = %v, %v", got, err)
	}
	got, err = Resolve("", func(string) string { return "" }, Spec{0, 1})
	if err != nil || got != (Spec{0, 1}) {
		t.Fatalf("Resolve default = %v, %v", got, err)
	}
}

// TestRangeCoversAll checks that the shards of every count tile [0, n)
// contiguously, in order, with sizes differing by at most one.
func TestRangeCoversAll(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 10, 12500} {
		for count := 1; count <= 9; count++ {
			next, minSz, maxSz := 0, n, 0
			for i := 0; i < count; i++ {
				lo, hi := Spec{i, count}.Range(n)
				if lo != next || hi < lo {
					t.Fatalf("n=%d count=%d shard %d: [%d,%d) after %d", n, count, i, lo, hi, next)
				}
				next = hi
				minSz, maxSz = min(minSz, hi-lo), max(maxSz, hi-lo)
			}
			if next != n || maxSz-minSz > 1 {
				t.Fatalf("n=%d count=%d: covers %d, sizes %d..%d", n, count, next, minSz, maxSz)
			}
		}
	}
}
