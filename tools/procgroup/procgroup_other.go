//go:build !unix

package procgroup

import "os/exec"

func isolate(*exec.Cmd) {}

func terminate(cmd *exec.Cmd) error { return cmd.Process.Kill() }

func kill(cmd *exec.Cmd) error { return cmd.Process.Kill() }

// Without process groups, nothing a command started can be found.
func running(int) []string { return nil }
