package calibrate

import "github.com/saber-math/saber/jobs/calibrate/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config
type Grid = decl.Grid

var Section = decl.Section

const ReportMarkdown = decl.ReportMarkdown
const ReportCSV = decl.ReportCSV
