package grader

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"mcpcourse/grader/internal/check"
	"mcpcourse/grader/internal/wire"
)

// Where the rules of lesson 02 live in the spec.
func httpRule(section, quote string) check.Spec {
	where := "basic/transports › Streamable HTTP"
	if section != "" {
		where += " › " + section
	}
	return check.Spec{Rev: rev, Section: where, Quote: quote}
}

// noLimitRule is cited by checks of limits the spec leaves to servers.
var noLimitRule = check.Spec{Rev: rev, Section: "basic/transports › Streamable HTTP (the spec sets no limit here; the course does)"}

var (
	sendingRule   = func(q string) check.Spec { return httpRule("Sending Messages to the Server", q) }
	sessionRule   = func(q string) check.Spec { return httpRule("Session Management", q) }
	listeningRule = func(q string) check.Spec { return httpRule("Listening for Messages from the Server", q) }
)

// Lesson02 grades stage 02: Streamable HTTP with sessions and stateless mode.
var Lesson02 = &Lesson{
	Number: "02",
	Stage:  "02-streamable-http",
	Title:  "Streamable HTTP: one endpoint, sessions, stateless mode",
	Guide:  "lessons/02-streamable-http.md",
	// A server that does not start, answers 501 or fails initialize fails
	// nearly every check, and one that issues no session id fails every
	// check that needs a session: HTTP-01 and HTTP-09 tell why.
	Causes: map[string]string{wire.CauseStart: "HTTP-01", wire.CauseUnimplemented: "HTTP-01",
		wire.CauseInitialize: "HTTP-01", wire.CauseSession: "HTTP-09"},
	Checks: []*check.Check{
		// Step 1: one endpoint that takes POSTs.
		{
			ID: "HTTP-01", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "POST initialize gets 200 and the InitializeResult",
			Spec:  httpRule("", "The server MUST provide a single HTTP endpoint path (hereafter referred to as the MCP endpoint) that supports both POST and GET methods"),
			Hint:  "Mount the handler at /mcp. Read the body, Decode it with stage 01's Decode, hand it to a new session, and write the response as JSON with Content-Type: application/json.",
			Run:   checkHTTPInitialize,
		},
		{
			ID: "HTTP-02", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "a request gets 200 and its response as one JSON object (or an SSE stream)",
			Spec:  sendingRule("the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object"),
			Hint:  "Answer a request with 200, Content-Type: application/json, and the response object as the whole body: one object, not an array, not wrapped in anything.",
			Run:   checkHTTPRequest,
		},
		{
			ID: "HTTP-03", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "a notification gets 202 Accepted with an empty body",
			Spec:  sendingRule("If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body"),
			Hint:  "A body that holds no request needs no answer: hand it to the session, then w.WriteHeader(http.StatusAccepted) and write nothing. Not 200, not 204, not {}.",
			Run:   checkHTTPNotification,
		},
		{
			ID: "HTTP-04", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "a POST whose Accept lacks application/json or text/event-stream gets a 4xx",
			Spec:  sendingRule("The client MUST include an Accept header, listing both application/json and text/event-stream as supported content types"),
			Course: "The spec puts the rule on the client and leaves the server's answer open. The course requires a 4xx " +
				"(406 Not Acceptable in the reference): the server picks JSON or SSE per response, so a client that cannot take both will break later, not now.",
			Hint: "Parse Accept as a comma-separated list of media types (mime.ParseMediaType each, honour q=0 and wildcards) and refuse the POST unless both types are acceptable.",
			Run:  checkHTTPAccept,
		},
		{
			ID: "HTTP-05", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "a body that is not JSON gets 400 with a -32700 error body",
			Spec:  sendingRule("If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)"),
			Hint:  "Decode returns a reject for text that is not JSON. Write it as the body of a 400 response, with Content-Type: application/json.",
			Run:   checkHTTPParseError,
		},
		{
			ID: "HTTP-06", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "JSON that is not a valid message gets 400 with a -32600 error body",
			Spec:  sendingRule("If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)"),
			Hint:  `"method": 42 or "id": null is valid JSON but no valid message: Decode's reject is a -32600 error. Send it with status 400, not 200.`,
			Run:   checkHTTPInvalidMessage,
		},
		{
			ID: "HTTP-07", Step: 1, Severity: check.Must, Budget: 10 * time.Second,
			Title: "a body over 4 MiB gets 413; one under it is served",
			Spec:  noLimitRule,
			Course: "The spec sets no size limit. The course requires one (4 MiB by default) so that one request cannot make " +
				"the server read without end, and 413 Content Too Large when it is exceeded.",
			Hint: "Wrap the body in http.MaxBytesReader(w, r.Body, limit) before reading it; when the read fails with *http.MaxBytesError, answer 413.",
			Run:  checkHTTPBodyLimit,
		},
		{
			ID: "HTTP-08", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "an unknown method gets a -32601 JSON-RPC error, not an HTTP error",
			Spec:  jsonrpcErrors,
			Hint:  "An unknown method is a perfectly good request with an error for an answer: send the session's -32601 response like any other response, with 200.",
			Run:   checkHTTPUnknownMethod,
		},

		// Step 2: sessions.
		{
			ID: "HTTP-09", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "initialize's response sets MCP-Session-Id, in visible ASCII",
			Spec:  sessionRule("The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)"),
			Hint:  "Set the header on the response that carries the InitializeResult, before writing the body. Hex or base64url encoding keeps the id to visible ASCII.",
			Run:   checkHTTPSessionIssued,
		},
		{
			ID: "HTTP-10", Step: 2, Severity: check.Must, Budget: 10 * time.Second,
			Title: "session ids are unique and unguessable: 128 random bits from crypto/rand",
			Spec: check.Spec{Rev: rev, Section: "security best practices › Session Hijacking › Mitigation; basic/transports › Streamable HTTP › Session Management",
				Quote: "MCP servers MUST use secure, non-deterministic session IDs"},
			Course: "The course asks for about 128 random bits (a random UUID's 122 pass), and ids that differ between two runs of the server.",
			Hint:   "Read 16 bytes with crypto/rand.Read and hex-encode them. Not a counter, not a timestamp, not math/rand: with those, anyone who sees one id can work out the next.",
			Run:    checkHTTPSessionIDsUnguessable,
		},
		{
			ID: "HTTP-11", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title:  "a request without MCP-Session-Id gets 400",
			Spec:   sessionRule("Servers that require a session ID SHOULD respond to requests without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request"),
			Course: "The spec says SHOULD; the course requires 400. A 200 with an error inside tells a client's HTTP layer that all went well.",
			Hint:   "Every request except initialize must carry the header. Without it, answer 400 before anything else happens.",
			Run:    checkHTTPMissingSession,
		},
		{
			ID: "HTTP-12", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "an unknown session id gets 404 and is never adopted",
			Spec:  sessionRule("The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"),
			Hint:  "Look the id up in your session map; if it is not there, answer 404. Never create a session for an id the client made up: session ids come from the server only.",
			Run:   checkHTTPUnknownSession,
		},
		{
			ID: "HTTP-13", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title:  "DELETE ends the session; its id then gets 404",
			Spec:   sessionRule("Clients that no longer need a particular session SHOULD send an HTTP DELETE to the MCP endpoint with the MCP-Session-Id header"),
			Course: "The spec lets a server refuse DELETE with 405. The course requires it to end the session (2xx), and 400 when the header is missing.",
			Hint:   "On DELETE, remove the session from the map, cancel what runs in it (session.Close), and answer 204. Later requests with that id then get 404.",
			Run:    checkHTTPDelete,
		},
		{
			ID: "HTTP-14", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "sessions are isolated: one session's notes are not another's",
			Spec:  sessionRule(`An MCP "session" consists of logically related interactions between a client and a server`),
			Course: "Each MCP-Session-Id names one conversation. The course requires each to have its own mcp.Session, so that " +
				"state such as notes never crosses from one client to another.",
			Hint: "Keep one *mcp.Session per session id (server.NewSession() at initialize), and route every request to the session its header names.",
			Run:  checkHTTPIsolation,
		},
		{
			ID: "HTTP-15", Step: 2, Severity: check.Must, Budget: 10 * time.Second,
			Title: "many sessions at once stay correct, and a slow request holds up no one",
			Spec:  httpRule("", "the server operates as an independent process that can handle multiple client connections"),
			Hint:  "net/http runs each request on its own goroutine. Guard the session map with a sync.Mutex held only while you touch the map, never while a request runs, and keep per-request state in local variables, not in fields of the handler. Run the grader with GRADER_RACE=1 to let the race detector look too.",
			Run:   checkHTTPConcurrentSessions,
		},
		{
			ID: "HTTP-16", Step: 2, Severity: check.Must, Budget: 8 * time.Second,
			Title: "an idle session expires, and then gets 404",
			Spec: check.Spec{Rev: rev, Section: "basic/transports › Streamable HTTP › Session Management; security best practices › Session Hijacking › Mitigation",
				Quote: "Rotating or expiring session IDs can also reduce the risk"},
			Course: "Clients vanish without sending DELETE. The course requires idle sessions to expire after a timeout " +
				"(-session-timeout; the grader sets 1s), so abandoned sessions do not pile up in memory.",
			Hint: "Record when each session was last used; when a lookup finds it idle for longer than the timeout, end it and answer 404. Sweep the map now and then too.",
			Run:  checkHTTPSessionExpiry,
		},
		{
			ID: "HTTP-17", Step: 2, Severity: check.Must, Budget: 8 * time.Second,
			Title: "when the session cap is reached, initialize gets 503 and the rest keeps working",
			Spec:  noLimitRule,
			Course: "A flood of initialize requests must not exhaust memory. The course requires a cap on live sessions " +
				"(-max-sessions; the grader sets 3) and a clear refusal beyond it: 503 Service Unavailable (429 also passes).",
			Hint: "Before creating a session, count the live ones; at the cap, answer 503 with a Retry-After header. Sessions that exist keep working, and ending one frees a place.",
			Run:  checkHTTPSessionCap,
		},

		// Step 3: the protocol version header, and batches.
		{
			ID: "HTTP-18", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Title: "MCP-Protocol-Version: unsupported or malformed gets 400; absent is accepted",
			Spec:  httpRule("Protocol Version Header", "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"),
			Course: "Without the header, the spec says the server SHOULD assume 2025-03-26 (or use the version the session negotiated); " +
				"the course requires that such a request is served.",
			Hint: "Look the header up in the version table (mcp.LookupVersion). Present and unknown: 400. Absent: use the session's negotiated version, or 2025-03-26.",
			Run:  checkHTTPProtocolVersionHeader,
		},
		{
			ID: "HTTP-19", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Title: "at 2025-03-26, a batch POST gets all its responses; a batch of notifications gets 202",
			Spec: check.Spec{Rev: "2025-03-26", Section: "basic/transports › Streamable HTTP › Sending Messages to the Server",
				Quote: "The body of the POST request MUST be one of the following: a single JSON-RPC request, notification, or response; an array batching one or more requests and/or notifications"},
			Hint: "When the body is an array (stdio.IsBatch), serve it with stdio.ServeBatch at the request's protocol version; answer the responses as one JSON array, or 202 when there are none.",
			Run:  checkHTTPBatchAt20250326,
		},
		{
			ID: "HTTP-20", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Title: "at 2025-11-25, a batch POST gets 400 with a -32600 error",
			Spec:  sendingRule("The body of the POST request MUST be a single JSON-RPC request, notification, or response"),
			Hint:  "ServeBatch refuses batches at versions without them; send its reject with status 400.",
			Run:   checkHTTPBatchAt20251125,
		},

		// Step 4: GET and the other methods.
		{
			ID: "HTTP-21", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
			Title: "GET gets 405 at once, with an Allow header and a body that ends",
			Spec:  listeningRule("The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed"),
			Course: "This stage offers no stream on GET (stage 03 adds it), so GET must be refused at once: headers and the whole body within 2 s. " +
				"RFC 9110 requires an Allow header on every 405.",
			Hint: "Set Allow (for example \"POST, DELETE\"), write a JSON-RPC error body with status 405, and return from the handler. Do not start an SSE response you will never write to.",
			Run:  checkHTTPGet,
		},

		// Step 5: progress on the request's own stream, and cancellation.
		{
			ID: "HTTP-22", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
			Title: "progress notifications arrive on the request's SSE stream, before the response, and the stream ends",
			Spec:  sendingRule("After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream"),
			Course: "The course requires a request with a progress token to be answered as an SSE stream carrying its progress, " +
				"then its response, and then to end (the spec: SHOULD).",
			Hint: "When params._meta.progressToken is set, answer with Content-Type: text/event-stream, pass the stream to the session as its Peer so each notification becomes an event, write the response as the last event, and return.",
			Run:  checkHTTPProgress,
		},
		{
			ID: "HTTP-23", Step: 5, Severity: check.Must, Budget: 10 * time.Second,
			Title: "notifications/cancelled in its own POST stops a running request, whose stream ends without a response",
			Spec: check.Spec{Rev: rev, Section: "basic/transports › Streamable HTTP › Sending Messages to the Server; basic/utilities/cancellation",
				Quote: "To cancel, the client SHOULD explicitly send an MCP CancelledNotification"},
			Course: "The spec says receivers SHOULD stop a cancelled request and SHOULD NOT answer it; the course requires both.",
			Hint:   "The cancellation arrives on another POST, with the same session id: it must reach the same mcp.Session as the running request, which then returns nil. End that request's response without a JSON-RPC response.",
			Run:    checkHTTPCancellation,
		},

		// Step 6: stateless mode.
		{
			ID: "HTTP-24", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
			Title: "stateless: no session id is issued, and none is needed or checked",
			Spec:  sessionRule("A server using the Streamable HTTP transport MAY assign a session ID at initialization time"),
			Course: "With -stateless, the course requires a server with no sessions at all: initialize gets no MCP-Session-Id, " +
				"and every request is served whether it carries one or not.",
			Hint: "In stateless mode, serve every POST with a fresh session (server.NewSession()) and ignore the MCP-Session-Id header.",
			Run:  checkStatelessNoSessions,
		},
		{
			ID: "HTTP-25", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
			Title: "stateless: GET and DELETE get 405 at once, before any other work",
			Spec:  listeningRule("or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint"),
			Course: "A stateless server has no stream to offer and no session to delete. The course requires GET and DELETE to get 405 with Allow: POST " +
				"and no WWW-Authenticate, before any session, version or auth check, with a body that ends at once. A stateless server that " +
				"opened a stream on GET held every such request for 5 minutes until the platform killed it.",
			Hint: "Check the method first. In stateless mode only POST is served: answer anything else 405 with Allow: POST and return. Never start an SSE response on GET.",
			Run:  checkStatelessGetDelete,
		},
		{
			ID: "HTTP-26", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
			Title: "stateless: requests share no state",
			Spec:  sessionRule("A server using the Streamable HTTP transport MAY assign a session ID at initialization time"),
			Course: "Without sessions nothing ties two requests together, so nothing may carry over between them: a note saved by " +
				"one client must never be listed to the next.",
			Hint: "Give every stateless request a new mcp.Session. One shared session for all requests leaks one client's data to every other.",
			Run:  checkStatelessSharesNothing,
		},
	},
}

