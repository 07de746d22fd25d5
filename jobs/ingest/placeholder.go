package ingest

import (
	"regexp"
	"strings"
)

// Real corpora fill a field they have no text for with a marker rather
// than leaving it empty: a theorem QA set's explanations are mostly the
// string "NONE", and others hold the path of an image or a URL. Taken as
// text, each would become a problem whose solution says nothing, and the
// source would pass every share check. Both are rejected with their own
// reasons (placeholder, path_only), which count towards max_reject_share.

// isPlaceholder reports whether s, trimmed, is one of placeholders in any
// letter case ("None", "none" and "NONE" are the same marker).
func isPlaceholder(s string, placeholders []string) bool {
	s = strings.TrimSpace(s)
	for _, p := range placeholders {
		if strings.EqualFold(s, strings.TrimSpace(p)) {
			return true
		}
	}
	return false
}

var (
	// urlOnly is a URL with a scheme: https://…, file:///…, s3://….
	urlOnly = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://\S+$`)
	// pathOnly is a path of at least two segments ending in a file name
	// with an extension that starts with a letter: images/17.png,
	// ./sol/a.txt, C:\data\x.json. "1/2", "a/b" and "3.5" are not paths:
	// answers look like that.
	pathOnly = regexp.MustCompile(`^(?:[A-Za-z]:)?[\\/]?(?:[\w.~-]+[\\/])+[\w.~-]*\.[A-Za-z][A-Za-z0-9]{0,4}$`)
	// fileOnly is a bare file name with an extension files are stored
	// under, never an answer: figure_3.png.
	fileOnly = regexp.MustCompile(`(?i)^[\w.~-]+\.(?:png|jpe?g|gif|svg|bmp|webp|tiff?|pdf|txt|md|tex|json|jsonl|csv|html?|xml|py|ipynb|docx?)$`)
)

// isPathOnly reports whether s, trimmed, is nothing but a file path or a
// URL: one token without maths.
func isPathOnly(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 2048 || strings.ContainsAny(s, " \t\n\r$") {
		return false
	}
	return urlOnly.MatchString(s) || pathOnly.MatchString(s) || fileOnly.MatchString(s)
}

// realID reports whether s, an input row's id, names the row: not blank
// and not a placeholder (ingest.placeholders: "N/A", "null", "-"), which
// corpora write where a row has no id. Such a row gets the content-hash
// id, as a row without one does, instead of sharing "N/A" with every
// other and being rejected as its duplicate.
func realID(s string, placeholders []string) bool {
	return strings.TrimSpace(s) != "" && !isPlaceholder(s, placeholders)
}
