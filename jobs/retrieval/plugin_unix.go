//go:build unix

package retrieval

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the plugin in a process group of its own, so that
// killing it also kills the workers it forked.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
