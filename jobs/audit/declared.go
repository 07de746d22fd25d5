package audit

import "github.com/saber-math/saber/jobs/audit/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config
type Lexical = decl.Lexical

var Section = decl.Section

const Report = decl.Report
