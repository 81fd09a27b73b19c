package lesson01

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
	"mcpcourse/internal/mcp"
)

// step1 holds the checks of step 1: read a line, answer it, write a line.
var step1 = check.Step{
	Checks: []*check.Check{stdio01, stdio02, stdio03, stdio04, stdio05, stdio06, stdio07, stdio08, stdio09, stdio25},
}

var stdio01 = &check.Check{
	ID: "STDIO-01", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Title: "initialize gets an InitializeResult with the same id",
	Spec:  lifecycleRule("Initialization", "The server MUST respond with its own capabilities and information"),
	Hint: check.Hint{
		Report:   "Read one line from stdin, decode it, hand the message to the session (session.Handle), and write the response it returns as one line on stdout.",
		Question: "Does your server answer at all? Look at the report's wire and stderr lines: did a response with id 1 come back on stdout, or did the process exit, or print something else first?",
		Pointer:  "Lesson 01, step 1: read a line with bufio.Reader.ReadBytes('\\n'), decode it, call session.Handle(ctx, msg, c), and write the response it returns. The spec's rule is in basic/lifecycle › Initialization.",
		Near: `In Serve, a first version (send writes json.Marshal(v) plus '\n' in one Write):

	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			msg, reject := Decode(line)
			if reject != nil {
				c.send(reject)
			} else if resp := c.session.Handle(ctx, msg, c); resp != nil {
				c.send(resp)
			}
		}
		if err == io.EOF {
			return nil
		}
	}`,
	},
	Claims: []check.Claim{
		{Claim: "initialize is answered with the same id and an InitializeResult (protocolVersion, capabilities, serverInfo)", Where: "concept, step 1", How: "initialize at 2025-11-25; the result's shape"},
	},
	Checklist: []string{"B1", "D1", "D3"},
	Run:       checkInitialize,
}

func checkInitialize(t *check.T) {
	s := wire.StartStdio(t)
	probe.CheckInitializeResult(t, s.Call(`1`, "initialize", wire.InitializeParams(spec.Rev)))
}

var stdio02 = &check.Check{
	ID: "STDIO-02", Step: 1, Severity: check.Must, Budget: 8 * time.Second,
	Title: "initialize negotiates the protocol version",
	Spec:  lifecycleRule("Version Negotiation", "If the server supports the requested protocol version, it MUST respond with the same version"),
	Hint: check.Hint{
		Report:   "Answer with the client's version when you support it, and with your latest one when you do not. The given mcp package does this; if it fails, check that the request's params reach the session untouched.",
		Question: "Which version did the client ask for, and which one came back in the InitializeResult's protocolVersion? Does the initialize request reach the session with its params untouched?",
		Pointer:  "basic/lifecycle › Version Negotiation: a supported version is echoed, an unknown one is answered with one the server supports. internal/mcp does this for you from the Versions table (internal/mcp/versions.go).",
		Near:     "Pass the decoded message to session.Handle as it is: keep Params as the json.RawMessage the client sent (do not rebuild it), and write the response Handle returns. Answer initialize on the reading goroutine, before you read the next line.",
	},
	Claims: []check.Claim{
		{Claim: "a supported version is echoed; an unknown one gets a version the server supports", Where: "concept, step 1", How: "each of the three versions, and 2099-01-01, each on a fresh server"},
	},
	Checklist: []string{"D6"},
	Run:       checkNegotiation,
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
	result := probe.MustResult(t, s.Call(`1`, "initialize", wire.InitializeParams(version)), "initialize")
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(result, &r)
	return r.ProtocolVersion
}

