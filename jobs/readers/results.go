package readers

import (
	"errors"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/ndcg"
)

// ResultsScores picks each retriever's overall nDCG with exponential gain
// from `results` rows, in the report's main setting: statement-full if
// present, else the first present in config.Settings order. It returns the
// setting too.
func ResultsScores(rows []dataset.Result) (map[string]float64, string, error) {
	exp := ndcg.Exponential.String()
	present := map[string]bool{}
	for _, r := range rows {
		if r.Gain == exp && r.Scope == dataset.ScopeOverall {
			present[r.Setting] = true
		}
	}
	setting := ""
	for _, s := range config.Settings {
		if present[s] {
			setting = s
			break
		}
	}
	if setting == "" {
		return nil, "", errors.New("no overall, exponential-gain rows in a known setting")
	}
	out := map[string]float64{}
	for _, r := range rows {
		if r.Gain == exp && r.Scope == dataset.ScopeOverall && r.Setting == setting {
			out[r.Retriever] = r.NDCG
		}
	}
	return out, setting, nil
}
