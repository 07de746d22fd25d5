package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/release"
)

// TestReleaseVerifyExitCodesAndJSON, on a tiny folder of its own (no
// demo): a folder that does not exist exits 2 saying so; a failed check
// exits 2 (bad data, as saber verify), not 1; with --json stdout is the
// report alone, valid JSON, and the summary goes to stderr.
func TestReleaseVerifyExitCodesAndJSON(t *testing.T) {
	ctx := context.Background()
	verify := func(args ...string) (string, string, int) {
		t.Helper()
		var out, errb bytes.Buffer
		code := cmdRelease(ctx, append([]string{"verify"}, args...), &out, &errb)
		return out.String(), errb.String(), code
	}

	nothere := filepath.Join(t.TempDir(), "nothere")
	out, errs, code := verify(nothere)
	if code != 2 || !strings.Contains(errs, "release folder "+nothere+" does not exist") {
		t.Errorf("missing folder: exit %d, want 2 saying it does not exist:\nstdout: %s\nstderr: %s", code, out, errs)
	}

	// A folder whose only listed file does not hash as SHA256SUMS says.
	dir := filepath.Join(t.TempDir(), "rel")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("edited\n"), 0o644)
	os.WriteFile(filepath.Join(dir, release.SumsFile), []byte(strings.Repeat("0", 64)+"  a.txt\n"), 0o644)
	out, errs, code = verify(dir)
	if code != 2 || !strings.Contains(out, "FAIL  a.txt: SHA-256 is") || !strings.Contains(out, "does NOT verify") {
		t.Errorf("failed check: exit %d, want 2 naming a.txt:\nstdout: %s\nstderr: %s", code, out, errs)
	}

	for _, args := range [][]string{{"--json", dir}, {dir, "--json"}} {
		out, errs, code = verify(args...)
		var rep release.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Errorf("%v: stdout is not JSON (%v):\n%s", args, err, out)
		}
		if code != 2 || len(rep.Problems) == 0 || rep.Problems[0].File != "a.txt" || !strings.Contains(errs, "does NOT verify") {
			t.Errorf("%v: exit %d, report %+v, want 2 with a.txt's problem and the summary on stderr:\nstderr: %s", args, code, rep, errs)
		}
	}
}
