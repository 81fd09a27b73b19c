//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// terminate signals the program alone, as a supervisor stopping a server
// would: the checks judge what the program does on SIGTERM.
func terminate(cmd *exec.Cmd) error { return cmd.Process.Signal(syscall.SIGTERM) }

// CanTerminate reports whether Terminate sends a real SIGTERM here.
const CanTerminate = true