// ---- step 1 ----

func checkHTTPInitialize(t *check.T) {
	h := wire.StartHTTP(t)
	resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "initialize")
	expectStatus(t, resp, http.StatusOK, "initialize")
	m := expectResponse(t, resp, `1`, "initialize")
	checkInitializeResult(t, m)
}

func checkHTTPRequest(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	resp := h.Post(session, rev, wire.Request(`2`, "tools/list", nil), "tools/list")
	expectStatus(t, resp, http.StatusOK, "tools/list")
	if resp.ContentType == "application/json" {
		m, err := wire.Parse(resp.Body)
		if err != nil {
			t.Fail(check.Failure{What: "an application/json answer to a request must be one JSON object: " + err.Error(),
				Got: resp.Summary(), Want: `{"jsonrpc":"2.0","id":2,"result":{"tools":[...]}}`})
		}
		if !m.IsResponseTo(`2`) {
			t.Fail(check.Failure{What: "the JSON body is not the response to tools/list (id 2)", Got: resp.Summary()})
		}
	}
	mustResult(t, expectResponse(t, resp, `2`, "tools/list"), "tools/list")

	resp = h.Post(session, rev, wire.Request(`"e"`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "héllo ✓"}, nil)), "tools/call echo")
	expectStatus(t, resp, http.StatusOK, "tools/call echo")
	if got := toolText(t, expectResponse(t, resp, `"e"`, "tools/call echo"), "echo"); got != "héllo ✓" {
		t.Fail(check.Failure{What: "echo did not return its text unchanged", Got: check.Quote(got), Want: check.Quote("héllo ✓")})
	}
}

