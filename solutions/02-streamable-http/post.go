package streamable

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	stdio "mcpcourse/solutions/01-stdio"

	"mcpcourse/internal/httpjson"
	"mcpcourse/internal/jsonrpc"
)

// servePOST serves one message (or, at 2025-03-26, one batch) sent by the
// client (basic/transports, "Sending Messages to the Server").
func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request) {
	if !acceptsBoth(r.Header.Values("Accept")) {
		httpjson.Error(w, http.StatusNotAcceptable, codeServerError,
			"the Accept header must list both application/json and text/event-stream")
		return
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		// Not a spec rule, but a cheap guard: a web page can POST text/plain
		// to any origin without asking first, and never application/json.
		httpjson.Error(w, http.StatusUnsupportedMediaType, codeServerError, "the body must be Content-Type: application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpjson.Error(w, http.StatusRequestEntityTooLarge, codeServerError, "the body is larger than %d bytes", h.opts.MaxBodyBytes)
			return
		}
		httpjson.Error(w, http.StatusBadRequest, codeServerError, "reading the body: %v", err)
		return
	}

	if stdio.IsBatch(body) {
		h.serveBatch(w, r, body)
		return
	}
	msg, reject := stdio.Decode(body)
	if reject != nil {
		httpjson.Write(w, http.StatusBadRequest, reject)
		return
	}
	// A version this server does not speak is refused before anything else
	// is looked at: that is what tells a newer client to fall back.
	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
	if msg.IsRequest() && msg.Method == "initialize" {
		h.serveInitialize(w, r, msg)
		return
	}

	sess, done, ok := h.Session(w, r)
	if !ok {
		return
	}
	defer done()
	if !msg.IsRequest() {
		// A notification, or a response to a request of ours: nothing to
		// send back (basic/transports: "202 Accepted with no body").
		sess.Handle(h.requestContext(r), msg, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.serveRequest(w, r, sess, msg)
}

// serveInitialize starts a session. In stateful mode the response carries the
// new session's id in the MCP-Session-Id header.
func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	if h.opts.Stateless {
		h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg)
		return
	}
	if r.Header.Get(SessionIDHeader) != "" {
		httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest,
			"initialize starts a new session: send it without the %s header", SessionIDHeader)
		return
	}
	sess, err := h.sessions.create(h.server, newSessionID())
	if err != nil {
		w.Header().Set("Retry-After", "30")
		httpjson.Error(w, http.StatusServiceUnavailable, codeServerError,
			"this server already holds %d sessions, its limit; try again later", h.opts.MaxSessions)
		return
	}
	resp := sess.Handle(h.requestContext(r), msg, nil)
	if resp == nil || resp.Error != nil {
		h.sessions.remove(sess.id) // a failed initialize starts nothing
		httpjson.Write(w, http.StatusOK, resp)
		return
	}
	h.log.Printf("session %s… started", shortID(sess.id))
	w.Header().Set(SessionIDHeader, sess.id)
	httpjson.Write(w, http.StatusOK, resp)
}

// Session finds the session a request belongs to and marks it busy until
// done is called. In stateless mode every request gets a fresh session of
// its own, and the header is ignored. On failure, Session writes the error
// response itself: 400 without the header, 404 for an id that is unknown,
// expired or deleted (basic/transports, "Session Management").
func (h *Handler) Session(w http.ResponseWriter, r *http.Request) (sess *Session, done func(), ok bool) {
	if h.opts.Stateless {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}
	id := r.Header.Get(SessionIDHeader)
	if id == "" {
		httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest,
			"missing %s header: send initialize first, then the id it returns with every request", SessionIDHeader)
		return nil, nil, false
	}
	sess, release, ok := h.sessions.acquire(id)
	if !ok {
		httpjson.Error(w, http.StatusNotFound, codeSessionNotFound,
			"no session %q: it never existed, has expired or was deleted; start a new one with initialize", id)
		return nil, nil, false
	}
	return sess, release, true
}

// serveRequest runs a request and sends its response: as a single JSON
// object, or as an SSE stream when the client asked for progress
// notifications, which must travel before the response.
func (h *Handler) serveRequest(w http.ResponseWriter, r *http.Request, sess *Session, msg *jsonrpc.Message) {
	ctx := h.requestContext(r)
	if !wantsProgress(msg) {
		if resp := sess.Handle(ctx, msg, nil); resp != nil {
			httpjson.Write(w, http.StatusOK, resp)
			return
		}
		// The request was cancelled, and a cancelled request gets no
		// response. A POST that holds a request must still be answered
		// with JSON or with an SSE stream (MUST): a stream that ends
		// without an event says "no response" and breaks no rule.
		h.streams.Open(w, r, sess).Close()
		return
	}
	stream := h.streams.Open(w, r, sess)
	defer stream.Close()
	if resp := sess.Handle(ctx, msg, stream); resp != nil {
		stream.Send(ctx, resp)
	}
	// Returning ends the stream: the response was the last thing on it
	// (basic/transports: the server SHOULD terminate the SSE stream after
	// the response).
}

// wantsProgress reports whether a request carries _meta.progressToken.
func wantsProgress(msg *jsonrpc.Message) bool {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	return json.Unmarshal(msg.Params, &p) == nil && p.Meta.ProgressToken != nil
}

// serveBatch serves a JSON-RPC batch. Only 2025-03-26 has batches; at later
// versions ServeBatch refuses them, and the refusal is a 400.
func (h *Handler) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	sess, done, ok := h.Session(w, r)
	if !ok {
		return
	}
	defer done()
	version, ok := h.ProtocolVersion(w, r, sess)
	if !ok {
		return
	}
	responses, reject := stdio.ServeBatch(h.requestContext(r), sess.Session, version, body, nil)
	switch {
	case reject != nil:
		httpjson.Write(w, http.StatusBadRequest, reject)
	case len(responses) == 0:
		w.WriteHeader(http.StatusAccepted)
	default:
		httpjson.Write(w, http.StatusOK, responses)
	}
}
