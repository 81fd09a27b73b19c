package steps

import "mcpcourse/grader/variants"

// The reference files the undos edit.
const (
	stdioServe    = "solutions/01-stdio/serve.go"
	stdioDecode   = "solutions/01-stdio/decode.go"
	httpPost      = "solutions/02-streamable-http/post.go"
	httpHandler   = "solutions/02-streamable-http/handler.go"
	resumeGET     = "solutions/03-sse-resume/get.go"
	resumeStream  = "solutions/03-sse-resume/stream.go"
	originHandler = "solutions/04-origin/handler.go"
	originAllow   = "solutions/04-origin/allowlist.go"
	originSocket  = "solutions/04-origin/websocket.go"
	originListen  = "solutions/04-origin/host.go"
)

var lesson01 = &Lesson{
	Number: "01",
	Steps:  6,
	Undos: []Undo{
		{Step: 6, Edits: []variants.Edit{{File: stdioServe,
			// Before step 6, Serve is a plain loop: no select on the
			// context or on a failed write, no waiting at end of input.
			Old: `	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	c := &conn{session: srv.NewSession(), out: newLineWriter(out), slots: make(chan struct{}, MaxInFlight),
		work: make(chan func()), quit: make(chan struct{})}
	c.session.Attach(c) // what the server says on its own (log messages) goes to stdout too
	defer c.session.Close()
	defer close(c.quit) // the idle workers leave

	lines := make(chan line)`,
			New: `	// TODO(step 6): a clean shutdown. Read lines on a goroutine of its own,
	// and select on them, on ctx and on a failed write; at the end of
	// input, wait for the requests still running. The loop below is the
	// plain one of steps 1 to 5; what follows it is the reference's.
	c := &conn{session: srv.NewSession(), out: newLineWriter(out), slots: make(chan struct{}, MaxInFlight),
		work: make(chan func()), quit: make(chan struct{})}
	c.session.Attach(c)
	defer close(c.quit)
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		l, err := readLine(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		c.handleLine(ctx, l)
	}
	cancel := func() {}
	lines := make(chan line)`,
		}}},
		{Step: 5, Edits: []variants.Edit{{File: stdioServe,
			// Before step 5, an array goes to Decode like any line.
			Old: `	if IsBatch(data) {`,
			New: `	if false { // TODO(step 5): batches, at the versions that have them (IsBatch)`,
		}}},
		{Step: 4, Edits: []variants.Edit{
			// Before step 4, one request at a time, and Send does nothing.
			{File: stdioServe,
				Old: `		c.run(func() {
			defer c.release()
			if resp := c.session.Handle(ctx, msg, c); resp != nil {
				c.out.send(resp)
			}
		})`,
				New: `		// TODO(step 4): run each request on a goroutine of its own.
		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.out.send(resp)
		}
		c.release()`},
			{File: stdioServe,
				Old: `func (c *conn) Send(_ context.Context, msg *jsonrpc.Message) error { return c.out.send(msg) }`,
				New: `func (c *conn) Send(_ context.Context, msg *jsonrpc.Message) error {
	return nil // TODO(step 4): write msg as one line, as a response is written
}`},
		}},
		{Step: 3, Edits: []variants.Edit{{File: stdioServe,
			// Before step 3, a blank line is decoded like any other.
			Old: `	if len(data) == 0 {
		return // blank lines carry no message
	}
`,
			New: `	// TODO(step 3): a blank line carries no message.
`,
		}}},
		{Step: 2, Edits: []variants.Edit{{File: stdioDecode,
			// Step 1's Decode: straight into jsonrpc.Message.
			Old: `	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) == 0 || data[0] != '{' {`,
			New: `	if true { // TODO(step 2): decode in two passes, as below, instead
		naive := new(jsonrpc.Message)
		if err := json.Unmarshal(data, naive); err != nil {
			return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: %v", err))
		}
		return naive, nil
	}
	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) == 0 || data[0] != '{' {`,
		}}},
	},
	Early: map[int][]string{
		1: {"STDIO-10", "STDIO-14", "STDIO-19", "STDIO-22"},
		2: {"STDIO-14", "STDIO-19", "STDIO-21", "STDIO-22"},
		3: {"STDIO-19", "STDIO-21", "STDIO-22"},
		4: {"STDIO-21"},
	},
}