func checkHTTPNotification(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	for _, body := range []string{
		wire.Notification("notifications/initialized", nil),
		wire.Notification("notifications/cancelled", map[string]any{"requestId": "no-such-request"}),
		wire.Notification("notifications/grader-unknown", map[string]any{"x": 1}),
	} {
		resp := h.Post(session, rev, body, "a notification")
		if resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
			t.Fail(check.Failure{What: "a POST holding only a notification did not get 202 Accepted with an empty body",
				Got: resp.Summary(), Want: "HTTP 202, empty body"})
		}
	}
}

func checkHTTPAccept(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	for _, accept := range []string{"application/json", "text/event-stream"} {
		hdr := wire.Headers(session, rev)
		hdr.Set("Accept", accept)
		resp := h.Do(wire.Req{Header: hdr, Body: wire.Request(`2`, "ping", nil), Purpose: "ping with Accept: " + accept})
		if resp.Status < 400 || resp.Status > 499 {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST with only %q in Accept was served", accept),
				Got: resp.Summary(), Want: "a 4xx status (406 Not Acceptable, for instance)"})
		}
	}
	resp := h.Post(session, rev, wire.Request(`3`, "ping", nil), "ping with both types in Accept")
	expectStatus(t, resp, http.StatusOK, "ping with a correct Accept header")
}

