package grader

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/proc"
	"mcpcourse/grader/internal/wire"
	"mcpcourse/internal/mcp"
)

// rev is the MCP revision stages 01-04 teach.
const rev = "2025-11-25"

// Where the rules of lesson 01 live in the spec.
var (
	stdioRule = func(q string) check.Spec {
		return check.Spec{Rev: rev, Section: "basic/transports › stdio", Quote: q}
	}
	messagesRule  = func(q string) check.Spec { return check.Spec{Rev: rev, Section: "basic/index › Messages", Quote: q} }
	lifecycleRule = func(section, q string) check.Spec {
		return check.Spec{Rev: rev, Section: "basic/lifecycle › " + section, Quote: q}
	}
	jsonrpcErrors = check.Spec{Rev: rev, Section: "basic/index › Error Responses, with JSON-RPC 2.0 §5.1 error codes",
		Quote: "Error responses MUST include an error field with a code and message"}
)

// Lesson01 grades stage 01: the stdio transport.
var Lesson01 = &Lesson{
	Number: "01",
	Stage:  "01-stdio",
	Stdio:  true,
	Title:  "stdio: newline-delimited JSON-RPC",
	Guide:  "lessons/01-stdio.md",
	// A server that answers nothing, or fails initialize, fails every
	// check; STDIO-01 is the one that tells why.
	Causes: map[string]string{wire.CauseStart: "STDIO-01", wire.CauseInitialize: "STDIO-01"},
	Checks: []*check.Check{
		// Step 1: read a line, answer it, write a line.
		{
			ID: "STDIO-01", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "initialize gets an InitializeResult with the same id",
			Spec:  lifecycleRule("Initialization", "The server MUST respond with its own capabilities and information"),
			Hint:  "Read one line from stdin, decode it, hand the message to the session (session.Handle), and write the response it returns as one line on stdout.",
			Run:   checkInitialize,
		},
		{
			ID: "STDIO-02", Step: 1, Severity: check.Must, Budget: 8 * time.Second,
			Title: "initialize negotiates the protocol version",
			Spec:  lifecycleRule("Version Negotiation", "If the server supports the requested protocol version, it MUST respond with the same version"),
			Hint:  "Answer with the client's version when you support it, and with your latest one when you do not. The given mcp package does this; if it fails, check that the request's params reach the session untouched.",
			Run:   checkNegotiation,
		},
		{
			ID: "STDIO-03", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "ping answers {} and every response keeps its request's id exactly",
			Spec:  check.Spec{Rev: rev, Section: "basic/utilities/ping; basic/index › Responses", Quote: "The receiver MUST respond promptly with an empty response"},
			Course: "Beyond 2^53 JSON parsers part ways (RFC 8259 §6: such numbers may not interoperate), and a client that sends such an id takes that risk. " +
				"The course requires even 2^53+1 to come back exactly, as a server that keeps the id's JSON text does.",
			Hint: `A response carries its request's id unchanged: the string "7" stays a string, and 9007199254740993 must not pass through a float64. The result of ping is an empty object, never null.`,
			Run:  checkPingAndIDs,
		},
		{
			ID: "STDIO-04", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "ping works before initialize",
			Spec:  lifecycleRule("Initialization", "The client SHOULD NOT send requests other than pings before the server has responded to the initialize request"),
			Hint:  "The lifecycle lets a client ping before initialize, and ping MUST be answered. Serve messages as they come; do not wait for initialize before reading.",
			Run:   checkPingBeforeInitialize,
		},
		{
			ID: "STDIO-05", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "each message is one line of JSON; text with newlines and UTF-8 round-trips",
			Spec:  stdioRule("Messages are delimited by newlines, and MUST NOT contain embedded newlines"),
			Hint:  "Write each message with json.Marshal or a json.Encoder (no SetIndent): they escape a newline inside a string as \\n, so the only newline is the one that ends the line.",
			Run:   checkOneLinePerMessage,
		},
		{
			ID: "STDIO-06", Step: 1, Severity: check.Must, Budget: 8 * time.Second,
			Title: "only MCP messages on stdout, on every path: answers, errors, notifications, shutdown",
			Spec:  stdioRule("The server MUST NOT write anything to its stdout that is not a valid MCP message"),
			Hint:  "Logs, banners and debug prints go to stderr (log.Print writes there by default; fmt.Println does not), on the error paths too. Every line on stdout must be a JSON-RPC 2.0 message with \"jsonrpc\":\"2.0\".",
			Run:   checkOnlyMessagesOnStdout,
		},
		{
			ID: "STDIO-07", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "notifications, and responses from the client, get no reply",
			Spec:  messagesRule("The receiver MUST NOT send a response"),
			Course: "The spec's words are about notifications. A response the client sends (to a request of the server's) needs no answer either: " +
				"JSON-RPC answers requests only. The course requires silence for both, a response to no request of the server's included.",
			Hint: "A message with a method and no id is a notification: never answer it, not even with an error for a method you do not know. " +
				"A message with an id and a result or an error, but no method, is a response to a request of the server's: it is not invalid, and it gets no answer either. " +
				"session.Handle returns nil for both: write nothing then.",
			Run: checkNotificationsGetNoReply,
		},
		{
			ID: "STDIO-08", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "an unknown method gets a -32601 error with the request's id",
			Spec:  jsonrpcErrors,
			Hint:  "-32601 means Method not found. The session answers it for you; make sure your transport writes error responses like any other.",
			Run:   checkUnknownMethod,
		},
		{
			ID: "STDIO-09", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "an unknown tool gets a -32602 error",
			Spec:  check.Spec{Rev: rev, Section: "server/tools › Error Handling", Quote: "Unknown tools"},
			Hint:  "Calling a tool that does not exist is a protocol error (-32602 Invalid params), not a tool result with isError.",
			Run:   checkUnknownTool,
		},
		{
			ID: "STDIO-25", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "a last line without a newline is still answered",
			Spec:  stdioRule("Messages are delimited by newlines"),
			Course: "A client that closes stdin right after its last message may leave out the final newline. " +
				"The course requires the server to serve that last line rather than drop it.",
			Hint: "bufio.Reader.ReadBytes returns the last line and io.EOF together when the line has no newline. " +
				"Serve the data first, then look at the error.",
			Run: checkLastLineWithoutNewline,
		},

		// Step 2: decode and validate.
		{
			ID: "STDIO-10", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "a line that is not JSON gets -32700 without an id, and the server keeps serving",
			Spec:  jsonrpcErrors,
			Hint:  "When json.Valid fails, write {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,...}} (no id: it cannot be read) and go on to the next line. Do not stop reading, and do not stay silent: the client is waiting for an answer.",
			Run:   checkParseError,
		},
		{
			ID: "STDIO-11", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: `"jsonrpc" must be "2.0": anything else gets -32600`,
			Spec:  messagesRule("All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification"),
			Hint:  `Check that the "jsonrpc" member is exactly the string "2.0". A missing member, "1.0" or 2.0 as a number is an Invalid Request (-32600), not a parse error: the text was valid JSON.`,
			Run:   checkJSONRPCVersion,
		},
		{
			ID: "STDIO-12", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "a request with \"id\": null gets -32600",
			Spec:  messagesRule("Unlike base JSON-RPC, the ID MUST NOT be null"),
			Hint:  `Decoding straight into a struct with an *ID field turns "id": null into a nil pointer, so the request looks like a notification and gets no answer. Decode the members as json.RawMessage first: null is then the four bytes "null", and absent is nil.`,
			Run:   checkNullID,
		},
		{
			ID: "STDIO-13", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "JSON that is not a valid message gets -32600, not -32700",
			Spec:  jsonrpcErrors,
			Hint: `-32700 is only for text that is not JSON. Valid JSON with the wrong shape ("method": 42 or "", "params": "oops", an id of 1.5 or true, a bare 42, {}) is -32600 Invalid Request, ` +
				`with the message's id when you could read it, and none when the id itself is the problem.`,
			Run: checkInvalidShapes,
		},

		// Step 3: framing that survives real clients.
		{
			ID: "STDIO-14", Step: 3, Severity: check.Must, Budget: 20 * time.Second,
			Title: "a 4 MiB line is read whole",
			Spec:  stdioRule("Messages are delimited by newlines"),
			Course: "The spec sets no size limit. The course requires at least 4 MiB, " +
				"the size of real tool results (files, screenshots).",
			Hint: "bufio.Scanner stops for good at a line longer than its buffer, 64 KiB by default (bufio.ErrTooLong: \"token too long\"). Use bufio.Reader, or give the Scanner a larger buffer with Scanner.Buffer.",
			Run:  checkLongLine,
		},
		{
			ID: "STDIO-15", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Title: "CRLF line endings work and blank lines are ignored",
			Spec:  stdioRule("Messages are delimited by newlines"),
			Course: "Clients on Windows may end lines with \\r\\n, and a stray blank line holds no message. " +
				"The course requires a server to take both in its stride, silently.",
			Hint: "Trim \\r and spaces from the end of each line, and skip a line that is empty after trimming: it is not a message, so it gets no answer, not even a parse error.",
			Run:  checkCRLFAndBlankLines,
		},

		// Step 4: many requests at once.
		{
			ID: "STDIO-16", Step: 4, Severity: check.Must, Budget: 8 * time.Second,
			Title: "a running request does not hold up the next one",
			Spec:  check.Spec{Rev: rev, Section: "basic/utilities/cancellation › Behavior Requirements", Quote: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request"},
			Course: "A request that takes seconds (a tool call) must not block a ping behind it, " +
				"nor the cancellation meant to stop it. The course requires each request to run on its own goroutine.",
			Hint: "Run each request in a goroutine and keep reading stdin. Handle notifications in order on the reading goroutine, so a cancellation is seen while the request it cancels still runs.",
			Run:  checkConcurrentRequests,
		},
		{
			ID: "STDIO-17", Step: 4, Severity: check.Must, Budget: 8 * time.Second,
			Title: "progress notifications carry the token, increase, and reach stdout while the tool runs, before the response",
			Spec:  check.Spec{Rev: rev, Section: "basic/utilities/progress", Quote: "The progress value MUST increase with each notification"},
			Course: "The spec lets a server send progress as often as it likes (MAY), and requires it to stop after completion. The course's countdown " +
				"sends one notification per step, each on stdout as it happens, all before the response.",
			Hint: "Pass your connection as the session's Peer, so that its Send writes each progress notification to stdout while the tool runs, " +
				"at once: a notification that waits in a buffer until the response is flushed tells the client nothing. The token goes back exactly as sent, string or number.",
			Run: checkProgress,
		},
		{
			ID: "STDIO-18", Step: 4, Severity: check.Must, Budget: 10 * time.Second,
			Title: "notifications/cancelled stops a running request, which then gets no response",
			Spec:  check.Spec{Rev: rev, Section: "basic/utilities/cancellation › Behavior Requirements", Quote: "Not send a response for the cancelled request"},
			Course: "The spec says receivers SHOULD stop work and SHOULD NOT answer a cancelled request; " +
				"the course requires both.",
			Hint: "The session cancels the request's context when the notification arrives, but only if your loop reads that line while the request runs, and only if you write nothing when Handle returns nil.",
			Run:  checkCancellation,
		},
		{
			ID: "STDIO-19", Step: 4, Severity: check.Must, Budget: 10 * time.Second,
			Title: "concurrent responses never mix within a line",
			Spec:  stdioRule("Messages are delimited by newlines, and MUST NOT contain embedded newlines"),
			Hint:  "Several goroutines write to stdout at once. Write each message, newline included, with a single Write while holding a mutex; two Writes (message, then newline) or a shared bufio.Writer without a lock let lines interleave.",
			Run:   checkNoInterleaving,
		},

		// Step 5: batches, by protocol version.
		{
			ID: "STDIO-20", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
			Title: "at 2025-03-26, a batch gets one array of responses; only notifications, nothing at all",
			Spec: check.Spec{Rev: "2025-03-26", Section: "basic/index › Batching; JSON-RPC 2.0 §6",
				Quote: "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches"},
			Hint: "When the session negotiated 2025-03-26, a line that is a JSON array is a batch: answer its requests together in one array on one line, " +
				"with an error in the array for each invalid element (initialize included: it may not be batched). Skip its notifications, and write nothing at all, " +
				"not even [] or null, for a batch of notifications only. Answer [] with a single -32600 error, and an array that is not JSON with a single -32700.",
			Run: checkBatchAt20250326,
		},
		{
			ID: "STDIO-21", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
			Title: "at 2025-11-25 and 2025-06-18, and before initialize, a batch gets one -32600 error, and the server keeps serving",
			Spec: check.Spec{Rev: rev, Section: "basic/transports › stdio (batching was removed in 2025-06-18, changelog major change 1)",
				Quote: "Messages are individual JSON-RPC requests, notifications, or responses"},
			Course: "Batches left the spec in 2025-06-18, and it does not say how a server refuses one. The course requires one -32600 error " +
				"(JSON-RPC's Invalid Request: an array is not one message), and the server to go on serving.",
			Hint: "Batches exist only where 2025-03-26 was negotiated: ask the version table (version.Batches), do not compare with one version string. " +
				"Before initialize no version is agreed, so no batches either. Answer an array with one -32600 error object (not an array), then keep reading.",
			Run: checkBatchAt20251125,
		},
		{
			ID: "STDIO-26", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
			Title: "a batch sent right after initialize, before its answer, sees the negotiated version",
			Spec: lifecycleRule("Initialization",
				"The client SHOULD NOT send requests other than pings before the server has responded to the initialize request"),
			Course: "Clients should wait for initialize's answer, but not all do. The course requires the server to answer initialize " +
				"before it reads the next line, so that every later line sees the version just agreed: batches at 2025-03-26 depend on it.",
			Hint: "Handle initialize on the reading goroutine, not on a goroutine of its own: then the session knows its version " +
				"before the next line (a batch) asks for it.",
			Run: checkBatchRightAfterInitialize,
		},

		// Step 6: shutting down.
		{
			ID: "STDIO-22", Step: 6, Severity: check.Must, Budget: 8 * time.Second,
			Title: "at end of stdin, requests in flight finish, then the server exits 0",
			Spec: lifecycleRule("Shutdown › stdio",
				"the client SHOULD initiate shutdown by: First, closing the input stream to the child process"),
			Course: "The client closes stdin and waits for the server to exit. The course requires the server to finish " +
				"the requests it already has, write their responses, and exit with status 0 within 2 s.",
			Hint: "When reading returns io.EOF, wait for the requests still running (a sync.WaitGroup), then return nil from Serve. Returning at once drops their responses; never returning leaves the client waiting to send SIGTERM.",
			Run:  checkEOFShutdown,
		},
		{
			ID: "STDIO-23", Step: 6, Severity: check.Must, Budget: 8 * time.Second,
			Title: "when the client closes stdout, the server exits",
			Spec: lifecycleRule("Shutdown › stdio",
				"The server MAY initiate shutdown by closing its output stream to the client and exiting"),
			Course: "A client that has gone away cannot read anything more. The course requires the server to notice the failed write and exit within 2 s, " +
				"instead of running on unseen, even while a long request is running.",
			Hint: "Check the error of every write to stdout. The given main ignores SIGPIPE, so a write to a closed pipe returns EPIPE: cancel what is running, " +
				"stop Serve and return that error. Waiting for a 10 s tool call to finish first keeps a dead server alive for 10 s.",
			Run: checkStdoutClosed,
		},
		{
			ID: "STDIO-24", Step: 6, Severity: check.Must, Budget: 8 * time.Second,
			Needs: check.Needs{Signal: true},
			Title: "SIGTERM stops the server",
			Spec: lifecycleRule("Shutdown › stdio",
				"sending SIGTERM if the server does not exit within a reasonable time"),
			Course: "The course requires the server to exit within 2 s of SIGTERM, even with a request running, whether stdin is still open " +
				"or has closed and the server is waiting for that request to finish.",
			Hint: "The given main cancels Serve's context on SIGTERM. Watch ctx.Done() in your loop (select on it beside the lines channel), cancel what is running, and return. " +
				"At end of input, wait for the running requests in a select that also watches ctx.Done(), not with a bare WaitGroup.Wait.",
			Run: checkSIGTERM,
		},
	},
}

// ---- step 1 ----

func checkInitialize(t *check.T) {
	s := wire.StartStdio(t)
	checkInitializeResult(t, s.Call(`1`, "initialize", wire.InitializeParams(rev)))
}

func checkNegotiation(t *check.T) {
	var supported []string
	for _, v := range mcp.Versions {
		supported = append(supported, v.Name)
	}
	for _, v := range supported {
		got := negotiatedVersion(t, v)
		if got != v {
			t.Fail(check.Failure{What: fmt.Sprintf("the client asked for %s, which the server supports, and got another version", v),
				Got: check.Quote(got), Want: check.Quote(v)})
		}
	}
	got := negotiatedVersion(t, "2099-01-01")
	for _, v := range supported {
		if got == v {
			return
		}
	}
	t.Fail(check.Failure{What: "the client asked for an unknown version; the server must answer with one it supports",
		Got: check.Quote(got), Want: "one of " + strings.Join(supported, ", ") + " (ideally the latest)"})
}

// negotiatedVersion starts a server, initializes it asking for version, and
// returns the version the server chose.
func negotiatedVersion(t *check.T, version string) string {
	s := wire.StartStdio(t)
	defer s.Proc.Kill()
	result := mustResult(t, s.Call(`1`, "initialize", wire.InitializeParams(version)), "initialize")
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(result, &r)
	return r.ProtocolVersion
}

func checkPingAndIDs(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	// Ids of every JSON type and awkward value: a string that looks like a
	// number next to that number, zero, a negative, and 2^53+1, which a
	// float64 cannot hold.
	ids := []string{`0`, `"7"`, `7`, `-5`, bigID, `"abc-1"`}
	for _, id := range ids {
		s.Send(wire.Request(id, "ping", nil))
	}
	pong := func(id string) {
		resp := s.AwaitResponse(wire.T1, id, "ping")
		if resp.Error != nil || !wire.SameJSON(resp.Result, json.RawMessage(`{}`)) {
			t.Fail(check.Failure{What: fmt.Sprintf("ping (id %s) did not get an empty result", id),
				Got: check.Quote(string(resp.Raw)), Want: fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id)})
		}
	}
	end := t.SpecRule()
	for _, id := range ids {
		if id != bigID {
			pong(id)
		}
	}
	end()
	pong(bigID) // the course's rule: JSON parsers part ways beyond 2^53
	defer t.SpecRule()()
	strayAfter(t, s, "a line that answers none of the pings (a duplicate response, or a response with a changed id)")
}