var lesson02 = &Lesson{
	Number: "02",
	Steps:  6,
	Undos: []Undo{
		{Step: 6, Edits: []variants.Edit{
			// Before step 6, nothing knows stateless mode, whose handler
			// has no session store.
			{File: httpPost,
				Old: `	if h.opts.Stateless {
		h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg)
		return
	}
`,
				New: `	// TODO(step 6): in stateless mode, serve initialize like any request, in a fresh session.
`},
			{File: httpPost,
				Old: `	if h.opts.Stateless {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}
`,
				New: `	// TODO(step 6): in stateless mode, a fresh session for every request.
`},
		}},
		{Step: 5, Edits: []variants.Edit{{File: httpPost,
			// Before step 5, every answer is JSON.
			Old: `	ctx := h.requestContext(r)
	if !wantsProgress(msg) {`,
			New: `	if true { // TODO(step 5): a request with a progress token gets an SSE stream, as below
		httpjson.Write(w, http.StatusOK, sess.Handle(h.requestContext(r), msg, nil))
		return
	}
	ctx := h.requestContext(r)
	if !wantsProgress(msg) {`,
		}}},
		{Step: 4, Edits: []variants.Edit{{File: httpHandler,
			// Before step 4, the starter's 501 answers the rest.
			Old: `		h.methodNotAllowed(w, r)
	}
}`,
			New: `		// TODO(step 4): 405 Method Not Allowed, with Allow, at once.
		httpjson.Error(w, http.StatusNotImplemented, codeServerError, "not written yet")
	}
}`,
		}}},
		{Step: 3, Edits: []variants.Edit{
			// Before step 3, no version header and no batches.
			{File: httpPost,
				Old: `	if stdio.IsBatch(body) {`,
				New: `	if false { // TODO(step 3): batches, at 2025-03-26 only`},
			{File: httpPost,
				Old: `	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
	if msg.IsRequest() && msg.Method == "initialize" {`,
				New: `	// TODO(step 3): refuse an unsupported MCP-Protocol-Version (h.ProtocolVersion).
	if msg.IsRequest() && msg.Method == "initialize" {`},
			{File: httpHandler,
				Old: `	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
	id := r.Header.Get(SessionIDHeader)`,
				New: `	// TODO(step 3): refuse an unsupported MCP-Protocol-Version (h.ProtocolVersion).
	id := r.Header.Get(SessionIDHeader)`},
		}},
		{Step: 2, Edits: []variants.Edit{
			// Step 1: a fresh session for every message, no ids, and
			// DELETE is not routed yet.
			{File: httpPost,
				Old: `func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {`,
				New: `func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	if true { // TODO(step 2): a session with an id, as below
		h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg)
		return
	}`},
			{File: httpPost,
				Old: `func (h *Handler) Session(w http.ResponseWriter, r *http.Request) (sess *Session, done func(), ok bool) {`,
				New: `func (h *Handler) Session(w http.ResponseWriter, r *http.Request) (sess *Session, done func(), ok bool) {
	if true { // TODO(step 2): look the session up by its MCP-Session-Id, as below
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}`},
			{File: httpHandler,
				Old: `	case r.Method == http.MethodDelete && !h.opts.Stateless:`,
				New: `	case false: // TODO(step 2): DELETE ends a session`},
		}},
	},
	Early: map[int][]string{
		1: {"HTTP-20", "HTTP-26"},
		2: {"HTTP-20"},
		4: {"HTTP-25"},
		5: {"HTTP-25"},
	},
}

