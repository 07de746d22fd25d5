package tag

import "github.com/saber-math/saber/jobs/tag/decl"

// The stage's config and the names its declaration defines live in decl,
// which every stage binary links; these keep this package's code and its
// users reading as before.
type Config = decl.Config

var Section = decl.Section

var (
	PromptData  = decl.PromptData
	ParseScores = decl.ParseScores
)

const BackendSynthetic = decl.BackendSynthetic
const StatImplausibleTopics = decl.StatImplausibleTopics
