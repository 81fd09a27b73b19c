// Package stoptest proves that a server command stops cleanly on SIGTERM
// sent the moment it says it is ready. A supervisor, a test or the grader
// may send the signal as soon as it reads that line, so a command that
// installs its signal handler only after saying it listens is now and then
// killed by the default action ("signal: terminated") instead of stopping.
// One run rarely shows it; Prove runs the command many times.
package stoptest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mcpcourse/tools/procgroup"
)

// Command is a server command to prove.
type Command struct {
	Name  string   // for messages
	Argv  []string // a built binary and its arguments
	Ready string   // text of the line, on stdout or stderr, that says it is ready
	Exit  int      // the exit status it documents after SIGTERM
	Runs  int      // how many runs; 0 means DefaultRuns
}

const (
	// DefaultRuns is how many times Prove starts a command.
	DefaultRuns = 200
	// parallel is how many runs go at once: the runs mostly wait on
	// process starts and exits, not on the CPU.
	parallel = 8
	// readyTimeout bounds the wait for the ready line, and stopTimeout the
	// wait for the exit after SIGTERM. The servers give running requests a
	// few seconds, and a run has none.
	readyTimeout = 10 * time.Second
	stopTimeout  = 5 * time.Second
)

// Prove starts c c.Runs times, a few at once, sends each SIGTERM the moment
// its ready line appears, and fails t unless every run exits with status
// c.Exit within stopTimeout.
func Prove(t *testing.T, c Command) {
	t.Helper()
	if !canTerminate {
		t.Skip("SIGTERM is not available on this system")
	}
	runs := c.Runs
	if runs <= 0 {
		runs = DefaultRuns
	}
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
		next     = make(chan int)
	)
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := runOnce(c); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("run %d: %v", i+1, err))
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < runs; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%s: %d of %d runs did not stop cleanly on SIGTERM sent right after %q; the first:\n%s",
			c.Name, len(failures), runs, c.Ready, failures[0])
	}
}

// runOnce starts c, waits for its ready line, sends SIGTERM, and waits for
// its exit.
func runOnce(c Command) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	// Stdin stays open until the end: a stdio server stops at the end of
	// its input, which would hide what SIGTERM does.
	stdin, keep, err := os.Pipe()
	if err != nil {
		w.Close()
		return err
	}
	defer keep.Close()

	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, w, w
	procgroup.Isolate(cmd)
	err = cmd.Start()
	w.Close() // the child has its own copies now
	stdin.Close()
	if err != nil {
		return err
	}
	defer procgroup.Kill(cmd) // whatever happens, nothing is left running

	r.SetReadDeadline(time.Now().Add(readyTimeout + stopTimeout))
	var output bytes.Buffer
	ready := make(chan struct{})
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(r)
		announced := false
		for sc.Scan() {
			if output.Len() < 16<<10 {
				output.Write(sc.Bytes())
				output.WriteByte('\n')
			}
			if !announced && strings.Contains(sc.Text(), c.Ready) {
				announced = true
				close(ready)
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	select {
	case <-ready:
	case err := <-exited:
		<-readDone
		return fmt.Errorf("exited before it said %q (%v):\n%s", c.Ready, err, output.String())
	case <-time.After(readyTimeout):
		procgroup.Kill(cmd)
		<-exited
		<-readDone
		return fmt.Errorf("did not say %q within %v:\n%s", c.Ready, readyTimeout, output.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("sending SIGTERM: %v", err)
	}
	select {
	case err := <-exited:
		<-readDone
		var exit *exec.ExitError
		switch {
		case err == nil && c.Exit == 0:
			return nil
		case errors.As(err, &exit) && exit.ExitCode() == c.Exit:
			return nil
		}
		return fmt.Errorf("ended with %v after SIGTERM, want exit status %d:\n%s", cmd.ProcessState, c.Exit, output.String())
	case <-time.After(stopTimeout):
		procgroup.Kill(cmd)
		<-exited
		<-readDone
		return fmt.Errorf("still running %v after SIGTERM:\n%s", stopTimeout, output.String())
	}
}
