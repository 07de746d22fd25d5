package seed

import "testing"

func TestDerive(t *testing.T) {
	// Golden values (checked with Python: int.from_bytes(sha256(pack(">Q", 42)
	// + b"select\x00q1").digest()[:8], "big")) pin the derivation: changing it would change every
	// released benchmark, so a change must be deliberate.
	tests := []struct {
		run        uint64
		stage, key string
		want       uint64
	}{
		{42, "select", "q1", 0x2f9f4e03806e6cef},
		{42, "select", "q2", 0x9c48ad1df18030cc},
		{43, "select", "q1", 0x2e269120d0df6db3},
		{42, "judge", "q1", 0x5239952188efe7f8},
	}
	seen := map[uint64]bool{}
	for _, tt := range tests {
		got := Derive(tt.run, tt.stage, tt.key)
		if got != tt.want {
			t.Errorf("Derive(%d,%q,%q) = %#x, want %#x", tt.run, tt.stage, tt.key, got, tt.want)
		}
		if seen[got] {
			t.Errorf("Derive(%d,%q,%q) = %d collides", tt.run, tt.stage, tt.key, got)
		}
		seen[got] = true
	}
	if Derive(1, "ab", "c") == Derive(1, "a", "bc") {
		t.Error("stage/key boundary is ambiguous")
	}
}
