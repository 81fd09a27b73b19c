package resume

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	streamable "mcpcourse/solutions/02-streamable-http"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/sse"
)

// stream is one SSE stream of a session: the answer to a POST, or the
// standalone stream a GET opens (number 0). Every event sent on it is logged
// first, then written to the connection the stream is attached to, if any.
// While its client is away the stream keeps going, into the log only, until
// a GET with Last-Event-ID attaches a new connection and replays what was
// missed.
type stream struct {
	set   *sessionStreams
	num   int
	ended chan struct{} // closed when nothing more will be sent on the stream

	// mu is held while an event is logged and written, and while a GET
	// replays the stream, so that every event reaches the client once, in
	// order, whichever connection it arrives on.
	mu   sync.Mutex
	w    *eventWriter // the connection, or nil while the client is away
	done bool         // Close was called: the stream's last event is sent

	// Guarded by set.mu: the stream's place in the session's log.
	last    uint64 // n of its newest event; 0 before any
	dropped uint64 // n of its newest event evicted from the log; 0 if none
	kept    int    // its events still in the log
}

// retryAfter is what the retry field tells a client to wait before it
// reconnects (basic/transports: the client MUST respect it).
const retryAfter = time.Second

var errStreamDone = errors.New("the stream is over: its response has been sent")

// Send logs msg as the stream's next event, and writes it to the client if
// one is attached. A client that is away does not make Send fail: the event
// waits in the log for a GET that resumes the stream.
func (s *stream) Send(_ context.Context, msg *jsonrpc.Message) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return errStreamDone
	}
	s.sendLocked(data, 0)
	return nil
}

// sendLocked logs an event and writes it; data nil makes a priming event.
// The caller holds s.mu.
func (s *stream) sendLocked(data []byte, retry time.Duration) event {
	// @step 2: log the event, then write it, if a connection is attached
	e := s.set.log(s, data)
	if s.w != nil && s.w.event(e, retry) != nil {
		s.w = nil // the client went away; the event is kept for its return
	}
	return e
	// @starter
	// | // TODO(step 2): log the event first (s.set.log), so that a client that
	// | // is away can have it later; then, if a connection is attached (s.w),
	// | // write it there with retry. When the write fails, the client has gone:
	// | // set s.w to nil, and the event waits in the log for its return.
	// | return event{}
	// @end
}

// attach makes w the stream's connection, unless another one holds it.
// The caller holds s.mu.
func (s *stream) attachLocked(w *eventWriter) bool {
	if s.w != nil {
		return false
	}
	s.w = w
	return true
}

// detach lets go of w, if it is still the stream's connection.
func (s *stream) detach(w *eventWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == w {
		s.w = nil
	}
}

// isEnded reports whether the stream has sent its last event.
func (s *stream) isEnded() bool {
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// postStream is the stream answering one POST, as stage 02 sees it: the
// request's Peer for its notifications and response, and Close when it is
// over. own is the POST's response, which Close must let go of before the
// POST's handler returns.
type postStream struct {
	*stream
	own     *eventWriter
	unwatch func() bool
}

// Open starts the SSE answer to a request of sess (streamable.Streams): a
// stream with event ids, primed when the session's protocol version asks for
// it. In stateless mode nothing can be resumed, so the stream is a plain one,
// without ids.
func (h *Handler) Open(w http.ResponseWriter, r *http.Request, sess *streamable.Session) streamable.Stream {
	// @step 2: a stream with event ids, primed at 2025-11-25
	if h.opts.Stateless {
		return sse.NewStream(w)
	}
	s := h.streamsOf(sess, true).newStream()
	p := &postStream{stream: s, own: startEventStream(w)}
	s.mu.Lock()
	s.attachLocked(p.own)
	if v, _ := sess.Version(); v.Priming {
		s.sendLocked(nil, retryAfter)
	}
	s.mu.Unlock()
	// A client that drops the POST has not cancelled the request, which runs
	// on: let go of the dead connection at once, so that a GET can resume
	// the stream.
	p.unwatch = context.AfterFunc(r.Context(), func() { s.detach(p.own) })
	return p
	// @starter
	// | // TODO(step 2): in stateless mode, keep the plain stream below. Else:
	// | //   - s := h.streamsOf(sess, true).newStream(), the session's next stream;
	// | //   - p := &postStream{stream: s, own: startEventStream(w)};
	// | //   - under s.mu: attach p.own to s, and when the session's version has
	// | //     Priming (sess.Version()), send a priming event with
	// | //     s.sendLocked(nil, retryAfter);
	// | //   - a client that drops the POST has not cancelled the request: let
	// | //     go of its connection at once, so that a GET can resume the stream:
	// | //     p.unwatch = context.AfterFunc(r.Context(), func() { s.detach(p.own) });
	// | //   - return p.
	// | return sse.NewStream(w)
	// @end
}

// Close ends the stream: the request's response has been sent, or none will
// be. A GET attached to the stream sees it end.
func (p *postStream) Close() {
	p.unwatch()
	p.mu.Lock()
	if !p.done {
		p.done = true
		close(p.ended)
		p.set.end(p.stream)
	}
	p.mu.Unlock()
	p.detach(p.own)
	p.own.finish()
}
