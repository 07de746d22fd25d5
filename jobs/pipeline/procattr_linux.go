package pipeline

import (
	"os/exec"
	"runtime"
	"syscall"
)

// dieWithParent makes the kernel send SIGKILL to the shard process when
// the process that started it dies, even by kill -9, so that no shard
// outlives `saber run` to write beside the next run. (Pdeathsig; the shard
// leaves no manifest, only temporaries its next run removes.)
//
// Linux ties Pdeathsig to the thread that forked, not to the process, and
// Go ends a thread when a goroutine locked to it exits; so the calling
// goroutine keeps its thread, from before Start until the returned release
// is called after Wait, and no other goroutine can lock and end it.
func dieWithParent(cmd *exec.Cmd) (release func()) {
	runtime.LockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	return runtime.UnlockOSThread
}
