package resume

import (
	"net/http"
	"time"

	streamable "mcpcourse/02-streamable-http"

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
	// TODO(step 1), in this order, each refusal a JSON-RPC error body
	// (httpjson.Error) that ends at once:
	//   - 406 unless Accept lists text/event-stream (streamable.Accepts);
	//   - a bad MCP-Protocol-Version: h.ProtocolVersion(w, r, nil) writes
	//     the 400 itself;
	//   - the session: h.Session(w, r) writes 400 or 404 itself; call the
	//     done function it returns when the GET ends (defer);
	//   - 503 once h.closing is closed: the server is shutting down;
	//   - TODO(step 4): with a Last-Event-ID header (r.Header.Values), go
	//     to h.resume;
	//   - otherwise h.listen.
	_, _ = streamable.Accepts, codeServerError
	httpjson.Error(w, http.StatusNotImplemented, codeServerError,
		"GET streams are not written yet: start at step 1 of lessons/03-sse-resume.md")
}

// listen opens the session's standalone stream. The first one becomes the
// session's outlet: from then on, the messages that belong to no request
// (the ticker's log messages) go there, and wait in the log while the
// client is away. Before it, they are dropped: nothing is kept for a client
// that never listened. A request's own messages never come here: they
// travel on the request's own stream (stage 02's reply).
func (h *Handler) listen(w http.ResponseWriter, r *http.Request, sess *streamable.Session) {
	// TODO(step 1):
	//   - s, made := h.streamsOf(sess, true).standaloneStream();
	//   - lock s.mu; if another connection holds the stream (s.w != nil),
	//     unlock and answer with conflict (409);
	//   - ew := startEventStream(w), and attach it to s (s.attachLocked);
	//   - TODO(step 2): when the session's version has Priming, send a
	//     priming event: s.sendLocked(nil, retryAfter);
	//   - TODO(step 3): the first time (made), before the headers go out,
	//     make the stream the session's outlet, sess.Attach(s), and after
	//     unlocking start the ticker when h.opts.Tick > 0: go tick(sess, h.opts.Tick);
	//   - unlock, then h.hold(r, sess, s, ew) until the stream is over.
	httpjson.Error(w, http.StatusNotImplemented, codeServerError, "the standalone stream is not written yet")
}

// resume attaches this GET to the stream a Last-Event-ID names, after
// replaying the events of that stream the client missed, and of no other
// stream (basic/transports: the server MUST NOT replay messages that would
// have been delivered on a different stream).
func (h *Handler) resume(w http.ResponseWriter, r *http.Request, sess *streamable.Session, ids []string) {
	// TODO(step 4):
	//   - parse ids[0] with parseEventID; malformed, or more than one
	//     header: badEventID (400);
	//   - find the stream: h.streamsOf(sess, false) (nil if the session
	//     never streamed), then its stream(num); none: badEventID;
	//   - lock s.mu for the rest, so that no event slips between the replay
	//     and the live ones. Another connection attached: conflict (409);
	//   - missed, problem := s.set.replay(s, n); a problem: badEventID;
	//   - nothing missed and the stream has ended (s.isEnded()): badEventID
	//     too. A 200 that ends at once makes some clients reconnect for
	//     ever, and one held open makes them wait for ever;
	//   - startEventStream, write each missed event (ew.event(e, 0));
	//   - an ended stream ends here: unlock, ew.finish(), return. Else
	//     attach ew, unlock, and h.hold(r, sess, s, ew).
	badEventID(w, ids[0], "resuming is not written yet")
}

// hold keeps a GET's response open while its stream goes on, writing a
// comment every KeepAlive, and returns when the stream ends, the client goes
// away, a write fails, the session ends or the server shuts down. Returning
// is what frees the connection and this goroutine: a handler that forgets
// one of these cases leaks both for every client that leaves.
func (h *Handler) hold(r *http.Request, sess *streamable.Session, s *stream, ew *eventWriter) {
	defer ew.finish()
	defer s.detach(ew)
	// TODO(step 1): a time.Ticker of h.opts.KeepAlive (stop it when done),
	// and a loop around a select:
	//   - on a tick, under s.mu, if ew is still the stream's connection
	//     (s.w == ew), write ew.comment("keep-alive"), and go on;
	//   - return on any of r.Context().Done() (the client left),
	//     ew.broken (a write failed), s.ended (the stream is over),
	//     sess.Context().Done() (the session ended) and h.closing.
	_ = time.NewTicker
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
