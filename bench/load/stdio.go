package load

import (
	"bufio"
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// stdioConn is the client's side of a stdio server's pipes.
type stdioConn struct {
	w *bufio.Writer
	r *bufio.Reader
}

func newStdioConn(s *Server) *stdioConn {
	return &stdioConn{w: bufio.NewWriterSize(s.Stdin, 64<<10), r: bufio.NewReaderSize(s.Stdout, 1<<20)}
}

func (c *stdioConn) send(msg []byte) error {
	c.w.Write(msg)
	c.w.WriteByte('\n')
	return c.w.Flush()
}

// response reads lines until the response to a request, skipping
// notifications, and returns its id and the line.
func (c *stdioConn) response() (int64, []byte, error) {
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, nil, fmt.Errorf("reading stdout: %w", err)
		}
		if id := responseID(line); id >= 0 {
			return id, line, nil
		}
	}
}

// handshake sends initialize and notifications/initialized.
func (c *stdioConn) handshake() error {
	if err := c.send([]byte(initializeBody)); err != nil {
		return err
	}
	if _, line, err := c.response(); err != nil {
		return err
	} else if !bytes.Contains(line, []byte(`"protocolVersion"`)) {
		return fmt.Errorf("initialize: %.200s", line)
	}
	return c.send([]byte(initializedBody))
}

// StdioSequential sends one echo at a time and waits for its answer.
func StdioSequential(s *Server, win Window) (Result, error) {
	c := newStdioConn(s)
	if err := c.handshake(); err != nil {
		return Result{}, err
	}
	var (
		n   int64
		buf []byte
	)
	return closedLoop(s.PID(), win, []worker{func() (int, error) {
		n++
		buf = echoRequest(buf[:0], n)
		if err := c.send(buf); err != nil {
			return 0, err
		}
		id, line, err := c.response()
		if err != nil {
			return 0, err
		}
		if id != n || !answers(line, n) {
			return 0, fmt.Errorf("echo %d: %.300s", n, line)
		}
		return 1, nil
	}})
}

// StdioPipelined keeps up to depth echo requests in flight on one pipe, and
// matches each answer to its request by id. Requests are flushed whenever
// the window is full, so they travel in batches, as a busy client's would.
func StdioPipelined(s *Server, depth int, win Window) (Result, error) {
	c := newStdioConn(s)
	if err := c.handshake(); err != nil {
		return Result{}, err
	}
	var (
		phase   atomic.Int32
		ops     atomic.Int64
		sent    sync.Map // id -> time sent
		slots   = make(chan struct{}, depth)
		readErr = make(chan error, 1)
		lat     []time.Duration
	)
	go func() { // the reader
		for {
			id, line, err := c.response()
			if err != nil {
				readErr <- err
				return
			}
			t, ok := sent.LoadAndDelete(id)
			if !ok || !answers(line, id) {
				readErr <- fmt.Errorf("an answer to no request in flight, or a wrong one: %.300s", line)
				return
			}
			<-slots
			if phase.Load() == counting {
				ops.Add(1)
				lat = append(lat, time.Since(t.(time.Time)))
			}
		}
	}()
	writeErr := make(chan error, 1)
	go func() { // the writer
		var buf []byte
		for n := int64(1); phase.Load() != stopping; n++ {
			select {
			case slots <- struct{}{}:
			default:
				if err := c.w.Flush(); err != nil { // the window is full: send what is queued
					writeErr <- err
					return
				}
				slots <- struct{}{}
			}
			sent.Store(n, time.Now())
			buf = append(echoRequest(buf[:0], n), '\n')
			if _, err := c.w.Write(buf); err != nil {
				writeErr <- err
				return
			}
		}
		c.w.Flush()
		writeErr <- nil
	}()
	time.Sleep(win.Warmup)
	m := startMeter(s.PID())
	phase.Store(counting)
	var failed error
	select {
	case <-time.After(win.Duration):
	case failed = <-readErr:
	}
	phase.Store(stopping)
	r := m.stop()
	if failed != nil {
		return Result{}, failed
	}
	// Let the requests in flight finish, so the server is idle again.
	deadline := time.After(5 * time.Second)
	for len(slots) > 0 {
		select {
		case err := <-readErr:
			return Result{}, err
		case <-deadline:
			return Result{}, fmt.Errorf("%d requests still unanswered 5s after the run", len(slots))
		case <-time.After(time.Millisecond):
		}
	}
	r.Ops = int(ops.Load())
	r.P50, r.P99 = percentiles(lat) // written by the reader only, which is idle now
	r.ServerRSS, _ = RSS(s.PID())
	return r, nil
}