// bigID is 2^53+1, the first integer a float64 cannot hold.
const bigID = `9007199254740993`

func checkPingBeforeInitialize(t *check.T) {
	s := wire.StartStdio(t)
	resp := s.Call(`1`, "ping", nil)
	if resp.Error != nil || !wire.SameJSON(resp.Result, json.RawMessage(`{}`)) {
		t.Fail(check.Failure{What: "ping before initialize did not get an empty result",
			Got: check.Quote(string(resp.Raw)), Want: `{"jsonrpc":"2.0","id":1,"result":{}}`})
	}
}

func checkOneLinePerMessage(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	text := "two\nlines, \"quotes\", a \\ backslash, a \ttab, <html> & héllo ✓ 😀"
	resp := s.Call(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": text}, nil))
	got := toolText(t, resp, "echo")
	if got != text {
		t.Fail(check.Failure{What: "echo did not return its text unchanged", Got: check.Quote(got), Want: check.Quote(text)})
	}
}

func checkOnlyMessagesOnStdout(t *check.T) {
	s := wire.StartStdio(t)
	// Every kind of traffic, good and bad, so that a stray print on any
	// path (an error branch, a notification, a tool, shutdown) shows.
	s.Call(`0`, "ping", nil)
	s.Initialize(rev)
	s.Call(`2`, "tools/list", nil)
	s.Call(`3`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "hi"}, nil))
	s.Call(`4`, "tools/call", wire.ToolCall("add_note", map[string]any{"text": "a note, which the server also logs"}, nil))
	s.Send(wire.Request(`5`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 2, "interval_ms": 10}, "tok")))
	s.AwaitResponse(wire.T2, `5`, "tools/call countdown")
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":9,"method":"ping"`,   // not JSON
		`{"jsonrpc":"1.0","id":10,"method":"ping"}`, // not JSON-RPC 2.0
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, // a batch, at a version without batches
		wire.Request(`12`, "grader/no-such-method", nil),
		wire.Request(`13`, "tools/call", wire.ToolCall("no_such_tool", map[string]any{}, nil)),
		wire.Notification("notifications/grader-unknown", nil),
		wire.Notification("notifications/cancelled", map[string]any{"requestId": "no-such-request"}),
		`{"jsonrpc":"2.0","id":"from-the-server","result":{}}`, // a response to nothing
		"",
	} {
		s.Send(line)
	}
	// The last ping shows the server got through all of it; if it did not
	// (another check's business), judge what it wrote anyway.
	s.Send(wire.Request(`"last"`, "ping", nil))
	s.Within(wire.T1, func(m *wire.Msg) bool { return m.IsResponseTo(`"last"`) })
	s.CloseStdin()
	s.Drain(wire.Q)

	for i, l := range s.All() {
		switch {
		case l.Err != nil && isBatchOfMessages(l.Text):
			// A batch's answer, a valid message at 2025-03-26; whether
			// batches belong at this version is STDIO-21's business.
		case l.Err != nil:
			t.Fail(check.Failure{What: fmt.Sprintf("line %d of stdout is not a JSON-RPC message: %v", i+1, l.Err),
				Got: check.Quote(l.Text), Want: "only JSON-RPC messages, one per line"})
		case l.Problem != "":
			t.Fail(check.Failure{What: fmt.Sprintf("line %d of stdout is JSON but not a valid JSON-RPC 2.0 message: %s", i+1, l.Problem),
				Got: check.Quote(l.Text), Want: `a JSON-RPC 2.0 message, such as {"jsonrpc":"2.0","id":2,"result":{}}`})
		}
	}
}