var lesson03 = &Lesson{
	Number: "03",
	Steps:  4,
	Undos: []Undo{
		{Step: 4, Edits: []variants.Edit{{File: resumeGET,
			// Before step 4, a GET with Last-Event-ID opens the standalone
			// stream like any other.
			Old: `	if ids := r.Header.Values(LastEventIDHeader); len(ids) > 0 {
		h.resume(w, r, sess, ids)
		return
	}
`,
			New: `	// TODO(step 4): with a Last-Event-ID header (r.Header.Values), h.resume the stream it names.
`,
		}}},
		{Step: 3, Edits: []variants.Edit{
			// Before step 3, the standalone stream is nobody's outlet,
			// and nothing ticks.
			{File: resumeGET,
				Old: `	if made {
		// Before the headers go out: a client that sees the stream open
		// may at once do what makes the server send it something.
		sess.Attach(s)
	}
`,
				New: `	if made {
		// TODO(step 3): make this stream the session's outlet (sess.Attach),
		// before the headers go out.
	}
`},
			{File: resumeGET,
				Old: `	if made && h.opts.Tick > 0 {
		go tick(sess, h.opts.Tick)
	}
`,
				New: `	// TODO(step 3): the first time (made), start the session's ticker when -tick is set.
`},
		}},
		{Step: 2, Edits: []variants.Edit{
			// Before step 2, POST answers are stage 02's plain streams,
			// and no stream is primed.
			{File: resumeStream,
				Old: `	if h.opts.Stateless {
		return sse.NewStream(w)
	}
`,
				New: `	if true { // TODO(step 2): in stateful mode, a stream with event ids, primed at 2025-11-25, as below
		return sse.NewStream(w)
	}
`},
			{File: resumeGET,
				Old: `	s.attachLocked(ew)
	if v, _ := sess.Version(); v.Priming {
		s.sendLocked(nil, retryAfter)
	}
`,
				New: `	s.attachLocked(ew)
	// TODO(step 2): a priming event, when the session's version has Priming.
`},
		}},
	},
	Early: map[int][]string{
		1: {"SSE-11", "SSE-13", "SSE-15", "SSE-16", "SSE-18"},
		2: {"SSE-18"},
	},
}

var lesson04 = &Lesson{
	Number: "04",
	Steps:  6,
	Undos: []Undo{
		{Step: 6, Edits: []variants.Edit{{File: originListen,
			// Before step 6, the server listens wherever it is told.
			Old: `	if !allowlisted {`,
			New: `	if false { // TODO(step 6): unless allowlisted, refuse an address that is not loopback`,
		}}},
		{Step: 5, Edits: []variants.Edit{
			// Before step 5, /ws is the starter's 501, and gorilla keeps
			// its own Origin check.
			{File: originSocket,
				Old: `	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r) {`,
				New: `	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if true { // TODO(step 5): the Host check, 503 when full, the upgrade, as below
			http.Error(w, "the WebSocket entry point is not written yet: step 5 of lessons/04-origin.md", http.StatusNotImplemented)
			return
		}
		if !hostAllowed(r) {`},
			{File: originHandler,
				Old: `		CheckOrigin:      h.originAllowed,
`,
				New: `		// TODO(step 5): CheckOrigin: h.originAllowed.
`},
		}},
		{Step: 4, Edits: []variants.Edit{{File: originHandler,
			// Before step 4, no CORS.
			Old: `	h.endpoint = h.guard(grant.Handler(h.mcp))`,
			New: `	_ = grant // TODO(step 4): CORS between the guard and stage 03: h.guard(grant.Handler(h.mcp))
	h.endpoint = h.guard(h.mcp)`,
		}}},
		{Step: 3, Edits: []variants.Edit{{File: originHandler,
			// Before step 3, the guard does not look at Host.
			Old: `		case !hostAllowed(r):`,
			New: `		case false: // TODO(step 3): !hostAllowed(r), the defence against DNS rebinding`,
		}}},
		{Step: 2, Edits: []variants.Edit{
			// Before step 2, step 1's allowlist: exact strings, no
			// default, and every pattern accepted as it is written.
			{File: originAllow,
				Old: `	if len(patterns) == 0 {
		patterns = LoopbackOrigins
	}
`,
				New: `	// TODO(step 2): with no patterns at all, use LoopbackOrigins.
`},
			{File: originAllow,
				Old: `	o, ok := parseOrigin(origin)
	if !ok {
		return false
	}
	for _, p := range a.patterns {
		if p.matches(o) {`,
				New: `	// TODO(step 2): parse origin (parseOrigin), then match it (p.matches).
	for _, p := range a.patterns {
		if p.text == origin {`},
			{File: originAllow,
				Old: `func parsePattern(s string) (pattern, error) {
`,
				New: `func parsePattern(s string) (pattern, error) {
	if true { // TODO(step 2): parse s like an origin, with its wildcards, as below
		return pattern{text: s}, nil
	}
`},
		}},
	},
	Early: map[int][]string{},
}