func checkHTTPParseError(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	resp := h.Post(session, rev, `{"jsonrpc":"2.0","id":1,"method":"ping"`, "a body that is not JSON")
	expectStatus(t, resp, http.StatusBadRequest, "a body that is not JSON")
	expectErrorBody(t, resp, -32700, "a body that is not JSON")
}

func checkHTTPInvalidMessage(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	for _, body := range []string{`{"jsonrpc":"2.0","id":7,"method":42}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`} {
		resp := h.Post(session, rev, body, body)
		expectStatus(t, resp, http.StatusBadRequest, body)
		expectErrorBody(t, resp, -32600, body)
	}
}

func checkHTTPBodyLimit(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	small := strings.Repeat("s", 3<<20)
	resp := h.Do(wire.Req{Header: wire.Headers(session, rev), Within: wire.T2, Purpose: "echo with 3 MiB of text",
		Body: wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": small}, nil))})
	expectStatus(t, resp, http.StatusOK, "a 3 MiB body, under the 4 MiB limit")

	big := strings.Repeat("b", 4<<20+1024)
	resp = h.Do(wire.Req{Header: wire.Headers(session, rev), Within: wire.T2, Purpose: "echo with 4 MiB + 1 KiB of text",
		Body: wire.Request(`3`, "tools/call", wire.ToolCall("echo", map[string]any{"text": big}, nil))})
	if resp.Status != http.StatusRequestEntityTooLarge {
		t.Fail(check.Failure{What: "a body over the 4 MiB limit was not refused with 413", Got: resp.Summary(), Want: "HTTP 413"})
	}
	resp = h.Post(session, rev, wire.Request(`4`, "ping", nil), "ping after the refused body")
	expectStatus(t, resp, http.StatusOK, "ping after the refused body")
}

func checkHTTPUnknownMethod(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	resp := h.Post(session, rev, wire.Request(`"abc"`, "grader/no-such-method", nil), "an unknown method")
	expectStatus(t, resp, http.StatusOK, "an unknown method")
	expectError(t, expectResponse(t, resp, `"abc"`, "an unknown method"), -32601, "an unknown method")
}

// ---- step 2 ----

func checkHTTPSessionIssued(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	if session == "" {
		t.Fail(check.Failure{What: "the initialize response has no MCP-Session-Id header", Want: "MCP-Session-Id: <an id of visible ASCII>"})
	}
	for i, c := range []byte(session) {
		if c < 0x21 || c > 0x7e {
			t.Fail(check.Failure{What: fmt.Sprintf("byte %d of the session id is 0x%02x, outside visible ASCII (0x21 to 0x7E)", i, c),
				Got: check.Quote(session)})
		}
	}
	resp := h.Post(session, rev, wire.Request(`2`, "ping", nil), "ping with the new session id")
	expectStatus(t, resp, http.StatusOK, "ping with the session id initialize returned")
}

// sessionSamples is how many ids the grader collects to judge randomness.
const sessionSamples = 32

func checkHTTPSessionIDsUnguessable(t *check.T) {
	h := wire.StartHTTP(t)
	seen := map[string]bool{}
	var ids []string
	for i := 0; i < sessionSamples; i++ {
		resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "initialize")
		id := resp.Header.Get("Mcp-Session-Id")
		if id == "" {
			t.Fail(check.Failure{What: "an initialize response has no MCP-Session-Id header", Got: resp.Summary()})
		}
		if seen[id] {
			t.Fail(check.Failure{What: fmt.Sprintf("initialize %d returned a session id already issued", i+1), Got: check.Quote(id)})
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if bits := estimateRandomBits(ids); bits < 120 {
		t.Fail(check.Failure{What: fmt.Sprintf("the session ids look like about %.0f random bits; the course asks for 128 (at least 120)", bits),
			Got: strings.Join(ids[:4], "\n"), Want: "ids such as 32 random hex digits, every one of them different from run to run"})
	}

	// A generator seeded with a constant gives every run the same ids.
	other := wire.StartHTTP(t)
	resp := other.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "initialize on a second server")
	if first := resp.Header.Get("Mcp-Session-Id"); first == ids[0] {
		t.Fail(check.Failure{What: "two fresh runs of the server issued the same first session id: anyone can predict the ids",
			Got: check.Quote(first), Want: "a different id on every run"})
	}
}

// estimateRandomBits judges how many random bits a set of ids carries. A
// position of the id counts only if it varies across the samples, and
// then for as many bits as one character of the id's alphabet holds.
// Counters, timestamps and short ids score low; 128 random bits in any
// common encoding score about 128.
func estimateRandomBits(ids []string) float64 {
	longest := 0
	for _, id := range ids {
		longest = max(longest, len(id))
	}
	varying := 0
	alphabet := map[byte]bool{}
	for pos := 0; pos < longest; pos++ {
		values := map[byte]bool{}
		for _, id := range ids {
			if pos < len(id) {
				values[id[pos]] = true
			}
		}
		if len(values) >= 4 {
			varying++
			for c := range values {
				alphabet[c] = true
			}
		}
	}
	size := 0
	switch {
	case len(alphabet) <= 10:
		size = 10
	case len(alphabet) <= 16:
		size = 16
	case len(alphabet) <= 32:
		size = 32
	case len(alphabet) <= 64:
		size = 64
	default:
		size = 94
	}
	return float64(varying) * math.Log2(float64(size))
}

func checkHTTPMissingSession(t *check.T) {
	h := wire.StartHTTP(t)
	h.Initialize(rev)
	resp := h.Post("", rev, wire.Request(`2`, "tools/list", nil), "tools/list without MCP-Session-Id")
	if resp.Status != http.StatusBadRequest {
		t.Fail(check.Failure{What: "a request without MCP-Session-Id, after a session was set up, did not get 400", Got: resp.Summary(), Want: "HTTP 400"})
	}
}

func checkHTTPUnknownSession(t *check.T) {
	h := wire.StartHTTP(t)
	h.Initialize(rev)
	madeUp := fmt.Sprintf("grader-made-up-%d", time.Now().UnixNano())
	for i := 1; i <= 2; i++ {
		resp := h.Post(madeUp, rev, wire.Request(`2`, "ping", nil), "ping with a session id the server never issued")
		if resp.Status != http.StatusNotFound {
			what := "a request with a session id the server never issued did not get 404"
			if i == 2 {
				what = "the made-up session id was refused once, then accepted: the server adopted an id the client chose"
			}
			t.Fail(check.Failure{What: what, Got: resp.Summary(), Want: "HTTP 404, every time"})
		}
	}
	resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(madeUp, rev), Purpose: "DELETE of a session that never existed"})
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: "DELETE of a session that never existed did not get 404", Got: resp.Summary(), Want: "HTTP 404"})
	}
}

