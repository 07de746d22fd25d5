package downstream

import "github.com/saber-math/saber/jobs/downstream/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config

var Enabled = decl.Enabled
var BiEncoders = decl.BiEncoders
var Section = decl.Section
var Scales = decl.Scales

const ScalePool = decl.ScalePool
const ScaleCandidates = decl.ScaleCandidates
const ReportMD = decl.ReportMD
const ReportCSV = decl.ReportCSV
const ReportTeX = decl.ReportTeX

var onPool = decl.OnPool
