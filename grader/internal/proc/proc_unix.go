//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in a process group of its own, so that
// killing the group also kills anything it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

func terminate(cmd *exec.Cmd) error { return cmd.Process.Signal(syscall.SIGTERM) }

// CanTerminate reports whether Terminate sends a real SIGTERM here.
const CanTerminate = true
