package variants

// Files of the reference that lesson 02's variants edit.
const (
	httpHandler  = "solutions/02-streamable-http/handler.go"
	httpPost     = "solutions/02-streamable-http/post.go"
	httpReply    = "solutions/02-streamable-http/reply.go"
	httpSessions = "solutions/02-streamable-http/sessions.go"
	httpHeaders  = "solutions/02-streamable-http/headers.go"
)

// lesson02 are mistakes in a Streamable HTTP server (stage 02).
var lesson02 = []*Variant{
	// Step 1: POST.
	{
		Name: "initialize-without-server-info", Lesson: "02", Kills: []string{"HTTP-01", "HTTP-24"},
		Mistake: `spells "serverInfo" as "server_info" in the InitializeResult`,
		Edits:   editServerInfoSpelling,
	},
	{
		Name: "response-in-an-array", Lesson: "02", Kills: []string{"HTTP-02"},
		Mistake: "wraps the single response to a request in a JSON array",
		Edits: []Edit{{File: httpPost,
			Old: `		httpjson.Write(w, http.StatusOK, resp) // nothing came before it: plain JSON`,
			New: `		httpjson.Write(w, http.StatusOK, []any{resp})`,
		}},
	},
	{
		Name: "notification-gets-200", Lesson: "02", Kills: []string{"HTTP-03", "HTTP-07", "HTTP-23", "HTTP-24", "HTTP-32", "HTTP-34"},
		Mistake: "answers a notification with 200 OK instead of 202 Accepted",
		Edits: []Edit{{File: httpPost,
			Old: `		sess.Handle(h.requestContext(r), msg, nil)
		w.WriteHeader(http.StatusAccepted)`,
			New: `		sess.Handle(h.requestContext(r), msg, nil)
		w.WriteHeader(http.StatusOK)`,
		}},
	},
	{
		Name: "ignores-accept", Lesson: "02", Kills: []string{"HTTP-04", "HTTP-40"},
		Mistake: "never looks at the Accept header",
		Edits: []Edit{{File: httpHeaders,
			Old: `	return Accepts(header, "application/json") && Accepts(header, "text/event-stream")`,
			New: `	return true`,
		}},
	},
	{
		Name: "bad-input-gets-200", Lesson: "02", Kills: []string{"HTTP-05", "HTTP-06", "HTTP-40"},
		Mistake: "sends the parse or validation error with status 200, as if the input had been accepted",
		Edits: []Edit{{File: httpPost,
			Old: `	msg, reject := stdio.Decode(body)
	if reject != nil {
		httpjson.Write(w, http.StatusBadRequest, reject)`,
			New: `	msg, reject := stdio.Decode(body)
	if reject != nil {
		httpjson.Write(w, http.StatusOK, reject)`,
		}},
	},
	{
		Name: "no-body-limit", Lesson: "02", Kills: []string{"HTTP-07", "HTTP-28", "HTTP-34", "HTTP-40", "HTTP-41"},
		Mistake: "reads the whole body, however large",
		Edits: []Edit{{File: httpPost,
			Old: `io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))`,
			New: `io.ReadAll(r.Body)`,
		}},
	},
	{
		Name: "unknown-method-is-an-http-error", Lesson: "02", Kills: []string{"HTTP-08"},
		Mistake: "answers an unknown method with 400 text/plain, as the official Go SDK does, instead of a -32601 response",
		Edits: []Edit{{File: httpPost,
			Old: `	case resp != nil:
		httpjson.Write(w, http.StatusOK, resp) // nothing came before it: plain JSON`,
			New: `	case resp != nil && resp.Error != nil && resp.Error.Code == jsonrpc.CodeMethodNotFound:
		http.Error(w, resp.Error.Message, http.StatusBadRequest)
	case resp != nil:
		httpjson.Write(w, http.StatusOK, resp)`,
		}},
	},

	// Step 2: sessions.
	{
		Name: "session-id-with-a-space", Lesson: "02", Kills: []string{"HTTP-09"},
		Mistake: `makes session ids such as "session 3f9a…", with a space, which is not visible ASCII`,
		Edits: []Edit{{File: httpSessions,
			Old: `	return hex.EncodeToString(b[:])`,
			New: `	return "session " + hex.EncodeToString(b[:])`,
		}},
	},
	{
		Name: "counter-session-ids", Lesson: "02", Kills: []string{"HTTP-10", "HTTP-33"},
		Mistake: "numbers sessions with a counter: session-1, session-2, …",
		Edits: []Edit{
			{File: httpSessions,
				Old: sessionIDImports,
				New: "\t\"strconv\"\n"},
			{File: httpSessions,
				Old: sessionIDBody,
				New: `	sessionCounter++ // create holds the store's lock
	return "session-" + strconv.Itoa(sessionCounter)
}

var sessionCounter int`},
		},
	},
	{
		Name: "64-bit-session-ids", Lesson: "02", Kills: []string{"HTTP-10"},
		Mistake: "makes session ids of 8 random bytes: 64 bits, half of what the course asks",
		Edits: []Edit{{File: httpSessions,
			Old: `	var b [16]byte`,
			New: `	var b [8]byte`,
		}},
	},
	{
		Name: "math-rand-with-a-fixed-seed", Lesson: "02", Kills: []string{"HTTP-10", "HTTP-33"},
		Mistake: "takes session ids from math/rand seeded with a constant, so every run issues the same ids",
		Edits: []Edit{
			{File: httpSessions,
				Old: "\t\"crypto/rand\"\n",
				New: "\t\"math/rand\"\n"},
			{File: httpSessions,
				Old: `	if _, err := rand.Read(b[:]); err != nil {`,
				New: `	if _, err := idSource.Read(b[:]); err != nil {`},
			{File: httpSessions,
				Old: `// create starts a session`,
				New: `var idSource = rand.New(rand.NewSource(1)) // reproducible, for tests

// create starts a session`},
		},
	},
	{
		Name: "missing-session-gets-200", Lesson: "02", Kills: []string{"HTTP-11", "HTTP-40"},
		Mistake: "answers a request without MCP-Session-Id with 200 and a JSON-RPC error, as the official Go SDK does",
		Edits: []Edit{{File: httpPost,
			Old: `	if id == "" {
		httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest,`,
			New: `	if id == "" {
		httpjson.Error(w, http.StatusOK, codeInvalidRequest,`,
		}},
	},
	{
		Name: "adopts-client-session-ids", Lesson: "02", Kills: []string{"HTTP-12", "HTTP-13", "HTTP-16", "HTTP-36"},
		Mistake: "starts a session under any id a client sends that it does not know",
		Edits: []Edit{{File: httpPost,
			Old: `	sess, release, ok := h.sessions.acquire(id)
	if !ok {`,
			New: `	sess, release, ok := h.sessions.acquire(id)
	if !ok {
		h.sessions.create(h.server, id) // a new client: start its session
		sess, release, ok = h.sessions.acquire(id)
	}
	if !ok {`,
		}},
	},
	{
		Name: "delete-keeps-the-session", Lesson: "02", Kills: []string{"HTTP-13", "HTTP-17"},
		Mistake: "answers DELETE with 204 but keeps the session alive",
		Edits: []Edit{{File: httpHandler,
			Old: `	if !h.sessions.remove(id) {`,
			New: `	_, release, found := h.sessions.acquire(id) // it will time out by itself
	if found {
		release()
	}
	if !found {`,
		}},
	},
	{
		Name: "one-session-for-everyone", Lesson: "02", Kills: []string{"HTTP-10", "HTTP-14", "HTTP-15", "HTTP-16", "HTTP-17", "HTTP-20", "HTTP-29", "HTTP-36", "HTTP-38", "HTTP-40", "HTTP-41", "HTTP-42"},
		Mistake: "hands out new ids but serves them all with one shared mcp.Session",
		Edits: []Edit{
			{File: httpSessions,
				Old: `	byID map[string]*Session`,
				New: `	byID map[string]*Session
	everyone *mcp.Session`},
			{File: httpSessions,
				Old: `	sess := &Session{Session: server.NewSession(), id: id, lastUsed: time.Now()}`,
				New: `	if s.everyone == nil {
		s.everyone = server.NewSession()
	}
	sess := &Session{Session: s.everyone, id: id, lastUsed: time.Now()}`},
		},
	},
	{
		// HTTP-29 catches it when its steady requests queue behind the
		// slow one long enough for the session to time out, which a loaded
		// machine's timing may not give.
		Name: "one-lock-for-everything", Lesson: "02", Kills: []string{"HTTP-13", "HTTP-15", "HTTP-23", "HTTP-32"},
		Racy: true, MayKill: []string{"HTTP-29"},
		Mistake: "holds one mutex for the whole of every request, to be safe, so a slow request stops everyone",
		Edits: []Edit{
			{File: httpHandler,
				Old: `	log      *log.Logger
}`,
				New: `	log      *log.Logger
	mu       sync.Mutex
}`},
			{File: httpHandler,
				Old: "\t\"net/http\"\n\t\"time\"\n",
				New: "\t\"net/http\"\n\t\"sync\"\n\t\"time\"\n"},
			{File: httpHandler,
				Old: `	switch {
	case r.Method == http.MethodPost:`,
				New: `	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case r.Method == http.MethodPost:`},
		},
	},
	{
		Name: "sessions-never-expire", Lesson: "02", Kills: []string{"HTTP-16", "HTTP-36", "HTTP-41", "HTTP-42"},
		Mistake: "does not pass the session timeout on to the session store",
		Edits: []Edit{{File: httpHandler,
			Old: `newSessionStore(opts.SessionTimeout, opts.MaxSessions)`,
			New: `newSessionStore(365*24*time.Hour, opts.MaxSessions)`,
		}},
	},
	{
		Name: "no-session-cap", Lesson: "02", Kills: []string{"HTTP-17", "HTTP-40", "HTTP-41"},
		Mistake: "starts a session for every initialize, however many there already are",
		Edits: []Edit{{File: httpSessions,
			Old: `	if len(s.byID) >= s.max {
		s.sweepLocked(time.Now())
		if len(s.byID) >= s.max {
			return nil, errTooManySessions
		}
	}
`,
			New: ``,
		}},
	},

	// Step 3: the version header, and batches.
	{
		Name: "ignores-protocol-version-header", Lesson: "02", Kills: []string{"HTTP-18", "HTTP-24", "HTTP-40"},
		Mistake: "never reads MCP-Protocol-Version: the session already knows its version",
		Edits: []Edit{{File: httpHeaders,
			Old: `	values := r.Header.Values(ProtocolVersionHeader)`,
			New: `	var values []string // the session knows its version`,
		}},
	},
	{
		Name: "no-batches", Lesson: "02", Kills: []string{"HTTP-19", "HTTP-24", "HTTP-38"},
		Mistake: "refuses JSON-RPC batches even at 2025-03-26, which requires them",
		Edits:   editNoBatches,
	},
	{
		Name: "batches-at-every-version", Lesson: "02", Kills: []string{"HTTP-20"},
		Mistake: "serves JSON-RPC batches whatever protocol version the request carries",
		Edits:   editBatchesAtEveryVersion,
	},

	// Step 4: GET.
	{
		Name: "get-holds-the-body-open", Lesson: "02", Kills: []string{"HTTP-21"},
		Mistake: "sends a 405 status line for GET at once, but leaves the response body open until the client gives up",
		Edits: []Edit{{File: httpHandler,
			Old: `	switch {
	case r.Method == http.MethodPost:`,
			New: `	switch {
	case r.Method == http.MethodGet && !h.opts.Stateless:
		w.Header().Set("Allow", "POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
		http.NewResponseController(w).Flush()
		<-r.Context().Done() // nothing more to say
	case r.Method == http.MethodPost:`,
		}},
	},
	{
		Name: "405-without-allow", Lesson: "02", Kills: []string{"HTTP-21", "HTTP-25"},
		Mistake: "answers 405 without an Allow header",
		Edits: []Edit{{File: httpHandler,
			Old: `	w.Header().Set("Allow", h.allowed())
`,
			New: ``,
		}},
	},

	// Step 5: progress and cancellation.
	{
		Name: "request-messages-to-the-outlet", Lesson: "02", Kills: []string{"HTTP-22", "HTTP-31", "HTTP-32"},
		Mistake: "gives a request no Peer of its own, so its progress and its messages go to the session's outlet, which over HTTP at stage 02 is nowhere",
		Edits: []Edit{{File: httpPost,
			Old: `	resp := sess.Handle(ctx, msg, rp)`,
			New: `	resp := sess.Handle(ctx, msg, nil)`,
		}},
	},
	{
		Name: "messages-only-with-a-progress-token", Lesson: "02", Kills: []string{"HTTP-31", "HTTP-32"},
		Mistake: "gives a request its reply only when it carries a progress token, so the log message or the question of a request without one has no stream to travel on",
		Edits: []Edit{{File: httpPost,
			Old: `	resp := sess.Handle(ctx, msg, rp)`,
			New: `	var resp *jsonrpc.Message
	if wantsProgress(msg) {
		resp = sess.Handle(ctx, msg, rp)
	} else {
		resp = sess.Handle(ctx, msg, nil) // no token: JSON, and nothing to send first
	}`,
		}},
	},
	{
		Name: "upgrade-writes-json-after-sse", Lesson: "02", Kills: []string{"HTTP-14", "HTTP-15", "HTTP-22", "HTTP-26", "HTTP-31", "HTTP-32", "HTTP-37", "HTTP-42"},
		Mistake: "writes the response as a JSON body even when the answer has already become an SSE stream, so it is not an event the client can read",
		Edits: []Edit{{File: httpPost,
			Old: `		if resp != nil {
			stream.Send(ctx, resp)
		}
		stream.Close()`,
			New: `		if resp != nil {
			httpjson.Write(w, http.StatusOK, resp)
		}
		stream.Close()`,
		}},
	},
	{
		Name: "messages-buffered-until-response", Lesson: "02", Kills: []string{"HTTP-32"},
		Mistake: "holds a request's messages back until its response says whether the answer is JSON or SSE, so a tool that waits for the client's answer to its question waits for ever",
		Edits:   editBufferUntilResponse(),
	},
	{
		Name: "stream-left-open", Lesson: "02", Kills: []string{"HTTP-14", "HTTP-15", "HTTP-22", "HTTP-23", "HTTP-26", "HTTP-31", "HTTP-32", "HTTP-37", "HTTP-42"},
		Mistake: "keeps a request's SSE stream open after the response, in case there is more to say, so a client that reads to the end (add_note's, in every session) waits for ever",
		Edits: []Edit{{File: httpPost,
			Old: `		if resp != nil {
			stream.Send(ctx, resp)
		}
		stream.Close()`,
			New: `		if resp != nil {
			stream.Send(ctx, resp)
		}
		<-r.Context().Done() // stay open for anything else
		stream.Close()`,
		}},
	},
	{
		Name: "ignores-cancellation", Lesson: "02", Kills: []string{"HTTP-23"},
		Mistake: "reads notifications/cancelled and does nothing with it",
		Edits:   editIgnoresCancellation,
	},

	// Step 6: stateless mode.
	{
		Name: "stateless-wants-a-session", Lesson: "02", Kills: []string{"HTTP-24", "HTTP-26", "HTTP-39"},
		Mistake: "in stateless mode, still refuses requests that carry no MCP-Session-Id",
		Edits: []Edit{{File: httpPost,
			Old: `	if h.opts.Stateless {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}`,
			New: `	if h.opts.Stateless && r.Header.Get(SessionIDHeader) == "" {
		httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest, "missing %s header", SessionIDHeader)
		return nil, nil, false
	}
	if h.opts.Stateless {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}`,
		}},
	},
	{
		Name: "stateless-get-opens-a-stream", Lesson: "02", Kills: []string{"HTTP-25"},
		Mistake: "in stateless mode, answers GET by opening an SSE stream it never writes to (the course's seed bug)",
		Edits: []Edit{{File: httpHandler,
			Old: `	switch {
	case r.Method == http.MethodPost:`,
			New: `	switch {
	case r.Method == http.MethodGet && h.opts.Stateless:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		<-r.Context().Done() // nothing to send yet
	case r.Method == http.MethodPost:`,
		}},
	},
	{
		Name: "stateless-shares-one-session", Lesson: "02", Kills: []string{"HTTP-26"},
		Mistake: "in stateless mode, serves every request with one shared mcp.Session",
		Edits: []Edit{
			{File: httpPost,
				Old: `	if h.opts.Stateless {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}`,
				New: `	if h.opts.Stateless {
		return h.everyone, func() {}, true
	}`},
			{File: httpHandler,
				Old: `	log      *log.Logger
}`,
				New: `	log      *log.Logger
	everyone *Session // serves every stateless request
}`},
			{File: httpHandler,
				Old: `	if !opts.Stateless {
		h.sessions = newSessionStore(opts.SessionTimeout, opts.MaxSessions)
	}`,
				New: `	if !opts.Stateless {
		h.sessions = newSessionStore(opts.SessionTimeout, opts.MaxSessions)
	}
	h.everyone = &Session{Session: server.NewSession()}`},
		},
	},
	// More rules of the lesson a learner can get wrong: headers read as
	// lists, bodies and sessions bounded, sessions ended properly, streams
	// flushed, disconnection told from cancellation.
	{
		Name: "accept-exact-string", Lesson: "02", Kills: []string{"HTTP-04"},
		Mistake: "compares the Accept header with the exact string \"application/json, text/event-stream\", so any other order or spacing gets 406",
		Edits: []Edit{{File: httpHeaders,
			Old: `	return Accepts(header, "application/json") && Accepts(header, "text/event-stream")`,
			New: `	return strings.Join(header, ", ") == "application/json, text/event-stream"`,
		}},
	},
	{
		Name: "accept-ignores-q", Lesson: "02", Kills: []string{"HTTP-04"},
		Mistake: "reads the media types in Accept but not their q parameter, so q=0 (\"not acceptable\") still counts",
		Edits: []Edit{{File: httpHeaders,
			Old: `			if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q == 0 {
				continue
			}
`,
			New: `			_ = params // the quality does not matter: we send what we send
`,
		}, {File: httpHeaders,
			Old: "\t\"strconv\"\n",
			New: "",
		}},
	},
	{
		Name: "ignores-content-type", Lesson: "02", Kills: []string{"HTTP-27", "HTTP-40"},
		Mistake: "reads any body as JSON, whatever its Content-Type says",
		Edits: []Edit{{File: httpPost,
			Old: `	if !isJSON(r.Header.Get("Content-Type")) {`,
			New: `	if false { // the body will tell us soon enough`,
		}},
	},
	{
		Name: "content-type-exact-string", Lesson: "02", Kills: []string{"HTTP-27"},
		Mistake: "compares Content-Type with the exact string application/json, so application/json; charset=utf-8 gets 415",
		Edits: []Edit{{File: httpPost,
			Old: `	if !isJSON(r.Header.Get("Content-Type")) {`,
			New: `	if r.Header.Get("Content-Type") != "application/json" {`,
		}},
	},
	{
		Name: "read-whole-body-then-413", Lesson: "02", Kills: []string{"HTTP-28"},
		Mistake: "reads the whole body with io.ReadAll, then answers 413 if it is over the limit: a 512 MiB body is read into memory first",
		Edits: []Edit{{File: httpPost,
			Old: `	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))`,
			New: `	body, err := io.ReadAll(r.Body)
	if err == nil && int64(len(body)) > h.opts.MaxBodyBytes {
		err = &http.MaxBytesError{Limit: h.opts.MaxBodyBytes}
	}`,
		}},
	},
	{
		Name: "response-gets-an-answer", Lesson: "02", Kills: []string{"HTTP-03", "HTTP-32"},
		Mistake: "treats only notifications as needing no answer, so the client's response to a server request is answered like a request",
		Edits: []Edit{{File: httpPost,
			Old: `	if !msg.IsRequest() {
		// A notification, or a response to a request of ours`,
			New: `	if msg.IsNotification() {
		// A notification, or a response to a request of ours`,
		}},
	},
	{
		Name: "initialize-joins-a-session", Lesson: "02", Kills: []string{"HTTP-09", "HTTP-17", "HTTP-40"},
		Mistake: "serves an initialize that carries MCP-Session-Id by starting yet another session, instead of refusing it",
		Edits: []Edit{{File: httpPost,
			Old: `	if r.Header.Get(SessionIDHeader) != "" {
		httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest,
			"initialize starts a new session: send it without the %s header", SessionIDHeader)
		return
	}
`,
			New: ``,
		}},
	},
	{
		Name: "math-rand-session-ids", Lesson: "02", Kills: []string{"HTTP-10", "HTTP-33"},
		Mistake: "makes session ids of 32 hex digits from math/rand, seeded with the time: they look random, and are predictable",
		Edits: []Edit{
			{File: httpSessions,
				Old: sessionIDImports,
				New: "\t\"fmt\"\n\t\"math/rand\"\n"},
			{File: httpSessions,
				Old: sessionIDBody,
				New: `	idMu.Lock()
	defer idMu.Unlock()
	return fmt.Sprintf("%016x%016x", idSource.Uint64(), idSource.Uint64())
}

var (
	idMu     sync.Mutex
	idSource = rand.New(rand.NewSource(time.Now().UnixNano())) // a new seed every run
)`},
		},
	},
	{
		Name: "session-ids-from-math-rand", Lesson: "02", Kills: []string{"HTTP-33"},
		Mistake: "makes session ids of 32 hex digits from math/rand/v2's rand.Uint64: no test of the ids can tell them from crypto/rand's, and math/rand/v2 is no cryptographic source",
		Edits: []Edit{
			{File: httpSessions,
				Old: sessionIDImports,
				New: "\t\"fmt\"\n\t\"math/rand/v2\"\n"},
			{File: httpSessions,
				Old: sessionIDBody,
				New: `	return fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64())
}`},
		},
	},
	{
		Name: "notifications-skip-the-session-check", Lesson: "02", Kills: []string{"HTTP-11", "HTTP-12", "HTTP-40"},
		Mistake: "answers every notification 202 at once, whether its session exists or not, since a notification needs no answer",
		Edits: []Edit{{File: httpPost,
			Old: `	sess, done, ok := h.Session(w, r)
	if !ok {
		return
	}
	defer done()
	if !msg.IsRequest() {`,
			New: `	if !msg.IsRequest() && !h.opts.Stateless {
		// Nothing to answer, so no session to look up first.
		if sess, release, ok := h.sessions.acquire(r.Header.Get(SessionIDHeader)); ok {
			sess.Handle(h.requestContext(r), msg, nil)
			release()
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	sess, done, ok := h.Session(w, r)
	if !ok {
		return
	}
	defer done()
	if !msg.IsRequest() {`,
		}},
	},
	{
		Name: "delete-leaves-requests-running", Lesson: "02", Kills: []string{"HTTP-13"},
		Mistake: "on DELETE, forgets the session without closing it, so what runs in it carries on",
		Edits: []Edit{{File: httpSessions,
			Old: `	expired := sess.active == 0 && time.Since(sess.lastUsed) > s.timeout
	s.endLocked(sess)
	return !expired`,
			New: `	expired := sess.active == 0 && time.Since(sess.lastUsed) > s.timeout
	delete(s.byID, id)
	return !expired`,
		}},
	},
	{
		Name: "no-sweep", Lesson: "02", Kills: []string{"HTTP-16", "HTTP-36", "HTTP-42"},
		Mistake: "expires sessions only when a request names them, so expired sessions keep their places under the cap",
		Edits: []Edit{{File: httpSessions,
			Old: `		if sess.active == 0 && now.Sub(sess.lastUsed) > s.timeout {
			s.endLocked(sess)
		}`,
			New: `		_ = sess // acquire expires them when they are next used`,
		}},
	},
	{
		Name: "503-without-retry-after", Lesson: "02", Kills: []string{"HTTP-17"},
		Mistake: "refuses an initialize beyond the cap with 503 but no Retry-After header",
		Edits: []Edit{{File: httpPost,
			Old: `		w.Header().Set("Retry-After", "30")
`,
			New: ``,
		}},
	},
	{
		Name: "failed-initialize-keeps-its-session", Lesson: "02", Kills: []string{"HTTP-17"},
		Mistake: "keeps the session of an initialize that failed, so each failed initialize takes a place under the cap",
		Edits: []Edit{{File: httpPost,
			Old: `		h.sessions.remove(sess.id) // a failed initialize starts nothing
`,
			New: ``,
		}},
	},
	{
		Name: "last-used-never-refreshed", Lesson: "02", Kills: []string{"HTTP-29"},
		Mistake: "sets a session's lastUsed when it starts and never again, so a session in steady use expires",
		Edits: []Edit{{File: httpSessions,
			Old: `		sess.active--
		sess.lastUsed = time.Now()`,
			New: `		sess.active--`,
		}},
	},
	{
		Name: "busy-sessions-expire", Lesson: "02", Kills: []string{"HTTP-29"},
		Mistake: "expires a session by its idle time alone, even while one of its requests is running",
		Edits: []Edit{
			{File: httpSessions,
				Old: `	if sess.active == 0 && time.Since(sess.lastUsed) > s.timeout {`,
				New: `	if time.Since(sess.lastUsed) > s.timeout {`},
			{File: httpSessions,
				Old: `		if sess.active == 0 && now.Sub(sess.lastUsed) > s.timeout {`,
				New: `		if now.Sub(sess.lastUsed) > s.timeout {`},
		},
	},
	{
		Name: "delete-ignores-protocol-version", Lesson: "02", Kills: []string{"HTTP-18", "HTTP-40"},
		Mistake: "checks MCP-Protocol-Version on POST only, so a DELETE with an unsupported version ends the session",
		Edits: []Edit{{File: httpHandler,
			Old: `	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
`,
			New: ``,
		}},
	},
	{
		Name: "batches-unless-2025-11-25", Lesson: "02", Kills: []string{"HTTP-20"},
		Mistake: "refuses batches only when the version is exactly 2025-11-25, so it serves them at 2025-06-18",
		Edits:   editBatchesUnless20251125,
	},
	{
		Name: "absent-version-ignores-the-session", Lesson: "02", Kills: []string{"HTTP-20"},
		Mistake: "without MCP-Protocol-Version, always assumes 2025-03-26, even in a session that negotiated 2025-11-25",
		Edits: []Edit{{File: httpHeaders,
			Old: `		if s != nil {
			if v, ok := s.Version(); ok {
				return v, true
			}
		}
`,
			New: ``,
		}},
	},
	{
		Name: "get-checks-the-session-first", Lesson: "02", Kills: []string{"HTTP-21"},
		Mistake: "looks up the session of a GET before refusing it, so a GET with an unknown session id gets 404 instead of 405",
		Edits: []Edit{{File: httpHandler,
			Old: `	switch {
	case r.Method == http.MethodPost:`,
			New: `	switch {
	case r.Method == http.MethodGet && r.Header.Get(SessionIDHeader) != "" && !h.opts.Stateless:
		if _, done, ok := h.Session(w, r); ok { // only a known session may even ask
			done()
			h.methodNotAllowed(w, r)
		}
	case r.Method == http.MethodPost:`,
		}},
	},
	{
		Name: "allow-lists-get", Lesson: "02", Kills: []string{"HTTP-21"},
		Mistake: "lists GET in the Allow header of the 405 that refuses GET",
		Edits: []Edit{{File: httpHandler,
			Old: `	return "POST, DELETE"
}`,
			New: `	return "GET, POST, DELETE" // the methods of the MCP endpoint
}`,
		}},
	},
	{
		Name: "sse-never-flushes", Lesson: "02", Kills: []string{"HTTP-22", "HTTP-32"},
		Mistake: "writes each SSE event without flushing it, so every progress event arrives at once, with the response",
		Edits: []Edit{{File: "internal/sse/sse.go",
			Old: `	s.err = s.rc.Flush()
	return s.err
}`,
			New: `	return nil // the ResponseWriter sends it in good time
}`,
		}},
	},
	{
		Name: "cancelled-request-gets-204", Lesson: "02", Kills: []string{"HTTP-23"},
		Mistake: "answers a cancelled request that was to get JSON with 204 No Content, which is neither JSON nor SSE",
		Edits: []Edit{{File: httpPost,
			Old: `breaks no rule.
		h.streams.Open(w, r, sess).Close()`,
			New: `breaks no rule.
		w.WriteHeader(http.StatusNoContent) // nothing to say`,
		}},
	},
	{
		Name: "request-context-is-the-connection", Lesson: "02", Kills: []string{"HTTP-30"},
		Mistake: "runs every request under r.Context(), so a client that drops its connection cancels its request",
		Edits: []Edit{{File: httpHandler,
			Old: `	return context.WithoutCancel(r.Context())`,
			New: `	return r.Context()`,
		}},
	},

	// The independent mistake hunt (issue 17): each a neighbour of a rule's
	// boundary, table or refusal that the checks above did not reach.
	{
		Name: "body-limit-one-byte-short", Lesson: "02", Kills: []string{"HTTP-07", "HTTP-34"},
		Mistake: "hands MaxBytesReader one byte less than the limit, so a body of exactly -max-body bytes gets 413",
		Edits: []Edit{{File: httpPost,
			Old: `http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))`,
			New: `http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes-1)) // the limit itself is already too much`,
		}},
	},
	{
		Name: "body-limit-one-byte-over", Lesson: "02", Kills: []string{"HTTP-07", "HTTP-34", "HTTP-40"},
		Mistake: "hands MaxBytesReader one byte more than the limit, so a body one byte over -max-body is served",
		Edits: []Edit{{File: httpPost,
			Old: `http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))`,
			New: `http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes+1)) // +1, to tell "at the limit" from "over it"`,
		}},
	},
	{
		Name: "max-body-flag-ignored", Lesson: "02", Kills: []string{"HTTP-34", "HTTP-40", "HTTP-41"},
		Mistake: "limits the body with the constant DefaultMaxBodyBytes, so -max-body changes nothing",
		Edits: []Edit{{File: httpPost,
			Old: `http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))`,
			New: `http.MaxBytesReader(w, r.Body, DefaultMaxBodyBytes))`,
		}},
	},
	{
		Name: "accept-q-zero-compared-as-text", Lesson: "02", Kills: []string{"HTTP-04"},
		Mistake: "takes a type away only when its q parameter is the text \"0\", so q=0.0 and q=0.000 still accept it",
		Edits: []Edit{{File: httpHeaders,
			Old: `			if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q == 0 {`,
			New: `			if params["q"] == "0" { // "not acceptable"`,
		}, {File: httpHeaders,
			Old: "\t\"strconv\"\n",
			New: "",
		}},
	},
	{
		Name: "content-type-prefix-match", Lesson: "02", Kills: []string{"HTTP-27"},
		Mistake: "takes any Content-Type that begins with application/json for JSON, so application/json-seq and application/jsonl are read as JSON",
		Edits: []Edit{{File: httpHeaders,
			Old: `	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"`,
			New: `	// "application/json", or the same with parameters such as "; charset=utf-8".
	return strings.HasPrefix(strings.ToLower(contentType), "application/json")`,
		}},
	},
	{
		Name: "endpoint-at-every-path", Lesson: "02", Kills: []string{"HTTP-35"},
		Mistake: "mounts the handler at \"/\", so every path of the server is an MCP endpoint",
		Edits: []Edit{{File: "solutions/02-streamable-http/cmd/server/main.go",
			Old: `	mux.Handle("/mcp", handler)`,
			New: `	mux.Handle("/", handler) // the MCP endpoint, whatever path a client uses`,
		}},
	},
	{
		Name: "version-header-any-known-revision", Lesson: "02", Kills: []string{"HTTP-18"},
		Mistake: "checks MCP-Protocol-Version against every revision the course knows (mcp.LookupRevision), so 2024-11-05 and 2026-07-28 are accepted",
		Edits: []Edit{{File: httpHeaders,
			Old: `	v, ok := mcp.LookupVersion(values[0])`,
			New: `	v, ok := mcp.LookupRevision(values[0])`,
		}},
	},
	{
		Name: "second-version-header-ignored", Lesson: "02", Kills: []string{"HTTP-18"},
		Mistake: "reads the first MCP-Protocol-Version line only, so a request that carries the header twice is served at the first version",
		Edits: []Edit{{File: httpHeaders,
			Old: `	if !ok || len(values) > 1 {`,
			New: `	if !ok {`,
		}},
	},
	{
		Name: "empty-version-header-taken-as-absent", Lesson: "02", Kills: []string{"HTTP-18", "HTTP-24"},
		Mistake: "decides \"no header\" with r.Header.Get(...) == \"\", so an empty MCP-Protocol-Version is served as if it were missing",
		Edits: []Edit{{File: httpHeaders,
			Old: `	if len(values) == 0 {`,
			New: `	if r.Header.Get(ProtocolVersionHeader) == "" { // no header`,
		}},
	},
	{
		Name: "absent-version-assumes-the-latest", Lesson: "02", Kills: []string{"HTTP-24"},
		Mistake: "without the header or a session version, assumes the newest version instead of 2025-03-26, so a stateless batch without the header gets 400",
		Edits: []Edit{{File: httpHeaders,
			Old: `		v, _ := mcp.LookupVersion(mcp.HTTPFallbackVersion)
		return v, true
	}
	v, ok := mcp.LookupVersion(values[0])`,
			New: `		return mcp.LatestVersion, true // nothing says otherwise: the newest we speak
	}
	v, ok := mcp.LookupVersion(values[0])`,
		}},
	},
	{
		Name: "version-refusal-still-serves-the-request", Lesson: "02", Kills: []string{"HTTP-18", "HTTP-40"},
		Mistake: "writes the 400 for a bad MCP-Protocol-Version, then serves the message all the same",
		Edits: []Edit{{File: httpPost,
			Old: `	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
	// @was 1`,
			New: `	h.ProtocolVersion(w, r, nil) // answers 400 itself when the header is bad
	// @was 1`,
		}},
	},
	{
		Name: "refused-initialize-still-starts-a-session", Lesson: "02", Kills: []string{"HTTP-17", "HTTP-40"},
		Mistake: "answers an initialize that carries MCP-Session-Id with 400 but does not return, so it starts a session all the same, which takes a place under the cap",
		Edits: []Edit{{File: httpPost,
			Old: `			"initialize starts a new session: send it without the %s header", SessionIDHeader)
		return
	}`,
			New: `			"initialize starts a new session: send it without the %s header", SessionIDHeader)
	}`,
		}},
	},
	{
		Name: "expired-session-served-until-the-sweep", Lesson: "02", Kills: []string{"HTTP-36"}, Racy: true,
		Mistake: "leaves expiry to the sweeper: acquire serves a session idle past its timeout until the next sweep, and makes it young again",
		Edits: []Edit{{File: httpSessions,
			Old: `	if sess == nil {
		return nil, nil, false
	}
	if sess.active == 0 && time.Since(sess.lastUsed) > s.timeout {
		s.endLocked(sess)
		return nil, nil, false
	}`,
			New: `	if sess == nil {
		return nil, nil, false // unknown, or ended (the sweeper ends idle sessions)
	}`,
		}},
	},
	{
		Name: "delete-of-an-expired-session-succeeds", Lesson: "02", Kills: []string{"HTTP-36"}, Racy: true,
		Mistake: "answers DELETE of a session that has expired, but has not been swept yet, with 204, as if it had been live",
		Edits: []Edit{{File: httpSessions,
			Old: `	expired := sess.active == 0 && time.Since(sess.lastUsed) > s.timeout
	s.endLocked(sess)
	return !expired`,
			New: `	s.endLocked(sess)
	return true`,
		}},
	},
	{
		Name: "progress-stream-opened-late", Lesson: "02", Kills: []string{"HTTP-37"},
		Mistake: "no longer opens the stream of a request with a progress token at once: its first progress does, so the client sees nothing until then, and a request that reports none is answered as JSON",
		Edits: []Edit{{File: httpPost,
			Old: `	rp := h.newReply(w, r, sess)
	if wantsProgress(msg) {`,
			New: `	rp := h.newReply(w, r, sess) // its first progress notification opens the stream
	if false && wantsProgress(msg) {`,
		}},
	},
	{
		Name: "batch-requests-speak-to-no-one", Lesson: "02", Kills: []string{"HTTP-38"},
		Mistake: "hands stdio.ServeBatch a nil peer, as in step 3, so what a batch's requests send before their responses goes nowhere",
		Edits: []Edit{{File: httpPost,
			Old: `	responses, reject := stdio.ServeBatch(ctx, sess.Session, version, body, rp)`,
			New: `	responses, reject := stdio.ServeBatch(ctx, sess.Session, version, body, nil) // a batch is answered all at once`,
		}},
	},
	{
		Name: "reply-send-without-its-lock", Lesson: "02", Kills: []string{"HTTP-38"}, Racy: true,
		Mistake: "sends without rp.mu (\"the stream is safe for concurrent use\"), so the first messages of a batch's requests, sent at once, open two streams on one response",
		Edits: []Edit{{File: httpReply,
			Old: `	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.ended {
		return errAnswered
	}`,
			New: `	// No lock here: the stream is safe for concurrent use.
	if rp.ended {
		return errAnswered
	}`,
		}},
	},
	{
		Name: "stateless-disconnect-cancels-nothing", Lesson: "02", Kills: []string{"HTTP-39"},
		Mistake: "detaches every request from its connection, stateless ones too, so nothing can ever stop a stateless request whose client has gone",
		Edits: []Edit{{File: httpHandler,
			Old: `	if h.opts.Stateless {
		return r.Context()
	}
	return context.WithoutCancel(r.Context())`,
			New: `	return context.WithoutCancel(r.Context()) // a disconnection is not a cancellation`,
		}},
	},
}

