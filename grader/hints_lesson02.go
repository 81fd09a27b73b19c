package grader

// hintsLesson02 are the levelled hints of lesson 02's checks: a question,
// a pointer into the Go standard library or the spec, a near-solution.
var hintsLesson02 = map[string]Hint{
	"HTTP-01": {
		"Does a POST to /mcp reach your servePOST at all? What status and body did the report's wire show for initialize?",
		"basic/transports › Streamable HTTP: one MCP endpoint that takes POST. net/http: ServeHTTP dispatches on r.Method; io.ReadAll reads the body; stdio.Decode (your stage 01) turns it into a message.",
		`In ServeHTTP, then in servePOST:

	if r.Method == http.MethodPost {
		h.servePOST(w, r)
		return
	}

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	// …
	msg, reject := stdio.Decode(body)
	// …
	if msg.Method == "initialize" {
		h.serveInitialize(w, r, msg)
		return
	}

serveRequest ends with httpjson.Write(w, http.StatusOK, resp).`,
	},
	"HTTP-02": {
		"What exactly is the body of your answer to tools/list: one JSON object, with Content-Type: application/json?",
		"basic/transports › Sending Messages to the Server: a request is answered with Content-Type: application/json and one JSON object, or with text/event-stream. The given httpjson.Write sets the header, the status and the body in one go.",
		`In serveRequest, for a request without a progress token:

	resp := sess.Handle(h.requestContext(r), msg, nil)
	if resp != nil {
		httpjson.Write(w, http.StatusOK, resp)
	}

Nothing else is written to w, before or after.`,
	},
	"HTTP-03": {
		"What does your server answer to a POST that holds a notification: which status, and is the body really empty?",
		"basic/transports › Sending Messages to the Server: for a notification or a response the server MUST return 202 Accepted with no body. http.ResponseWriter.WriteHeader(http.StatusAccepted) with no Write sends exactly that.",
		`In servePOST, once the session is found:

	if !msg.IsRequest() {
		sess.Handle(h.requestContext(r), msg, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}`,
	},
	"HTTP-04": {
		"Which Accept values does your server let through? Does it notice when application/json or text/event-stream is missing?",
		"The client MUST list both types in Accept (› Sending Messages to the Server). mime.ParseMediaType parses one media range and its q parameter; r.Header.Values(\"Accept\") returns every Accept header; strings.Split on commas splits each into ranges.",
		`In Accepts, for each value and each comma-separated part of it:

	mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
	if err != nil {
		continue
	}
	if q, ok := params["q"]; ok {
		if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
			continue
		}
	}
	if mt == mediaType || mt == major+"/*" || mt == "*/*" {
		return true
	}

In servePOST: if !acceptsBoth(r.Header.Values("Accept")), answer 406 with httpjson.Error and return.`,
	},
	"HTTP-05": {
		"Which status and body does a POST whose body is not JSON get from your server?",
		"› Sending Messages to the Server: input the server cannot accept gets an HTTP error status such as 400. Your stage 01 Decode already returns the -32700 reject; httpjson.Write sends any value as a JSON body with a status.",
		`	msg, reject := stdio.Decode(body)
	if reject != nil {
		httpjson.Write(w, http.StatusBadRequest, reject)
		return
	}`,
	},
	"HTTP-06": {
		"For valid JSON that is no valid message (\"method\": 42, \"id\": null), which status does your server send, and which JSON-RPC code is inside?",
		"JSON-RPC 2.0 §5.1: -32600 Invalid Request; › Sending Messages to the Server: an input the server cannot accept gets an HTTP error status. Decode's reject for such input is already the -32600 error.",
		`Treat every reject from stdio.Decode the same way, with status 400, never 200:

	if reject != nil {
		httpjson.Write(w, http.StatusBadRequest, reject)
		return
	}

If your Decode calls these -32700, fix it in stage 01 (STDIO-11 to STDIO-13).`,
	},
	"HTTP-07": {
		"How much of a body will your server read before it gives up? What does the client see when a body is too large?",
		"net/http: http.MaxBytesReader(w, r.Body, n) stops reading after n bytes and returns an *http.MaxBytesError; errors.As finds it. 413 is http.StatusRequestEntityTooLarge (Content Too Large in RFC 9110).",
		`	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		httpjson.Error(w, http.StatusRequestEntityTooLarge, codeInvalidRequest,
			"the body is larger than %d bytes", tooBig.Limit)
		return
	}
	if err != nil {
		// 400: the body could not be read
	}`,
	},
	"HTTP-08": {
		"Is a request for an unknown method a failure of HTTP, or a normal request whose answer is an error?",
		"JSON-RPC 2.0 §5.1: -32601 Method not found is a response like any other. HTTP only says whether the message got through: it did, so 200. The session answers -32601 for you.",
		`Write whatever the session returns, error responses included, with 200:

	resp := sess.Handle(h.requestContext(r), msg, nil)
	httpjson.Write(w, http.StatusOK, resp)

Do not map JSON-RPC errors to HTTP statuses.`,
	},
	"HTTP-09": {
		"Does the response that carries the InitializeResult have an MCP-Session-Id header? Is it set before the body is written?",
		"› Session Management: the server MAY assign a session id in MCP-Session-Id on the InitializeResult's response, and it MUST only contain visible ASCII (0x21 to 0x7E). net/http drops headers set after WriteHeader or the first Write.",
		`In serveInitialize, stateful mode:

	sess, err := h.sessions.create(h.server, newSessionID())
	// … 503 on errTooManySessions
	resp := sess.Handle(h.requestContext(r), msg, nil)
	// … a failed initialize: h.sessions.remove(sess.ID()) and send resp
	w.Header().Set("MCP-Session-Id", sess.ID()) // before the body
	httpjson.Write(w, http.StatusOK, resp)`,
	},
	"HTTP-10": {
		"If an attacker saw one of your session ids, could they guess the next one? Would a restarted server issue the same ids again?",
		"Security best practices › Session Hijacking: servers MUST use secure, non-deterministic session ids. crypto/rand.Read fills a byte slice from the operating system's cryptographic source; math/rand, counters and timestamps are predictable. encoding/hex keeps the id to visible ASCII.",
		`	func newSessionID() string {
		b := make([]byte, 16) // 128 bits
		if _, err := rand.Read(b); err != nil { // crypto/rand
			panic(err)
		}
		return hex.EncodeToString(b)
	}`,
	},
	"HTTP-11": {
		"What does your server do with a request that carries no MCP-Session-Id once sessions exist: serve it, or refuse it, and with which status?",
		"› Session Management: servers that require a session id SHOULD answer a request without it (other than initialize) with 400 Bad Request; the course requires it. r.Header.Get(\"Mcp-Session-Id\") is \"\" when the header is absent (header names are case-insensitive).",
		`In Session, stateful mode:

	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest, "missing MCP-Session-Id header")
		return nil, nil, false
	}`,
	},
	"HTTP-12": {
		"What happens when a client sends a session id your server never issued? Could it ever end up with a session under that id?",
		"› Session Management: for a session that has ended, or never existed, the server MUST answer 404 Not Found, and the client starts over with initialize. Session ids come only from the server (a client-chosen id is session fixation).",
		`In Session, after the header check:

	sess, release, ok := h.sessions.acquire(id)
	if !ok {
		httpjson.Error(w, http.StatusNotFound, codeSessionNotFound, "session not found: initialize again")
		return nil, nil, false
	}
	return sess, release, true

Only serveInitialize calls create, and always with newSessionID().`,
	},
	"HTTP-13": {
		"Does DELETE reach your handler? After it, what does a request with the deleted id get?",
		"› Session Management: clients SHOULD send DELETE with MCP-Session-Id when done; once a session has ended, its id MUST get 404. 204 No Content is http.StatusNoContent.",
		`Route DELETE to serveDELETE in stateful mode, and there:

	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		// 400
	}
	if !h.sessions.remove(id) {
		// 404
	}
	w.WriteHeader(http.StatusNoContent)

remove calls endLocked, which closes the mcp.Session.`,
	},
	"HTTP-14": {
		"Do two clients with different session ids talk to two different mcp.Session values, or to one shared session?",
		"› Session Management: a session is one client's logically related interactions. mcp.Server.NewSession returns a fresh session with its own notes; keep one per id in a map.",
		`One *mcp.Session per id, created once:

	func (s *sessionStore) create(server *mcp.Server, id string) (*Session, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		// … the cap
		sess := &Session{Session: server.NewSession(), id: id, lastUsed: time.Now()}
		s.byID[id] = sess
		return sess, nil
	}

Each request uses the session acquire returns for its own header, never a field of the Handler.`,
	},
	"HTTP-15": {
		"net/http serves each request on its own goroutine: what in your handler is shared between them, and is every access to it guarded? Is a lock ever held while a request runs?",
		"sync.Mutex around the session map and each session's bookkeeping (lastUsed, active); hold it only while you touch the map. Run the grader with GRADER_RACE=1 so the race detector looks too. basic/transports: one server, many client connections.",
		`Lock only around the map and the bookkeeping; the request runs unlocked:

	func (s *sessionStore) acquire(id string) (*Session, func(), bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		sess, ok := s.byID[id]
		if !ok {
			return nil, nil, false
		}
		sess.active++
		return sess, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			sess.active--
			sess.lastUsed = time.Now()
		}, true
	}`,
	},
	"HTTP-16": {
		"A client that vanishes never sends DELETE: when does its session end in your server? How do you know how long a session has been idle?",
		"› Session Management and security best practices › Session Hijacking: expiring session ids reduces the risk. time.Since(sess.lastUsed) > s.timeout tells you a session is idle; the grader starts your server with -session-timeout 1s.",
		`In acquire, under the lock, before counting the session busy:

	if sess.active == 0 && time.Since(sess.lastUsed) > s.timeout {
		s.endLocked(sess)
		return nil, nil, false
	}

And in sweepLocked(now):

	for _, sess := range s.byID {
		if sess.active == 0 && now.Sub(sess.lastUsed) > s.timeout {
			s.endLocked(sess)
		}
	}`,
	},
	"HTTP-17": {
		"What stops a client from opening sessions until your server runs out of memory? What does the next initialize get when the cap is reached?",
		"The spec sets no limit; the course asks for -max-sessions and 503 Service Unavailable (http.StatusServiceUnavailable) with a Retry-After header beyond it. Ending a session (DELETE, expiry) must free its place.",
		`In create, under the lock:

	if len(s.byID) >= s.max {
		s.sweepLocked(time.Now())
	}
	if len(s.byID) >= s.max {
		return nil, errTooManySessions
	}

In serveInitialize:

	if errors.Is(err, errTooManySessions) {
		w.Header().Set("Retry-After", "30")
		httpjson.Error(w, http.StatusServiceUnavailable, codeServerError, "too many sessions; try again later")
		return
	}`,
	},
	"HTTP-18": {
		"What does your server do with MCP-Protocol-Version: 1999-01-01? And with no MCP-Protocol-Version header at all?",
		"› Protocol Version Header: an invalid or unsupported version MUST get 400 Bad Request; without the header, the server SHOULD assume 2025-03-26 (or use the negotiated version). mcp.LookupVersion finds a version in the table; mcp.HTTPFallbackVersion is 2025-03-26.",
		`	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		pv, ok := mcp.LookupVersion(v)
		if !ok {
			httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest, "unsupported MCP-Protocol-Version %q", v)
			return mcp.ProtocolVersion{}, false
		}
		return pv, true
	}
	if s != nil {
		if pv, ok := s.Version(); ok {
			return pv, true
		}
	}
	pv, _ := mcp.LookupVersion(mcp.HTTPFallbackVersion)
	return pv, true

Call it in servePOST right after Decode: h.ProtocolVersion(w, r, nil).`,
	},
	"HTTP-19": {
		"At 2025-03-26, does a POST whose body is a JSON array reach your stage 01 ServeBatch, at the session's version?",
		"MCP 2025-03-26 › Sending Messages to the Server: a POST body may be a batch of requests and notifications, answered with the responses (or 202 when there are none). stdio.IsBatch and stdio.ServeBatch from stage 01 do the work.",
		`In servePOST, before Decode:

	if stdio.IsBatch(body) {
		h.serveBatch(w, r, body)
		return
	}

In serveBatch:

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
	}`,
	},
	"HTTP-20": {
		"At 2025-11-25, what status does a batch POST get from your server, and which JSON-RPC error is in the body?",
		"› Sending Messages to the Server (2025-11-25): the body MUST be a single JSON-RPC message. stdio.ServeBatch returns a -32600 reject when the version has no batches.",
		`In serveBatch, a reject is a 400 with the reject as its body, never 200 and never an array:

	if reject != nil {
		httpjson.Write(w, http.StatusBadRequest, reject)
		return
	}`,
	},
	"HTTP-21": {
		"What does a GET to /mcp get from your server, and how long does its response take to end, body included?",
		"› Listening for Messages from the Server: the server MUST either return text/event-stream or 405 Method Not Allowed. RFC 9110 §15.5.6: a 405 carries an Allow header. A status says how a response begins, not that it ends.",
		`In ServeHTTP, everything but POST (and DELETE in stateful mode) goes here at once:

	func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", h.allowed())
		httpjson.Error(w, http.StatusMethodNotAllowed, codeInvalidRequest,
			"%s is not supported at this endpoint", r.Method)
	}`,
	},
	"HTTP-22": {
		"When a request carries _meta.progressToken, where do the countdown's progress notifications go, and does the response end after the last event?",
		"› Sending Messages to the Server: the server may answer a request with an SSE stream carrying notifications and then the response, and SHOULD end the stream after the response. h.streams.Open(w, r, sess) starts the stream and returns a Stream, which is an mcp.Peer.",
		`In serveRequest:

	if wantsProgress(msg) {
		stream := h.streams.Open(w, r, sess)
		if resp := sess.Handle(h.requestContext(r), msg, stream); resp != nil {
			stream.Send(r.Context(), resp)
		}
		stream.Close()
		return
	}`,
	},
	"HTTP-23": {
		"The cancellation comes in another POST with the same session id: does it reach the same mcp.Session as the running request? What does your server write when Handle then returns nil?",
		"basic/utilities/cancellation: the receiver should stop and not answer a cancelled request. A POST that holds a request MUST be answered with application/json or text/event-stream, so a cancelled one gets a stream that ends with no event.",
		`Both POSTs go through h.Session, so they reach the same mcp.Session. In serveRequest's JSON branch:

	resp := sess.Handle(h.requestContext(r), msg, nil)
	if resp == nil { // cancelled: no response is coming
		h.streams.Open(w, r, sess).Close()
		return
	}

In the SSE branch, write nothing more when Handle returns nil, and close the stream.`,
	},
	"HTTP-24": {
		"With -stateless, does initialize still set MCP-Session-Id? Does a request with no id, or a made-up one, still get served?",
		"› Session Management: a server MAY assign a session id, so a server without sessions is allowed. Options.Stateless is set by -stateless, and h.sessions is nil then.",
		`	// in serveInitialize:
	if h.opts.Stateless {
		h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg)
		return
	}

	// in Session, before any look at the header:
	if h.opts.Stateless {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}`,
	},
	"HTTP-25": {
		"In stateless mode, what do GET and DELETE get, with which Allow header, and does the response end at once?",
		"› Listening for Messages from the Server: 405 Method Not Allowed when the server offers no SSE stream at the endpoint. A stateless server has neither a stream nor a session to delete. allowed() returns \"POST\" when stateless.",
		`Check the method first:

	switch {
	case r.Method == http.MethodPost:
		h.servePOST(w, r)
	case r.Method == http.MethodDelete && !h.opts.Stateless:
		h.serveDELETE(w, r)
	default:
		h.methodNotAllowed(w, r) // Allow: POST when stateless
	}`,
	},
	"HTTP-26": {
		"In stateless mode, is a note saved by one request visible to the next? Which mcp.Session serves each stateless request?",
		"› Session Management: without a session id nothing ties two requests together, so nothing may carry over. mcp.Server.NewSession makes a fresh, empty session.",
		`Never keep a shared session in the Handler for stateless mode. In Session and serveInitialize, every stateless request gets its own:

	&Session{Session: h.server.NewSession()}`,
	},
	"HTTP-27": {
		"What does your server do with a body whose Content-Type is text/plain, or missing? And with application/json; charset=utf-8?",
		"mime.ParseMediaType(r.Header.Get(\"Content-Type\")) returns the media type in lower case, without its parameters. 415 is http.StatusUnsupportedMediaType.",
		`At the top of servePOST, after the Accept check:

	if !isJSON(r.Header.Get("Content-Type")) {
		httpjson.Error(w, http.StatusUnsupportedMediaType, codeServerError,
			"the body must be Content-Type: application/json")
		return
	}`,
	},
	"HTTP-28": {
		"When a body is too large, how much of it has your server read by the time it answers 413: the limit, or the whole body?",
		"http.MaxBytesReader stops reading at its limit, whatever the body's length; r.ContentLength is -1 for a chunked body, so a check of it alone lets a chunked body through. io.ReadAll(r.Body) reads everything first.",
		`Read through the limit, never around it:

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		// 413 at once: the rest of the body is never read
	}`,
	},
	"HTTP-29": {
		"When does a session's idle time start again: when it is created, when a request starts, or when a request ends? And can the sweeper end a session whose request is still running?",
		"Lesson 02, step 2: acquire counts a session busy (active++), release takes the lock, does active-- and sets lastUsed = time.Now(); acquire and sweepLocked end a session only when active == 0 and it has been idle longer than the timeout.",
		`	return sess, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		sess.active--
		sess.lastUsed = time.Now() // idle from now on
	}, true

and in acquire and sweepLocked:

	if sess.active == 0 && now.Sub(sess.lastUsed) > s.timeout {
		s.endLocked(sess)
	}`,
	},
	"HTTP-30": {
		"Which context does a request run under: the connection's, which ends when the client hangs up, or one that ends only when the client cancels or the session ends?",
		"r.Context() is cancelled when the client's connection closes. context.WithoutCancel keeps its values without its cancellation. basic/transports › Sending Messages to the Server: disconnection SHOULD NOT be taken for cancellation.",
		`Run every request under the given h.requestContext(r), which in stateful mode is

	context.WithoutCancel(r.Context())

and never under r.Context() itself: sess.Handle(h.requestContext(r), msg, stream).`,
	},
}
