package decl

import "testing"

// TestRowsIn: the summary's counts are read from the statistics of
// ingest's reduce, and where-filtered rows are counted as read (ingest's
// rows_read counts only those it staged).
func TestRowsIn(t *testing.T) {
	r := RowsInOf(map[string]int64{"rows_read": 442, "filtered": 358, "problems_total": 430, "rejected_empty_solution": 7, "rejected_excluded": 5, "bytes_read": 1})
	if want := (RowsIn{Read: 800, Filtered: 358, Rejected: 12, Excluded: 5, Accepted: 430}); r != want {
		t.Errorf("RowsInOf: %+v, want %+v", r, want)
	}
	if got, want := r.String(), "800 read: 358 filtered out by where:, 12 rejected (5 of them by ingest.exclude), 430 accepted"; got != want {
		t.Errorf("RowsIn: %q, want %q", got, want)
	}
}
