package swiss

import "testing"

// TestMatches: an even field plays about n/2 matches a round (a few sit
// out late, when no unmet opponent is near), an odd one leaves one out;
// once everyone has met everyone, more rounds add nothing.
func TestMatches(t *testing.T) {
	if got, _ := Matches(150, 20, 7); got > 75*20 || got < 75*20*99/100 {
		t.Errorf("Matches(150, 20) = %d, want within 1%% under %d", got, 75*20)
	}
	for _, tt := range []struct{ n, rounds, want int }{
		{15, 20, 105}, // 15 candidates meet at most 15·14/2 = 105 times
		{9, 4, 16},
		{1, 5, 0},
	} {
		got, err := Matches(tt.n, tt.rounds, 7)
		if err != nil || got != tt.want {
			t.Errorf("Matches(%d, %d) = %d, %v; want %d", tt.n, tt.rounds, got, err, tt.want)
		}
	}
}
