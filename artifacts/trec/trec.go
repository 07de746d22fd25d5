// Package trec reads and writes the benchmark in the plain-text formats of
// TREC, so that trec_eval, ir_measures, pytrec_eval and the like can read
// SABER-Math's relevance labels and runs, and so that an external run can be
// scored against them (`saber eval-run`).
//
// Three formats, all UTF-8 text, one record a line, fields separated by
// white space (tabs in the TSV):
//
//   - qrels: `query 0 doc level`, the integer relevance level of one judged
//     document. SABER-Math's ratings are real numbers in [0, 5]; the level
//     is Level(rating), the rating rounded half up to the nearest integer
//     (0.5 → 1, 4.5 → 5; a rating within 1e-9 below a half, the fit's
//     precision, counts as the half), so levels run 0…5 and no level is
//     more than 0.5 (+1e-9) from its rating. Tools that binarise qrels
//     (MAP, recall) count level ≥ 1 as relevant by default, that is
//     rating ≥ 0.5 (− 1e-9).
//   - ratings TSV: a header line `query	doc	rating`, then the exact rating
//     of every judged document, written as the shortest decimal that reads
//     back to the same float64 (strconv 'g', −1). Our own format: it is what
//     `saber eval-run --ratings-tsv` scores against, bit for bit the labels
//     `report` uses.
//   - run: `query Q0 doc rank score tag`, one retrieved document. Scores
//     are written the same shortest exact way. trec_eval ignores the rank
//     column and sorts by score; so do we (see jobs/report).
//
// Readers are strict: a malformed line, a duplicate (query, doc) or a
// non-finite number is an error naming the file and the 1-based line
// (*ParseError). Blank lines are skipped.
//
// docs/release.md#what-the-folder-holds lists the trec/ files a release carries; README.md's
// "Running" shows `saber eval-run`.
package trec

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// MaxRating is the top of SABER-Math's rating scale [0, MaxRating].
const MaxRating = 5

// Qrel is one line of a qrels file.
type Qrel struct {
	Query, Doc string
	Level      int
	// Line is the 1-based line it was read from (0 when built in code).
	Line int
}

// Rating is one line of a ratings TSV: the exact real-valued rating.
type Rating struct {
	Query, Doc string
	Rating     float64
	// Line is the 1-based line it was read from (0 when built in code).
	Line int
}

// RunLine is one line of a run file.
type RunLine struct {
	Query, Doc string
	Rank       int
	Score      float64
	Tag        string
	// Line is the 1-based line it was read from (0 when built in code).
	Line int
}

// ParseError is a malformed line of a file: bad input, never a bug.
type ParseError struct {
	File string
	Line int // 1-based
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// HalfTolerance is how far below a half a rating may lie and still round
// up as the half. Bradley–Terry stops at max |Δθ| < 1e-10, so ratings that
// equal evidence makes equal (7 wins of 14 in a round robin: 2.5) come out
// of the fit a few ulps apart, 2.4999999999999996 beside 2.5000000000000013;
// rounding them exactly would give the same evidence levels 2 and 3.
const HalfTolerance = 1e-9

// Level is the qrels level of a rating in [0, MaxRating]: the rating
// rounded half up to an integer, floor(r) + 1 when r − floor(r) ≥ 0.5 −
// HalfTolerance. (Computed from the fractional part, which is exact,
// rather than as floor(r + 0.5), whose addition rounds.) A rating outside
// [0, MaxRating] or NaN is an error.
func Level(r float64) (int, error) {
	if !(r >= 0 && r <= MaxRating) {
		return 0, fmt.Errorf("rating %v is outside [0, %d]", r, MaxRating)
	}
	f := math.Floor(r)
	if r-f >= 0.5-HalfTolerance {
		f++
	}
	return int(f), nil
}

// RunTag is the run tag of a retriever in a setting: retriever/setting.
func RunTag(retriever, setting string) string { return retriever + "/" + setting }

// RunFile is the file name of a retriever's run in a setting:
// <retriever>.<setting>.run, with any character other than a letter,
// digit, '.', '_' or '-' replaced by '_' (a configured retriever's name
// may hold a '/').
func RunFile(retriever, setting string) string {
	return fileSafe(retriever) + "." + fileSafe(setting) + ".run"
}

func fileSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
	if strings.Trim(s, ".") == "" {
		s = strings.ReplaceAll(s, ".", "_")
	}
	return s
}

