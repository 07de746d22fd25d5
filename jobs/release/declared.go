package release

import "github.com/saber-math/saber/jobs/release/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config

var Section = decl.Section
var inputs = decl.Inputs
