package analyze

import "github.com/saber-math/saber/jobs/analyze/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config

var Section = decl.Section

const BackendLLM = decl.BackendLLM

const ReportIndex = decl.ReportIndex
const ReportMathText = decl.ReportMathText
const ReportMathRatio = decl.ReportMathRatio
const ReportTable10 = decl.ReportTable10
const ReportSignalGroups = decl.ReportSignalGroups
const ReportDistribution = decl.ReportDistribution
const ReportExample = decl.ReportExample
const ReportOverTime = decl.ReportOverTime
