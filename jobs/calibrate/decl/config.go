package decl

import "github.com/saber-math/saber/jobs/config"

// Section is calibrate's part of the run config, `calibrate:`. Its
// definition lives in jobs/config (config.Calibrate) because pairs reads it
// too, and no stage imports another; these names keep calibrate's callers
// as they were.
var Section = config.CalibrateSection

// Config configures threshold calibration; see config.Calibrate.
type Config = config.Calibrate

// Grid is one axis of the threshold grid; see config.Grid.
type Grid = config.Grid

// MaxGridPoints bounds each grid axis; see config.MaxGridPoints.
const MaxGridPoints = config.MaxGridPoints
