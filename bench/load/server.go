package load

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"mcpcourse/tools/procgroup"
)

// Server is a server process the benchmark started.
type Server struct {
	Name string
	cmd  *exec.Cmd
	URL  string // the MCP endpoint of an HTTP server
	// Stdin and Stdout are a stdio server's pipes.
	Stdin  io.WriteCloser
	Stdout io.ReadCloser

	mu     sync.Mutex
	stderr []string // its last lines of stderr
	exited chan struct{}
}

var listening = regexp.MustCompile(`listening on (http://\S+/mcp)`)

// StartOptions says how to start a server.
type StartOptions struct {
	Argv  []string // the command; over HTTP it must print "listening on http://ADDR/mcp" to stderr
	Stdio bool     // talk to it over its stdin and stdout
	CPU   int      // pin it to this CPU with taskset; -1 not to pin
	Env   []string
}

// Start starts a server and, over HTTP, waits until it listens.
func Start(name string, opts StartOptions) (*Server, error) {
	argv := opts.Argv
	if opts.CPU >= 0 {
		argv = append([]string{"taskset", "-c", fmt.Sprint(opts.CPU)}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), opts.Env...)
	procgroup.Isolate(cmd)
	s := &Server{Name: name, cmd: cmd, exited: make(chan struct{})}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if opts.Stdio {
		if s.Stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if s.Stdout, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	found := make(chan string, 1)
	go func() {
		// Read stderr to its end, always: a server that logs a line per
		// session must never block on a full pipe.
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
			s.mu.Lock()
			if s.stderr = append(s.stderr, line); len(s.stderr) > 20 {
				s.stderr = s.stderr[1:]
			}
			s.mu.Unlock()
		}
		cmd.Wait()
		close(s.exited)
	}()
	if opts.Stdio {
		return s, nil
	}
	select {
	case s.URL = <-found:
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("%s exited before it listened: %s", name, s.Stderr())
	case <-time.After(30 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("%s did not say where it listens within 30s: %s", name, s.Stderr())
	}
}

// PID is the server's process id (taskset execs the server in its place).
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Stderr returns the last lines the server wrote to stderr.
func (s *Server) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.stderr, "\n")
}

// Exited reports whether the server has exited.
func (s *Server) Exited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// Stop ends the server: SIGTERM, then SIGKILL after 3 s, to its whole
// process group.
func (s *Server) Stop() error {
	if s.Stdin != nil {
		s.Stdin.Close()
	}
	procgroup.Terminate(s.cmd)
	select {
	case <-s.exited:
		return nil
	case <-time.After(3 * time.Second):
	}
	procgroup.Kill(s.cmd)
	select {
	case <-s.exited:
		return errors.New(s.Name + " did not stop on SIGTERM within 3s")
	case <-time.After(3 * time.Second):
		return errors.New(s.Name + " did not die on SIGKILL")
	}
}