// FormatFloat writes v as the shortest decimal that parses back to v.
func FormatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// CheckID reports whether s can be a query or document id in these
// formats: not empty, no white space.
func CheckID(s string) error {
	if s == "" {
		return errors.New("empty id")
	}
	if strings.ContainsFunc(s, unicode.IsSpace) {
		return fmt.Errorf("id %q contains white space, which these formats cannot hold", s)
	}
	return nil
}

// WriteQrels writes ratings as qrels, in the order given (callers pass them
// sorted by query, then document).
func WriteQrels(w io.Writer, ratings []Rating) error {
	bw := bufio.NewWriter(w)
	for _, r := range ratings {
		if err := checkPair(r.Query, r.Doc); err != nil {
			return err
		}
		l, err := Level(r.Rating)
		if err != nil {
			return fmt.Errorf("query %s doc %s: %w", r.Query, r.Doc, err)
		}
		fmt.Fprintf(bw, "%s 0 %s %d\n", r.Query, r.Doc, l)
	}
	return bw.Flush()
}

// RatingsHeader is the first line of a ratings TSV.
const RatingsHeader = "query\tdoc\trating"

// WriteRatings writes the ratings TSV, in the order given.
func WriteRatings(w io.Writer, ratings []Rating) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(RatingsHeader + "\n")
	for _, r := range ratings {
		if err := checkPair(r.Query, r.Doc); err != nil {
			return err
		}
		if math.IsNaN(r.Rating) || math.IsInf(r.Rating, 0) {
			return fmt.Errorf("query %s doc %s: rating %v", r.Query, r.Doc, r.Rating)
		}
		fmt.Fprintf(bw, "%s\t%s\t%s\n", r.Query, r.Doc, FormatFloat(r.Rating))
	}
	return bw.Flush()
}

// WriteRun writes run lines, in the order given. A line's Tag must not be
// empty or hold white space.
func WriteRun(w io.Writer, lines []RunLine) error {
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		if err := checkPair(l.Query, l.Doc); err != nil {
			return err
		}
		if err := CheckID(l.Tag); err != nil {
			return fmt.Errorf("run tag: %w", err)
		}
		if math.IsNaN(l.Score) || math.IsInf(l.Score, 0) {
			return fmt.Errorf("query %s doc %s: score %v", l.Query, l.Doc, l.Score)
		}
		fmt.Fprintf(bw, "%s Q0 %s %d %s %s\n", l.Query, l.Doc, l.Rank, FormatFloat(l.Score), l.Tag)
	}
	return bw.Flush()
}

func checkPair(q, d string) error {
	if err := CheckID(q); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if err := CheckID(d); err != nil {
		return fmt.Errorf("query %s: document: %w", q, err)
	}
	return nil
}

