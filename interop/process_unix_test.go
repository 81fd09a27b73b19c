//go:build unix

package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// inOwnGroup makes cmd, once started, the leader of a new process group,
// so that it and everything it starts (a client's server, an npm tool's
// node process) can be found and signalled together.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to every process in the group pgid.
func killGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// groupMembers lists the processes of group pgid that are still running,
// as "pid (command)". Zombies, which have ended and only wait to be
// reaped, do not count. Without /proc it can only say whether the group
// has any process at all.
func groupMembers(pgid int) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		if syscall.Kill(-pgid, 0) == nil {
			return []string{fmt.Sprintf("process group %d", pgid)}
		}
		return nil
	}
	var members []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // it ended while we looked
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and
		// parentheses, so the fields start after the last ')'.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[2] != strconv.Itoa(pgid) {
			continue
		}
		members = append(members, fmt.Sprintf("%d %s", pid, s[strings.IndexByte(s, '('):i+1]))
	}
	return members
}
