package ingest

import "github.com/saber-math/saber/jobs/ingest/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config
type Source = decl.Source
type Cond = decl.Cond
type Fields = decl.Fields

var Section = decl.Section

const (
	ListJoin    = decl.ListJoin
	ListExplode = decl.ListExplode
	DefaultJoin = decl.DefaultJoin
)

var FieldOf = decl.FieldOf
