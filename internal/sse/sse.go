// Package sse writes JSON-RPC messages as Server-Sent Events. It is given
// code for stage 02, where a request's progress notifications and its
// response travel on the request's own stream. Stage 03 is where you write
// resumable streams, with event ids and replay, yourself.
package sse

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// Stream writes each message as one "event: message" whose data line is the
// message's JSON. It is safe for concurrent use, and can be the Peer of the
// request it answers.
type Stream struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

// A Stream can carry a session's notifications.
var _ mcp.Peer = (*Stream)(nil)

// NewStream starts an SSE response on w: it writes the headers and the 200
// status, and flushes them so the client sees the stream begin at once.
func NewStream(w http.ResponseWriter) *Stream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // ask proxies such as nginx not to hold events back
	w.WriteHeader(http.StatusOK)
	s := &Stream{w: w, rc: http.NewResponseController(w)}
	s.err = s.rc.Flush()
	return s
}

// ErrBroken is returned once writing to the stream has failed, or after
// Close.
var ErrBroken = errors.New("sse: the stream is broken or closed")

// Close ends the stream for its writers: every later Send fails. The
// response itself ends when the HTTP handler returns; after that, writing to
// it would be a bug, and Close is what keeps a late message (from a
// goroutine that outlived the request) from trying.
func (s *Stream) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = ErrBroken
	}
}

// Send writes msg as one event and flushes it to the client.
func (s *Stream) Send(_ context.Context, msg *jsonrpc.Message) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return ErrBroken
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
