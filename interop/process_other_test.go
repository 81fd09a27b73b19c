//go:build !unix

package interop

import "os/exec"

// Without process groups, a process is killed alone; see process_unix_test.go.

func inOwnGroup(*exec.Cmd)      {}
func killGroup(int)             {}
func groupMembers(int) []string { return nil }
