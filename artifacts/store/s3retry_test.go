package store

import (
	"testing"
	"time"
)

// The default policy's waits between its 10 attempts add up to 20–40 s
// (hand: half-to-full of 0.25+0.5+1+2+4+8+8+8+8 = 39.75 s): a server
// restart or a throttling burst of several seconds is outlasted on every
// draw, not just on average. (The SDK's default made 5 attempts in under
// a second.)
func TestDefaultRetryWindow(t *testing.T) {
	p := newRetryPolicy(S3Options{})
	if p.attempts != 10 || p.timeout != 30*time.Second {
		t.Fatalf("defaults: %d attempts, timeout %s", p.attempts, p.timeout)
	}
	for range 200 {
		var total time.Duration
		for n := 1; n < p.attempts; n++ {
			d := p.backoff(n)
			if d > p.maxBackoff {
				t.Fatalf("wait %d = %s, above the cap %s", n, d, p.maxBackoff)
			}
			total += d
		}
		if total < 19*time.Second || total > 40*time.Second {
			t.Fatalf("retry window %s, want 20–40 s", total)
		}
	}
	q := newRetryPolicy(S3Options{MaxAttempts: 3, TimeoutSeconds: 0.5, MaxBackoffSeconds: 1})
	if q.attempts != 3 || q.timeout != 500*time.Millisecond || q.maxBackoff != time.Second {
		t.Errorf("configured policy %+v", q)
	}
}
