package interop

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"mcpcourse/tools/procgroup"
)

// leftoverGrace is how long the processes a command started may take to end
// after it exits: a stdio server sees end of input only once its client has
// gone.
const leftoverGrace = 3 * time.Second

// runBounded runs cmd to its end, in a process group of its own, within
// timeout. On timeout it kills the whole group. Either way, once the command
// has exited, a process it started that is still running after
// leftoverGrace is a leak: the test fails, naming it, and it is killed.
func runBounded(t *testing.T, cmd *exec.Cmd, timeout time.Duration) error {
	t.Helper()
	procgroup.Isolate(cmd)
	// A grandchild that keeps the output pipes open must not hold Wait.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		procgroup.Kill(cmd)
		<-done
		err = fmt.Errorf("%s did not finish within %v, so its process group was killed", commandName(cmd), timeout)
	}
	checkNoLeftovers(t, commandName(cmd), cmd)
	return err
}

// checkNoLeftovers fails the test if processes of cmd's group are still
// running after leftoverGrace, and kills them.
func checkNoLeftovers(t *testing.T, name string, cmd *exec.Cmd) {
	t.Helper()
	deadline := time.Now().Add(leftoverGrace)
	for {
		members := procgroup.Running(cmd)
		if len(members) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s left processes running %v after it exited: %s", name, leftoverGrace, strings.Join(members, ", "))
			procgroup.Kill(cmd)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// commandName is a short name for cmd in messages.
func commandName(cmd *exec.Cmd) string {
	name := cmd.Path
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	for _, a := range cmd.Args[1:] {
		if strings.HasSuffix(a, ".js") || strings.HasSuffix(a, ".mjs") {
			return name + " " + a[strings.LastIndexAny(a, `/\`)+1:]
		}
	}
	return name
}
