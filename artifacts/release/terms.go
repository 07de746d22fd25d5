package release

import (
	"regexp"
	"slices"
	"strings"
)

// The terms of a release (SPEC §3, release terms; paper App. A.8): every
// row that holds text, or text derived from it, carries its source,
// licence and training flag, and the card's and Croissant's licence
// statements are computed from those rows, never written as a sentence.

// Extractive is the summary backend whose core ideas are spans of the
// document's own solution: they keep the document's terms.
const Extractive = "extractive"

// deriveTerms fills the topics' and summaries' source, licence and
// training flag from their documents: topic labels are our material; a
// summary is the document's own words when extractive, our paraphrase
// otherwise; the training flag is always the document's. Build does it
// itself, so no caller can state other terms, and Verify, rebuilding the
// release from its tables, catches an edited row.
func (c *Contents) deriveTerms() {
	docs := make(map[string]Doc, len(c.Corpus)+len(c.Queries))
	for _, d := range c.texts() {
		docs[d.ID] = d
	}
	for i := range c.Topics {
		d := docs[c.Topics[i].ID]
		c.Topics[i].Source, c.Topics[i].License, c.Topics[i].NoTraining = d.Source, c.Meta.License, d.NoTraining
	}
	for i := range c.Summaries {
		s := &c.Summaries[i]
		d := docs[s.ID]
		s.Source, s.NoTraining = d.Source, d.NoTraining
		s.License = c.Meta.License
		if s.Backend == Extractive {
			s.License = d.License
		}
	}
}

// Licences are every licence a release's rows carry: ours first, then the
// texts' and the extractive summaries' (which are the texts'), sorted.
func (c *Contents) Licences() []string {
	seen := map[string]bool{c.Meta.License: true}
	var out []string
	for _, d := range c.texts() {
		if !seen[d.License] {
			seen[d.License] = true
			out = append(out, d.License)
		}
	}
	slices.Sort(out)
	return append([]string{c.Meta.License}, out...)
}

var spdxID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.+-]*$`)

// LicenceURL is a licence as Croissant's license property takes it: the
// SPDX page of an SPDX id, the text itself for terms that have no id
// ("AoPS terms of use"). An id is taken as SPDX when it has an SPDX
// id's shape — no space, and a version, a dash or all capitals (MIT,
// CC-BY-4.0, Apache-2.0): the release never downloads SPDX's list.
func LicenceURL(l string) string {
	if strings.Contains(l, "://") {
		return l
	}
	if spdxID.MatchString(l) && (strings.ContainsAny(l, "-.0123456789") || l == strings.ToUpper(l)) {
		return "https://spdx.org/licenses/" + l + ".html"
	}
	return l
}

// hubLicence is the card's license field: the Hub's lower-case id when
// every row of the release is under one SPDX licence, else "other" with
// LICENSES.md as the link (license_name, license_link).
func (c *Contents) hubLicence() (license, name, link string) {
	ls := c.Licences()
	if len(ls) == 1 && spdxID.MatchString(ls[0]) {
		return strings.ToLower(ls[0]), "", ""
	}
	return "other", "saber-math-mixed", LicensesFile
}
