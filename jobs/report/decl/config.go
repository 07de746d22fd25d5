package decl

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/retrievers"
)

// Section is report's part of the run config, `report:`. Its definition
// lives in jobs/config (config.Report) because analyze reads it too, and no
// stage imports another; these names keep report's callers as they were.
var Section = config.ReportSection

// Config configures the final tables; see config.Report.
type Config = config.Report

// Families of the frontier, the values of Config.Families.
var Families = retrievers.Families