var stdio03 = &check.Check{
	ID: "STDIO-03", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Title: "ping answers {} and every response keeps its request's id exactly",
	Spec:  check.Spec{Rev: spec.Rev, Section: "basic/utilities/ping; basic/index › Responses", Quote: "The receiver MUST respond promptly with an empty response"},
	Course: "Beyond 2^53 JSON parsers part ways (RFC 8259 §6: such numbers may not interoperate), and a client that sends such an id takes that risk. " +
		"The course requires even 2^53+1 to come back exactly, as a server that keeps the id's JSON text does.",
	Hint: check.Hint{
		Report:   `A response carries its request's id unchanged: the string "7" stays a string, and 9007199254740993 must not pass through a float64. The result of ping is an empty object, never null.`,
		Question: "Does every response carry exactly the id its request had: the string \"7\" as a string, and 9007199254740993 digit for digit? And does ping answer {} rather than null?",
		Pointer:  "encoding/json turns a number into a float64 when it decodes into any or interface{}, and a float64 cannot hold every integer above 2^53. json.RawMessage (or the given jsonrpc.ID) keeps the id's exact text. The spec: basic/utilities/ping, and basic/index › Responses.",
		Near:     "Keep the id as raw JSON all the way: decode the \"id\" member into json.RawMessage and turn it into a jsonrpc.ID (whose UnmarshalJSON keeps its exact text), never into an int, a float64 or any:\n\n\tvar raw struct {\n\t\tID json.RawMessage `json:\"id\"`\n\t\t// …\n\t}\n\tvar id jsonrpc.ID\n\tif raw.ID != nil {\n\t\tif err := json.Unmarshal(raw.ID, &id); err != nil { /* -32600 */ }\n\t}\n\nLet session.Handle build the response, and write it as it is.",
	},
	Claims: []check.Claim{
		{Claim: "ping answers {} and works before initialize", Where: "concept", Also: []string{"STDIO-04"}},
		{Claim: "a response carries its request's id unchanged: \"7\" stays a string, 2^53+1 survives", Where: "concept", How: "six ids of both types, then no stray or duplicate line"},
	},
	Checklist: []string{"A3", "A9", "D10"},
	Split:     &check.Split{Rule: "ids of every kind come back exactly", Parts: "every id up to 2^53 is the spec's; 2^53+1, beyond what JSON parsers agree on, the course's"},
	Run:       checkPingAndIDs,
}

func checkPingAndIDs(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
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
	t.Case("ids up to 2^53", func() {
		defer t.SpecRule()()
		for _, id := range ids {
			if id != bigID {
				pong(id)
			}
		}
	})
	t.Case("the id 2^53+1", func() { pong(bigID) }) // the course's rule: JSON parsers part ways beyond 2^53
	t.Case("no stray or duplicate line", func() {
		defer t.SpecRule()()
		// On an external server the part of 2^53+1 may have failed: its
		// answer, with the id a float64 makes of it, is that part's.
		s.Within(0, func(m *wire.Msg) bool { return m.IsResponseTo(bigIDAsFloat) })
		strayAfter(t, s, "a line that answers none of the pings (a duplicate response, or a response with a changed id)")
	})
}

// bigID is 2^53+1, the first integer a float64 cannot hold, and
// bigIDAsFloat what a float64 makes of it.
const bigID, bigIDAsFloat = `9007199254740993`, `9007199254740992`

var stdio04 = &check.Check{
	ID: "STDIO-04", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Title: "ping works before initialize",
	Spec: check.Spec{Rev: spec.Rev, Section: "basic/utilities/ping (a client may ping before initialize: basic/lifecycle › Initialization)",
		Quote: "The receiver MUST respond promptly with an empty response"},
	Hint: check.Hint{
		Report:   "The lifecycle lets a client ping before initialize, and ping MUST be answered. Serve messages as they come; do not wait for initialize before reading.",
		Question: "What does your server do with a ping that arrives before initialize: does it answer, wait, or refuse it?",
		Pointer:  "basic/lifecycle › Initialization lets a client send pings before initialize, and basic/utilities/ping says the receiver MUST respond promptly. The session's Handle answers ping at any time.",
		Near:     "Do not gate the loop on initialize: hand every line to Decode and session.Handle in the order it arrives, and write each response. No 'initialized yet?' flag is needed in the transport.",
	},
	Checklist: []string{"D5", "D10"},
	Run:       checkPingBeforeInitialize,
}

