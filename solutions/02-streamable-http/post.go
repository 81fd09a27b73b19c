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
	// @step 1: serve a POST: check its headers, read its body, hand the message on
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

	// @step 3: a batch goes to serveBatch
	if stdio.IsBatch(body) {
		h.serveBatch(w, r, body)
		return
	}
	// @was 1
	// | // TODO(step 3): a body that is a JSON array goes to h.serveBatch.
	// @end
	msg, reject := stdio.Decode(body)
	if reject != nil {
		httpjson.Write(w, http.StatusBadRequest, reject)
		return
	}
	// @step 3: refuse a bad MCP-Protocol-Version at once
	// A version this server does not speak is refused before anything else
	// is looked at: that is what tells a newer client to fall back.
	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
	// @was 1
	// | // TODO(step 3): refuse a bad MCP-Protocol-Version header at once,
	// | // with h.ProtocolVersion(w, r, nil).
	// @end
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
	// @starter
	// | // TODO(step 1), in this order:
	// | //   - refuse a POST whose Accept does not list both types (acceptsBoth)
	// | //     with a 4xx, and a body that is not Content-Type: application/json
	// | //     (isJSON) with 415;
	// | //   - read the body through http.MaxBytesReader(w, r.Body,
	// | //     h.opts.MaxBodyBytes); answer 413 when it is too large;
	// | //   - TODO(step 3): a body that is a JSON array goes to h.serveBatch;
	// | //   - stdio.Decode the body; send a reject as the body of a 400;
	// | //   - TODO(step 3): refuse a bad MCP-Protocol-Version header at once,
	// | //     with h.ProtocolVersion(w, r, nil);
	// | //   - an initialize request goes to h.serveInitialize;
	// | //   - anything else belongs to a session: h.Session(w, r), and call the
	// | //     done function it returns when the request is over;
	// | //   - a notification or a response: hand it to the session, answer 202
	// | //     with no body;
	// | //   - a request: h.serveRequest.
	// | _ = stdio.Decode
	// @end
}

// serveInitialize starts a session. In stateful mode the response carries the
// new session's id in the MCP-Session-Id header.
func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	// @step 6: in stateless mode, a fresh session, and no id
	if h.opts.Stateless {
		h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg)
		return
	}
	// @was 2
	// | // TODO(step 6): in stateless mode, serve initialize as in step 1, in a
	// | // fresh session, without MCP-Session-Id.
	// @end
	// @step 2: a session of its own, under a new id
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
	// @was 1: a fresh session for every initialize
	// | // TODO(step 2): in stateful mode, refuse an initialize that carries an
	// | // MCP-Session-Id (400); create the session with
	// | // h.sessions.create(h.server, newSessionID()) (503 with Retry-After when
	// | // the store is full); run initialize in it; and if it succeeds, set the
	// | // MCP-Session-Id header before writing the response. A failed initialize
	// | // starts nothing: remove the session again.
	// | //
	// | // TODO(step 6): in stateless mode, keep the step 1 behaviour.
	// | h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg)
	// @starter
	// | // TODO(step 1): for now, serve initialize with a fresh session:
	// | // h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg).
	// | //
	// | // TODO(step 2): in stateful mode, refuse an initialize that carries an
	// | // MCP-Session-Id (400); create the session with
	// | // h.sessions.create(h.server, newSessionID()) (503 with Retry-After when
	// | // the store is full); run initialize in it; and if it succeeds, set the
	// | // MCP-Session-Id header before writing the response. A failed initialize
	// | // starts nothing: remove the session again.
	// | //
	// | // TODO(step 6): in stateless mode, keep the step 1 behaviour.
	// @end
}

// Session finds the session a request belongs to and marks it busy until
// done is called. In stateless mode every request gets a fresh session of
// its own, and the header is ignored. On failure, Session writes the error
// response itself: 400 without the header, 404 for an id that is unknown,
// expired or deleted (basic/transports, "Session Management").
func (h *Handler) Session(w http.ResponseWriter, r *http.Request) (sess *Session, done func(), ok bool) {
	// @step 6: in stateless mode, a fresh session, whatever the header says
	if h.opts.Stateless {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}
	// @was 2
	// | // TODO(step 6): in stateless mode, a fresh session for every request,
	// | // as in step 1, whatever MCP-Session-Id says.
	// @end
	// @step 2: the session the header names
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
	// @was 1: a fresh session for every request
	// | // TODO(step 2): read MCP-Session-Id; missing: 400; h.sessions.acquire
	// | // fails: 404. TODO(step 6): stateless mode keeps the step 1 behaviour.
	// | return &Session{Session: h.server.NewSession()}, func() {}, true
	// @starter
	// | // TODO(step 1): until you have sessions, give every request a fresh one:
	// | // return &Session{Session: h.server.NewSession()}, func() {}, true
	// | //
	// | // TODO(step 2): read MCP-Session-Id; missing: 400; h.sessions.acquire
	// | // fails: 404. TODO(step 6): stateless mode keeps the step 1 behaviour.
	// | httpjson.Error(w, http.StatusNotImplemented, codeServerError, "sessions are not written yet")
	// | return nil, nil, false
	// @end
}

// serveRequest runs a request and sends its response: as a single JSON
// object, or as an SSE stream when the client asked for progress
// notifications, which must travel before the response.
func (h *Handler) serveRequest(w http.ResponseWriter, r *http.Request, sess *Session, msg *jsonrpc.Message) {
	// @step 5: an SSE stream for a request that wants progress
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
	// @was 1: JSON for every request
	// | httpjson.Write(w, http.StatusOK, sess.Handle(h.requestContext(r), msg, nil))
	// | //
	// | // TODO(step 5): when wantsProgress(msg), answer with an SSE stream
	// | // instead: stream := h.streams.Open(w, r, sess) is the session's Peer
	// | // for the request; send the response on it as the last event, then
	// | // stream.Close() and return. When Handle returns nil (the request was
	// | // cancelled), there is no response to send: answer with a stream that
	// | // ends at once, h.streams.Open(w, r, sess).Close().
	// @starter
	// | // TODO(step 1): run sess.Handle(h.requestContext(r), msg, nil) and write
	// | // the response with httpjson.Write and 200.
	// | //
	// | // TODO(step 5): when wantsProgress(msg), answer with an SSE stream
	// | // instead: stream := h.streams.Open(w, r, sess) is the session's Peer
	// | // for the request; send the response on it as the last event, then
	// | // stream.Close() and return. When Handle returns nil (the request was
	// | // cancelled), there is no response to send: answer with a stream that
	// | // ends at once, h.streams.Open(w, r, sess).Close().
	// @end
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
// versions stdio.ServeBatch refuses them, and the refusal is a 400.
func (h *Handler) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	// @step 3: the batch, at the session's version
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
	// @starter
	// | // TODO(step 3): find the session as servePOST does, and the batch's
	// | // version with h.ProtocolVersion(w, r, sess): the header, else what the
	// | // session negotiated. Then stdio.ServeBatch(h.requestContext(r),
	// | // sess.Session, version, body, nil): a reject is a 400, no responses is
	// | // a 202, else 200 with the array.
	// @end
}
