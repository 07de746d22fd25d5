package judge

import "github.com/saber-math/saber/jobs/judge/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config
type Scheduler = decl.Scheduler

var Section = decl.Section

var Audited = decl.Audited
