//go:build !linux

package retrieval

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal:
// there a plugin outlives a stage killed by SIGKILL (not one stopped by a
// signal it handles, which kills the plugin first).
func dieWithParent(*exec.Cmd) {}