func checkHTTPDelete(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers("", rev), Purpose: "DELETE without MCP-Session-Id"})
	if resp.Status != http.StatusBadRequest {
		t.Fail(check.Failure{What: "DELETE without MCP-Session-Id did not get 400", Got: resp.Summary(), Want: "HTTP 400"})
	}
	resp = h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, rev), Purpose: "DELETE of the session"})
	if resp.Status < 200 || resp.Status > 299 {
		t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status, such as 204"})
	}
	resp = h.Post(session, rev, wire.Request(`2`, "ping", nil), "ping with the deleted session id")
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: "after DELETE, a request with the session's id did not get 404", Got: resp.Summary(), Want: "HTTP 404"})
	}
}

func checkHTTPIsolation(t *check.T) {
	h := wire.StartHTTP(t)
	a, _ := h.Initialize(rev)
	b, _ := h.Initialize(rev)
	if a == b {
		t.Fail(check.Failure{What: "two initializes returned the same session id", Got: check.Quote(a)})
	}
	note := fmt.Sprintf("alpha-%d", time.Now().UnixNano()%1e6)
	callTool(t, h, a, `2`, "add_note", map[string]any{"text": note})
	if got := callTool(t, h, b, `3`, "list_notes", nil); strings.Contains(got, note) {
		t.Fail(check.Failure{What: "session B lists a note that session A saved", Got: check.Quote(got), Want: "no notes from another session"})
	}
	if got := callTool(t, h, a, `4`, "list_notes", nil); !strings.Contains(got, note) {
		t.Fail(check.Failure{What: "session A does not list the note it saved", Got: check.Quote(got), Want: "a list holding " + check.Quote(note)})
	}
}

