package resume

import (
	"net/http"
	"time"

	streamable "mcpcourse/solutions/02-streamable-http"

	"mcpcourse/internal/httpjson"
	"mcpcourse/internal/jsonrpc"
)

// Error codes of this stage's HTTP errors, sent in their JSON-RPC error
// bodies, as stage 02 does.
const (
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
	codeServerError    = -32000
)

// LastEventIDHeader is the header a client resumes a stream with (the SSE
// standard's Last-Event-ID).
const LastEventIDHeader = "Last-Event-Id"

// serveGET serves every GET in stateful mode (basic/transports, "Listening
// for Messages from the Server"): without Last-Event-ID it opens the
// session's standalone stream; with it, it resumes the stream the id
// belongs to, whichever request opened it ("Resumability and Redelivery":
// resumption is always a GET).
func (h *Handler) serveGET(w http.ResponseWriter, r *http.Request) {
	// @step 1: refuse what is not a GET stream, then open it
	if !streamable.Accepts(r.Header.Values("Accept"), "text/event-stream") {
		// The spec puts this rule on the client (MUST) and leaves the
		// server's answer open; 406 is the course's choice.
		httpjson.Error(w, http.StatusNotAcceptable, codeServerError,
			"a GET opens an SSE stream: its Accept header must list text/event-stream")
		return
	}
	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
	sess, done, ok := h.Session(w, r) // 400 without the header, 404 for a session that is gone
	if !ok {
		return
	}
	defer done() // a session with a client listening is in use, and does not expire
	select {
	case <-h.closing:
		w.Header().Set("Retry-After", "5")
		httpjson.Error(w, http.StatusServiceUnavailable, codeServerError, "the server is shutting down")
		return
	default:
	}
	// @step 4: with Last-Event-ID, resume the stream it names
	if ids := r.Header.Values(LastEventIDHeader); len(ids) > 0 {
		h.resume(w, r, sess, ids)
		return
	}
	// @was 1
	// | // TODO(step 4): with a Last-Event-ID header (r.Header.Values), go to
	// | // h.resume.
	// @end
	h.listen(w, r, sess)
	// @starter
	// | // TODO(step 1), in this order, each refusal a JSON-RPC error body
	// | // (httpjson.Error) that ends at once:
	// | //   - 406 unless Accept lists text/event-stream (streamable.Accepts);
	// | //   - a bad MCP-Protocol-Version: h.ProtocolVersion(w, r, nil) writes
	// | //     the 400 itself;
	// | //   - the session: h.Session(w, r) writes 400 or 404 itself; call the
	// | //     done function it returns when the GET ends (defer);
	// | //   - 503 once h.closing is closed: the server is shutting down;
	// | //   - TODO(step 4): with a Last-Event-ID header (r.Header.Values), go
	// | //     to h.resume;
	// | //   - otherwise h.listen.
	// | _, _ = streamable.Accepts, codeServerError
	// | httpjson.Error(w, http.StatusNotImplemented, codeServerError,
	// | 	"GET streams are not written yet: start at step 1 of lessons/03-sse-resume.md")
	// @end
}

// listen opens the session's standalone stream. The first one becomes the
// session's outlet: from then on, messages the server starts on its own (log
// messages, its requests) go there, and wait in the log while the client is
// away. Before it, they are dropped: nothing is kept for a client that never
// listened.
func (h *Handler) listen(w http.ResponseWriter, r *http.Request, sess *streamable.Session) {
	// @step 1: stream 0, one connection at a time
	s, made := h.streamsOf(sess, true).standaloneStream()
	s.mu.Lock()
	if s.w != nil {
		s.mu.Unlock()
		conflict(w, "this session's standalone stream is already open on another connection; a session has one at a time")
		return
	}
	// @step 3: the first standalone stream is the session's outlet
	if made {
		// Before the headers go out: a client that sees the stream open
		// may at once do what makes the server send it something.
		sess.Attach(s)
	}
	// @was 1
	// | // TODO(step 3): the first time (made), before the headers go out,
	// | // make this stream the session's outlet: sess.Attach(s).
	// | _ = made
	// @end
	ew := startEventStream(w)
	s.attachLocked(ew)
	// @step 2: a priming event, at the versions that have them
	if v, _ := sess.Version(); v.Priming {
		s.sendLocked(nil, retryAfter)
	}
	// @was 1
	// | // TODO(step 2): when the session's version has Priming, send a priming
	// | // event: s.sendLocked(nil, retryAfter).
	// @end
	s.mu.Unlock()
	// @step 3: the session's ticker, with -tick
	if made && h.opts.Tick > 0 {
		go tick(sess, h.opts.Tick)
	}
	// @was 1
	// | // TODO(step 3): the first time (made), start the ticker when
	// | // h.opts.Tick > 0: go tick(sess, h.opts.Tick).
	// @end
	h.hold(r, sess, s, ew)
	// @starter
	// | // TODO(step 1):
	// | //   - s, made := h.streamsOf(sess, true).standaloneStream();
	// | //   - lock s.mu; if another connection holds the stream (s.w != nil),
	// | //     unlock and answer with conflict (409);
	// | //   - ew := startEventStream(w), and attach it to s (s.attachLocked);
	// | //   - TODO(step 2): when the session's version has Priming, send a
	// | //     priming event: s.sendLocked(nil, retryAfter);
	// | //   - TODO(step 3): the first time (made), before the headers go out,
	// | //     make the stream the session's outlet, sess.Attach(s), and after
	// | //     unlocking start the ticker when h.opts.Tick > 0: go tick(sess, h.opts.Tick);
	// | //   - unlock, then h.hold(r, sess, s, ew) until the stream is over.
	// | httpjson.Error(w, http.StatusNotImplemented, codeServerError, "the standalone stream is not written yet")
	// @end
}

