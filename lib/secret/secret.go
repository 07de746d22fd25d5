// Package secret tells values that look like credentials from ordinary
// configuration values, so that a key pasted into a config — which is
// hashed into manifests, rendered into sbatch scripts and published in a
// release — is refused by name, never echoed.
package secret

import (
	"math"
	"regexp"
	"strings"
)

// secretShapes are the known shapes of credentials, matched anywhere in a
// value: a key pasted under an innocent name (GITHUB_PAT, MY_VAR) is as
// much a leak as one under OPENAI_API_KEY, and the name check alone let it
// through into every sbatch script. Each is named in the error; the value
// never is.
var secretShapes = []struct {
	what string
	re   *regexp.Regexp
}{
	{"an OpenAI-style API key (sk-…)", regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)},
	{"a GitHub token (ghp_…, gho_…, ghs_…)", regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`)},
	{"a GitHub fine-grained token (github_pat_…)", regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`)},
	{"a Slack token (xox?-…)", regexp.MustCompile(`\bxox[a-z]-[A-Za-z0-9-]{10,}`)},
	{"an AWS access key id (AKIA…)", regexp.MustCompile(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`)},
	{"a Hugging Face token (hf_…)", regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`)},
	{"a JSON Web Token (eyJ….….…)", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)},
	{"a private key (-----BEGIN … PRIVATE KEY-----)", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
}

// secretRun is a stretch of a value that could be an encoded random key:
// base64 (with + and /) and its digits and letters. Separators that join
// words in names and paths (- _ . : , = @ and spaces) end a run, so that
// "meta-llama/Llama-3.1-8B-Instruct" is several short runs, not one long
// one.
var secretRun = regexp.MustCompile(`[A-Za-z0-9+/]{24,}`)

// Looks says what a value looks like when it looks like a
// credential: a known token shape, or a long random-looking string. It
// returns "" for an ordinary value (a path, a model name, a number).
func Looks(v string) string {
	for _, s := range secretShapes {
		if s.re.MatchString(v) {
			return s.what
		}
	}
	// In a path (or a PATH-like list) a / separates names, not the
	// characters of a base64 key: "…/Llama-3.1-8B/snapshots/0e9e39f2…"
	// is not one random run.
	if FilePath(v) || strings.Contains(v, ":/") {
		v = strings.ReplaceAll(v, "/", " ")
	}
	for _, run := range secretRun.FindAllString(v, -1) {
		if randomLooking(run) {
			return "a long random-looking string (an encoded key or token)"
		}
	}
	return ""
}

// randomLooking says whether s reads as random rather than as words: it
// mixes upper case, lower case and digits, changes between them (and / +)
// at a rate words and paths do not reach, and its characters are
// spread (Shannon entropy). Lower-case hex (commits, digests, a Hugging
// Face snapshot in a path) has no upper case and is not flagged: it is
// more often an identifier than a key, and the known shapes above catch
// the common keys by their prefix.
func randomLooking(s string) bool {
	class := func(r rune) int {
		switch {
		case r >= 'a' && r <= 'z':
			return 0
		case r >= 'A' && r <= 'Z':
			return 1
		case r >= '0' && r <= '9':
			return 2
		}
		return 3
	}
	var seen [4]bool
	counts := map[rune]int{}
	changes, prev := 0, -1
	for _, r := range s {
		c := class(r)
		seen[c] = true
		if prev >= 0 && c != prev {
			changes++
		}
		prev = c
		counts[r]++
	}
	if !seen[0] || !seen[1] || !seen[2] {
		return false
	}
	n := float64(len(s))
	entropy := 0.0
	for _, k := range counts {
		p := float64(k) / n
		entropy -= p * math.Log2(p)
	}
	return float64(changes)/(n-1) >= 0.4 && entropy >= 4
}

// FilePath says whether v names a file: what a _FILE variable
// (OPENAI_KEY_FILE, AWS_SHARED_CREDENTIALS_FILE) must hold — the secret
// stays in the file, readable by its owner on the nodes.
func FilePath(v string) bool {
	if v == "" || strings.ContainsAny(v, " \t\n\r") {
		return false
	}
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") ||
		strings.HasPrefix(v, "../") || strings.HasPrefix(v, "$")
}