func checkHTTPConcurrentSessions(t *check.T) {
	h := wire.StartHTTP(t)

	// A slow request in one session must not hold up the others.
	slow, _ := h.Initialize(rev)
	slowDone := make(chan struct{})
	go func() {
		defer close(slowDone)
		h.Do(wire.Req{Header: wire.Headers(slow, rev), Within: 6 * time.Second, Purpose: "a 3 s countdown in another session",
			Body: wire.Request(`"slow"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 30, "interval_ms": 100}, nil))})
	}()
	pause(t, 100*time.Millisecond) // let the countdown start

	const n = 16
	var clients []func()
	for i := 0; i < n; i++ {
		i := i
		clients = append(clients, func() {
			session, _ := h.Initialize(rev)
			note := fmt.Sprintf("note of client %d", i)
			callTool(t, h, session, `2`, "add_note", map[string]any{"text": note})
			callTool(t, h, session, `3`, "countdown", map[string]any{"from": 2, "interval_ms": 20})
			if got, want := callTool(t, h, session, `4`, "list_notes", nil), "1. "+note; got != want {
				t.Fail(check.Failure{What: fmt.Sprintf("with %d clients at once, client %d's session lists the wrong notes", n, i),
					Got: check.Quote(got), Want: check.Quote(want)})
			}
		})
	}
	t.Parallel(clients...)
	h.Post(slow, rev, wire.Notification("notifications/cancelled", map[string]any{"requestId": "slow"}), "cancel the slow countdown")
	<-slowDone
}

func checkHTTPSessionExpiry(t *check.T) {
	h := wire.StartHTTP(t, "-session-timeout", "1s")
	session, _ := h.Initialize(rev)
	expectStatus(t, h.Post(session, rev, wire.Request(`2`, "ping", nil), "ping while the session is fresh"), http.StatusOK, "ping while the session is fresh")
	t.Wire.Event("waiting 1.6 s: the session is idle past its 1 s timeout")
	pause(t, 1600*time.Millisecond)
	resp := h.Post(session, rev, wire.Request(`3`, "ping", nil), "ping after 1.6 s idle")
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: "a session idle for 1.6 s, with -session-timeout 1s, still answers", Got: resp.Summary(), Want: "HTTP 404"})
	}
}

func checkHTTPSessionCap(t *check.T) {
	h := wire.StartHTTP(t, "-max-sessions", "3")
	var sessions []string
	for i := 0; i < 3; i++ {
		s, _ := h.Initialize(rev)
		sessions = append(sessions, s)
	}
	resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "a 4th initialize, with -max-sessions 3")
	if resp.Status != http.StatusServiceUnavailable && resp.Status != http.StatusTooManyRequests {
		t.Fail(check.Failure{What: "with -max-sessions 3, a 4th session was not refused", Got: resp.Summary(), Want: "HTTP 503 (or 429)"})
	}
	for i, s := range sessions {
		expectStatus(t, h.Post(s, rev, wire.Request(`2`, "ping", nil), fmt.Sprintf("ping in session %d while full", i+1)), http.StatusOK,
			"a ping in an existing session while the server is full")
	}
	h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(sessions[0], rev), Purpose: "DELETE one session"})
	resp = h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "initialize after a DELETE freed a place")
	expectStatus(t, resp, http.StatusOK, "an initialize once a DELETE has freed a place")
}

// ---- step 3 ----

func checkHTTPProtocolVersionHeader(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	for _, v := range []string{"1999-01-01", "not-a-version"} {
		resp := h.Post(session, v, wire.Request(`2`, "ping", nil), "ping with MCP-Protocol-Version: "+v)
		if resp.Status != http.StatusBadRequest {
			t.Fail(check.Failure{What: fmt.Sprintf("a request with MCP-Protocol-Version: %s was not refused", v), Got: resp.Summary(), Want: "HTTP 400"})
		}
	}
	resp := h.Post(session, "", wire.Request(`3`, "ping", nil), "ping without MCP-Protocol-Version")
	if resp.Status != http.StatusOK {
		t.Fail(check.Failure{What: "a request without MCP-Protocol-Version was refused", Got: resp.Summary(),
			Want: "HTTP 200: without the header, use the session's version or assume 2025-03-26"})
	}
}

func checkHTTPBatchAt20250326(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize("2025-03-26")
	batch := "[" + wire.Request(`"b1"`, "ping", nil) + "," + wire.Request(`"b2"`, "ping", nil) + "," +
		wire.Notification("notifications/grader-unknown", nil) + "]"
	resp := h.Post(session, "2025-03-26", batch, "a batch of two pings and a notification")
	expectStatus(t, resp, http.StatusOK, "a batch at 2025-03-26")
	for _, id := range []string{`"b1"`, `"b2"`} {
		if m := resp.Find(id); m == nil || m.Error != nil {
			t.Fail(check.Failure{What: fmt.Sprintf("the answer to the batch holds no result for ping %s", id), Got: resp.Summary(),
				Want: `[{"jsonrpc":"2.0","id":"b1","result":{}},{"jsonrpc":"2.0","id":"b2","result":{}}] (any order)`})
		}
	}
	resp = h.Post(session, "2025-03-26", "["+wire.Notification("notifications/grader-unknown", nil)+"]", "a batch of notifications only")
	if resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
		t.Fail(check.Failure{What: "a batch holding only notifications did not get 202 with an empty body", Got: resp.Summary(), Want: "HTTP 202, empty body"})
	}
}

func checkHTTPBatchAt20251125(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	resp := h.Post(session, rev, "["+wire.Request(`"b1"`, "ping", nil)+"]", "a batch at 2025-11-25")
	expectStatus(t, resp, http.StatusBadRequest, "a batch at 2025-11-25, which has no batches")
	expectErrorBody(t, resp, -32600, "a batch at 2025-11-25")
}

// ---- step 4 ----

func checkHTTPGet(t *check.T) {
	h := wire.StartHTTP(t)
	sse := http.Header{"Accept": {"text/event-stream"}}
	expect405(t, h, wire.Req{Method: http.MethodGet, Header: sse, Purpose: "GET without a session"})
	session, _ := h.Initialize(rev)
	withSession := wire.Headers(session, rev)
	withSession.Set("Accept", "text/event-stream")
	withSession.Del("Content-Type")
	expect405(t, h, wire.Req{Method: http.MethodGet, Header: withSession, Purpose: "GET with the session"})
	expect405(t, h, wire.Req{Method: http.MethodPut, Header: wire.Headers(session, rev), Body: wire.Request(`2`, "ping", nil), Purpose: "PUT"})
}

// expect405 fails the check unless req gets a complete 405 with an Allow
// header that lists POST.
func expect405(t *check.T, h *wire.HTTP, req wire.Req) *wire.Response {
	resp := h.Do(req)
	if resp.Status != http.StatusMethodNotAllowed {
		t.Fail(check.Failure{What: fmt.Sprintf("%s %s did not get 405", req.Method, "/mcp ("+req.Purpose+")"), Got: resp.Summary(),
			Want: "HTTP 405 Method Not Allowed, at once"})
	}
	if allow := resp.Header.Get("Allow"); !strings.Contains(strings.ToUpper(allow), "POST") {
		t.Fail(check.Failure{What: "a 405 must say what is allowed: its Allow header does not list POST", Got: check.Quote(allow), Want: `Allow: POST (and DELETE, where sessions exist)`})
	}
	return resp
}

// ---- step 5 ----

func checkHTTPProgress(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	token := fmt.Sprintf("p-%d", time.Now().UnixNano()%1e6)
	resp := h.Do(wire.Req{Header: wire.Headers(session, rev), Within: wire.T2, Purpose: "countdown with a progress token",
		Body: wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 3, "interval_ms": 20}, token))})
	expectStatus(t, resp, http.StatusOK, "countdown with a progress token")
	if resp.ContentType != "text/event-stream" {
		t.Fail(check.Failure{What: "a request with a progress token was not answered as an SSE stream, so its progress could not travel",
			Got: resp.Summary(), Want: "Content-Type: text/event-stream: three progress events, then the response"})
	}
	msgs := resp.Messages()
	var before []*wire.Msg
	answered := false
	for _, m := range msgs {
		switch {
		case answered:
			t.Fail(check.Failure{What: "a message came after the response on the request's stream", Got: check.Quote(string(m.Raw))})
		case m.IsResponseTo(`2`):
			answered = true
		default:
			before = append(before, m)
		}
	}
	progress := progressValues(t, before, json.RawMessage(`"`+token+`"`))
	if !answered || len(progress) != 3 {
		t.Fail(check.Failure{What: fmt.Sprintf("the stream held %d progress notifications and %s", len(progress), map[bool]string{true: "the response", false: "no response"}[answered]),
			Got: resp.Summary(), Want: "3 notifications/progress events, then the response with id 2"})
	}
}

func checkHTTPCancellation(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	done := make(chan *wire.Response, 1)
	go func() {
		defer close(done)
		done <- h.Do(wire.Req{Header: wire.Headers(session, rev), Within: 6 * time.Second, Purpose: "countdown of 2 s, to be cancelled",
			Body: wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 40, "interval_ms": 50}, "c"))})
	}()
	pause(t, 300*time.Millisecond) // let the countdown start
	resp := h.Post(session, rev, wire.Notification("notifications/cancelled", map[string]any{"requestId": 2, "reason": "grader"}), "notifications/cancelled")
	if resp.Status != http.StatusAccepted {
		t.Fail(check.Failure{What: "notifications/cancelled did not get 202", Got: resp.Summary(), Want: "HTTP 202"})
	}
	cancelled := time.Now()
	countdown, ok := <-done
	if !ok {
		t.FailNow() // the countdown's request failed; its report says why
	}
	if m := countdown.Find(`2`); m != nil {
		t.Fail(check.Failure{What: "the cancelled countdown still got a response", Got: check.Quote(string(m.Raw)), Want: "the stream ends without a response"})
	}
	if waited := time.Since(cancelled); waited > 1500*time.Millisecond {
		t.Fail(check.Failure{What: fmt.Sprintf("the cancelled countdown's response took %v more to end", waited.Round(time.Millisecond)),
			Want: "the request stops within moments of the cancellation"})
	}
}

// ---- step 6 ----

func checkStatelessNoSessions(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	session, resp := h.Initialize(rev)
	if session != "" {
		t.Fail(check.Failure{What: "in stateless mode, initialize returned an MCP-Session-Id", Got: check.Quote(session), Want: "no MCP-Session-Id header"})
	}
	checkInitializeResult(t, expectResponse(t, resp, `1`, "initialize"))
	for _, header := range []string{"", "grader-made-up-session"} {
		purpose := "echo without a session"
		if header != "" {
			purpose = "echo with a session id the server never issued"
		}
		resp := h.Post(header, rev, wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "hi"}, nil)), purpose)
		expectStatus(t, resp, http.StatusOK, "a stateless "+purpose)
		toolText(t, expectResponse(t, resp, `2`, purpose), "echo")
	}
}

func checkStatelessGetDelete(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		hdr := http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {"grader-made-up-session"}}
		resp := expect405(t, h, wire.Req{Method: method, Header: hdr, Purpose: method + " on a stateless server"})
		if allow := resp.Header.Get("Allow"); strings.Contains(strings.ToUpper(allow), method) {
			t.Fail(check.Failure{What: fmt.Sprintf("the 405 to %s lists %s as allowed", method, method), Got: check.Quote(allow), Want: "Allow: POST"})
		}
		if wa := resp.Header.Get("WWW-Authenticate"); wa != "" {
			t.Fail(check.Failure{What: fmt.Sprintf("the 405 to %s carries WWW-Authenticate, which invites the client to authenticate for a method that will never work", method),
				Got: check.Quote(wa), Want: "no WWW-Authenticate header"})
		}
	}
}

func checkStatelessSharesNothing(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	secret := fmt.Sprintf("secret-%d", time.Now().UnixNano()%1e6)
	callTool(t, h, "", `2`, "add_note", map[string]any{"text": secret})
	if got := callTool(t, h, "", `3`, "list_notes", nil); strings.Contains(got, secret) {
		t.Fail(check.Failure{What: "a later stateless request lists a note an earlier one saved: requests share state", Got: check.Quote(got),
			Want: "no notes: every stateless request starts fresh"})
	}
}
