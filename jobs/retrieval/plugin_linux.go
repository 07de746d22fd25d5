package retrieval

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the plugin (SIGKILL) when the
// stage that started it dies, even by kill -9: a plugin holds a model in
// memory, often a GPU's, and one outliving its shard holds it from the
// shard's rerun. Linux ties Pdeathsig to the thread that forked; Go ends a
// thread only when a goroutine locked to it exits, and startPlugin's
// goroutine is never locked, so the signal comes only when the process
// goes.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
