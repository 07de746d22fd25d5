package trec

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestLevel(t *testing.T) {
	tests := []struct {
		r    float64
		want int
	}{
		{0, 0}, {0.49, 0}, {0.5, 1}, {1.4999, 1}, {2.5, 3}, {4.5, 5}, {4.9, 5}, {5, 5},
		// The fit's rounding error below a half counts as the half: equal
		// evidence (2.5 exactly) gets one level.
		{0.49999999999999994, 1},
		{math.Nextafter(0.5, 0), 1},
		{math.Nextafter(3.5, 0), 4},
		{2.4999999999999996, 3}, {2.5000000000000013, 3},
		{0.5 - 0.9e-9, 1}, {3.5 - 0.9e-9, 4},
		// Beyond the tolerance, below the half.
		{0.5 - 2e-9, 0}, {3.5 - 2e-9, 3}, {0.4999999, 0},
		{math.Nextafter(5, 0), 5}, {4.9999999995, 5},
	}
	for _, tt := range tests {
		got, err := Level(tt.r)
		if err != nil || got != tt.want {
			t.Errorf("Level(%v) = %d, %v; want %d", tt.r, got, err, tt.want)
		}
	}
	for _, r := range []float64{-0.1, 5.0000001, math.NaN(), math.Inf(1)} {
		if _, err := Level(r); err == nil {
			t.Errorf("Level(%v): no error", r)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	tenth := 0.1
	ratings := []Rating{
		{Query: "q1", Doc: "d1", Rating: tenth + 0.2}, // 0.30000000000000004: must survive exactly
		{Query: "q1", Doc: "d2", Rating: 5},
		{Query: "q2", Doc: "d1", Rating: 2.4999999999999996},
		{Query: "q2", Doc: "d3", Rating: 1e-300},
	}
	var buf bytes.Buffer
	if err := WriteRatings(&buf, ratings); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRatings(&buf, "r.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(ratings) {
		t.Fatalf("read %d ratings, wrote %d", len(back), len(ratings))
	}
	for i := range ratings {
		if back[i].Query != ratings[i].Query || back[i].Doc != ratings[i].Doc || back[i].Rating != ratings[i].Rating || back[i].Line != i+2 {
			t.Errorf("rating %d: wrote %+v, read %+v", i, ratings[i], back[i])
		}
	}

	buf.Reset()
	if err := WriteQrels(&buf, ratings); err != nil {
		t.Fatal(err)
	}
	if want := "q1 0 d1 0\nq1 0 d2 5\nq2 0 d1 3\nq2 0 d3 0\n"; buf.String() != want {
		t.Errorf("qrels:\n%s\nwant:\n%s", buf.String(), want)
	}
	qrels, err := ReadQrels(&buf, "q.txt")
	if err != nil || len(qrels) != 4 || qrels[1] != (Qrel{Query: "q1", Doc: "d2", Level: 5, Line: 2}) {
		t.Errorf("qrels read back: %+v, %v", qrels, err)
	}

	tenth = 0.1 // a variable: Go folds constant 0.1 + 0.7 exactly to 0.8
	run := []RunLine{
		{Query: "q1", Doc: "d2", Rank: 1, Score: tenth + 0.7, Tag: "bm25/statement-full"},
		{Query: "q1", Doc: "d1", Rank: 2, Score: -3.25e-7, Tag: "bm25/statement-full"},
	}
	buf.Reset()
	if err := WriteRun(&buf, run); err != nil {
		t.Fatal(err)
	}
	if want := "q1 Q0 d2 1 0.7999999999999999 bm25/statement-full\nq1 Q0 d1 2 -3.25e-07 bm25/statement-full\n"; buf.String() != want {
		t.Errorf("run:\n%s\nwant:\n%s", buf.String(), want)
	}
	back2, err := ReadRun(&buf, "r.run")
	if err != nil {
		t.Fatal(err)
	}
	for i := range run {
		run[i].Line = i + 1
		if back2[i] != run[i] {
			t.Errorf("run line %d: wrote %+v, read %+v", i, run[i], back2[i])
		}
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name, format, in, want string
	}{
		{"few fields", "qrels", "q1 0 d1 1\n\nq1 0 d2\n", "q:3: 3 fields, want 4"},
		{"real level", "qrels", "q1 0 d1 2.5\n", "q:1: level \"2.5\" is not an integer"},
		{"twice", "qrels", "q1 0 d1 1\nq1 0 d1 2\n", "q:2: query q1 doc d1 is judged twice (first on line 1)"},
		{"no header", "ratings", "q1\td1\t2\n", "q:1: header"},
		{"empty", "ratings", "", "q:1: empty file"},
		{"nan", "ratings", RatingsHeader + "\nq1\td1\tNaN\n", "q:2: rating \"NaN\" is not a finite number"},
		{"spaces", "ratings", RatingsHeader + "\nq1 d1 2\n", "q:2: 1 tab-separated fields"},
		{"rank", "run", "q1 Q0 d1 x 0.5 t\n", "q:1: rank \"x\" is not an integer"},
		{"score", "run", "q1 Q0 d1 1 inf t\n", "q:1: score \"inf\" is not a finite number"},
		{"dup doc", "run", "q1 Q0 d1 1 0.5 t\nq2 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", "q:3: query q1 retrieves doc d1 twice (first on line 1)"},
		{"fields", "run", "q1 Q0 d1 1 0.5\n", "q:1: 5 fields, want 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			r := strings.NewReader(tt.in)
			switch tt.format {
			case "qrels":
				_, err = ReadQrels(r, "q")
			case "ratings":
				_, err = ReadRatings(r, "q")
			case "run":
				_, err = ReadRun(r, "q")
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a ParseError containing %q", err, tt.want)
			}
		})
	}
}

func TestWriteRejects(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteQrels(&buf, []Rating{{Query: "q 1", Doc: "d", Rating: 1}}); err == nil {
		t.Error("a query id with a space was written")
	}
	if err := WriteQrels(&buf, []Rating{{Query: "q", Doc: "d", Rating: 7}}); err == nil {
		t.Error("a rating of 7 was written as a level")
	}
	if err := WriteRun(&buf, []RunLine{{Query: "q", Doc: "d", Score: math.NaN(), Tag: "t"}}); err == nil {
		t.Error("a NaN score was written")
	}
	if err := WriteRun(&buf, []RunLine{{Query: "q", Doc: "d", Score: 1}}); err == nil {
		t.Error("an empty tag was written")
	}
}
