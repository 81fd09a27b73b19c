// Package procgroup runs a command in a process group of its own, so that
// stopping it stops everything it started too: a test runner that forks a
// server, a browser that forks its renderers. Killing only the command
// would leave those running, holding ports, pipes and CPU.
//
// On systems without process groups (Windows) the functions act on the
// command's own process only.
package procgroup

import "os/exec"

// Isolate puts cmd, before it starts, in a process group of its own, and
// makes the cancellation of an exec.CommandContext kill the whole group.
func Isolate(cmd *exec.Cmd) {
	isolate(cmd)
	cmd.Cancel = func() error { return Kill(cmd) }
}

// Terminate asks cmd's process group to stop (SIGTERM), so that a program
// that handles the signal can clean up.
func Terminate(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return terminate(cmd)
}

// Kill kills cmd's process group at once (SIGKILL).
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return kill(cmd)
}
