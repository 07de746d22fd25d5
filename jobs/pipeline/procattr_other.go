//go:build !linux

package pipeline

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal:
// there a shard outlives a `saber run` killed by SIGKILL (though not one
// stopped by Ctrl-C or SIGTERM, which stops its shards first).
func dieWithParent(*exec.Cmd) (release func()) { return func() {} }
