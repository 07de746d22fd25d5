package report

import "github.com/saber-math/saber/jobs/report/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config

var Section = decl.Section
var Families = decl.Families
var TableExts = decl.TableExts
var LatencySample = decl.LatencySample
var LatencyKey = decl.LatencyKey

const Table9 = decl.Table9
const ReportFrontier = decl.ReportFrontier
const ReportHTML = decl.ReportHTML
const ReportLatencyQueries = decl.ReportLatencyQueries
const ReportIndex = decl.ReportIndex
const Table1 = decl.Table1
const Table7 = decl.Table7
const Table8 = decl.Table8
const TableSensitivity = decl.TableSensitivity
const ReportPerQuery = decl.ReportPerQuery
const ReportChart = decl.ReportChart
const ReportLeaderboard = decl.ReportLeaderboard

const ReportJudgeAudit = decl.ReportJudgeAudit
