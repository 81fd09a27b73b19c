//go:build !unix

package proc

import (
	"errors"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

func terminate(*exec.Cmd) error { return errors.New("SIGTERM is not available on this system") }

// CanTerminate reports whether Terminate sends a real SIGTERM here.
const CanTerminate = false
