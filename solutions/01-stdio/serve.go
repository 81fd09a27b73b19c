// @step 6: the package doc of the finished stage

// Package stdio is the stdio transport of the MCP transports course (stage 01):
// newline-delimited JSON-RPC over a child process's stdin and stdout
// (MCP 2025-11-25, basic/transports, "stdio").
//
// Decode and ServeBatch know nothing of pipes. Later stages reuse them to read
// messages from HTTP bodies.
package stdio

// @starter
// | // Package stdio is stage 01 of the MCP transports course: the stdio transport,
// | // newline-delimited JSON-RPC over a child process's stdin and stdout
// | // (MCP 2025-11-25, basic/transports, "stdio").
// | //
// | // You write this package. lessons/01-stdio.md explains each step, and
// | // `go test ./grader -run Lesson01` grades it. Every place to write is marked
// | // TODO(step N).
// | //
// | // Decode and ServeBatch know nothing of pipes: stage 02 reuses them to read
// | // messages from HTTP bodies.
// | package stdio
// @end

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// @step 3: lines up to MaxMessageBytes; a longer one is answered and skipped

// MaxMessageBytes is the longest line Serve accepts. A longer line is
// answered with an error and skipped; it is never held in memory whole. It is
// well above the 64 KiB at which a default bufio.Scanner gives up.
const MaxMessageBytes = 16 << 20

// @starter
// | // MaxMessageBytes is the longest line Serve must accept: at least 4 MiB, well
// | // beyond the 64 KiB at which a default bufio.Scanner gives up.
// | const MaxMessageBytes = 16 << 20
// @end

// @step 4: at most MaxInFlight requests at once; the one beyond is answered busy

// MaxInFlight caps the requests (and batches) one connection may have running
// at once. A request beyond it is answered at once with an error, instead of
// starting yet another goroutine: a client cannot make the server take on
// unbounded work, and the loop keeps reading, so cancellations still get
// through.
const MaxInFlight = 256

// codeBusy is the error code for a request refused because MaxInFlight are
// running. JSON-RPC 2.0 keeps -32000 to -32099 for server-defined errors.
const codeBusy = -32000

// @starter
// | // MaxInFlight caps the requests one connection may have running at once, so
// | // that a client cannot make the server start goroutines without end. The
// | // reference answers a request beyond it at once with a -32000 error (the
// | // first of JSON-RPC's server-defined codes). Doing the same is a good
// | // idea. No check asks for a cap, but STDIO-29 holds one to its word: no
// | // request refused while fewer than MaxInFlight run, and each one beyond
// | // answered at once, exactly once, with -32000.
// | const MaxInFlight = 256
// @end

