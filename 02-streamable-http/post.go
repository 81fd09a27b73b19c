package streamable

import (
	"encoding/json"
	"net/http"

	stdio "mcpcourse/01-stdio"

	"mcpcourse/internal/httpjson"
	"mcpcourse/internal/jsonrpc"
)

// servePOST serves one message (or, at 2025-03-26, one batch) sent by the
// client (basic/transports, "Sending Messages to the Server").
func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request) {
	// TODO(step 1), in this order:
	//   - refuse a POST whose Accept does not list both types (acceptsBoth)
	//     with a 4xx, and a body that is not Content-Type: application/json
	//     (isJSON) with 415;
	//   - read the body through http.MaxBytesReader(w, r.Body,
	//     h.opts.MaxBodyBytes); answer 413 when it is too large;
	//   - TODO(step 3): a body that is a JSON array goes to h.serveBatch;
	//   - stdio.Decode the body; send a reject as the body of a 400;
	//   - TODO(step 3): refuse a bad MCP-Protocol-Version header at once,
	//     with h.ProtocolVersion(w, r, nil);
	//   - an initialize request goes to h.serveInitialize;
	//   - anything else belongs to a session: h.Session(w, r), and call the
	//     done function it returns when the request is over;
	//   - a notification or a response: hand it to the session, answer 202
	//     with no body;
	//   - a request: h.serveRequest.
	_ = stdio.Decode
}

// serveInitialize starts a session. In stateful mode the response carries the
// new session's id in the MCP-Session-Id header.
func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	// TODO(step 1): for now, serve initialize with a fresh session:
	// h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg).
	//
	// TODO(step 2): in stateful mode, refuse an initialize that carries an
	// MCP-Session-Id (400); create the session with
	// h.sessions.create(h.server, newSessionID()) (503 with Retry-After when
	// the store is full); run initialize in it; and if it succeeds, set the
	// MCP-Session-Id header before writing the response. A failed initialize
	// starts nothing: remove the session again.
	//
	// TODO(step 6): in stateless mode, keep the step 1 behaviour.
}

// Session finds the session a request belongs to and marks it busy until
// done is called. In stateless mode every request gets a fresh session of
// its own, and the header is ignored. On failure, Session writes the error
// response itself: 400 without the header, 404 for an id that is unknown,
// expired or deleted (basic/transports, "Session Management").
func (h *Handler) Session(w http.ResponseWriter, r *http.Request) (sess *Session, done func(), ok bool) {
	// TODO(step 1): until you have sessions, give every request a fresh one:
	// return &Session{Session: h.server.NewSession()}, func() {}, true
	//
	// TODO(step 2): read MCP-Session-Id; missing: 400; h.sessions.acquire
	// fails: 404. TODO(step 6): stateless mode keeps the step 1 behaviour.
	httpjson.Error(w, http.StatusNotImplemented, codeServerError, "sessions are not written yet")
	return nil, nil, false
}

// serveRequest runs a request and sends its response: as a single JSON
// object, or as an SSE stream when something has to travel before the
// response (the request's own messages, or the progress it asked for).
func (h *Handler) serveRequest(w http.ResponseWriter, r *http.Request, sess *Session, msg *jsonrpc.Message) {
	// TODO(step 1): run sess.Handle(h.requestContext(r), msg, nil) and write
	// the response with httpjson.Write and 200.
	//
	// TODO(step 5): give the request a reply of its own, rp :=
	// h.newReply(w, r, sess), and pass it to sess.Handle as the request's
	// Peer: what the request sends before its response turns the answer
	// into an SSE stream. When wantsProgress(msg), open the stream at
	// once (rp.open()). Then stream := rp.end(): a stream gets the
	// response as its last event, then Close; no stream, the response as
	// JSON. When Handle returns nil (the request was cancelled), close
	// the stream, or answer with one that ends at once,
	// h.streams.Open(w, r, sess).Close().
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
	// TODO(step 3): find the session as servePOST does, and the batch's
	// version with h.ProtocolVersion(w, r, sess): the header, else what the
	// session negotiated. Then stdio.ServeBatch(h.requestContext(r),
	// sess.Session, version, body, nil): a reject is a 400, no responses is
	// a 202, else 200 with the array.
	//
	// TODO(step 5): pass a reply, rp := h.newReply(w, r, sess), instead of
	// nil, as serveRequest does; when rp.end() returns a stream, send each
	// response on it, close it, and return.
}