// lines calls fn with the fields of every non-blank line and its number.
func lines(r io.Reader, name string, split func(string) []string, fn func(n int, f []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if err := fn(n, split(text)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &ParseError{File: name, Line: n + 1, Msg: err.Error()}
	}
	return nil
}

type pairKey struct{ q, d string }

// ReadQrels reads a qrels file; name is used in errors. Levels must be
// integers (negative ones are read; callers decide what they mean). The
// second field (TREC's iteration) is ignored, as trec_eval does.
func ReadQrels(r io.Reader, name string) ([]Qrel, error) {
	var out []Qrel
	seen := map[pairKey]int{}
	err := lines(r, name, strings.Fields, func(n int, f []string) error {
		if len(f) != 4 {
			return &ParseError{name, n, fmt.Sprintf("%d fields, want 4: query iteration doc level", len(f))}
		}
		l, err := strconv.Atoi(f[3])
		if err != nil {
			return &ParseError{name, n, fmt.Sprintf("level %q is not an integer (qrels levels are integers; real-valued ratings go in a ratings TSV)", f[3])}
		}
		k := pairKey{f[0], f[2]}
		if first, ok := seen[k]; ok {
			return &ParseError{name, n, fmt.Sprintf("query %s doc %s is judged twice (first on line %d)", f[0], f[2], first)}
		}
		seen[k] = n
		out = append(out, Qrel{Query: f[0], Doc: f[2], Level: l, Line: n})
		return nil
	})
	return out, err
}

// ReadRatings reads a ratings TSV (header first); name is used in errors.
func ReadRatings(r io.Reader, name string) ([]Rating, error) {
	var out []Rating
	seen := map[pairKey]int{}
	header := false
	split := func(s string) []string { return strings.Split(s, "\t") }
	err := lines(r, name, split, func(n int, f []string) error {
		if !header {
			if strings.Join(f, "\t") != RatingsHeader {
				return &ParseError{name, n, fmt.Sprintf("header %q, want %q (tab-separated)", strings.Join(f, "\t"), RatingsHeader)}
			}
			header = true
			return nil
		}
		if len(f) != 3 {
			return &ParseError{name, n, fmt.Sprintf("%d tab-separated fields, want 3: query, doc, rating", len(f))}
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return &ParseError{name, n, fmt.Sprintf("rating %q is not a finite number", f[2])}
		}
		for _, id := range f[:2] {
			if err := CheckID(id); err != nil {
				return &ParseError{name, n, err.Error()}
			}
		}
		k := pairKey{f[0], f[1]}
		if first, ok := seen[k]; ok {
			return &ParseError{name, n, fmt.Sprintf("query %s doc %s is rated twice (first on line %d)", f[0], f[1], first)}
		}
		seen[k] = n
		out = append(out, Rating{Query: f[0], Doc: f[1], Rating: v, Line: n})
		return nil
	})
	if err == nil && !header {
		err = &ParseError{name, 1, fmt.Sprintf("empty file: want the header %q", RatingsHeader)}
	}
	return out, err
}

// ReadRun reads a run file; name is used in errors. The second field (Q0)
// is ignored. A document listed twice for a query is an error (trec_eval
// refuses it too), as is a score that is not a finite number.
func ReadRun(r io.Reader, name string) ([]RunLine, error) {
	var out []RunLine
	seen := map[pairKey]int{}
	err := lines(r, name, strings.Fields, func(n int, f []string) error {
		if len(f) != 6 {
			return &ParseError{name, n, fmt.Sprintf("%d fields, want 6: query Q0 doc rank score tag", len(f))}
		}
		rank, err := strconv.Atoi(f[3])
		if err != nil {
			return &ParseError{name, n, fmt.Sprintf("rank %q is not an integer", f[3])}
		}
		score, err := strconv.ParseFloat(f[4], 64)
		if err != nil || math.IsNaN(score) || math.IsInf(score, 0) {
			return &ParseError{name, n, fmt.Sprintf("score %q is not a finite number", f[4])}
		}
		k := pairKey{f[0], f[2]}
		if first, ok := seen[k]; ok {
			return &ParseError{name, n, fmt.Sprintf("query %s retrieves doc %s twice (first on line %d)", f[0], f[2], first)}
		}
		seen[k] = n
		out = append(out, RunLine{Query: f[0], Doc: f[2], Rank: rank, Score: score, Tag: f[5], Line: n})
		return nil
	})
	return out, err
}

// SortRatings sorts ratings by query, then document.
func SortRatings(rs []Rating) {
	slices.SortFunc(rs, func(a, b Rating) int { return cmp.Or(cmp.Compare(a.Query, b.Query), cmp.Compare(a.Doc, b.Doc)) })
}

// RankScores returns the lines sorted by query, then rank, each score
// replaced by one derived from its rank: n − rank + 1 for a query of n
// lines. Scores are then strictly decreasing in rank order within every
// query, so every tool ranks the run alike: trec_eval re-sorts by score
// and breaks ties by document id descending, while our tie rule (SPEC §3)
// is document id ascending, and with ties the two disagree. The ranks
// themselves are the retriever's, ties already broken by that rule.
func RankScores(lines []RunLine) []RunLine {
	out := slices.Clone(lines)
	slices.SortStableFunc(out, func(a, b RunLine) int { return cmp.Or(strings.Compare(a.Query, b.Query), cmp.Compare(a.Rank, b.Rank)) })
	n := map[string]int{}
	for _, l := range out {
		n[l.Query]++
	}
	for i := range out {
		out[i].Score = float64(n[out[i].Query] - out[i].Rank + 1)
	}
	return out
}

// CheckStrict reports the first line of a run, as read, whose query's
// lines are not in rank order 1, 2, … with strictly decreasing scores.
func CheckStrict(lines []RunLine) error {
	last := map[string]RunLine{}
	for _, l := range lines {
		p, seen := last[l.Query]
		switch {
		case !seen && l.Rank != 1:
			return fmt.Errorf("line %d: query %s starts at rank %d, want 1", l.Line, l.Query, l.Rank)
		case seen && l.Rank != p.Rank+1:
			return fmt.Errorf("line %d: query %s: rank %d after rank %d (want consecutive ranks, in order)", l.Line, l.Query, l.Rank, p.Rank)
		case seen && !(l.Score < p.Score):
			return fmt.Errorf("line %d: query %s: score %s at rank %d is not below %s at rank %d: a tie, which tools break differently", l.Line, l.Query, FormatFloat(l.Score), l.Rank, FormatFloat(p.Score), p.Rank)
		}
		last[l.Query] = l
	}
	return nil
}
