package pairs

import "github.com/saber-math/saber/jobs/pairs/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config

var Section = decl.Section
var Edges = decl.Edges

var has = decl.Has
