// Package proc starts the program under test as a child process that the
// grader can always stop: it runs in its own process group
// (tools/procgroup), its stderr is kept only up to a cap, and it is killed,
// group and all, when the check's context ends.
package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"time"

	"mcpcourse/tools/procgroup"
)

// Process is a running program under test.
type Process struct {
	cmd *exec.Cmd

	// Stdin and Stdout are the grader's ends of the program's stdin and
	// stdout pipes. Both are *os.File so reads and writes can have deadlines.
	Stdin  *os.File
	Stdout *os.File

	stderr *Tail
	done   chan struct{}
	err    error // from Wait; valid once done is closed
}

// waitDelay bounds how long Wait waits for the stderr copy once the process
// has gone, in case a grandchild still holds the pipe open.
const waitDelay = 2 * time.Second

// Start runs bin with args. The process is killed, with its whole process
// group, when ctx is done.
func Start(ctx context.Context, bin string, args ...string) (*Process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}

	cmd := exec.CommandContext(ctx, bin, args...)
	p := &Process{cmd: cmd, Stdin: inW, Stdout: outR, stderr: NewTail(16 << 10), done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	cmd.Env = childEnv()
	procgroup.Isolate(cmd) // ctx's end kills the whole group
	cmd.WaitDelay = waitDelay

	err = cmd.Start()
	// The child has its own copies of these ends now; keeping ours open
	// would stop the grader from ever seeing EOF on the program's stdout.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// childEnv is the grader's environment, plus two settings for a Go program
// under test, each unless already set:
//   - GORACE=halt_on_error=1: a program built with -race exits at its first
//     data race, so the race fails a check instead of scrolling past in
//     stderr;
//   - GOMAXPROCS of at least 4: on a machine with one or two CPUs, Go runs
//     goroutines on as few threads, and locking bugs that need two
//     goroutines truly at once would rarely show (MIT's 6.5840 labs force 4
//     for the same reason).
func childEnv() []string {
	env := os.Environ()
	if _, ok := os.LookupEnv("GORACE"); !ok {
		env = append(env, "GORACE=halt_on_error=1")
	}
	if _, ok := os.LookupEnv("GOMAXPROCS"); !ok {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(max(4, runtime.NumCPU())))
	}
	return env
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// WaitExit waits up to d for the process to exit and reports whether it did.
func (p *Process) WaitExit(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// ExitCode returns the exit code once the process has exited normally, or -1
// when it was killed by a signal or has not exited.
func (p *Process) ExitCode() int {
	if !p.Exited() {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// Status describes how the process ended, such as "exit status 1" or
// "signal: killed", or "still running".
func (p *Process) Status() string {
	if !p.Exited() {
		return "still running"
	}
	var ee *exec.ExitError
	if p.err != nil && !errors.As(p.err, &ee) {
		return p.err.Error()
	}
	return p.cmd.ProcessState.String()
}

// Stderr returns the last bytes the process wrote to stderr.
func (p *Process) Stderr() string { return p.stderr.String() }

// Kill kills the process group and waits for the process to be reaped.
func (p *Process) Kill() {
	if !p.Exited() {
		procgroup.Kill(p.cmd)
	}
	select {
	case <-p.done:
	case <-time.After(waitDelay + time.Second):
	}
	p.Stdin.Close()
	p.Stdout.Close()
}

// Terminate asks the process to stop (SIGTERM on Unix).
func (p *Process) Terminate() error { return terminate(p.cmd) }

// Tail keeps the last bytes written to it, up to a cap.
type Tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int
}

// NewTail returns a Tail that keeps the last max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped += over
	}
	return len(p), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped > 0 {
		return fmt.Sprintf("[%d earlier bytes not kept]\n%s", t.dropped, t.buf)
	}
	return string(t.buf)
}
