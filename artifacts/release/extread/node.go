// Package extread holds readers that are not saber's, for tests that check
// a release the way its users will read it: DuckDB reads the Parquet files,
// jsonld.js expands croissant.json, and a reader written after BEIR's
// GenericDataLoader reads the BEIR folder. Only tests import it.
//
// DuckDB and jsonld run under node from the npm packages that
// .ci/node-tools.sh installs (pinned by .ci/node/package-lock.json) and that
// SABER_NODE_MODULES points at:
//
//	. "$(bash .ci/node-tools.sh | tail -n 1)"
//	go test ./artifacts/release/...
//
// Without node or those modules, the tests that need them skip, except under
// CI=true, where they fail: CI installs both, so a missing one is a broken CI.
package extread

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// EnvModules names the variable holding the node_modules folder with
// @duckdb/node-api and jsonld (the env file of .ci/node-tools.sh sets it).
const EnvModules = "SABER_NODE_MODULES"

// Timeout bounds one node run (a query or an expansion).
var Timeout = 5 * time.Minute

// installHint says how to get the tools, in every skip and failure.
const installHint = `install them with: . "$(bash .ci/node-tools.sh | tail -n 1)"`

// nodeEnv is where node and the npm packages are.
type nodeEnv struct {
	node, modules, dir string
}

// needNode returns node and SABER_NODE_MODULES holding pkg, with script
// written into a fresh temporary folder. When either is missing it skips t,
// or fails it under CI=true; ok is false then (a t that does not stop the
// goroutine on Skip or Fatal returns).
func needNode(t testing.TB, pkg, script string, src []byte) (env nodeEnv, ok bool) {
	t.Helper()
	why := ""
	node, err := exec.LookPath("node")
	modules := os.Getenv(EnvModules)
	switch {
	case err != nil:
		why = "node is not on PATH"
	case modules == "":
		why = EnvModules + " is not set"
	default:
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			why = fmt.Sprintf("%s=%s holds no %s", EnvModules, modules, pkg)
		}
	}
	if why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s: the independent readers must run in CI; %s", why, installHint)
		} else {
			t.Skipf("%s: %s", why, installHint)
		}
		return nodeEnv{}, false
	}
	env = nodeEnv{node: node, modules: modules, dir: t.TempDir()}
	if err := os.WriteFile(filepath.Join(env.dir, script), src, 0o644); err != nil {
		t.Fatal(err)
		return nodeEnv{}, false
	}
	return env, true
}

// run runs `node script args...` with stdin and NODE_PATH set to the
// modules, and returns its stdout; a failure carries node's stderr.
func (e nodeEnv) run(script string, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.node, append([]string{filepath.Join(e.dir, script)}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+e.modules)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("node %s: no answer after %v", script, Timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	return stdout.Bytes(), nil
}