// editBufferUntilResponse holds a request's messages in its reply until
// the response, unless its stream is already open (a progress token opens
// it at once), and only then sends them.
func editBufferUntilResponse() []Edit {
	return []Edit{
		{File: httpReply,
			Old: `	ended  bool   // end was called: the answer is settled`,
			New: `	ended  bool   // end was called: the answer is settled
	held   []*jsonrpc.Message`},
		{File: httpReply,
			Old: `	rp.openLocked()
	return rp.stream.Send(ctx, msg)`,
			New: `	if rp.stream == nil {
		rp.held = append(rp.held, msg) // JSON or SSE: the response will tell
		return nil
	}
	return rp.stream.Send(ctx, msg)`},
		{File: httpReply,
			Old: `	rp.ended = true
	return rp.stream`,
			New: `	rp.ended = true
	if len(rp.held) > 0 {
		rp.openLocked()
		for _, m := range rp.held {
			rp.stream.Send(context.Background(), m)
		}
	}
	return rp.stream`},
	}
}

// What the reference's newSessionID is made of, which every variant of its
// source of randomness replaces: its imports, and its body.
const (
	sessionIDImports = "\t\"crypto/rand\"\n\t\"encoding/hex\"\n"
	sessionIDBody    = `	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // cannot happen on supported systems
	}
	return hex.EncodeToString(b[:])
}`
)