func checkNotificationsGetNoReply(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	end := t.SpecRule() // notifications: the spec's MUST NOT
	s.Send(wire.Notification("notifications/grader-unknown", map[string]any{"x": 1}))
	s.Send(wire.Notification("notifications/cancelled", map[string]any{"requestId": "no-such-request", "reason": "grader"}))
	s.Send(wire.Notification("notifications/cancelled", nil)) // malformed: SHOULD be ignored
	s.Call(`2`, "ping", nil)
	strayAfter(t, s, "a reply to a notification")
	end()
	// Responses to requests the server never sent: nothing to route them
	// to, and nothing to answer.
	s.Send(`{"jsonrpc":"2.0","id":"srv-1","result":{}}`)
	s.Send(`{"jsonrpc":"2.0","id":"srv-2","error":{"code":-1,"message":"the client could not do it"}}`)
	s.Call(`3`, "ping", nil)
	strayAfter(t, s, "a reply to a response")
}

func checkUnknownMethod(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	resp := s.Call(`"abc-1"`, "grader/no-such-method", nil)
	expectError(t, resp, -32601, "an unknown method")
}

func checkUnknownTool(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	resp := s.Call(`2`, "tools/call", wire.ToolCall("no_such_tool", map[string]any{}, nil))
	expectError(t, resp, -32602, "a call to an unknown tool")
}

