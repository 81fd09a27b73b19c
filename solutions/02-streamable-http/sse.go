package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// An eventStream is the Peer of the request it answers.
var _ mcp.Peer = (*eventStream)(nil)

// eventStream writes JSON-RPC messages as Server-Sent Events on a response:
// each message one "event: message" with its JSON on a single data line.
// It is safe for concurrent use, and is the Peer of the request it answers.
type eventStream struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

// newEventStream starts an SSE response.
func newEventStream(w http.ResponseWriter) *eventStream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // ask proxies such as nginx not to hold events back
	w.WriteHeader(http.StatusOK)
	s := &eventStream{w: w, rc: http.NewResponseController(w)}
	s.err = s.rc.Flush() // send the headers now, not with the first event
	return s
}

var errStreamBroken = errors.New("the event stream is broken")

// Notify writes msg as one event and flushes it to the client.
func (s *eventStream) Notify(_ context.Context, msg *jsonrpc.Message) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return errStreamBroken
	}
	// JSON from encoding/json holds no raw newline, so one data line holds
	// the whole message.
	if _, err := s.w.Write(append(append([]byte("event: message\ndata: "), data...), '\n', '\n')); err != nil {
		s.err = err
		return err
	}
	s.err = s.rc.Flush()
	return s.err
}