// resume attaches this GET to the stream a Last-Event-ID names, after
// replaying the events of that stream the client missed, and of no other
// stream (basic/transports: the server MUST NOT replay messages that would
// have been delivered on a different stream).
func (h *Handler) resume(w http.ResponseWriter, r *http.Request, sess *streamable.Session, ids []string) {
	// @step 4: replay what was missed, then go on live, under one lock
	num, seq, ok := parseEventID(ids[0])
	if !ok || len(ids) > 1 {
		badEventID(w, ids[0], "it is not an event id this server wrote")
		return
	}
	var s *stream
	if set := h.streamsOf(sess, false); set != nil {
		s = set.stream(num)
	}
	if s == nil {
		badEventID(w, ids[0], "it is not an id of this session's events, or its stream has ended and left nothing to replay")
		return
	}

	s.mu.Lock()
	if s.w != nil {
		s.mu.Unlock()
		conflict(w, "the stream of Last-Event-ID "+ids[0]+" is already attached to another connection")
		return
	}
	missed, problem := s.set.replay(s, seq)
	switch {
	case problem != "":
		s.mu.Unlock()
		badEventID(w, ids[0], problem)
		return
	case len(missed) == 0 && s.isEnded():
		// Nothing more will ever come on this stream. An empty 200 stream
		// would be read as "the connection broke again" by clients that
		// resume until they see a result (the TypeScript SDK reconnects
		// without limit), and a stream held open would never end: say so.
		s.mu.Unlock()
		badEventID(w, ids[0], "its stream has ended, and the client has had every event of it")
		return
	}
	ew := startEventStream(w)
	ew.replay(missed)
	if s.isEnded() || ew.err != nil {
		s.mu.Unlock()
		ew.finish()
		return // a resumed POST stream ends after its response
	}
	s.attachLocked(ew)
	s.mu.Unlock()
	h.hold(r, sess, s, ew)
	// @starter
	// | // TODO(step 4):
	// | //   - parse ids[0] with parseEventID; malformed, or more than one
	// | //     header: badEventID (400);
	// | //   - find the stream: h.streamsOf(sess, false) (nil if the session
	// | //     never streamed), then its stream(num); none: badEventID;
	// | //   - lock s.mu for the rest, so that no event slips between the replay
	// | //     and the live ones. Another connection attached: conflict (409);
	// | //   - missed, problem := s.set.replay(s, n); a problem: badEventID;
	// | //   - nothing missed and the stream has ended (s.isEnded()): badEventID
	// | //     too. A 200 that ends at once makes some clients reconnect for
	// | //     ever, and one held open makes them wait for ever;
	// | //   - startEventStream, write each missed event (ew.event(e, 0));
	// | //   - an ended stream ends here: unlock, ew.finish(), return. Else
	// | //     attach ew, unlock, and h.hold(r, sess, s, ew).
	// | badEventID(w, ids[0], "resuming is not written yet")
	// @end
}

// hold keeps a GET's response open while its stream goes on, writing a
// comment every KeepAlive, and returns when the stream ends, the client goes
// away, a write fails, the session ends or the server shuts down. Returning
// is what frees the connection and this goroutine: a handler that forgets
// one of these cases leaks both for every client that leaves.
func (h *Handler) hold(r *http.Request, sess *streamable.Session, s *stream, ew *eventWriter) {
	defer ew.finish()
	defer s.detach(ew)
	// @step 1: keep-alives, until any of the ways a stream ends
	keepAlive := time.NewTicker(h.opts.KeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-keepAlive.C:
			s.mu.Lock()
			if s.w == ew {
				ew.comment("keep-alive")
			}
			s.mu.Unlock()
			continue
		case <-r.Context().Done():
		case <-ew.broken:
		case <-s.ended:
		case <-sess.Context().Done():
		case <-h.closing:
		}
		return
	}
	// @starter
	// | // TODO(step 1): a time.Ticker of h.opts.KeepAlive (stop it when done),
	// | // and a loop around a select:
	// | //   - on a tick, under s.mu, if ew is still the stream's connection
	// | //     (s.w == ew), write ew.comment("keep-alive"), and go on;
	// | //   - return on any of r.Context().Done() (the client left),
	// | //     ew.broken (a write failed), s.ended (the stream is over),
	// | //     sess.Context().Done() (the session ended) and h.closing.
	// | _ = time.NewTicker
	// @end
}

// badEventID answers a Last-Event-ID that cannot be resumed with 400 and a
// JSON-RPC error: never a partial replay, and never 404, which would tell
// the client its session is gone.
func badEventID(w http.ResponseWriter, id, why string) {
	httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest, "cannot resume from Last-Event-ID %q: %s", id, why)
}

// conflict answers a GET for a stream another connection already holds.
func conflict(w http.ResponseWriter, why string) {
	httpjson.Error(w, http.StatusConflict, codeServerError, "%s", why)
}