// ---- step 2 ----

func checkParseError(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	for _, bad := range []string{`{"jsonrpc":"2.0","id":9,"method":"ping"`, `this is not json`} {
		s.Send(bad)
		resp := awaitVerdict(s, ``, "answer to a line that is not JSON")
		expectError(t, resp, -32700, "a line that is not JSON")
		if resp.ID != nil && !wire.SameJSON(resp.ID, json.RawMessage(`null`)) {
			t.Fail(check.Failure{What: "a parse error must carry no id (or a null one): the id of text that does not parse cannot be known",
				Got: check.Quote(string(resp.Raw)), Want: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"..."}}`})
		}
	}
	stillServing(t, s, `10`)
}

func checkJSONRPCVersion(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	cases := []struct{ id, line string }{
		{`5`, `{"jsonrpc":"1.0","id":5,"method":"ping"}`},
		{`6`, `{"id":6,"method":"ping"}`},
		{`7`, `{"jsonrpc":2.0,"id":7,"method":"ping"}`},
	}
	for _, c := range cases {
		s.Send(c.line)
		resp := awaitVerdict(s, c.id, "answer to "+c.line)
		expectError(t, resp, -32600, c.line)
	}
	stillServing(t, s, `10`)
}

func checkNullID(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	line := `{"jsonrpc":"2.0","id":null,"method":"ping"}`
	s.Send(line)
	resp := awaitVerdict(s, ``, "answer to a request with a null id")
	expectError(t, resp, -32600, line)
	stillServing(t, s, `10`)
}

func checkInvalidShapes(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	cases := []struct{ id, line string }{
		{`7`, `{"jsonrpc":"2.0","id":7,"method":42}`},
		{`8`, `{"jsonrpc":"2.0","id":8,"method":"ping","params":"oops"}`},
		{`11`, `{"jsonrpc":"2.0","id":11,"method":""}`},
		{``, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`}, // the id is the problem: it cannot be echoed
		{``, `{"jsonrpc":"2.0","id":true,"method":"ping"}`},
		{``, `42`},
		{``, `{"jsonrpc":"2.0"}`},
	}
	for _, c := range cases {
		s.Send(c.line)
		resp := awaitVerdict(s, c.id, "answer to "+c.line)
		expectError(t, resp, -32600, c.line)
	}
	stillServing(t, s, `10`)
}

