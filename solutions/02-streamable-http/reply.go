package streamable

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"mcpcourse/internal/jsonrpc"
)

// reply is the answer to one POST that holds a request (or, at 2025-03-26,
// a batch of them), while the request runs. It is the request's mcp.Peer:
// whatever the request's handler sends the client before the response (a
// log message, a request of the server's own such as elicitation/create)
// goes through it, so it travels on the request's own answer. The spec asks
// for that: messages sent before a response "SHOULD relate to the
// originating client request", and the ones on the GET stream "SHOULD be
// unrelated to any concurrently-running JSON-RPC request" (basic/transports,
// "Sending Messages to the Server" and "Listening for Messages from the
// Server").
//
// The answer starts undecided, with nothing written. The first message that
// comes before the response makes it an SSE stream (h.streams.Open), which
// carries that message and every later one, each flushed as it comes, then
// the response. A request that sends nothing before its response is
// answered as plain JSON.
type reply struct {
	h    *Handler
	w    http.ResponseWriter
	r    *http.Request
	sess *Session

	mu     sync.Mutex
	stream Stream // nil until the answer becomes an SSE stream
	ended  bool   // end was called: the answer is settled
}

// newReply starts the answer to a request of sess that arrived in r.
func (h *Handler) newReply(w http.ResponseWriter, r *http.Request, sess *Session) *reply {
	return &reply{h: h, w: w, r: r, sess: sess}
}

// errAnswered is what Send returns once the request has been answered.
var errAnswered = errors.New("the request has been answered: a message sent after its response is dropped")

// Send sends msg to the client on the request's SSE stream, and opens the
// stream first if msg is the first message before the response. Once end
// has been called, msg is dropped: it has no stream left to travel on, and
// it never goes to another one.
func (rp *reply) Send(ctx context.Context, msg *jsonrpc.Message) error {
	// @step 5: the first message opens the stream; after the response, nothing
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.ended {
		return errAnswered
	}
	rp.openLocked()
	return rp.stream.Send(ctx, msg)
	// @starter
	// | // TODO(step 5): under rp.mu: once the request is answered (rp.ended),
	// | // return errAnswered, and send msg nowhere else. Otherwise make the
	// | // answer an SSE stream if it is not one yet (rp.openLocked), and send
	// | // msg on it.
	// | return errAnswered
	// @end
}

// open makes the answer an SSE stream now, before any message.
func (rp *reply) open() {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if !rp.ended {
		rp.openLocked()
	}
}

// openLocked opens the SSE stream unless it is open. The caller holds rp.mu.
func (rp *reply) openLocked() {
	if rp.stream == nil {
		rp.stream = rp.h.streams.Open(rp.w, rp.r, rp.sess)
	}
}

// end settles the answer once the request's handler has returned: from
// now on Send drops what it is given. It returns the SSE stream if the
// answer became one, for the response to travel on as its last event, or
// nil if nothing has been written yet: then the response goes out as JSON.
func (rp *reply) end() Stream {
	// @step 5: settle the answer: the stream, or nil for JSON
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.ended = true
	return rp.stream
	// @starter
	// | // TODO(step 5): under rp.mu, mark the request answered (rp.ended), and
	// | // return the stream, nil if none was opened.
	// | return nil
	// @end
}
