package plan

import "testing"

func TestGroupDigits(t *testing.T) {
	for _, tc := range []struct{ in, sep, want string }{
		{"0", ",", "0"}, {"999", ",", "999"}, {"1000", ",", "1,000"}, {"1234567", ",", "1,234,567"},
		{"-1234", ",", "-1,234"}, {"-123", ",", "-123"}, {"123456", "\u2009", "123\u2009456"},
	} {
		if got := GroupDigits(tc.in, tc.sep); got != tc.want {
			t.Errorf("GroupDigits(%q, %q) = %q, want %q", tc.in, tc.sep, got, tc.want)
		}
	}
}
