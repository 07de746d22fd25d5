// Package dataset defines every Parquet dataset saber writes — one Go struct
// per dataset, all in this file — and reads and writes them byte-for-byte
// reproducibly.
package dataset

import (
	"cmp"
	"strings"
)

// Problem is a row of `problems`, written by ingest. Key: ID.
type Problem struct {
	ID string `parquet:"id"`
	// Source is official, numina, aops or other (it sets dedup priority).
	Source    string `parquet:"source"`
	Statement string `parquet:"statement"`
	Solution  string `parquet:"solution"`
	Subject   string `parquet:"subject"`
	License   string `parquet:"license"`
	// Origin names the input the row came from (dataset, competition).
	Origin string `parquet:"origin"`
}

// Reject is a row of `rejects`, written by ingest: an input row that could
// not be used, and why. Key: (File, Line).
type Reject struct {
	// Input is the name of the configured source.
	Input string `parquet:"input"`
	File  string `parquet:"file"`
	// Line is the 1-based line of a JSONL file or the 1-based row of a Parquet file.
	Line int64 `parquet:"line"`
	// ID is the row's id when one could be read.
	ID string `parquet:"id"`
	// Field names the offending field, if one.
	Field string `parquet:"field"`
	// Reason is one of the Reason* constants.
	Reason string `parquet:"reason"`
	Detail string `parquet:"detail"`
}

// Reasons a row is rejected.
const (
	ReasonMalformed    = "malformed_json"
	ReasonMissingField = "missing_field"
	ReasonWrongType    = "wrong_type"
	ReasonEmpty        = "empty_field"
	ReasonInvalidUTF8  = "invalid_utf8"
	ReasonOversize     = "oversize"
	ReasonDuplicateID  = "duplicate_id"
	ReasonBadSource    = "bad_source"
)

// Document is a row of `corpus`, written by dedup's reduce: the problems
// that survive deduplication. Key: ID.
type Document struct {
	ID        string `parquet:"id"`
	Source    string `parquet:"source"`
	Statement string `parquet:"statement"`
	Solution  string `parquet:"solution"`
	Subject   string `parquet:"subject"`
	License   string `parquet:"license"`
	Origin    string `parquet:"origin"`
	// Duplicates is how many problems were dropped in favour of this one.
	Duplicates int32 `parquet:"duplicates"`
}

// Duplicate is a row of `duplicates`: one dropped problem. Key: (Cluster, Dropped).
type Duplicate struct {
	// Cluster is the id of the kept member, which names the cluster.
	Cluster       string `parquet:"cluster"`
	Kept          string `parquet:"kept"`
	Dropped       string `parquet:"dropped"`
	DroppedSource string `parquet:"dropped_source"`
	// Similarity is the MinHash-estimated Jaccard between Dropped and Kept.
	Similarity float64 `parquet:"similarity"`
}

// Signature is a row of `signatures`, dedup's intermediate dataset: the
// MinHash signature of one problem's normalised statement. Key: ID.
type Signature struct {
	ID     string `parquet:"id"`
	Source string `parquet:"source"`
	// Shingles is the number of distinct word n-grams; 0 means the statement
	// normalised to nothing and the problem cannot be deduplicated.
	Shingles int32    `parquet:"shingles"`
	MinHash  []uint64 `parquet:"minhash"`
}

// The datasets, by name, with the order their rows are sorted in.
var (
	Problems   = Dataset[Problem]{Name: "problems", Compare: func(a, b *Problem) int { return strings.Compare(a.ID, b.ID) }}
	Rejects    = Dataset[Reject]{Name: "rejects", Compare: compareReject}
	Corpus     = Dataset[Document]{Name: "corpus", Compare: func(a, b *Document) int { return strings.Compare(a.ID, b.ID) }}
	Duplicates = Dataset[Duplicate]{Name: "duplicates", Compare: compareDuplicate}
	Signatures = Dataset[Signature]{Name: "signatures", Compare: func(a, b *Signature) int { return strings.Compare(a.ID, b.ID) }}
)

func compareReject(a, b *Reject) int {
	return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
		strings.Compare(a.Reason, b.Reason), strings.Compare(a.Field, b.Field))
}

func compareDuplicate(a, b *Duplicate) int {
	return cmp.Or(strings.Compare(a.Cluster, b.Cluster), strings.Compare(a.Dropped, b.Dropped))
}