// Serve runs srv over a pair of pipes: it reads one JSON-RPC message per line
// from in, and writes one per line to out. Requests run concurrently, each on
// its own goroutine; notifications are handled in the order they arrive.
//
// Serve returns
//   - nil when in reaches end of file, once the requests still running have
//     finished and their responses have been written;
//   - ctx.Err() when ctx is cancelled, after cancelling the requests in flight;
//   - the write error when out fails, for example when the client has closed
//     its end of the pipe.
//
// Serve does not wait for a read of in that is still blocked when it returns;
// closing in releases it.
func Serve(ctx context.Context, in io.Reader, out io.Writer, srv *mcp.Server) error {
	// @step 6: what still runs is cancelled when Serve returns
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// @end

	// @step 4: a locked writer, and room for MaxInFlight requests
	c := &conn{session: srv.NewSession(), out: newLineWriter(out), slots: make(chan struct{}, MaxInFlight),
		work: make(chan func()), quit: make(chan struct{})}
	// @was 1: a writer of whole lines
	// | c := &conn{session: srv.NewSession(), out: newLineWriter(out)}
	// @starter
	// | // TODO(step 1): read in line by line. For each line, Decode it; write
	// | // the reject, or hand the message to the session (c.session.Handle) and
	// | // write the response it returns, if any, as one line on out.
	// | //
	// | // TODO(step 3): accept lines up to MaxMessageBytes, "\r\n" endings, and
	// | // blank lines (which get no answer).
	// | //
	// | // TODO(step 4): run each request on its own goroutine, and make writes
	// | // to out safe for concurrent use.
	// | //
	// | // TODO(step 5): a line that is a JSON array is a batch: see ServeBatch.
	// | //
	// | // TODO(step 6): at end of input, wait for the requests still running;
	// | // return when ctx is cancelled, or when writing to out fails.
	// | c := &conn{session: srv.NewSession(), out: out}
	// @end
	c.session.Attach(c) // what the server says on its own (log messages) goes to stdout too
	// @step 6: the session ends with Serve
	defer c.session.Close()
	// @end
	// @step 4: the idle workers end with Serve
	defer close(c.quit) // the idle workers leave
	// @end

	// @step 6: read on a goroutine of its own; select on its lines, ctx and a failed write
	lines := make(chan line)
	readErr := make(chan error, 1)
	go readLines(ctx, in, lines, readErr)

	for {
		select {
		case l := <-lines:
			c.handleLine(ctx, l)
		case err := <-readErr:
			// End of input. Let the requests already running finish, but
			// stop at once if the process is told to, or stdout breaks.
			done := make(chan struct{})
			go func() { c.inflight.Wait(); close(done) }()
			select {
			case <-done:
			case <-ctx.Done():
				return ctx.Err()
			case <-c.out.failed:
				return c.shutdown(cancel)
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading stdin: %w", err)
		case <-c.out.failed:
			return c.shutdown(cancel)
		case <-ctx.Done():
			c.inflight.Wait()
			return ctx.Err()
		}
	}
	// @was 1: a plain loop: read a line, serve it, until the end of input
	// | // TODO(step 6): at end of input, wait for the requests still running;
	// | // return when ctx is cancelled, or when writing to out fails. A loop
	// | // blocked in a read cannot watch ctx: read on a goroutine of its own.
	// | r := bufio.NewReaderSize(in, 64<<10)
	// | for {
	// | 	l, err := readLine(r)
	// | 	if errors.Is(err, io.EOF) {
	// | 		return nil
	// | 	}
	// | 	if err != nil {
	// | 		return err
	// | 	}
	// | 	c.handleLine(ctx, l)
	// | }
	// @starter
	// | _ = c
	// | return errors.New("stdio.Serve is not written yet: start at step 1 of lessons/01-stdio.md")
	// @end
}

// conn is the server's side of one stdio connection.
type conn struct {
	session *mcp.Session
	// @step 1: a writer of whole lines
	out *lineWriter
	// @starter
	// | out     io.Writer
	// @end
	// @step 4: the requests running, and room for MaxInFlight
	inflight sync.WaitGroup // requests (and batches) still running
	slots    chan struct{}  // one token per request running, up to MaxInFlight
	work     chan func()    // a request for an idle worker; see run
	quit     chan struct{}  // closed when Serve returns
	// @was 1
	// | // TODO(step 4): a sync.WaitGroup that counts the requests still
	// | // running (and, in lineWriter, a sync.Mutex that guards out).
	// @starter
	// | // TODO(step 4): a sync.Mutex that guards out, and a sync.WaitGroup
	// | // that counts the requests still running.
	// @end
}

// @step 4: a goroutine per request, and no more than MaxInFlight at once

// run runs f, a request or a batch, on a goroutine of its own: an idle
// worker, or a new one. A worker that has finished waits for the next
// request instead of ending. That is an optimization, and the only reason
// for it: a new goroutine starts with a small stack, which decoding and
// encoding JSON grow several times over, and under a steady stream of
// requests growing stacks took a fifth of the server's CPU. At most
// MaxInFlight workers ever run, and they all end with Serve.
func (c *conn) run(f func()) {
	select {
	case c.work <- f:
	default:
		go c.worker(f)
	}
}

func (c *conn) worker(f func()) {
	for {
		f()
		select {
		case f = <-c.work:
		case <-c.quit:
			return
		}
	}
}

// admit reserves a place for one more request or batch to run, and returns
// true; release gives it back. When all places are taken, admit answers the
// request (id, the zero ID for a batch) with a busy error and returns false.
func (c *conn) admit(id jsonrpc.ID) bool {
	select {
	case c.slots <- struct{}{}:
		c.inflight.Add(1)
		return true
	default:
		c.out.send(jsonrpc.NewErrorResponse(id, jsonrpc.NewError(codeBusy,
			"server busy: %d requests are already running; try again when one has finished", MaxInFlight)))
		return false
	}
}

func (c *conn) release() {
	<-c.slots
	c.inflight.Done()
}

// @end

// @step 4: Send writes as a response is written, from any goroutine

// Send writes a message to the client outside of a response; it makes conn
// an mcp.Peer.
func (c *conn) Send(_ context.Context, msg *jsonrpc.Message) error { return c.out.send(msg) }

// @starter
// | // Send writes a message to the client outside of a response. Having this
// | // method makes conn an mcp.Peer: pass c to session.Handle, and a running
// | // tool can send progress notifications through it.
// | func (c *conn) Send(ctx context.Context, msg *jsonrpc.Message) error {
// | 	// TODO(step 4): write msg as one line, exactly as you write a response.
// | 	return nil
// | }
// @end

// @step 6: a failed write stops everything

// shutdown stops the requests in flight after stdout has failed, and returns
// the write error that caused it.
func (c *conn) shutdown(cancel context.CancelFunc) error {
	cancel()
	c.inflight.Wait()
	return fmt.Errorf("writing stdout: %w", c.out.err)
}

// @end

// @step 1: serve a line: decode it, answer it

// handleLine serves one line from stdin.
func (c *conn) handleLine(ctx context.Context, l line) {
	// @step 3: framing: a line too long, CRLF endings, blank lines
	if l.tooLong {
		c.out.send(invalid(jsonrpc.ID{}, fmt.Sprintf("message longer than %d bytes", MaxMessageBytes)))
		return
	}
	data := bytes.Trim(l.data, " \t\r\n") // a CRLF line ending leaves a '\r' behind
	if len(data) == 0 {
		return // blank lines carry no message
	}
	// @was 1
	// | // TODO(step 3): trim a "\r\n" ending and white space (bytes.TrimSpace),
	// | // and skip a line that is blank then: no answer, not even an error.
	// | data := l.data
	// @end

	// @step 5: a batch, on a goroutine of its own like a request
	if IsBatch(data) {
		if !c.admit(jsonrpc.ID{}) {
			return
		}
		c.run(func() {
			defer c.release()
			version, _ := c.session.Version()
			responses, reject := ServeBatch(ctx, c.session, version, data, c)
			switch {
			case reject != nil:
				c.out.send(reject)
			case len(responses) > 0:
				c.out.send(responses)
			}
		})
		return
	}
	// @was 1
	// | // TODO(step 5): a line that is a JSON array is a batch: see ServeBatch.
	// @end

	msg, reject := Decode(data)
	switch {
	case reject != nil:
		c.out.send(reject) // answer, then carry on with the next line
	// @step 4: initialize before the next line is read; any other request on a goroutine of its own
	case msg.Method == "initialize":
		// initialize is answered before the next line is read, so that
		// every message after it sees the protocol version it agreed.
		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.out.send(resp)
		}
	case msg.IsRequest():
		// Run each request on its own goroutine, so that a slow one does
		// not hold up a ping, or the cancellation meant to stop it.
		if !c.admit(*msg.ID) {
			return
		}
		c.run(func() {
			defer c.release()
			if resp := c.session.Handle(ctx, msg, c); resp != nil {
				c.out.send(resp)
			}
		})
	// @was 1: one request at a time
	// | case msg.IsRequest():
	// | 	// TODO(step 4): run each request on a goroutine of its own, but
	// | 	// answer initialize before the next line is read.
	// | 	if resp := c.session.Handle(ctx, msg, c); resp != nil {
	// | 		c.out.send(resp)
	// | 	}
	// @end
	default:
		// Notifications and responses are handled in order and never
		// answered (basic/index, "Notifications": the receiver MUST NOT
		// send a response).
		c.session.Handle(ctx, msg, c)
	}
}