// ---- step 3 ----

// longText is a little over 4 MiB, ending in a multi-byte character.
var longText = strings.Repeat("a", 4<<20) + "é"

func checkLongLine(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	t.SetRepro(func() string {
		return fmt.Sprintf(`{ printf '%%s' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"'; `+
			`head -c %d /dev/zero | tr '\0' a; printf '%%s\n' '"}}}'; } | %s`, 4<<20, t.Target.Invocation())
	})
	s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": longText}, nil)))
	resp := s.AwaitResponse(2*wire.T2, `2`, "tools/call echo with 4 MiB of text")
	if got := toolText(t, resp, "echo"); got != longText {
		t.Fail(check.Failure{What: fmt.Sprintf("echo returned %d bytes of text, not the %d bytes sent", len(got), len(longText))})
	}
	stillServing(t, s, `3`)
}

func checkCRLFAndBlankLines(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	s.SendRaw(wire.Request(`2`, "ping", nil) + "\r\n")
	s.SendRaw("\n\n   \n\r\n")
	s.SendRaw(wire.Request(`3`, "ping", nil) + "\n")
	s.AwaitResponse(wire.T1, `2`, "ping sent with a CRLF line ending")
	s.AwaitResponse(wire.T1, `3`, "ping sent after blank lines")
	strayAfter(t, s, "an answer to a blank line")
}

// ---- step 4 ----

func checkConcurrentRequests(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 30, "interval_ms": 100}, nil)))
	s.Send(wire.Request(`3`, "ping", nil))
	resp := s.Await(2500*time.Millisecond, "response to ping (id 3) while a 3 s countdown (id 2) runs",
		func(m *wire.Msg) bool { return m.IsResponseTo(`3`) || m.IsResponseTo(`2`) })
	if resp.IsResponseTo(`2`) {
		t.Fail(check.Failure{What: "the 3 s countdown (id 2) finished before the ping sent after it (id 3) was answered: requests run one at a time",
			Want: "the ping's response first, while the countdown still runs"})
	}
	s.Send(wire.Notification("notifications/cancelled", map[string]any{"requestId": 2}))
}

