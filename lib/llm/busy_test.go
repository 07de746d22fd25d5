package llm

import (
	"testing"
	"time"
)

func TestBusyClockIsTheUnionOfRequests(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type ev struct {
		ms    int
		start bool
	}
	for _, tc := range []struct {
		name   string
		events []ev
		now    int
		want   time.Duration
	}{
		{"none", nil, 50, 0},
		{"one request", []ev{{0, true}, {30, false}}, 50, 30 * time.Millisecond},
		{"overlapping count once", []ev{{0, true}, {10, true}, {20, true}, {30, false}, {35, false}, {40, false}}, 50, 40 * time.Millisecond},
		{"idle gap between rounds is not busy", []ev{{0, true}, {10, false}, {50, true}, {70, false}}, 100, 30 * time.Millisecond},
		{"nested", []ev{{0, true}, {5, true}, {6, false}, {20, false}}, 20, 20 * time.Millisecond},
		{"in flight at now counts to now", []ev{{0, true}, {10, false}, {40, true}}, 45, 15 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b busyClock
			for _, e := range tc.events {
				if e.start {
					b.start(at(e.ms))
				} else {
					b.end(at(e.ms))
				}
			}
			if got := b.busy(at(tc.now)); got != tc.want {
				t.Errorf("busy = %v, want %v", got, tc.want)
			}
		})
	}
}