func checkPingBeforeInitialize(t *check.T) {
	s := wire.StartStdio(t)
	resp := s.Call(`1`, "ping", nil)
	if resp.Error != nil || !wire.SameJSON(resp.Result, json.RawMessage(`{}`)) {
		t.Fail(check.Failure{What: "ping before initialize did not get an empty result",
			Got: check.Quote(string(resp.Raw)), Want: `{"jsonrpc":"2.0","id":1,"result":{}}`})
	}
}

var stdio05 = &check.Check{
	ID: "STDIO-05", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Title: "each message is one line of JSON; text with newlines and UTF-8 round-trips",
	Spec:  stdioRule("Messages are delimited by newlines, and MUST NOT contain embedded newlines"),
	Hint: check.Hint{
		Report:   "Write each message with json.Marshal or a json.Encoder (no SetIndent): they escape a newline inside a string as \\n, so the only newline is the one that ends the line.",
		Question: "How many lines does one of your messages take on stdout? What happens to a newline inside a string value when you encode it?",
		Pointer:  "The stdio transport: messages are delimited by newlines and MUST NOT contain embedded newlines (basic/transports › stdio). json.Marshal and json.Encoder escape \\n inside strings; json.MarshalIndent and Encoder.SetIndent add raw newlines.",
		Near: `Compact JSON and one newline, in one Write:

	b, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err

No MarshalIndent, no SetIndent, no second Write for the newline.`,
	},
	Claims: []check.Claim{
		{Claim: "one message per line: compact JSON, no raw newline inside", Where: "concept, step 1", How: "text with a newline, quotes, a tab and UTF-8 round-trips; 24 echoes of 48 KiB written at once never mix", Also: []string{"STDIO-19"}},
	},
	Checklist: []string{"A2", "B2"},
	Run:       checkOneLinePerMessage,
}