func checkProgress(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	for _, token := range []any{"p-grader", 7} {
		tokenJSON, _ := json.Marshal(token)
		id := `"with-token"`
		if _, ok := token.(int); ok {
			id = `"with-int-token"`
		}
		s.Send(wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 3, "interval_ms": 20}, token)))
		s.AwaitResponse(wire.T2, id, "tools/call countdown")
		var before []*wire.Msg
		for _, l := range s.Pending() {
			before = append(before, l.Msg)
		}
		values := progressValues(t, before, tokenJSON)
		if len(values) != 3 {
			want := `three {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(tokenJSON) + `,"progress":1,...}} lines, then the response`
			if late := s.Within(300*time.Millisecond, func(m *wire.Msg) bool { return m.MethodName() == "notifications/progress" }); late != nil {
				t.Fail(check.Failure{What: fmt.Sprintf("countdown from 3 with progress token %s sent %d progress notifications before its response, and one after it", tokenJSON, len(values)),
					Got: check.Quote(string(late.Raw)), Want: want, Cites: &progressStops})
			}
			t.Fail(check.Failure{What: fmt.Sprintf("countdown from 3 with progress token %s sent %d progress notifications before its response, not 3", tokenJSON, len(values)),
				Want: want})
		}
	}
	s.Send(wire.Request(`"no-token"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 2, "interval_ms": 10}, nil)))
	s.AwaitResponse(wire.T2, `"no-token"`, "tools/call countdown")
	strayAfter(t, s, "a message after the last response (a progress notification for a finished request, or for one that asked for none)")

	// A 2 s countdown sends a notification every 100 ms: the first must
	// reach stdout long before the response, not wait in a buffer for it.
	s.Send(wire.Request(`"slow"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 20, "interval_ms": 100}, "p-slow")))
	first := s.Within(time.Second, func(m *wire.Msg) bool { return m.MethodName() == "notifications/progress" || m.IsResponseTo(`"slow"`) })
	if first == nil || first.IsResponse() {
		t.Fail(check.Failure{What: "a 2 s countdown that reports progress every 100 ms had not sent its first notification after 1 s: " +
			"notifications wait somewhere (a buffer) until the response is written", Want: "the first progress notification after about 100 ms"})
	}
	s.Send(wire.Notification("notifications/cancelled", map[string]any{"requestId": "slow"}))
}

func checkCancellation(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	// The countdown takes 1 s. Once it is cancelled, neither its response
	// nor its progress may come, however long the grader waits.
	s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 20, "interval_ms": 50}, "c")))
	s.Within(500*time.Millisecond, func(m *wire.Msg) bool { return m.MethodName() == "notifications/progress" })
	s.Send(wire.Notification("notifications/cancelled", map[string]any{"requestId": 2, "reason": "the grader changed its mind"}))

	// A notification already on its way when the cancellation lands is fine;
	// give the server a moment, then nothing more may come for id 2, for
	// longer than the whole countdown would have taken.
	if resp := s.Within(500*time.Millisecond, func(m *wire.Msg) bool { return m.IsResponseTo(`2`) }); resp != nil {
		t.Fail(check.Failure{What: "the cancelled request (id 2) got a response", Got: check.Quote(string(resp.Raw)), Want: "no response at all"})
	}
	s.Pending()
	s.Quiet(time.Second, "a message for the cancelled countdown (id 2), more than 500 ms after notifications/cancelled")
	stillServing(t, s, `3`)
}

func checkNoInterleaving(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	const n, size = 24, 48 << 10
	var batch strings.Builder
	texts := map[string]string{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf(`%d`, 100+i)
		texts[id] = strings.Repeat(string(rune('A'+i)), size)
		batch.WriteString(wire.Request(id, "tools/call", wire.ToolCall("echo", map[string]any{"text": texts[id]}, nil)) + "\n")
	}
	// Stop reading while the responses are written, as a busy client
	// would: the server's writers then queue up behind a full pipe, which
	// is when unguarded writes mix.
	s.PauseReads()
	sent := s.SendRawAsync(batch.String())
	s.Pause(300 * time.Millisecond)
	s.ResumeReads()
	sent()

	// A line that is not JSON but holds a message's start is what two
	// writers racing on stdout leave behind. (Other stray lines are for
	// STDIO-06 to judge.)
	mixed := func(l wire.Line) bool { return l.Err != nil && strings.Contains(l.Text, `"jsonrpc"`) }
	for len(texts) > 0 {
		l := s.AwaitLine(wire.T2, fmt.Sprintf("%d more echo responses; %d echoes of %d KiB were sent at once", len(texts), n, size>>10),
			func(l wire.Line) bool { return mixed(l) || (l.Msg != nil && texts[string(l.Msg.ID)] != "") })
		if mixed(l) {
			what := "a line on stdout is not one JSON message: responses were mixed"
			if j := strings.Index(l.Text[1:], `{"jsonrpc"`) + 1; j > 0 {
				what = fmt.Sprintf("at byte %d of a line, a second message starts before the first has ended: …%s…", j, l.Text[max(0, j-40):min(len(l.Text), j+40)])
			}
			t.Fail(check.Failure{What: what, Got: check.Quote(l.Text), Want: "each response whole, on a line of its own"})
		}
		id := string(l.Msg.ID)
		if got := toolText(t, l.Msg, "echo"); got != texts[id] {
			t.Fail(check.Failure{What: fmt.Sprintf("echo (id %s) came back altered", id), Got: check.Quote(got)})
		}
		delete(texts, id)
	}
}

// ---- step 5 ----

func checkBatchAt20250326(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize("2025-03-26")
	isBatchAnswer := func(l wire.Line) bool {
		return strings.HasPrefix(strings.TrimSpace(l.Text), "[") || (l.Msg != nil && l.Msg.IsResponse()) || (l.Msg != nil && l.Msg.Error != nil)
	}

	// Two requests and a notification: one array with both responses.
	batch := "[" + wire.Request(`"b1"`, "ping", nil) + "," + wire.Request(`"b2"`, "ping", nil) + "," +
		wire.Notification("notifications/grader-unknown", nil) + "]"
	s.Send(batch)
	l := s.AwaitLine(wire.T1, "batch response (a JSON array)", isBatchAnswer)
	got := batchResponses(t, l, "a batch of two pings and a notification",
		`[{"jsonrpc":"2.0","id":"b1","result":{}},{"jsonrpc":"2.0","id":"b2","result":{}}] (in any order)`)
	if len(got) != 2 || got[`"b1"`] == nil || got[`"b2"`] == nil || got[`"b1"`].Error != nil || got[`"b2"`].Error != nil {
		t.Fail(check.Failure{What: "the batch response must hold exactly one result for each request, and nothing for the notification",
			Got: check.Quote(l.Text), Want: `results with ids "b1" and "b2"`})
	}

	// Invalid elements are answered inside the array (JSON-RPC 2.0 §6),
	// and initialize may not be batched (2025-03-26, lifecycle).
	s.Send("[" + wire.Request(`"ok"`, "ping", nil) + `,{"jsonrpc":"2.0","id":"bad","method":42},5,` +
		wire.Request(`"init"`, "initialize", wire.InitializeParams("2025-03-26")) + "]")
	l = s.AwaitLine(wire.T1, "answer to a batch with invalid elements (a JSON array)", isBatchAnswer)
	got = batchResponses(t, l, "a batch of a ping, two invalid elements and an initialize",
		`[{"jsonrpc":"2.0","id":"ok","result":{}},{"jsonrpc":"2.0","id":"bad","error":{"code":-32600,...}},{"jsonrpc":"2.0","error":{"code":-32600,...}},{"jsonrpc":"2.0","id":"init","error":{...}}]`)
	unreadable := 0
	for id, m := range got {
		if id == "" || id == "null" {
			unreadable++
			if c, _ := m.ErrorCode(); c != -32600 {
				unreadable = -100
			}
		}
	}
	okCode, _ := errorCode(got[`"bad"`])
	switch {
	case got[`"ok"`] == nil || got[`"ok"`].Error != nil:
		t.Fail(check.Failure{What: "in a batch with invalid elements, the valid ping got no result", Got: check.Quote(l.Text)})
	case okCode != -32600 || unreadable != 1:
		t.Fail(check.Failure{What: `each invalid element of a batch must get its own -32600 error in the array: {"id":"bad","method":42} with its id, the bare 5 without one`,
			Got: check.Quote(l.Text), Want: `two -32600 errors in the array: one with "id":"bad", one without an id`})
	case got[`"init"`] == nil || got[`"init"`].Error == nil:
		t.Fail(check.Failure{What: "an initialize inside a batch was not refused: at 2025-03-26 the initialize request MUST NOT be part of a JSON-RPC batch",
			Got: check.Quote(l.Text), Want: `an error response with "id":"init" in the array`})
	}

	// Notifications only: nothing at all comes back, not even [] or null.
	s.Pending() // stray lines from before are STDIO-06's business
	s.Send("[" + wire.Notification("notifications/grader-unknown", nil) + "]")
	s.Call(`3`, "ping", nil)
	for _, l := range s.Pending() {
		t.Fail(check.Failure{What: "a batch of notifications only was answered", Got: check.Quote(l.Text), Want: "no line at all"})
	}
	s.QuietAll(wire.Q, "a line in answer to a batch of notifications only")

	s.Send("[]")
	resp := awaitVerdict(s, ``, "answer to an empty batch []")
	expectError(t, resp, -32600, "[]")
	s.Send(`[{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	resp = awaitVerdict(s, ``, `answer to a batch that is not JSON, [{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	expectError(t, resp, -32700, "a batch that is not JSON")
}

// batchResponses reads a line that must be a JSON array of valid responses,
// and returns them by id (their JSON text; "" when absent).
func batchResponses(t *check.T, l wire.Line, what, want string) map[string]*wire.Msg {
	var elems []json.RawMessage
	if err := json.Unmarshal([]byte(l.Text), &elems); err != nil {
		t.Fail(check.Failure{What: what + " was not answered with one JSON array", Got: check.Quote(l.Text), Want: want})
	}
	out := map[string]*wire.Msg{}
	for _, e := range elems {
		m, err := wire.Parse(e)
		if err != nil || m.Problem() != "" || !(m.IsResponse() || (m.ID == nil && m.Error != nil)) {
			t.Fail(check.Failure{What: "the answer to " + what + " holds something that is not a valid response", Got: check.Quote(l.Text), Want: want})
		}
		out[string(m.ID)] = m
	}
	return out
}

// errorCode returns the error code of m, which may be nil.
func errorCode(m *wire.Msg) (int, bool) {
	if m == nil {
		return 0, false
	}
	return m.ErrorCode()
}

func checkBatchAt20251125(t *check.T) {
	refused := func(s *wire.Stdio, when string) {
		s.Send("[" + wire.Request(`"b1"`, "ping", nil) + "," + wire.Request(`"b2"`, "ping", nil) + "]")
		l := s.AwaitLine(wire.T1, "answer to a batch "+when, func(l wire.Line) bool {
			return strings.HasPrefix(strings.TrimSpace(l.Text), "[") || (l.Msg != nil && l.Msg.IsResponse()) ||
				(l.Msg != nil && l.Msg.Error != nil)
		})
		if l.Msg == nil {
			t.Fail(check.Failure{What: "a batch was served " + when + ", where there are no batches",
				Got: check.Quote(l.Text), Want: `one error object: {"jsonrpc":"2.0","error":{"code":-32600,...}}`})
		}
		expectError(t, l.Msg, -32600, "a batch "+when)
	}
	t.Parallel(func() {
		s := wire.StartStdio(t)
		s.Initialize(rev)
		refused(s, "at 2025-11-25")
		stillServing(t, s, `3`)
	}, func() {
		s := wire.StartStdio(t)
		refused(s, "before initialize, when no version has been agreed")
		s.Initialize("2025-06-18")
		refused(s, "at 2025-06-18")
		stillServing(t, s, `3`)
	})
}

// checkBatchRightAfterInitialize sends batches right behind initialize, as a
// client that does not wait would. If the server answers initialize on a
// goroutine of its own, the batches may be read before the version is set.
func checkBatchRightAfterInitialize(t *check.T) {
	s := wire.StartStdio(t)
	var lines strings.Builder
	lines.WriteString(wire.Request(`"init"`, "initialize", wire.InitializeParams("2025-03-26")) + "\n")
	for i := 1; i <= 3; i++ {
		lines.WriteString(fmt.Sprintf("[%s,%s]\n", wire.Request(fmt.Sprintf(`"b%d"`, i), "ping", nil), wire.Notification("notifications/grader-unknown", nil)))
	}
	s.SendRaw(lines.String())
	mustResult(t, s.AwaitResponse(wire.T1, `"init"`, "initialize"), "initialize")
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf(`"b%d"`, i)
		l := s.AwaitLine(wire.T1, fmt.Sprintf("answer to batch %d, sent right after initialize", i), func(l wire.Line) bool {
			return strings.Contains(l.Text, id) || (l.Msg != nil && l.Msg.Error != nil && l.Msg.ID == nil) ||
				(l.Msg != nil && l.Msg.Error != nil && wire.SameJSON(l.Msg.ID, json.RawMessage(`null`)))
		})
		if !strings.HasPrefix(strings.TrimSpace(l.Text), "[") {
			t.Fail(check.Failure{What: fmt.Sprintf("batch %d, sent right after initialize asked for 2025-03-26, was refused: the server read it before it had agreed the version", i),
				Got: check.Quote(l.Text), Want: fmt.Sprintf(`[{"jsonrpc":"2.0","id":%s,"result":{}}]`, id)})
		}
	}
}

// ---- step 6 ----

func checkEOFShutdown(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 4, "interval_ms": 100}, nil)))
	s.CloseStdin()
	s.AwaitResponse(wire.T2, `2`, "tools/call countdown that was running when stdin closed")
	if !s.Proc.WaitExit(wire.EXIT) {
		t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after stdin closed and its last response was written", wire.EXIT),
			Want: "exit with status 0"})
	}
	if code := s.Proc.ExitCode(); code != 0 {
		t.Fail(check.Failure{What: "the server exited with " + s.Proc.Status() + " after stdin closed", Want: "exit status 0"})
	}
}

func checkStdoutClosed(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(rev)
	// A 10 s countdown runs when the client goes away: the server must not
	// wait for it before it stops.
	s.Send(wire.Request(`"long"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 100, "interval_ms": 100}, nil)))
	s.Proc.Stdout.Close()
	t.Wire.Event("closed the read end of the server's stdout, while a 10 s countdown runs")
	// Each ping's answer cannot be written. Keep sending them: a child that
	// the grader starts at the same moment can hold a copy of the pipe for
	// an instant, and one write may still get through.
	deadline := time.Now().Add(wire.EXIT)
	for id := 2; time.Now().Before(deadline); id++ {
		s.TrySend(wire.Request(fmt.Sprint(id), "ping", nil))
		if s.Proc.WaitExit(100 * time.Millisecond) {
			break
		}
	}
	if !s.Proc.Exited() {
		t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after its stdout was closed and it had a response to write", wire.EXIT),
			Want: "the server exits, cancelling the countdown still running"})
	}
}

