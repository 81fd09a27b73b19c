package variants

// Files of the reference that lesson 01's variants edit.
const (
	stdioMain   = "solutions/01-stdio/cmd/server/main.go"
	stdioServe  = "solutions/01-stdio/serve.go"
	stdioDecode = "solutions/01-stdio/decode.go"
	stdioBatch  = "solutions/01-stdio/batch.go"
	stdioWriter = "solutions/01-stdio/writer.go"
	mcpServer   = "internal/mcp/server.go"
	mcpTools    = "internal/mcp/tools.go"
	mcpVersions = "internal/mcp/versions.go"
	jsonrpcGo   = "internal/jsonrpc/jsonrpc.go"
)

// lesson01 are mistakes in a stdio server: in the transport (stage 01), and
// in the protocol logic that the learner's server could get wrong if it did
// not use the given code.
var lesson01 = []*Variant{
	// Output.
	{
		Name: "banner-on-stdout", Lesson: "01", Kills: []string{"STDIO-06"},
		Mistake: "prints a greeting on stdout before serving",
		Edits: []Edit{{File: stdioMain,
			Old: `	log.Print("serving MCP on stdin/stdout")`,
			New: `	os.Stdout.WriteString("notes server ready\n")`,
		}},
	},
	{
		Name: "pretty-printed-output", Lesson: "01",
		Kills: []string{"STDIO-01", "STDIO-02", "STDIO-03", "STDIO-04", "STDIO-05", "STDIO-06", "STDIO-07", "STDIO-08", "STDIO-09",
			"STDIO-10", "STDIO-11", "STDIO-12", "STDIO-13", "STDIO-14", "STDIO-15", "STDIO-16", "STDIO-17", "STDIO-18",
			"STDIO-19", "STDIO-20", "STDIO-21", "STDIO-22", "STDIO-23", "STDIO-24", "STDIO-25", "STDIO-26", "STDIO-27", "STDIO-28",
			"STDIO-29", "STDIO-30", "STDIO-31", "STDIO-32", "STDIO-33"},
		Mistake: "indents its JSON, so one message spans many lines",
		Edits: []Edit{{File: stdioWriter,
			Old: `	enc.SetEscapeHTML(false) // keep "<" as "<": valid either way, but easier to read`,
			New: `	enc.SetIndent("", "  ") // easier to read`,
		}},
	},
	{
		Name: "split-writes", Lesson: "01", Kills: []string{"STDIO-19"}, Racy: true,
		// STDIO-06, STDIO-32 and STDIO-33 send many requests at once too,
		// and a merged line there is the same mistake, seen when the writes
		// happen to interleave. STDIO-24 sends SIGTERM while echoes are being
		// written: a server that exits between a message and its newline
		// leaves stdout ending mid-line.
		MayKill: []string{"STDIO-06", "STDIO-24", "STDIO-32", "STDIO-33"},
		Mistake: "locks each Write, but writes a message and its newline with two of them",
		Edits: []Edit{
			{File: stdioWriter,
				Old: `	lw.mu.Lock()
	defer lw.mu.Unlock()
`,
				New: `	body := buf.Bytes()
	lw.mu.Lock()
	lw.w.Write(body[:len(body)-1]) // the message...
	lw.mu.Unlock()
	lw.mu.Lock() // ...then its newline
	defer lw.mu.Unlock()
`},
			{File: stdioWriter,
				Old: `	if _, err := lw.w.Write(buf.Bytes()); err != nil {`,
				New: `	if _, err := lw.w.Write(body[len(body)-1:]); err != nil {`},
		},
	},
	{
		Name: "ignores-write-errors", Lesson: "01", Kills: []string{"STDIO-23"},
		Mistake: "ignores the error from writing to stdout, so it never notices the client has gone",
		Edits: []Edit{{File: stdioWriter,
			Old: `	if _, err := lw.w.Write(buf.Bytes()); err != nil {
		lw.err = err
		close(lw.failed)
	}
	return lw.err`,
			New: `	lw.w.Write(buf.Bytes()) // if this fails, there is nobody to tell
	return nil`,
		}},
	},

	// Reading.
	{
		Name: "default-scanner-buffer", Lesson: "01", Kills: []string{"STDIO-14", "STDIO-28", "STDIO-32"},
		Mistake: "reads stdin with a bufio.Scanner and its default 64 KiB buffer",
		Edits: []Edit{{File: stdioServe,
			Old: `	r := bufio.NewReaderSize(in, 64<<10)
	for {
		l, err := readLine(r)
		if err != nil {
			errc <- err
			return
		}`,
			New: `	sc := bufio.NewScanner(in)
	for {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				errc <- err
			} else {
				errc <- io.EOF
			}
			return
		}
		l := line{data: append([]byte(nil), sc.Bytes()...)}`,
		}},
	},
	{
		Name: "blank-lines-are-parse-errors", Lesson: "01", Kills: []string{"STDIO-15"},
		Mistake: "decodes blank lines too, and answers each with a parse error",
		Edits: []Edit{{File: stdioServe,
			Old: `	if len(data) == 0 {
		return // blank lines carry no message
	}
`,
			New: ``,
		}},
	},

	// Decoding.
	{
		Name: "no-reply-to-parse-errors", Lesson: "01", Kills: []string{"STDIO-10"},
		Mistake: "stays silent when a line is not JSON",
		Edits: []Edit{{File: stdioServe,
			Old: `	case reject != nil:
		c.out.send(reject) // answer, then carry on with the next line`,
			New: `	case reject != nil && reject.Error.Code == jsonrpc.CodeParseError:
		// Not JSON: nothing sensible to say.
	case reject != nil:
		c.out.send(reject)`,
		}},
	},
	{
		Name: "exit-on-parse-error", Lesson: "01", Kills: []string{"STDIO-10"},
		Mistake: "stops serving at the first line that is not JSON (the official Go SDK's stdio server does this)",
		Edits: []Edit{{File: stdioServe,
			Old: `	case reject != nil:
		c.out.send(reject) // answer, then carry on with the next line`,
			New: `	case reject != nil && reject.Error.Code == jsonrpc.CodeParseError:
		panic(fmt.Sprintf("cannot parse %q", data))
	case reject != nil:
		c.out.send(reject)`,
		}},
	},
	{
		Name: "decode-straight-into-message", Lesson: "01", Kills: []string{"STDIO-11", "STDIO-12", "STDIO-13", "STDIO-20"},
		Mistake: "unmarshals each line straight into jsonrpc.Message and calls every failure a parse error",
		Edits: []Edit{{File: stdioDecode,
			Old: `	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) == 0 || data[0] != '{' {`,
			New: `	var naive jsonrpc.Message
	if err := json.Unmarshal(data, &naive); err != nil {
		return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: %v", err))
	}
	return &naive, nil
	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) == 0 || data[0] != '{' {`,
		}},
	},
	{
		Name: "any-jsonrpc-version", Lesson: "01", Kills: []string{"STDIO-11"},
		Mistake: `only checks that "jsonrpc" is there, not that it says "2.0"`,
		Edits: []Edit{{File: stdioDecode,
			Old: `	var version string
	if json.Unmarshal(raw.JSONRPC, &version) != nil || version != jsonrpc.Version {`,
			New: `	if raw.JSONRPC == nil {`,
		}},
	},
	{
		Name: "null-id-is-a-notification", Lesson: "01", Kills: []string{"STDIO-12"},
		Mistake: `lets "id": null through, so the request is taken for a notification and never answered`,
		Edits: []Edit{{File: stdioDecode,
			Old: `		if raw.ID != nil && id == nil {
			// JSON-RPC allows a null id; MCP does not (basic/index, "Requests").
			return nil, invalid(echo, ` + "`a request id must not be null`" + `)
		}
`,
			New: ``,
		}},
	},

	// Concurrency.
	{
		Name: "serial-requests", Lesson: "01", Kills: []string{"STDIO-16", "STDIO-18", "STDIO-20", "STDIO-23", "STDIO-29", "STDIO-31"},
		Mistake: "runs each request to the end before reading the next line",
		Edits: []Edit{{File: stdioServe,
			Old: `		c.run(func() {
			defer c.release()
			if resp := c.session.Handle(ctx, msg, c); resp != nil {
				c.out.send(resp)
			}
		})
`,
			New: `		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.out.send(resp)
		}
		c.release()
`,
		}},
	},
	{
		Name: "no-peer", Lesson: "01", Kills: []string{"STDIO-17", "STDIO-23"},
		Mistake: "gives the session no Peer, so progress notifications go nowhere",
		Edits: []Edit{{File: stdioServe,
			Old: `			defer c.release()
			if resp := c.session.Handle(ctx, msg, c); resp != nil {`,
			New: `			defer c.release()
			if resp := c.session.Handle(ctx, msg, nil); resp != nil {`,
		}},
	},

	// Batches.
	{
		Name: "batches-at-every-version", Lesson: "01", Kills: []string{"STDIO-21"},
		Mistake: "serves JSON-RPC batches whatever protocol version was negotiated",
		Edits:   editBatchesAtEveryVersion,
	},
	{
		Name: "no-batches", Lesson: "01", Kills: []string{"STDIO-20", "STDIO-26", "STDIO-30", "STDIO-32"},
		Mistake: "refuses JSON-RPC batches even at 2025-03-26, which requires them",
		Edits:   editNoBatches,
	},

	// Shutting down.
	{
		Name: "hang-on-eof", Lesson: "01", Kills: []string{"STDIO-22", "STDIO-30"},
		Mistake: "waits for more input after stdin has ended",
		Edits: []Edit{{File: stdioServe,
			Old: `		l, err := readLine(r)
		if err != nil {`,
			New: `		l, err := readLine(r)
		if err == io.EOF {
			<-ctx.Done() // perhaps more input will come
			return
		}
		if err != nil {`,
		}},
	},
	{
		Name: "drop-in-flight-on-eof", Lesson: "01", Kills: []string{"STDIO-22", "STDIO-30"},
		Mistake: "returns at end of stdin without waiting for the requests still running",
		Edits: []Edit{{File: stdioServe,
			Old: `			select {
			case <-done:
			case <-ctx.Done():
				return ctx.Err()
			case <-c.out.failed:
				return c.shutdown(cancel)
			}
			if errors.Is(err, io.EOF) {`,
			New: `			_ = done // the client is leaving anyway
			if errors.Is(err, io.EOF) {`,
		}},
	},
	{
		Name: "ignores-context", Lesson: "01", Kills: []string{"STDIO-24"},
		Mistake: "never watches ctx.Done() in its loop, so SIGTERM (which main turns into a cancelled context) is swallowed",
		Edits: []Edit{{File: stdioServe,
			Old: `		case <-ctx.Done():
			c.inflight.Wait()
			return ctx.Err()
		}
`,
			New: `		}
`,
		}},
	},

	// More mistakes of the transport: on error paths, in batches, at the
	// edges of a line, when shutting down.
	{
		Name: "null-for-a-batch-of-notifications", Lesson: "01", Kills: []string{"STDIO-20"},
		Mistake: "writes a batch's responses even when there are none, so a batch of notifications gets a bare null line",
		Edits: []Edit{{File: stdioServe,
			Old: `			switch {
			case reject != nil:
				c.out.send(reject)
			case len(responses) > 0:
				c.out.send(responses)
			}`,
			New: `			if reject != nil {
				c.out.send(reject)
				return
			}
			c.out.send(responses) // the answers to the batch, all together`,
		}},
	},
	{
		Name: "debug-print-on-reject", Lesson: "01", Kills: []string{"STDIO-06"},
		Mistake: "prints a debugging line with fmt.Printf (to stdout) whenever it rejects a line",
		Edits: []Edit{{File: stdioServe,
			Old: `	case reject != nil:
		c.out.send(reject) // answer, then carry on with the next line`,
			New: `	case reject != nil:
		fmt.Printf("rejected %s: %s\n", data, reject.Error.Message) // debugging
		c.out.send(reject)`,
		}},
	},
	{
		Name: "batches-unless-2025-11-25", Lesson: "01", Kills: []string{"STDIO-21"},
		Mistake: "refuses batches only when the version is exactly 2025-11-25, so it serves them at 2025-06-18 and before initialize",
		Edits:   editBatchesUnless20251125,
	},
	{
		Name: "initialize-on-a-goroutine", Lesson: "01", Kills: []string{"STDIO-26"}, Racy: true,
		Mistake: "runs initialize on a goroutine like any request, so the line after it may be read before the version is agreed",
		Edits: []Edit{{File: stdioServe,
			Old: `	case msg.Method == "initialize":
		// initialize is answered before the next line is read, so that
		// every message after it sees the protocol version it agreed.
		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.out.send(resp)
		}
`,
			New: ``,
		}},
	},
	{
		Name: "buffered-progress", Lesson: "01", Kills: []string{"STDIO-17", "STDIO-20", "STDIO-23"},
		Mistake: "wraps stdout in a bufio.Writer and flushes it after each response only, so progress notifications wait for the response",
		Edits: []Edit{
			{File: stdioWriter,
				Old: "import (\n\t\"bytes\"\n",
				New: "import (\n\t\"bufio\"\n\t\"bytes\"\n\n\t\"mcpcourse/internal/jsonrpc\"\n"},
			{File: stdioWriter,
				Old: `	return &lineWriter{w: w, failed: make(chan struct{})}`,
				New: `	return &lineWriter{w: bufio.NewWriterSize(w, 64<<10), failed: make(chan struct{})} // fewer system calls`},
			{File: stdioWriter,
				Old: `	if _, err := lw.w.Write(buf.Bytes()); err != nil {`,
				New: `	_, err := lw.w.Write(buf.Bytes())
	if m, ok := v.(*jsonrpc.Message); err == nil && (!ok || m.Method == "") {
		err = lw.w.(*bufio.Writer).Flush() // a response: time to send what we have
	}
	if err != nil {`},
		},
	},
	{
		Name: "drops-last-line-without-newline", Lesson: "01", Kills: []string{"STDIO-25"},
		Mistake: "treats io.EOF as the end before serving the data read with it, so a last line without a newline is lost",
		Edits: []Edit{{File: stdioServe,
			Old: `		case err == io.EOF && (len(l.data) > 0 || l.tooLong):
			if len(l.data) > MaxMessageBytes { // a last line has no newline to allow for
				l = line{tooLong: true}
			}
			return l, nil
`,
			New: ``,
		}},
	},
	{
		Name: "responses-are-invalid", Lesson: "01", Kills: []string{"STDIO-07"},
		Mistake: "requires a method in every message, so it answers a response from the client with -32600",
		Edits: []Edit{{File: stdioDecode,
			Old: `	// No method: this must be a response`,
			New: `	if raw.Method == nil {
		return nil, invalid(echo, ` + "`a message needs a \"method\"`" + `)
	}
	// No method: this must be a response`,
		}},
	},
	{
		Name: "empty-method-is-a-method", Lesson: "01", Kills: []string{"STDIO-13"},
		Mistake: `accepts "method": "" as a method name, so it answers -32601 instead of -32600`,
		Edits: []Edit{{File: stdioDecode,
			Old: `		if json.Unmarshal(raw.Method, &msg.Method) != nil || msg.Method == "" {`,
			New: `		if json.Unmarshal(raw.Method, &msg.Method) != nil {`,
		}},
	},
	{
		Name: "batch-drops-invalid-elements", Lesson: "01", Kills: []string{"STDIO-20"},
		Mistake: "leaves the invalid elements of a batch unanswered, instead of putting their errors in the array",
		Edits: []Edit{{File: stdioBatch,
			Old: `		case reject != nil:
			reply(reject)`,
			New: `		case reject != nil:
			// not a message: nothing to answer`,
		}},
	},
	{
		Name: "write-error-waits-for-requests", Lesson: "01", Kills: []string{"STDIO-23"},
		Mistake: "when stdout fails, waits for the running requests to finish without cancelling them",
		Edits: []Edit{{File: stdioServe,
			Old: `func (c *conn) shutdown(cancel context.CancelFunc) error {
	cancel()`,
			New: `func (c *conn) shutdown(cancel context.CancelFunc) error {
	_ = cancel // let the requests finish first`,
		}},
	},

	// Protocol logic: mistakes a server written without the given code makes.
	{
		Name: "initialize-without-server-info", Lesson: "01", Kills: []string{"STDIO-01"},
		Mistake: `spells "serverInfo" as "server_info" in the InitializeResult`,
		Edits:   editServerInfoSpelling,
	},
	{
		Name: "always-latest-version", Lesson: "01", Kills: []string{"STDIO-02", "STDIO-20", "STDIO-26", "STDIO-30", "STDIO-32"},
		Mistake: "answers initialize with its own latest version, whatever the client asked for",
		Edits: []Edit{{File: mcpVersions,
			Old: `	if v, ok := LookupVersion(requested); ok {
		return v
	}
`,
			New: ``,
		}},
	},
	{
		Name: "ping-returns-null", Lesson: "01", Kills: []string{"STDIO-03", "STDIO-04", "STDIO-27"},
		Mistake: `answers ping with "result": null instead of an empty object`,
		Edits: []Edit{
			{File: mcpServer,
				Old: `		return struct{}{}, nil // ping MUST be answered with an empty result`,
				New: `		return nil, nil`},
			{File: jsonrpcGo,
				Old: "	raw := json.RawMessage(`{}`)",
				New: "	raw := json.RawMessage(`null`)"},
		},
	},
	{
		Name: "ids-as-float64", Lesson: "01", Kills: []string{"STDIO-03"},
		Mistake: "reads integer ids as float64, so ids above 2^53 come back changed",
		Edits: []Edit{{File: jsonrpcGo,
			Old: `		if _, err := strconv.ParseInt(string(data), 10, 64); err != nil {
			return ErrBadID
		}
		id.raw = string(data)`,
			New: `		f, err := strconv.ParseFloat(string(data), 64)
		if err != nil {
			return ErrBadID
		}
		id.raw = strconv.FormatFloat(f, 'f', -1, 64)`,
		}},
	},
	{
		Name: "ping-needs-initialize", Lesson: "01", Kills: []string{"STDIO-04"},
		Mistake: "refuses every request, ping included, until initialize has been answered",
		Edits: []Edit{{File: mcpServer,
			Old: `		return struct{}{}, nil // ping MUST be answered with an empty result`,
			New: `		if _, ok := s.Version(); !ok {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "not initialized")
		}
		return struct{}{}, nil`,
		}},
	},
	{
		Name: "answers-unknown-notifications", Lesson: "01", Kills: []string{"STDIO-07", "STDIO-27"},
		Mistake: "answers a notification it does not know with a -32601 error",
		Edits: []Edit{
			{File: mcpServer,
				Old: `	case msg.IsNotification():
		s.handleNotification(msg)
`,
				New: `	case msg.IsNotification():
		s.handleNotification(msg)
		if msg.Method != "notifications/initialized" && msg.Method != "notifications/cancelled" {
			return jsonrpc.NewErrorResponse(jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %q", msg.Method))
		}
`},
			{File: stdioServe,
				Old: `		c.session.Handle(ctx, msg, c)
	}
}`,
				New: `		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.out.send(resp)
		}
	}
}`},
		},
	},
	{
		Name: "unknown-method-is-invalid-request", Lesson: "01", Kills: []string{"STDIO-08"},
		Mistake: "answers an unknown method with -32600 instead of -32601",
		Edits: []Edit{{File: mcpServer,
			Old: `	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %q", method)`,
			New: `	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "method not found: %q", method)`,
		}},
	},
	{
		Name: "unknown-tool-is-a-tool-error", Lesson: "01", Kills: []string{"STDIO-09"},
		Mistake: "reports a call to an unknown tool as a tool result with isError, not as -32602",
		Edits: []Edit{{File: mcpTools,
			Old: `	if t == nil {`,
			New: `	if t == nil {
		return &ToolResult{Content: []any{TextContent{Type: "text", Text: "no such tool"}}, IsError: true}, nil
	}
	if t == nil {`,
		}},
	},
	{
		Name: "progress-counts-down", Lesson: "01", Kills: []string{"STDIO-17"},
		Mistake: "reports the steps left as progress, so the value goes down",
		Edits: []Edit{{File: mcpTools,
			Old: `req.Progress(ctx, float64(step), float64(total),`,
			New: `req.Progress(ctx, float64(total-step), float64(total),`,
		}},
	},
	{
		Name: "ignores-cancellation", Lesson: "01", Kills: []string{"STDIO-18", "STDIO-20", "STDIO-29"},
		Mistake: "reads notifications/cancelled and does nothing with it",
		Edits:   editIgnoresCancellation,
	},
	{
		Name: "answers-cancelled-requests", Lesson: "01", Kills: []string{"STDIO-18", "STDIO-20", "STDIO-29"},
		Mistake: "stops a cancelled request but still answers it, with a -32800 error",
		Edits: []Edit{{File: mcpServer,
			Old: `		return nil // cancelled by the client, or the transport is gone`,
			New: `		return jsonrpc.NewErrorResponse(id, jsonrpc.NewError(-32800, "request cancelled"))`,
		}},
	},

	// Batches and the version (the mistake hunt).
	{
		Name: "batch-version-before-parse", Lesson: "01", Kills: []string{"STDIO-21"},
		Mistake: "asks the protocol version before it parses the array, so a line starting with [ that is not JSON gets -32600 (no batches) instead of -32700",
		Edits: []Edit{
			{File: stdioBatch,
				Old: `	// @step 5: decode the elements, and serve them at once
	var elems []json.RawMessage`,
				New: `	// @step 5: decode the elements, and serve them at once
	if !version.Batches {
		return nil, invalid(jsonrpc.ID{}, noBatches(version))
	}
	var elems []json.RawMessage`},
			{File: stdioBatch,
				Old: `	if !version.Batches {
		return nil, invalid(jsonrpc.ID{}, noBatches(version))
	}
	if len(elems) == 0 {`,
				New: `	if len(elems) == 0 {`},
		},
	},
	{
		Name: "batch-version-from-initialize-request", Lesson: "01", Kills: []string{"STDIO-20", "STDIO-21"},
		Mistake: "takes the protocol version from the client's initialize request instead of asking the session, so a second, refused initialize switches batches on or off",
		Edits: []Edit{
			{File: stdioServe,
				Old: `type conn struct {
	session *mcp.Session`,
				New: `type conn struct {
	session *mcp.Session
	version mcp.ProtocolVersion // the version the client's initialize asked for`},
			{File: stdioServe,
				Old: `		c.run(func() {
			defer c.release()
			version, _ := c.session.Version()`,
				New: `		version := c.version
		c.run(func() {
			defer c.release()`},
			{File: stdioServe,
				Old: `		// every message after it sees the protocol version it agreed.
		if resp := c.session.Handle(ctx, msg, c); resp != nil {`,
				New: `		// every message after it sees the protocol version it agreed.
		var p struct {
			ProtocolVersion string ` + "`json:\"protocolVersion\"`" + `
		}
		json.Unmarshal(msg.Params, &p)
		c.version, _ = mcp.LookupVersion(p.ProtocolVersion)
		if resp := c.session.Handle(ctx, msg, c); resp != nil {`},
			{File: stdioServe,
				Old: `	"context"
	"errors"`,
				New: `	"context"
	"encoding/json"
	"errors"`},
		},
	},
	{
		Name: "batch-notifications-ignored", Lesson: "01", Kills: []string{"STDIO-20"},
		Mistake: "skips the notifications of a batch instead of handling them, so a cancellation sent in a batch stops nothing",
		Edits: []Edit{{File: stdioBatch,
			Old: `			session.Handle(ctx, msg, peer) // notifications and responses: never answered`,
			New: `			// notifications and responses: never answered, so nothing to do`,
		}},
	},

	{
		Name: "batch-responses-appended-without-a-lock", Lesson: "01", Kills: []string{"STDIO-32"}, Racy: true,
		MayKill: []string{"STDIO-20"}, // its batches lose responses to the same race
		Mistake: "appends a batch's responses to one slice from many goroutines without the mutex, a data race that loses responses",
		Edits: []Edit{{File: stdioBatch,
			Old: `	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	reply := func(resp *jsonrpc.Message) {
		mu.Lock()
		responses = append(responses, resp)
		mu.Unlock()
	}`,
			New: `	var wg sync.WaitGroup
	reply := func(resp *jsonrpc.Message) {
		responses = append(responses, resp)
	}`,
		}},
	},

	// Shutting down (the mistake hunt).
	{
		Name: "progress-write-errors-unnoticed", Lesson: "01", Kills: []string{"STDIO-23"},
		Mistake: "writes notifications straight to stdout, past the writer that remembers a failed write, so a client that closed stdout is noticed only at the next response",
		Edits: []Edit{
			{File: stdioServe,
				Old: `func (c *conn) Send(_ context.Context, msg *jsonrpc.Message) error { return c.out.send(msg) }`,
				New: `func (c *conn) Send(_ context.Context, msg *jsonrpc.Message) error {
	b, err := json.Marshal(msg) // a notification is small: one Write of its own will do
	if err != nil {
		return err
	}
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	_, err = c.out.w.Write(append(b, '\n'))
	return err
}`},
			{File: stdioServe,
				Old: `	"context"
	"errors"`,
				New: `	"context"
	"encoding/json"
	"errors"`},
		},
	},
	{
		Name: "end-of-input-wait-ignores-a-broken-stdout", Lesson: "01", Kills: []string{"STDIO-23"},
		Mistake: "once stdin has ended, waits for the running requests watching only ctx, so a client that closed both pipes is noticed only when the last request ends",
		Edits: []Edit{{File: stdioServe,
			Old: `			case <-ctx.Done():
				return ctx.Err()
			case <-c.out.failed:
				return c.shutdown(cancel)
			}`,
			New: `			case <-ctx.Done():
				return ctx.Err()
			}`,
		}},
	},
	{
		Name: "batch-outside-the-waitgroup", Lesson: "01", Kills: []string{"STDIO-30", "STDIO-31"},
		Mistake: "starts a batch with a bare go statement, outside the WaitGroup, so at end of stdin Serve returns while the batch runs, and its answer is lost",
		Edits: []Edit{{File: stdioServe,
			Old: `		if !c.admit(jsonrpc.ID{}) {
			return
		}
		c.run(func() {
			defer c.release()
			version, _ := c.session.Version()`,
			New: `		go func() {
			version, _ := c.session.Version()`,
		}, {File: stdioServe,
			Old: `				c.out.send(responses)
			}
		})`,
			New: `				c.out.send(responses)
			}
		}()`,
		}},
	},
	{
		Name: "batch-never-releases-its-place", Lesson: "01", Kills: []string{"STDIO-30"},
		Mistake: "never gives a batch's place back, so after one batch end of stdin never ends the server",
		Edits: []Edit{{File: stdioServe,
			Old: `		c.run(func() {
			defer c.release()
			version, _ := c.session.Version()`,
			New: `		c.run(func() {
			version, _ := c.session.Version()`,
		}},
	},

	{
		Name: "sigterm-leaves-half-a-line", Lesson: "01", Kills: []string{"STDIO-24"},
		Mistake: "returns at once on SIGTERM, without waiting for the requests still writing, so the process can exit in the middle of a line",
		Edits: []Edit{{File: stdioServe,
			Old: `		case <-ctx.Done():
			c.inflight.Wait()
			return ctx.Err()`,
			New: `		case <-ctx.Done():
			return ctx.Err() // the requests see ctx cancelled; no need to wait`,
		}},
	},
	{
		Name: "killed-by-sigpipe", Lesson: "01", Kills: []string{"STDIO-23"},
		Mistake: "keeps Go's default SIGPIPE, so the first write to a closed stdout kills the process instead of ending it in order",
		Edits: []Edit{{File: stdioMain,
			Old: `	signal.Ignore(syscall.SIGPIPE)`,
			New: `	// (SIGPIPE left as it is)`,
		}},
	},

	{
		Name: "idle-workers-pile-up", Lesson: "01", Kills: []string{"STDIO-33"},
		// Load-sensitive: a loaded CI run once missed it, so the proof grades
		// it up to a few times (caught every time on a quiet machine).
		Racy:    true,
		Mistake: "starts a new worker for every request and never hands one to an idle worker, so every finished request leaves a goroutine waiting for ever",
		Edits: []Edit{{File: stdioServe,
			Old: `	select {
	case c.work <- f:
	default:
		go c.worker(f)
	}`,
			New: `	go c.worker(f) // a fresh worker each time`,
		}},
	},

	{
		Name: "every-write-error-closes-failed", Lesson: "01", Kills: []string{"STDIO-23"},
		Mistake: "tries every write again after the first has failed, and closes its failed channel at each failure: the second failed write panics",
		Edits: []Edit{{File: stdioWriter,
			Old: `	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(buf.Bytes()); err != nil {`,
			New: `	if _, err := lw.w.Write(buf.Bytes()); err != nil {`,
		}},
	},

	// A full house (the mistake hunt).
	{
		Name: "full-house-blocks-the-reader", Lesson: "01", Kills: []string{"STDIO-29", "STDIO-31"},
		Mistake: "waits for a free place instead of answering busy, so with MaxInFlight requests running the reading loop stops, and a cancellation waits with it",
		Edits: []Edit{{File: stdioServe,
			Old: `	select {
	case c.slots <- struct{}{}:
		c.inflight.Add(1)
		return true
	default:
		c.out.send(jsonrpc.NewErrorResponse(id, jsonrpc.NewError(codeBusy,
			"server busy: %d requests are already running; try again when one has finished", MaxInFlight)))
		return false
	}`,
			New: `	c.slots <- struct{}{} // wait for a place: no request is ever refused
	c.inflight.Add(1)
	return true`,
		}},
	},
	{
		Name: "busy-refusal-still-runs-the-request", Lesson: "01", Kills: []string{"STDIO-29", "STDIO-31"},
		// STDIO-33's bursts of pings fill the house only now and then.
		Racy: true, MayKill: []string{"STDIO-33"},
		Mistake: "ignores what admit returns, so a request refused as busy runs anyway and gets a second response",
		Edits: []Edit{{File: stdioServe,
			Old: `		if !c.admit(*msg.ID) {
			return
		}`,
			New: `		c.admit(*msg.ID) // reserve a place, or tell the client we are busy`,
		}},
	},
	{
		Name: "busy-refusal-not-sent", Lesson: "01", Kills: []string{"STDIO-29", "STDIO-31"},
		// STDIO-33's bursts of pings fill the house only now and then.
		Racy: true, MayKill: []string{"STDIO-33"},
		Mistake: "drops a request beyond MaxInFlight without a word, so the client waits for an answer that never comes",
		Edits: []Edit{{File: stdioServe,
			Old: `		c.out.send(jsonrpc.NewErrorResponse(id, jsonrpc.NewError(codeBusy,
			"server busy: %d requests are already running; try again when one has finished", MaxInFlight)))`,
			New: `		// full: drop it`,
		}},
	},
	{
		Name: "busy-batch-still-served", Lesson: "01", Kills: []string{"STDIO-31"},
		Mistake: "ignores what admit returns for a batch, so a batch refused as busy is served anyway and gets a second answer",
		Edits: []Edit{{File: stdioServe,
			Old: `		if !c.admit(jsonrpc.ID{}) {
			return
		}`,
			New: `		c.admit(jsonrpc.ID{}) // a place, or a busy answer`,
		}},
	},
	{
		Name: "cap-one-short", Lesson: "01", Kills: []string{"STDIO-29", "STDIO-31"},
		Mistake: "sizes its places one short of MaxInFlight, so the MaxInFlight-th request is refused",
		Edits: []Edit{{File: stdioServe,
			Old: `slots: make(chan struct{}, MaxInFlight),`,
			New: `slots: make(chan struct{}, MaxInFlight-1),`,
		}},
	},

	// Long lines (the mistake hunt).
	{
		Name: "cap-counts-the-newline", Lesson: "01", Kills: []string{"STDIO-28"},
		Mistake: "forgets the newline when it measures a line against MaxMessageBytes, so a line of exactly MaxMessageBytes bytes is refused",
		Edits: []Edit{{File: stdioServe,
			Old: `			if len(l.data)+len(chunk) > MaxMessageBytes+1 { // +1 for the newline`,
			New: `			if len(l.data)+len(chunk) > MaxMessageBytes {`,
		}},
	},
	{
		Name: "last-line-escapes-the-cap", Lesson: "01", Kills: []string{"STDIO-28"},
		Mistake: "measures a line against MaxMessageBytes only when its newline comes, so a longer last line without one is served",
		Edits: []Edit{{File: stdioServe,
			Old: `			if len(l.data) > MaxMessageBytes { // a last line has no newline to allow for
				l = line{tooLong: true}
			}
			return l, nil`,
			New: `			return l, nil`,
		}},
	},
	{
		Name: "too-long-line-tail-read-as-lines", Lesson: "01", Kills: []string{"STDIO-28"},
		Mistake: "gives up on a too-long line as soon as it passes the cap, so the rest of that line is read as further lines, and a message in its tail is served",
		Edits: []Edit{{File: stdioServe,
			Old: `		case err == bufio.ErrBufferFull:
			continue // the line goes on past the buffer`,
			New: `		case err == bufio.ErrBufferFull && l.tooLong:
			return l, nil // past the cap: answer at once
		case err == bufio.ErrBufferFull:
			continue // the line goes on past the buffer`,
		}},
	},
	{
		Name: "too-long-line-head-served", Lesson: "01", Kills: []string{"STDIO-28"},
		Mistake: "stops adding to a line at the cap but forgets to mark it too long, so the first MaxMessageBytes bytes of a longer line are served as a message",
		Edits: []Edit{{File: stdioServe,
			Old: `			if len(l.data)+len(chunk) > MaxMessageBytes+1 { // +1 for the newline
				l = line{tooLong: true}`,
			New: `			if len(l.data)+len(chunk) > MaxMessageBytes+1 { // +1 for the newline
				// no room left: keep what fits`,
		}},
	},

	// Validation that refuses too much or too little (the mistake hunt).
	{
		Name: "null-params-refused", Lesson: "01", Kills: []string{"STDIO-27"},
		Mistake: `treats "params": null as params that are not an object, so a ping with it gets -32600 and a notification with it an answer`,
		Edits: []Edit{{File: stdioDecode,
			Old: `		if raw.Params != nil && !isNull(raw.Params) {`,
			New: `		if raw.Params != nil {`,
		}},
	},
	{
		Name: "params-must-be-an-object", Lesson: "01", Kills: []string{"STDIO-27"},
		Mistake: `refuses "params" that is an array, JSON-RPC's by-position form, as an invalid request`,
		Edits: []Edit{{File: stdioDecode,
			Old: `p[0] != '{' && p[0] != '['`,
			New: `p[0] != '{'`,
		}},
	},
	{
		Name: "response-with-result-and-error-accepted", Lesson: "01", Kills: []string{"STDIO-13"},
		Mistake: "checks only that a response has a result or an error, not exactly one, so a message with both is taken as a response and never answered",
		Edits: []Edit{{File: stdioDecode,
			Old: `	if (raw.Result == nil) == (raw.Error == nil) {`,
			New: `	if raw.Result == nil && raw.Error == nil {`,
		}},
	},
	{
		Name: "error-response-without-id-answered", Lesson: "01", Kills: []string{"STDIO-07"},
		Mistake: "demands an id in every response, so the client's error response without one (its answer to a line it could not read) is answered with -32600",
		Edits: []Edit{{File: stdioDecode,
			Old: `	if raw.ID == nil && raw.Error == nil {`,
			New: `	if raw.ID == nil {`,
		}},
	},
}

// Edits that make the same mistake in more than one lesson, where each fails
// that lesson's own checks.
var (
	editBatchesAtEveryVersion = []Edit{{File: stdioBatch,
		Old: `	if !version.Batches {
		return nil, invalid(jsonrpc.ID{}, noBatches(version))
	}
`,
		New: ``,
	}}
	editBatchesUnless20251125 = []Edit{{File: stdioBatch,
		Old: `	if !version.Batches {`,
		New: `	if version.Name == "2025-11-25" { // batches are gone in the latest version`,
	}}
	editNoBatches = []Edit{{File: stdioBatch,
		Old: `	if !version.Batches {`,
		New: `	if true {`,
	}}
	editServerInfoSpelling = []Edit{{File: mcpServer,
		Old: "ServerInfo      Implementation `json:\"serverInfo\"`",
		New: "ServerInfo      Implementation `json:\"server_info\"`",
	}}
	editIgnoresCancellation = []Edit{{File: mcpServer,
		Old: `		if cancel != nil {
			cancel()
		}`,
		New: `		_ = cancel // later`,
	}}
)
