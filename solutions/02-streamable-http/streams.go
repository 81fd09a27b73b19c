package streamable

import (
	"net/http"

	"mcpcourse/internal/mcp"
	"mcpcourse/internal/sse"
)

// Streams opens the SSE streams that carry the answers to requests. It is
// the seam through which a later stage extends this one: stage 03 plugs in
// streams with event ids that a client can resume (Options.Streams), and a
// handler for GET (Options.GET). Stage 02 itself uses plain streams.
type Streams interface {
	// Open starts an SSE response on w to one request of sess, and returns
	// the stream the request's messages go to: its notifications, then
	// its response.
	Open(w http.ResponseWriter, r *http.Request, sess *Session) Stream
}

// Stream is one SSE response to a request.
type Stream interface {
	mcp.Peer // Send writes one message as an event

	// Close says the stream is over: its response has been sent, or none
	// will be (the request was cancelled). Nothing may follow.
	Close()
}

// plainStreams are stage 02's streams: events without ids, which end with
// the HTTP response and cannot be resumed.
type plainStreams struct{}

func (plainStreams) Open(w http.ResponseWriter, _ *http.Request, _ *Session) Stream {
	return sse.NewStream(w)
}
