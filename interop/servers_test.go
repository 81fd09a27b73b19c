package interop

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/tools/procgroup"
)

const (
	// listenTimeout bounds the wait for a server to say where it listens.
	listenTimeout = 10 * time.Second

	// stopTimeout bounds the wait for a server to exit after SIGTERM. The
	// servers give running requests up to 3 s, so 5 s is enough for a
	// clean stop.
	stopTimeout = 5 * time.Second
)

// startStage runs the HTTP server of stage s (from the target folder) on a
// free loopback port, and returns its endpoint URL.
func startStage(t *testing.T, s stage, stateless bool) string {
	t.Helper()
	return startHTTPServer(t, buildServer(t, s.pkg()), stateless)
}

// startHTTPServer runs an HTTP server binary of the course on a free
// loopback port and returns its endpoint URL. Every such server takes
// -addr and -stateless and says "listening on URL (mode)" on stderr. It is
// stopped with SIGTERM when the test ends, and must exit cleanly.
func startHTTPServer(t *testing.T, bin string, stateless bool, extraArgs ...string) string {
	t.Helper()
	// Port 0 lets the kernel pick a free port, so tests never collide with
	// each other or with anything else on the machine. The server prints
	// the port it got.
	args := append([]string{"-addr", "127.0.0.1:0"}, extraArgs...)
	mode := "stateful"
	if stateless {
		args = append(args, "-stateless")
		mode = "stateless"
	}
	cmd := exec.Command(bin, args...)
	procgroup.Isolate(cmd)
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	stderr := &syncBuffer{}
	logOnFailure(t, mode+" HTTP server", stderr)
	require.NoError(t, cmd.Start())

	// Read stderr line by line until the server says where it listens,
	// then keep copying the rest, so that failure logs show all of it and
	// the server never blocks on a full pipe.
	found := make(chan string, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		r := bufio.NewReader(pipe)
		for {
			line, err := r.ReadString('\n')
			stderr.Write([]byte(line))
			if strings.Contains(line, "listening on ") {
				found <- line
				io.Copy(stderr, r)
				return
			}
			if err != nil {
				return
			}
		}
	}()

	// Wait may only be called once every read from the pipe is done (see
	// exec.Cmd.StderrPipe), and the pipe ends when the process exits.
	// Closing exited, rather than sending on it, lets any number of
	// waiters see the exit; waitErr is safe to read once it is closed.
	proc := &serverProcess{cmd: cmd, stderr: stderr, exited: make(chan struct{})}
	go func() {
		<-readDone
		proc.waitErr = cmd.Wait()
		close(proc.exited)
	}()

	t.Cleanup(func() { proc.stop(t) })

	var line string
	select {
	case line = <-found:
	case <-proc.exited:
		t.Fatalf("the server exited before it listened: %v", proc.waitErr)
	case <-time.After(listenTimeout):
		t.Fatalf("the server did not say it was listening within %v", listenTimeout)
	}

	// "notes-server: listening on http://127.0.0.1:PORT/mcp (stateful)", and
	// later stages say more in the parentheses, after a comma or a
	// semicolon: "(stateful, resumable streams; WebSocket at /ws)",
	// "(stateless; WebSocket at /ws)".
	_, rest, _ := strings.Cut(strings.TrimSpace(line), "listening on ")
	endpoint, about, _ := strings.Cut(rest, " ")
	require.True(t, strings.HasPrefix(endpoint, "http://127.0.0.1:") && strings.HasSuffix(endpoint, "/mcp"),
		"unexpected listening line: %q", line)
	gotMode, _, _ := strings.Cut(strings.Trim(about, "()"), ",")
	gotMode, _, _ = strings.Cut(gotMode, ";")
	require.Equal(t, mode, gotMode, "the server reports the wrong mode: %q", line)
	return endpoint
}

// serverProcess is a running server and what its exit will tell.
type serverProcess struct {
	cmd     *exec.Cmd
	stderr  *syncBuffer
	exited  chan struct{} // closed once the process has been waited for
	waitErr error         // the result of cmd.Wait, once exited is closed
}

// stop sends SIGTERM, on which the server shuts down gracefully, and checks
// that it exits cleanly within stopTimeout. A server that does not is
// killed, so that no test leaves a process behind.
func (p *serverProcess) stop(t *testing.T) {
	select {
	case <-p.exited:
		t.Errorf("the server exited before the test ended: %v", p.waitErr)
		return
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("sending SIGTERM to the server: %v", err)
	}
	select {
	case <-p.exited:
		assert.NoError(t, p.waitErr, "the server should exit with status 0 after SIGTERM")
		// exited is closed only after all of stderr has been read.
		assert.Contains(t, p.stderr.String(), ": stopped", "the server should log its clean stop")
	case <-time.After(stopTimeout):
		t.Errorf("the server did not exit within %v of SIGTERM; killing it", stopTimeout)
		procgroup.Kill(p.cmd)
		<-p.exited
	}
}
