//go:build !unix

package proc

import (
	"errors"
	"os/exec"
)

func terminate(*exec.Cmd) error { return errors.New("SIGTERM is not available on this system") }

// CanTerminate reports whether Terminate sends a real SIGTERM here.
const CanTerminate = false