// line is one line of input, without its trailing newline.
type line struct {
	data []byte
	// @step 3: a line too long is only flagged
	tooLong bool // longer than MaxMessageBytes; data is empty
	// @end
}

// @end

// @step 6: the reading goroutine

// readLines reads in line by line and sends each line on lines, until in
// fails or ends; then it sends the error (io.EOF at the end) on errc.
//
// It reads with bufio.Reader rather than bufio.Scanner: a Scanner stops for
// good at the first line longer than its buffer (64 KiB by default), while
// this loop accepts lines up to MaxMessageBytes and skips longer ones.
func readLines(ctx context.Context, in io.Reader, lines chan<- line, errc chan<- error) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		l, err := readLine(r)
		if err != nil {
			errc <- err
			return
		}
		select {
		case lines <- l:
		case <-ctx.Done():
			return
		}
	}
}

// @end

// @step 3: a line longer than MaxMessageBytes is skipped, never held whole

// readLine returns the next line of r. A last line with no newline still
// counts; io.EOF comes only once nothing is left.
func readLine(r *bufio.Reader) (line, error) {
	if r.Buffered() == 0 {
		// The read below will wait for the client. Let the lines already
		// read be served first: on a single CPU, a goroutine blocked in a
		// read of a pipe keeps the CPU from the others until Go's
		// scheduler takes it back, tens of microseconds later, and every
		// answer would wait that long.
		runtime.Gosched()
	}
	var l line
	for {
		chunk, err := r.ReadSlice('\n')
		if !l.tooLong {
			if len(l.data)+len(chunk) > MaxMessageBytes+1 { // +1 for the newline
				l = line{tooLong: true}
			} else {
				l.data = append(l.data, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue // the line goes on past the buffer
		case err == io.EOF && (len(l.data) > 0 || l.tooLong):
			if len(l.data) > MaxMessageBytes { // a last line has no newline to allow for
				l = line{tooLong: true}
			}
			return l, nil
		case err != nil:
			return line{}, err
		}
		l.data = bytes.TrimSuffix(l.data, []byte("\n"))
		return l, nil
	}
}

// @was 1: one line, whatever its length
// | // readLine returns the next line of r. A last line with no newline still
// | // counts; io.EOF comes only once nothing is left.
// | func readLine(r *bufio.Reader) (line, error) {
// | 	data, err := r.ReadBytes('\n')
// | 	if len(data) > 0 {
// | 		return line{data: bytes.TrimSuffix(data, []byte("\n"))}, nil
// | 	}
// | 	return line{}, err
// | }
// @end
