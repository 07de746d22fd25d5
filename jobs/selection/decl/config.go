package decl

import "github.com/saber-math/saber/jobs/config"

// Section is select's part of the run config, `select:`. Its definition
// lives in jobs/config (config.Select) because pairs reads it too, and no
// stage imports another; these names keep select's callers as they were.
var Section = config.SelectSection

// Config configures benchmark selection; see config.Select.
type Config = config.Select

// Threshold sources of Config.Thresholds; see config.ThresholdsCalibrated.
const (
	ThresholdsCalibrated = config.ThresholdsCalibrated
	ThresholdsFixed      = config.ThresholdsFixed
)
