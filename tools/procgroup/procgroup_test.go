//go:build unix

package procgroup

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCancelKillsTheGroup starts a shell that starts a grandchild, cancels
// the command, and checks that the grandchild is gone too.
func TestCancelKillsTheGroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 60 & echo $!; wait")
	Isolate(cmd)
	cmd.WaitDelay = time.Second
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	buf := make([]byte, 32)
	n, err := out.Read(buf)
	require.NoError(t, err)
	grandchild, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	require.NoError(t, err)

	cancel()
	_ = cmd.Wait()
	require.Eventually(t, func() bool {
		// Signal 0 tests for existence; a zombie awaiting its reaper
		// still exists, so look at its state as well.
		if syscall.Kill(grandchild, 0) != nil {
			return true
		}
		stat, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(grandchild)).Output()
		return err != nil || strings.HasPrefix(strings.TrimSpace(string(stat)), "Z")
	}, 5*time.Second, 50*time.Millisecond, "the grandchild (pid %d) outlived its group's cancellation", grandchild)
}

// TestRunningListsWhatIsLeft starts a shell that leaves a grandchild
// behind when it exits: Running names it, and Kill ends it.
func TestRunningListsWhatIsLeft(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// exec.Command, not CommandContext: Isolate must leave Cancel nil, or
	// Start refuses the command.
	cmd := exec.Command("sh", "-c", "sleep 60 >/dev/null 2>&1 &")
	Isolate(cmd)
	require.NoError(t, cmd.Run())
	defer Kill(cmd)

	// The shell has exited; its child lives on, and is named sleep once it
	// has run exec (for a moment after the fork it is still a sh).
	var left []string
	require.Eventually(t, func() bool {
		left = Running(cmd)
		return len(left) == 1 && strings.Contains(left[0], "sleep")
	}, 5*time.Second, 5*time.Millisecond, "the shell's sleep should be left running, alone: %v", left)

	require.NoError(t, Kill(cmd))
	assert.Eventually(t, func() bool { return len(Running(cmd)) == 0 }, 5*time.Second, 20*time.Millisecond,
		"the group outlived Kill: %v", Running(cmd))
}