func checkOneLinePerMessage(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	text := "two\nlines, \"quotes\", a \\ backslash, a \ttab, <html> & héllo ✓ 😀"
	resp := s.Call(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": text}, nil))
	got := probe.ToolText(t, resp, "echo")
	if got != text {
		t.Fail(check.Failure{What: "echo did not return its text unchanged", Got: check.Quote(got), Want: check.Quote(text)})
	}
}

var stdio06 = &check.Check{
	ID: "STDIO-06", Step: 1, Severity: check.Must, Budget: 8 * time.Second,
	Title: "only MCP messages on stdout, on every path: answers, errors, notifications, shutdown",
	Spec:  stdioRule("The server MUST NOT write anything to its stdout that is not a valid MCP message"),
	Hint: check.Hint{
		Report:   "Logs, banners and debug prints go to stderr (log.Print writes there by default; fmt.Println does not), on the error paths too. Every line on stdout must be a JSON-RPC 2.0 message with \"jsonrpc\":\"2.0\".",
		Question: "Is anything on stdout that is not a JSON-RPC message: a greeting, a debug print, a log line?",
		Pointer:  "basic/transports › stdio: the server MUST NOT write anything to stdout that is not a valid MCP message. In Go, log.Print writes to stderr; fmt.Println and os.Stdout.Write write to stdout.",
		Near: `In cmd/server/main.go, replace

	fmt.Println("notes server: serving MCP on stdin/stdout")

with

	log.Print("serving MCP on stdin/stdout")

and drop the "fmt" import. Then search your code for fmt.Print and os.Stdout: every diagnostic goes to log (stderr).`,
	},
	Claims: []check.Claim{
		{Claim: "stdout carries only MCP messages, on every path (banner, debug prints on errors, log messages)", Where: "concept, step 1", How: "a whole session of good and bad input, then every line is judged"},
		{Claim: "remove the greeting from stdout (log.Print to stderr)", Where: "step 1", How: "the starter's greeting is the banner-on-stdout variant"},
	},
	Checklist: []string{"A1", "A5", "B3"},
	Run:       checkOnlyMessagesOnStdout,
}

func checkOnlyMessagesOnStdout(t *check.T) {
	s := wire.StartStdio(t)
	// Every kind of traffic, good and bad, so that a stray print on any
	// path (an error branch, a notification, a tool, shutdown) shows.
	s.Call(`0`, "ping", nil)
	s.Initialize(spec.Rev)
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

var stdio07 = &check.Check{
	ID: "STDIO-07", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Title: "notifications, and responses from the client, get no reply",
	Spec:  messagesRule("The receiver MUST NOT send a response"),
	Course: "The spec's words are about notifications. A response the client sends (to a request of the server's) needs no answer either: " +
		"JSON-RPC answers requests only. The course requires silence for both, a response to no request of the server's included.",
	Hint: check.Hint{
		Report: "A message with a method and no id is a notification: never answer it, not even with an error for a method you do not know. " +
			"A message with an id and a result or an error, but no method, is a response to a request of the server's: it is not invalid, and it gets no answer either. " +
			"Nor does an error response without an id (or with a null one): the client could not read the line it answers. " +
			"session.Handle returns nil for both: write nothing then.",
		Question: "What does your server write after a message that has a method but no id, including one for a method it does not know?",
		Pointer:  "basic/index › Notifications: the receiver MUST NOT send a response. session.Handle returns nil for a notification.",
		Near: `Write only a non-nil response, and never an error reply of your own for a notification:

	if resp := c.session.Handle(ctx, msg, c); resp != nil {
		c.send(resp)
	}`,
	},
	Claims: []check.Claim{
		{Claim: "a notification is never answered, not even an unknown one", Where: "concept, step 1", How: "unknown notification, cancellation of an unknown id, a malformed cancellation"},
		{Claim: "a response from the client gets no answer", Where: "step 1, step 2", How: "a result and an error response to requests the server never sent, and error responses without an id and with a null id (the client's answer to a line it could not read)"},
	},
	Checklist: []string{"A6", "D11"},
	Split:     &check.Split{Rule: "notifications get no reply", Parts: "a reply to a notification breaks the spec; a reply to a response from the client only the course"},
	Run:       checkNotificationsGetNoReply,
}

func checkNotificationsGetNoReply(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	t.Case("notifications", func() {
		defer t.SpecRule()() // the spec's MUST NOT
		s.Send(wire.Notification("notifications/grader-unknown", map[string]any{"x": 1}))
		s.Send(wire.Notification("notifications/cancelled", map[string]any{"requestId": "no-such-request", "reason": "grader"}))
		s.Send(wire.Notification("notifications/cancelled", nil)) // malformed: SHOULD be ignored
		s.Call(`2`, "ping", nil)
		strayAfter(t, s, "a reply to a notification")
	})
	t.Case("responses from the client", func() {
		// Responses to requests the server never sent: nothing to route
		// them to, and nothing to answer (the course's rule).
		s.Send(`{"jsonrpc":"2.0","id":"srv-1","result":{}}`)
		s.Send(`{"jsonrpc":"2.0","id":"srv-2","error":{"code":-1,"message":"the client could not do it"}}`)
		// An error response may lack an id, or carry a null one, when the
		// client could not read the id of what it answers (JSON-RPC 2.0
		// §5): still a response, still not answered.
		s.Send(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)
		s.Send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)
		s.Call(`3`, "ping", nil)
		strayAfter(t, s, "a reply to a response")
	})
}

var stdio08 = &check.Check{
	ID: "STDIO-08", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Title: "an unknown method gets a -32601 error with the request's id",
	Spec:  spec.JSONRPCErrors,
	Hint: check.Hint{
		Report:   "-32601 means Method not found. The session answers it for you; make sure your transport writes error responses like any other.",
		Question: "When a request names a method the server does not have, what comes back on stdout, and with which id and code?",
		Pointer:  "JSON-RPC 2.0 §5.1: -32601 is Method not found. internal/mcp's Handle answers it; the transport only has to write error responses like any other response.",
		Near:     "Write whatever Handle returns, result or error, with the same send helper. Do not turn Handle's error responses into something else, and do not drop them.",
	},
	Claims: []check.Claim{
		{Claim: "-32601 for an unknown method, with the request's id", Where: "concept"},
	},
	Checklist: []string{"A7"},
	Run:       checkUnknownMethod,
}

func checkUnknownMethod(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	resp := s.Call(`"abc-1"`, "grader/no-such-method", nil)
	probe.ExpectError(t, resp, -32601, "an unknown method")
}

var stdio09 = &check.Check{
	ID: "STDIO-09", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Title: "an unknown tool gets a -32602 error",
	Spec: check.Spec{Rev: spec.Rev, Section: "server/tools › Error Handling",
		Quote: "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools"},
	Course: "The spec lists an unknown tool among the protocol errors, answered with a JSON-RPC error rather than a tool result, " +
		"without a keyword, and its example uses -32602 (Invalid params). The course requires that code.",
	Hint: check.Hint{
		Report:   "Calling a tool that does not exist is a protocol error (-32602 Invalid params), not a tool result with isError.",
		Question: "Is calling a tool that does not exist a failed tool run, or a bad request?",
		Pointer:  "server/tools › Error Handling: unknown tools are a protocol error, answered as a JSON-RPC error with -32602 (Invalid params), not as a result with isError.",
		Near:     "The given session already answers -32602 for an unknown tool: pass tools/call requests to session.Handle unchanged and write its response as it is.",
	},
	Claims: []check.Claim{
		{Claim: "-32602 for an unknown tool", Where: "concept"},
	},
	Checklist: []string{"A7"},
	Split:     &check.Split{Rule: "an unknown tool", Parts: "a tool result, or no JSON-RPC error, goes against the spec's words (no keyword); another error code than -32602 only the course"},
	Run:       checkUnknownTool,
}

func checkUnknownTool(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	var resp *wire.Msg
	specRule(t, func() { resp = s.Call(`2`, "tools/call", wire.ToolCall("no_such_tool", map[string]any{}, nil)) })
	if resp.Error == nil || resp.Problem() != "" {
		defer t.SpecRule()() // a tool result, or no valid error at all: not the protocol error the spec names
	}
	probe.ExpectError(t, resp, -32602, "a call to an unknown tool")
}

var stdio25 = &check.Check{
	ID: "STDIO-25", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Title: "a last line without a newline is still answered",
	Spec:  stdioRule("Messages are delimited by newlines"),
	Course: "A client that closes stdin right after its last message may leave out the final newline. " +
		"The course requires the server to serve that last line rather than drop it.",
	Hint: check.Hint{
		Report: "bufio.Reader.ReadBytes returns the last line and io.EOF together when the line has no newline. " +
			"Serve the data first, then look at the error.",
		Question: "When the client's last line has no newline and stdin closes right after it, does your loop serve that line, or does it see io.EOF and stop first?",
		Pointer:  "bufio.Reader.ReadBytes returns the bytes it read and io.EOF together when the input ends without the delimiter. Lesson 01, step 1: handle the data before you look at the error.",
		Near: `	line, err := r.ReadBytes('\n')
	if len(bytes.TrimSpace(line)) > 0 {
		c.handle(ctx, line) // the last line may come with io.EOF
	}
	if err == io.EOF {
		return nil
	}`,
	},
	Claims: []check.Claim{
		{Claim: "serve the last line, and io.EOF after it (ReadBytes returns both)", Where: "step 1", How: "initialize as a last line without newline, then stdin closes; and a last line of one byte (7), answered with an error"},
	},
	Run: checkLastLineWithoutNewline,
}

func checkLastLineWithoutNewline(t *check.T) {
	t.Parallel(func() {
		s := wire.StartStdio(t)
		// initialize, because a server answers it before it reads on: its
		// answer does not depend on Serve waiting for requests at end of input
		// (STDIO-22's business).
		s.SendRaw(wire.Request(`"last"`, "initialize", wire.InitializeParams(spec.Rev))) // no newline
		s.CloseStdin()
		probe.MustResult(t, s.AwaitResponse(wire.T1, `"last"`, "initialize sent as the last line, without a newline, before stdin closed"), "initialize")
	}, func() {
		// A last line of a single byte: JSON, but not a message, so it is
		// answered at once with an error, whatever its code.
		s := wire.StartStdio(t)
		s.SendRaw("7") // no newline
		s.CloseStdin()
		awaitVerdict(s, ``, "answer to the last line 7, one byte without a newline, before stdin closed")
	})
}
