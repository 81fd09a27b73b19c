// Package procgroup runs a command in a process group of its own, so that
// stopping it stops everything it started too: a test runner that forks a
// server, a browser that forks its renderers, a client that starts a stdio
// server. Killing only the command would leave those running, holding
// ports, pipes and CPU. It is the one place in the repository that knows
// about process groups: the grader, the course command, the interop tests
// and the benchmark all use it.
//
// On systems without process groups (Windows) the functions act on the
// command's own process only.
package procgroup

import "os/exec"

// Isolate puts cmd, before it starts, in a process group of its own. For a
// command made by exec.CommandContext, it also makes the cancellation of
// the context kill the whole group, not the command alone.
func Isolate(cmd *exec.Cmd) {
	isolate(cmd)
	// CommandContext sets Cancel (to kill the process); exec.Command
	// leaves it nil, and a Cmd without a context must keep it nil, or
	// Start refuses to run it.
	if cmd.Cancel != nil {
		cmd.Cancel = func() error { return Kill(cmd) }
	}
}

// Terminate asks cmd's process group to stop (SIGTERM), so that a program
// that handles the signal can clean up.
func Terminate(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return terminate(cmd)
}

// Kill kills cmd's process group at once (SIGKILL). It works after cmd has
// exited too, on what it left behind.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return kill(cmd)
}

// Running lists the processes of cmd's group that still run, as
// "PID (command)", such as what it left behind after it exited. A process
// that has ended and only waits to be reaped (a zombie) does not count.
// Without /proc it can only say whether the group has any process at all.
func Running(cmd *exec.Cmd) []string {
	if cmd.Process == nil {
		return nil
	}
	return running(cmd.Process.Pid)
}