func checkSIGTERM(t *check.T) {
	if !proc.CanTerminate {
		return // no SIGTERM on this system; the check has nothing to test
	}
	terminate := func(stdinOpen bool) {
		s := wire.StartStdio(t)
		s.Initialize(rev)
		s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 100, "interval_ms": 100}, nil)))
		when := "with a 10 s countdown running and stdin open"
		if !stdinOpen {
			s.CloseStdin()
			when = "with stdin closed, while the server waits for a 10 s countdown to finish"
			s.Pause(100 * time.Millisecond)
		}
		if s.Proc.Exited() {
			return // it did not wait for the countdown at end of input: STDIO-22's business
		}
		t.Wire.Event("sent SIGTERM, " + when)
		if err := s.Proc.Terminate(); err != nil {
			if s.Proc.WaitExit(time.Second) {
				return // it exited on its own just before: STDIO-22's business
			}
			t.Failf("could not send SIGTERM: %v", err)
		}
		if !s.Proc.WaitExit(wire.EXIT) {
			t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after SIGTERM, sent %s", wire.EXIT, when), Want: "the server exits"})
		}
	}
	t.Parallel(func() { terminate(true) }, func() { terminate(false) })
}

func checkLastLineWithoutNewline(t *check.T) {
	s := wire.StartStdio(t)
	// initialize, because a server answers it before it reads on: its
	// answer does not depend on Serve waiting for requests at end of input
	// (STDIO-22's business).
	s.SendRaw(wire.Request(`"last"`, "initialize", wire.InitializeParams(rev))) // no newline
	s.CloseStdin()
	mustResult(t, s.AwaitResponse(wire.T1, `"last"`, "initialize sent as the last line, without a newline, before stdin closed"), "initialize")
}

