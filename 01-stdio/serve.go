// Package stdio is stage 01 of the MCP transports course: the stdio transport,
// newline-delimited JSON-RPC over a child process's stdin and stdout
// (MCP 2025-11-25, basic/transports, "stdio").
//
// You write this package. lessons/01-stdio.md explains each step, and
// `go test ./grader -run Lesson01` grades it. Every place to write is marked
// TODO(step N).
//
// Decode and ServeBatch know nothing of pipes: stage 02 reuses them to read
// messages from HTTP bodies.
package stdio

import (
	"context"
	"errors"
	"io"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// MaxMessageBytes is the longest line Serve must accept: at least 4 MiB, well
// beyond the 64 KiB at which a default bufio.Scanner gives up.
const MaxMessageBytes = 16 << 20

// MaxInFlight caps the requests one connection may have running at once, so
// that a client cannot make the server start goroutines without end. The
// reference answers a request beyond it at once with a -32000 error (the
// first of JSON-RPC's server-defined codes). Doing the same is a good
// idea. No check asks for a cap, but STDIO-29 holds one to its word: no
// request refused while fewer than MaxInFlight run, and each one beyond
// answered at once, exactly once, with -32000.
const MaxInFlight = 256

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
	// TODO(step 1): read in line by line. For each line, Decode it; write
	// the reject, or hand the message to the session (c.session.Handle) and
	// write the response it returns, if any, as one line on out.
	//
	// TODO(step 3): accept lines up to MaxMessageBytes, "\r\n" endings, and
	// blank lines (which get no answer).
	//
	// TODO(step 4): run each request on its own goroutine, and make writes
	// to out safe for concurrent use.
	//
	// TODO(step 5): a line that is a JSON array is a batch: see ServeBatch.
	//
	// TODO(step 6): at end of input, wait for the requests still running;
	// return when ctx is cancelled, or when writing to out fails.
	c := &conn{session: srv.NewSession(), out: out}
	c.session.Attach(c) // what the server says on its own (log messages) goes to stdout too

	_ = c
	return errors.New("stdio.Serve is not written yet: start at step 1 of lessons/01-stdio.md")
}

// conn is the server's side of one stdio connection.
type conn struct {
	session *mcp.Session
	out     io.Writer
	// TODO(step 4): a sync.Mutex that guards out, and a sync.WaitGroup
	// that counts the requests still running.
}

// Send writes a message to the client outside of a response. Having this
// method makes conn an mcp.Peer: pass c to session.Handle, and a running
// tool can send progress notifications through it.
func (c *conn) Send(ctx context.Context, msg *jsonrpc.Message) error {
	// TODO(step 4): write msg as one line, exactly as you write a response.
	return nil
}