// ---- helpers ----

// isBatchOfMessages reports whether text is a JSON array of one or more
// valid JSON-RPC messages: the answer to a batch.
func isBatchOfMessages(text string) bool {
	var elems []json.RawMessage
	if json.Unmarshal([]byte(text), &elems) != nil || len(elems) == 0 {
		return false
	}
	for _, e := range elems {
		if m, err := wire.Parse(e); err != nil || m.Problem() != "" {
			return false
		}
	}
	return true
}

// awaitVerdict waits for the answer to a message that may be invalid: a
// response with the message's id (its JSON text; "" when it has none), or an
// error response whose id is null or absent.
func awaitVerdict(s *wire.Stdio, id, what string) *wire.Msg {
	return s.Await(wire.T1, what, func(m *wire.Msg) bool {
		if m.Method != nil {
			return false
		}
		if m.ID == nil || wire.SameJSON(m.ID, json.RawMessage(`null`)) {
			return m.Error != nil
		}
		return id != "" && m.IsResponseTo(id)
	})
}

// stillServing proves the server still answers after bad input.
func stillServing(t *check.T, s *wire.Stdio, id string) {
	resp := s.Call(id, "ping", nil)
	if resp.Error != nil {
		t.Fail(check.Failure{What: "after the bad input, ping got an error", Got: check.Quote(string(resp.Raw)), Want: "an empty result"})
	}
}

// strayAfter fails the check if a message arrived that no Await took, now or
// within the quiet window. Lines that are not JSON are left to STDIO-06.
func strayAfter(t *check.T, s *wire.Stdio, what string) {
	for _, l := range s.Pending() {
		if l.Msg != nil {
			t.Fail(check.Failure{What: what + " arrived", Got: check.Quote(l.Text), Want: "nothing"})
		}
	}
	s.Quiet(wire.Q, what)
}
