package grader

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"mcpcourse/grader/check"
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
			Needs: check.Needs{Mode: check.AnyMode},
			Title: "POST initialize gets 200 and the InitializeResult",
			Spec:  httpRule("", "The server MUST provide a single HTTP endpoint path (hereafter referred to as the MCP endpoint) that supports both POST and GET methods"),
			Hint:  "Mount the handler at /mcp. Read the body, Decode it with stage 01's Decode, hand it to a new session, and write the response as JSON with Content-Type: application/json.",
			Run:   checkHTTPInitialize,
		},
		{
			ID: "HTTP-02", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.AnyMode},
			Title: "a request gets 200 and its response as one JSON object (or an SSE stream)",
			Spec:  sendingRule("the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object"),
			Hint:  "Answer a request with 200, Content-Type: application/json, and the response object as the whole body: one object, not an array, not wrapped in anything.",
			Run:   checkHTTPRequest,
		},
		{
			ID: "HTTP-03", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.AnyMode},
			Title: "a notification, or a response from the client, gets 202 Accepted with an empty body",
			Spec:  sendingRule("If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body"),
			Course: "The spec lets a server that cannot accept a notification or a response refuse it with an HTTP error. The course requires every one to be accepted, " +
				"an unknown notification and a response to no request included: JSON-RPC never answers a notification, and a refusal tells the client nothing it can act on.",
			Hint: "A body that holds no request (a notification, or the client's response to a request of the server's) needs no answer: " +
				"hand it to the session, then w.WriteHeader(http.StatusAccepted) and write nothing. Not 200, not 204, not {}.",
			Run: checkHTTPNotification,
		},
		{
			ID: "HTTP-04", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.AnyMode},
			Title: "Accept is read as a list: any order, spacing, case, wildcards or repeated headers are served; without both types, or with q=0, a 4xx",
			Spec:  sendingRule("The client MUST include an Accept header, listing both application/json and text/event-stream as supported content types"),
			Course: "The spec puts the rule on the client and leaves the server's answer open. The course requires a 4xx " +
				"(406 Not Acceptable in the reference): the server picks JSON or SSE per response, so a client that cannot take both will break later, not now. " +
				"Real clients write Accept in many ways (RFC 9110 §12.5.1), and each must be understood.",
			Hint: "Parse Accept as a comma-separated list of media types, in every value of the header (r.Header.Values): mime.ParseMediaType each piece, " +
				"skip pieces with q=0, and let type/*, */* match. Refuse the POST unless both types are acceptable; never compare the header with one fixed string.",
			Run: checkHTTPAccept,
		},
		{
			ID: "HTTP-05", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Mode: check.AnyMode},
			Title:  "a body that is not JSON gets 400 with a -32700 error body",
			Spec:   sendingRule("If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)"),
			Course: errorBodyCourse,
			Hint:   "Decode returns a reject for text that is not JSON. Write it as the body of a 400 response, with Content-Type: application/json.",
			Run:    checkHTTPParseError,
		},
		{
			ID: "HTTP-06", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Mode: check.AnyMode},
			Title:  "JSON that is not a valid message gets 400 with a -32600 error body",
			Spec:   sendingRule("If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)"),
			Course: errorBodyCourse,
			Hint:   `"method": 42 or "id": null is valid JSON but no valid message: Decode's reject is a -32600 error. Send it with status 400, not 200.`,
			Run:    checkHTTPInvalidMessage,
		},
		{
			ID: "HTTP-07", Step: 1, Severity: check.Must, Budget: 10 * time.Second,
			Needs: check.Needs{Mode: check.AnyMode},
			Title: "a body over 4 MiB gets 413; one under it is served",
			Spec:  noLimitRule,
			Course: "The spec sets no size limit. The course requires one (4 MiB by default) so that one request cannot make " +
				"the server read without end, and 413 Content Too Large when it is exceeded.",
			Hint: "Wrap the body in http.MaxBytesReader(w, r.Body, limit) before reading it; when the read fails with *http.MaxBytesError, answer 413.",
			Run:  checkHTTPBodyLimit,
		},
		{
			ID: "HTTP-08", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Mode: check.AnyMode},
			Title:  "an unknown method gets a -32601 JSON-RPC error, not an HTTP error",
			Spec:   jsonrpcErrors,
			Course: "The course requires the error with status 200, as every response to a request: the request was delivered, and the error is JSON-RPC's to report.",
			Hint:   "An unknown method is a perfectly good request with an error for an answer: send the session's -32601 response like any other response, with 200.",
			Run:    checkHTTPUnknownMethod,
		},
		{
			ID: "HTTP-27", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.AnyMode},
			Title: "a POST whose Content-Type is not application/json gets 415; parameters such as charset are fine",
			Spec:  sendingRule("The body of the POST request MUST be a single JSON-RPC request, notification, or response"),
			Course: "The spec does not name the status. The course requires 415 Unsupported Media Type for a body that does not say it is JSON: " +
				"a web page can POST text/plain to any site without asking first, never application/json (lesson 04 builds on this).",
			Hint: "Parse Content-Type with mime.ParseMediaType and compare the media type alone: application/json; charset=utf-8 is JSON too. " +
				"Anything else, or no Content-Type at all, gets 415 before the body is read.",
			Run: checkHTTPContentType,
		},
		{
			ID: "HTTP-28", Step: 1, Severity: check.Must, Budget: 10 * time.Second,
			Needs: check.Needs{Mode: check.AnyMode},
			Title: "a body over the limit is refused before it is read to its end (the grader counts the bytes the server takes)",
			Spec:  noLimitRule,
			Course: "A status code is not enough: a server that reads a 512 MiB body into memory and then answers 413 has already lost. " +
				"The grader streams a 48 MiB body without Content-Length and counts how much the server has taken when its answer begins: " +
				"the 4 MiB limit, plus what the network buffers hold, and no more than 24 MiB.",
			Hint: "Read through http.MaxBytesReader(w, r.Body, limit), which stops at the limit, rather than io.ReadAll(r.Body) and a length check afterwards. " +
				"Checking r.ContentLength is not enough either: a chunked body has none.",
			Run: checkHTTPBodyReadBounded,
		},

		// Step 2: sessions.
		{
			ID: "HTTP-09", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "initialize's response sets MCP-Session-Id, in visible ASCII; an initialize that carries one gets 400",
			Spec:  sessionRule("The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)"),
			Course: "An initialize starts a new session; one that names a session already is a client's mistake. " +
				"The course requires 400 for it, rather than a second session or a silent restart of the first.",
			Hint: "Set the header on the response that carries the InitializeResult, before writing the body. Hex or base64url encoding keeps the id to visible ASCII. " +
				"Refuse an initialize that carries MCP-Session-Id with 400 before creating anything.",
			Run: checkHTTPSessionIssued,
		},
		{
			ID: "HTTP-10", Step: 2, Severity: check.Must, Budget: 10 * time.Second,
			Title: "session ids look unguessable from outside: unique, ~128 varying bits, new each run, no math/rand pattern",
			Spec: check.Spec{Rev: rev, Section: "security best practices › Session Hijacking › Mitigation; basic/transports › Streamable HTTP › Session Management",
				Quote: "MCP servers MUST use secure, non-deterministic session IDs"},
			Course: "The course asks for about 128 random bits from crypto/rand (a random UUID's 122 pass). The grader sees only the ids, so it cannot prove " +
				"where they come from: it collects 320 of them and catches repeats, counters, timestamps and short ids, a generator seeded with a constant " +
				"(the first id is the same in two runs), and math/rand's own generator, whose every output is the sum of the outputs 273 and 607 places before it.",
			Hint: "Read 16 bytes with crypto/rand.Read and hex-encode them. Not a counter, not a timestamp, not math/rand however seeded: with those, anyone who sees some ids can work out the next.",
			Run:  checkHTTPSessionIDsUnguessable,
		},
		{
			ID: "HTTP-11", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title:  "without MCP-Session-Id, a request, a notification, a response or a batch gets 400",
			Spec:   sessionRule("Servers that require a session ID SHOULD respond to requests without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request"),
			Course: "The spec says SHOULD; the course requires 400. A 200 with an error inside tells a client's HTTP layer that all went well.",
			Hint:   "Every message except initialize must carry the header, notifications too: they need no answer, but they still belong to a session. Without it, answer 400 before anything else happens.",
			Run:    checkHTTPMissingSession,
		},
		{
			ID: "HTTP-12", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "an unknown session id gets 404, for requests, notifications and DELETE, and is never adopted",
			Spec:  sessionRule("The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"),
			Hint:  "Look the id up in your session map, for every message; if it is not there, answer 404 (a notification too: it cannot be delivered). Never create a session for an id the client made up: session ids come from the server only.",
			Run:   checkHTTPUnknownSession,
		},
		{
			ID: "HTTP-13", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title:  "DELETE ends the session: what runs in it stops, and its id then gets 404",
			Spec:   sessionRule("Clients that no longer need a particular session SHOULD send an HTTP DELETE to the MCP endpoint with the MCP-Session-Id header"),
			Course: "The spec lets a server refuse DELETE with 405. The course requires it to end the session (2xx), and 400 when the header is missing.",
			Hint:   "On DELETE, remove the session from the map, cancel what runs in it (session.Close, which endLocked calls), and answer 204. Later requests with that id, and a second DELETE, then get 404.",
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
			Course: "The spec describes a server that handles many clients without saying how well. The course requires 16 clients at once to be served correctly, " +
				"each in its own session, while a slow request in another session runs.",
			Hint: "net/http runs each request on its own goroutine. Guard the session map with a sync.Mutex held only while you touch the map, never while a request runs, and keep per-request state in local variables, not in fields of the handler. Run the grader with GRADER_RACE=1 to let the race detector look too.",
			Run:  checkHTTPConcurrentSessions,
		},
		{
			ID: "HTTP-16", Step: 2, Severity: check.Must, Budget: 8 * time.Second,
			Needs: check.Needs{Flags: []string{"-session-timeout", "-max-sessions"}},
			Title: "an idle session expires: it then gets 404, and no longer takes a place under the session cap",
			Spec: check.Spec{Rev: rev, Section: "basic/transports › Streamable HTTP › Session Management; security best practices › Session Hijacking › Mitigation",
				Quote: "Rotating or expiring session IDs can also reduce the risk"},
			Course: "Clients vanish without sending DELETE. The course requires idle sessions to expire after a timeout " +
				"(-session-timeout; the grader sets 1s), so abandoned sessions do not pile up in memory.",
			Hint: "Record when each session was last used; when a lookup finds it idle for longer than the timeout, end it and answer 404. " +
				"Sweep the map now and then too, and before refusing an initialize at the cap: expired sessions must not keep their places.",
			Run: checkHTTPSessionExpiry,
		},
		{
			ID: "HTTP-17", Step: 2, Severity: check.Must, Budget: 8 * time.Second,
			Needs: check.Needs{Flags: []string{"-max-sessions"}},
			Title: "at the session cap, initialize gets 503 with Retry-After and the rest keeps working; a failed initialize takes no place",
			Spec:  noLimitRule,
			Course: "A flood of initialize requests must not exhaust memory. The course requires a cap on live sessions " +
				"(-max-sessions; the grader sets 3) and a clear refusal beyond it: 503 Service Unavailable (429 also passes).",
			Hint: "Before creating a session, count the live ones; at the cap, answer 503 with a Retry-After header. Sessions that exist keep working, and ending one frees a place. " +
				"An initialize that fails (an error response) starts nothing: remove its session again, and send no MCP-Session-Id.",
			Run: checkHTTPSessionCap,
		},
		{
			ID: "HTTP-29", Step: 2, Severity: check.Must, Budget: 8 * time.Second,
			Needs: check.Needs{Flags: []string{"-session-timeout"}},
			Title: "a session in use never expires: steady requests, or one request longer than the timeout, keep it alive",
			Spec: check.Spec{Rev: rev, Section: "basic/transports › Streamable HTTP › Session Management",
				Quote: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"},
			Course: "Expiry is for sessions nobody uses. The course requires a session to live while requests keep coming (the grader pings every 200 ms, " +
				"with -session-timeout 1s) and while a request runs longer than the timeout, and to start its idle time again when that request ends.",
			Hint: "Refresh lastUsed whenever a request of the session ends (in the release function acquire returns), and never expire a session with a request " +
				"running (active > 0), neither in acquire nor in the sweep.",
			Run: checkHTTPSessionInUse,
		},

		// Step 3: the protocol version header, and batches.
		{
			ID: "HTTP-18", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Title: "MCP-Protocol-Version: unsupported or malformed gets 400, on requests, notifications, batches and DELETE; absent is accepted",
			Spec:  httpRule("Protocol Version Header", "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"),
			Course: "Without the header, the spec says the server SHOULD assume 2025-03-26 (or use the version the session negotiated); " +
				"the course requires that such a request is served.",
			Hint: "Look the header up in the version table (mcp.LookupVersion) for every message, and for DELETE. Present and unknown: 400. Absent: use the session's negotiated version, or 2025-03-26.",
			Run:  checkHTTPProtocolVersionHeader,
		},
		{
			ID: "HTTP-19", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.AnyMode},
			Title: "at 2025-03-26, a batch POST gets all its responses; a batch of notifications gets 202",
			Spec: check.Spec{Rev: "2025-03-26", Section: "basic/index › Batching; basic/transports › Streamable HTTP › Sending Messages to the Server",
				Quote: "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches"},
			Hint: "When the body is an array (stdio.IsBatch), serve it with stdio.ServeBatch at the request's protocol version; answer the responses as one JSON array, or 202 when there are none.",
			Run:  checkHTTPBatchAt20250326,
		},
		{
			ID: "HTTP-20", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Title: "at 2025-11-25 and 2025-06-18, a batch POST gets 400 with a -32600 error, with or without the version header",
			Spec:  sendingRule("The body of the POST request MUST be a single JSON-RPC request, notification, or response"),
			Course: "Batches left the spec in 2025-06-18, and it does not say how a server refuses one. The course requires 400 with a -32600 (Invalid Request) error body, " +
				"judged by the session's version when the header is missing.",
			Hint: "ServeBatch refuses batches at versions without them; send its reject with status 400. Without MCP-Protocol-Version, " +
				"the version is the one the session negotiated: a 2025-11-25 session does not turn into 2025-03-26 because a header is missing.",
			Run: checkHTTPBatchAt20251125,
		},

		// Step 4: GET and the other methods.
		{
			ID: "HTTP-21", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
			Title: "GET gets 405 at once, before any session or version check, with an Allow header that does not list GET, and a body that ends",
			Spec:  listeningRule("The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed"),
			Course: "This stage offers no stream on GET (stage 03 adds it), so GET must be refused at once: headers and the whole body within 2 s. " +
				"RFC 9110 requires an Allow header on every 405.",
			Hint: "Check the method first. Set Allow to the methods you serve (\"POST, DELETE\"), write a JSON-RPC error body with status 405, and return from the handler. " +
				"Do not start an SSE response you will never write to.",
			Run: checkHTTPGet,
		},

		// Step 5: progress on the request's own stream, and cancellation.
		{
			ID: "HTTP-22", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
			Needs: check.Needs{Mode: check.AnyMode},
			Title: "progress notifications arrive on the request's SSE stream as they happen, before the response, and the stream ends",
			Spec:  sendingRule("After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream"),
			Course: "The course requires a request with a progress token to be answered as an SSE stream carrying its progress, " +
				"then its response, and then to end (the spec: SHOULD).",
			Hint: "When params._meta.progressToken is set, answer with Content-Type: text/event-stream, pass the stream to the session as its Peer so each notification becomes an event, " +
				"flushed at once (http.ResponseController.Flush), write the response as the last event, and return.",
			Run: checkHTTPProgress,
		},
		{
			ID: "HTTP-23", Step: 5, Severity: check.Must, Budget: 10 * time.Second,
			Title: "notifications/cancelled in its own POST stops a running request, which is answered by an SSE stream that ends without a response",
			Spec: check.Spec{Rev: rev, Section: "basic/transports › Streamable HTTP › Sending Messages to the Server; basic/utilities/cancellation",
				Quote: "To cancel, the client SHOULD explicitly send an MCP CancelledNotification"},
			Course: "The spec says receivers SHOULD stop a cancelled request and SHOULD NOT answer it; the course requires both.",
			Hint: "The cancellation arrives on another POST, with the same session id: it must reach the same mcp.Session as the running request, which then returns nil. " +
				"End that request's stream without a JSON-RPC response; a request that was to be answered with JSON gets a stream that ends at once " +
				"(h.streams.Open(w, r, sess).Close()). Not 204: a POST that holds a request MUST be answered with JSON or SSE.",
			Run: checkHTTPCancellation,
		},
		{
			ID: "HTTP-30", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
			Title: "a client that drops its connection has not cancelled: the request runs to its end (seen in the history tool)",
			Spec:  sendingRule("Disconnection SHOULD NOT be interpreted as the client cancelling its request"),
			Course: "The spec says SHOULD NOT; in stateful mode the course requires it: a request stops when the client cancels it, or when its session ends. " +
				"The grader hangs up on two countdowns, one answered as JSON and one as an SSE stream, then asks the session's history tool how they ended.",
			Hint: "Run requests under the given h.requestContext(r): in stateful mode it is context.WithoutCancel(r.Context()), so that a dropped connection " +
				"does not cancel the request. r.Context() alone is cancelled the moment the client goes away.",
			Run: checkHTTPDisconnectIsNotCancel,
		},

		// Step 6: stateless mode.
		{
			ID: "HTTP-24", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.Stateless},
			Title: "stateless: no session id is issued, and none is needed or checked, for requests, notifications or batches",
			Spec:  sessionRule("A server using the Streamable HTTP transport MAY assign a session ID at initialization time"),
			Course: "With -stateless, the course requires a server with no sessions at all: initialize gets no MCP-Session-Id, " +
				"and every request is served whether it carries one or not.",
			Hint: "In stateless mode, serve every POST with a fresh session (server.NewSession()) and ignore the MCP-Session-Id header.",
			Run:  checkStatelessNoSessions,
		},
		{
			ID: "HTTP-25", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.Stateless},
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
			Needs: check.Needs{Mode: check.Stateless},
			Title: "stateless: requests share no state",
			Spec:  sessionRule("A server using the Streamable HTTP transport MAY assign a session ID at initialization time"),
			Course: "Without sessions nothing ties two requests together, so nothing may carry over between them: a note saved by " +
				"one client must never be listed to the next.",
			Hint: "Give every stateless request a new mcp.Session. One shared session for all requests leaks one client's data to every other.",
			Run:  checkStatelessSharesNothing,
		},
	},
}

// errorBodyCourse is the Course text of the checks that want a JSON-RPC
// error body with an HTTP error.
const errorBodyCourse = "The spec requires an HTTP error status and lets its body hold a JSON-RPC error response without an id (MAY). " +
	"The course requires 400 with that error body, with the JSON-RPC code that says what was wrong."

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
		`{"jsonrpc":"2.0","id":"srv-1","result":{}}`, // the client's response to a request the server never sent
	} {
		expectAccepted(t, h.Post(session, rev, body, "a message that needs no answer"), "a POST holding only a notification or a response")
	}
}

// expectAccepted fails the check unless resp is 202 Accepted with an empty
// body. The spec lets a server refuse a notification or a response with an
// HTTP error; a success status other than 202, or a body, breaks it.
func expectAccepted(t *check.T, resp *wire.Response, what string) {
	if resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
		t.Fail(check.Failure{What: what + " did not get 202 Accepted with an empty body", Got: resp.Summary(), Want: "HTTP 202, empty body",
			Spec: resp.Status < 300})
	}
}

// expectHTTPError fails the check unless resp has status want; a status
// that is no error at all breaks the spec itself.
func expectHTTPError(t *check.T, resp *wire.Response, want int, what string) {
	if resp.Status != want {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", what, resp.Status), Got: resp.Summary(), Want: fmt.Sprintf("HTTP %d", want),
			Spec: resp.Status < 400})
	}
}

func checkHTTPAccept(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	post := func(accept []string, id string) *wire.Response {
		hdr := wire.Headers(session, rev)
		hdr.Del("Accept")
		for _, a := range accept {
			hdr.Add("Accept", a)
		}
		return h.Do(wire.Req{Header: hdr, Body: wire.Request(id, "ping", nil), Purpose: "ping with Accept: " + strings.Join(accept, " + ")})
	}
	for i, accept := range [][]string{
		{"application/json"},
		{"text/event-stream"},
		{"application/json, text/event-stream;q=0"},
		{"application/json;q=0, text/event-stream"},
		{}, // no Accept at all
	} {
		if resp := post(accept, fmt.Sprint(10+i)); resp.Status < 400 || resp.Status > 499 {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST with Accept %q, which does not allow both types, was served", strings.Join(accept, " + ")),
				Got: resp.Summary(), Want: "a 4xx status (406 Not Acceptable, for instance)"})
		}
	}
	for i, accept := range [][]string{
		{"application/json, text/event-stream"},
		{"text/event-stream, application/json"},
		{"application/json,text/event-stream"},
		{"application/json;q=0.9, text/event-stream;q=0.5"},
		{"Application/JSON, Text/Event-Stream"},
		{"application/json", "text/event-stream"}, // two Accept lines
		{"application/*, text/*"},
		{"*/*"},
	} {
		resp := post(accept, fmt.Sprint(20+i))
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST with Accept %q, which allows both types, was refused", strings.Join(accept, " + ")),
				Got: resp.Summary(), Want: "HTTP 200: Accept is a list of media ranges, in any order, with optional spaces, parameters, wildcards, and any case"})
		}
	}
}

func checkHTTPParseError(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	resp := h.Post(session, rev, `{"jsonrpc":"2.0","id":1,"method":"ping"`, "a body that is not JSON")
	expectHTTPError(t, resp, http.StatusBadRequest, "a body that is not JSON")
	expectErrorBody(t, resp, -32700, "a body that is not JSON")
}

func checkHTTPInvalidMessage(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	for _, body := range []string{`{"jsonrpc":"2.0","id":7,"method":42}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`} {
		resp := h.Post(session, rev, body, body)
		expectHTTPError(t, resp, http.StatusBadRequest, body)
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
	if m := resp.Find(`"abc"`); m != nil && resp.Status != http.StatusOK {
		// The JSON-RPC error came, with a status the course does not want.
		expectError(t, m, -32601, "an unknown method")
		expectStatus(t, resp, http.StatusOK, "an unknown method")
	}
	if resp.Status != http.StatusOK {
		t.Fail(check.Failure{What: fmt.Sprintf("an unknown method got HTTP %d, and no JSON-RPC response", resp.Status), Got: resp.Summary(),
			Want: `HTTP 200 with {"jsonrpc":"2.0","id":"abc","error":{"code":-32601,...}}: a request gets a response, an error one when its method is unknown`, Spec: true})
	}
	m := expectResponse(t, resp, `"abc"`, "an unknown method")
	if code, ok := m.ErrorCode(); m.Error == nil || !ok || code != -32601 {
		t.Fail(check.Failure{What: "an unknown method did not get a -32601 error", Got: check.Quote(string(m.Raw)), Want: `an error response with "code": -32601`, Spec: true})
	}
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
				Got: check.Quote(session), Spec: true})
		}
	}
	resp := h.Post(session, rev, wire.Request(`2`, "ping", nil), "ping with the new session id")
	expectStatus(t, resp, http.StatusOK, "ping with the session id initialize returned")

	resp = h.Post(session, "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "initialize that carries the live session's id")
	if resp.Status != http.StatusBadRequest {
		t.Fail(check.Failure{What: "an initialize that carries MCP-Session-Id was not refused", Got: resp.Summary(),
			Want: "HTTP 400: initialize starts a new session, and must be sent without the header"})
	}
	expectStatus(t, h.Post(session, rev, wire.Request(`3`, "ping", nil), "ping after the refused initialize"), http.StatusOK,
		"a ping in the session, after an initialize that named it was refused")
}

// sessionSamples is how many ids the grader collects to judge randomness:
// enough for math/rand's pattern, which spans 607 outputs, to show.
const sessionSamples = 320

func checkHTTPSessionIDsUnguessable(t *check.T) {
	h := wire.StartHTTP(t)
	seen := map[string]bool{}
	var ids []string
	for i := 0; i < sessionSamples; i++ {
		resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "initialize")
		id := resp.Header.Get("Mcp-Session-Id")
		if id == "" {
			t.Fail(check.Failure{What: fmt.Sprintf("the response to initialize %d has no MCP-Session-Id header", i+1), Got: resp.Summary(),
				Cause: map[bool]string{true: wire.CauseSession}[i == 0]})
		}
		if seen[id] {
			t.Fail(check.Failure{What: fmt.Sprintf("initialize %d returned a session id already issued", i+1), Got: check.Quote(id), Spec: true})
		}
		seen[id] = true
		ids = append(ids, id)
		if i == 31 {
			// 32 ids are enough to see how many bits vary.
			if bits := estimateRandomBits(ids); bits < 120 {
				t.Fail(check.Failure{What: fmt.Sprintf("the session ids look like about %.0f random bits; the course asks for 128 (at least 120)", bits),
					Got: strings.Join(ids[:4], "\n"), Want: "ids such as 32 random hex digits, every one of them different from run to run"})
			}
		}
	}
	if layout, ok := mathRandPattern(ids); ok {
		t.Fail(check.Failure{What: fmt.Sprintf("the session ids follow math/rand's generator (%s): each of its outputs is the sum of the ones 273 and 607 places before, "+
			"so whoever collects some ids can compute the next ones", layout),
			Got: strings.Join(ids[:4], "\n"), Want: "ids from crypto/rand, whose outputs follow no pattern", Spec: true})
	}

	// A generator seeded with a constant gives every run the same ids. A
	// server at a URL cannot be run twice: that part is left out.
	if t.Target.URL != "" {
		return
	}
	other := wire.StartHTTP(t)
	resp := other.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "initialize on a second server")
	if first := resp.Header.Get("Mcp-Session-Id"); first == ids[0] {
		t.Fail(check.Failure{What: "two fresh runs of the server issued the same first session id: anyone can predict the ids",
			Got: check.Quote(first), Want: "a different id on every run", Spec: true})
	}
}

// mathRandPattern reports whether ids carry the outputs of math/rand's
// generator (rand.New(rand.NewSource(seed)), however seeded): an additive
// lagged Fibonacci generator, whose every 64-bit output is the sum of the
// outputs 607 and 273 places before it. The ids are read as hex (dashes
// dropped) and split into outputs the ways Go code turns them into ids:
// 8 bytes each, as fmt's %016x or encoding/binary write them, or 7 bytes
// each, little-endian, as Rand.Read fills a byte slice. Outputs of a
// cryptographic source match the sum by chance with odds of 2^-56 each.
func mathRandPattern(ids []string) (layout string, found bool) {
	var stream []byte
	for _, id := range ids {
		b, err := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
		if err != nil || len(b) == 0 {
			return "", false
		}
		stream = append(stream, b...)
	}
	const mask = 1<<56 - 1
	hits := func(values []uint64) int {
		n := 0
		for k := 607; k < len(values); k++ {
			if (values[k]-values[k-607]-values[k-273])&mask == 0 {
				n++
			}
		}
		return n
	}
	chunks := func(offset, size int, value func([]byte) uint64) []uint64 {
		var out []uint64
		for i := offset; i+size <= len(stream); i += size {
			out = append(out, value(stream[i:i+size]))
		}
		return out
	}
	le := func(b []byte) uint64 {
		var v uint64
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	be := func(b []byte) uint64 {
		var v uint64
		for _, c := range b {
			v = v<<8 | uint64(c)
		}
		return v
	}
	if hits(chunks(0, 8, be)) >= 3 {
		return "8 bytes per output, big-endian, as fmt.Sprintf(\"%016x\", r.Uint64()) writes them", true
	}
	if hits(chunks(0, 8, le)) >= 3 {
		return "8 bytes per output, little-endian", true
	}
	for offset := 0; offset < 7; offset++ {
		if hits(chunks(offset, 7, le)) >= 3 {
			return "7 bytes per output, as math/rand's Rand.Read fills a slice", true
		}
	}
	return "", false
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
	for _, m := range []struct{ body, what string }{
		{wire.Request(`2`, "tools/list", nil), "a request"},
		{wire.Notification("notifications/grader-unknown", nil), "a notification"},
		{`{"jsonrpc":"2.0","id":"srv-1","result":{}}`, "a response"},
		{"[" + wire.Request(`3`, "ping", nil) + "]", "a batch"},
	} {
		resp := h.Post("", rev, m.body, m.what+" without MCP-Session-Id")
		if resp.Status != http.StatusBadRequest {
			t.Fail(check.Failure{What: m.what + " without MCP-Session-Id, after a session was set up, did not get 400", Got: resp.Summary(), Want: "HTTP 400"})
		}
	}
}

func checkHTTPUnknownSession(t *check.T) {
	h := wire.StartHTTP(t)
	h.Initialize(rev)
	madeUp := "grader-made-up-session-id"
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
	resp := h.Post(madeUp, rev, wire.Notification("notifications/grader-unknown", nil), "a notification with a session id the server never issued")
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: "a notification with a session id the server never issued did not get 404", Got: resp.Summary(),
			Want: "HTTP 404: there is no session to deliver it to"})
	}
	resp = h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(madeUp, rev), Purpose: "DELETE of a session that never existed"})
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

	// A 3 s countdown runs in the session when it is deleted: it must stop.
	running := make(chan *wire.Response, 1)
	go func() {
		defer close(running)
		running <- h.Do(wire.Req{Header: wire.Headers(session, rev), Within: 5 * time.Second, Purpose: "a 3 s countdown, running when its session is deleted",
			Body: wire.Request(`"running"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 30, "interval_ms": 100}, nil))})
	}()
	pause(t, 200*time.Millisecond)
	resp = h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, rev), Purpose: "DELETE of the session"})
	if resp.Status < 200 || resp.Status > 299 {
		t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status, such as 204"})
	}
	deleted := time.Now()
	resp = h.Post(session, rev, wire.Request(`2`, "ping", nil), "ping with the deleted session id")
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: "after DELETE, a request with the session's id did not get 404", Got: resp.Summary(), Want: "HTTP 404",
			Spec: true}) // the session has ended: the spec's MUST
	}
	resp = h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, rev), Purpose: "a second DELETE of the same session"})
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: "a second DELETE of the same session did not get 404", Got: resp.Summary(), Want: "HTTP 404: the session is gone"})
	}
	countdown, ok := <-running
	if !ok {
		t.FailNow() // the countdown's request failed; its report says why
	}
	if m := countdown.Find(`"running"`); m != nil && m.Error == nil {
		t.Fail(check.Failure{What: "the countdown running in the deleted session ran on to its end, and got its result", Got: countdown.Summary(),
			Want: "the request stops when its session ends (session.Close cancels it)"})
	}
	if waited := time.Since(deleted); waited > time.Second {
		t.Fail(check.Failure{What: fmt.Sprintf("the countdown running in the deleted session took %v more to end", waited.Round(time.Millisecond)),
			Want: "the request stops within moments of the DELETE"})
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

	// A slow request in one session must not hold up the others: every
	// client below must be done before it could have ended. The grader
	// hangs up on it at the end rather than wait for it: how a server ends
	// a cancelled request is HTTP-23's business.
	slow, _ := h.Initialize(rev)
	const slowFor = 4 * time.Second
	slowSent := time.Now()
	h.Abandon(wire.Req{Header: wire.Headers(slow, rev), Purpose: "a 4 s countdown in another session",
		Body: wire.Request(`"slow"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 40, "interval_ms": 100}, nil))}, 6*time.Second)
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
			if took := time.Since(slowSent); took >= slowFor {
				t.Fail(check.Failure{What: fmt.Sprintf("client %d finished its four short requests %v after a 4 s countdown began in another session, only once it could have ended: the slow request held it up",
					i, took.Round(time.Millisecond)), Want: "every client served while the countdown runs"})
			}
		})
	}
	t.Parallel(clients...)
	h.Post(slow, rev, wire.Notification("notifications/cancelled", map[string]any{"requestId": "slow"}), "cancel the slow countdown")
}

func checkHTTPSessionExpiry(t *check.T) {
	h := wire.StartHTTP(t, "-session-timeout", "1s", "-max-sessions", "2")
	session, _ := h.Initialize(rev)
	h.Initialize(rev) // the second and last place
	expectStatus(t, h.Post(session, rev, wire.Request(`2`, "ping", nil), "ping while the session is fresh"), http.StatusOK, "ping while the session is fresh")
	t.Wire.Event("waiting 1.6 s: both sessions are idle past their 1 s timeout")
	pause(t, 1600*time.Millisecond)
	resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "initialize, with -max-sessions 2 and both sessions expired")
	if resp.Status != http.StatusOK {
		t.Fail(check.Failure{What: "with -max-sessions 2 and both sessions idle past their timeout, a new initialize was refused: expired sessions still take places",
			Got: resp.Summary(), Want: "HTTP 200: sweep expired sessions before counting them against the cap"})
	}
	resp = h.Post(session, rev, wire.Request(`3`, "ping", nil), "ping after 1.6 s idle")
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: "a session idle for 1.6 s, with -session-timeout 1s, still answers", Got: resp.Summary(), Want: "HTTP 404"})
	}
}

func checkHTTPSessionInUse(t *check.T) {
	h := wire.StartHTTP(t, "-session-timeout", "1s")
	t.Parallel(func() {
		// Steady use: a ping every 200 ms for 1.6 s, with a 1 s timeout.
		session := initializeSession(t, h)
		for i := 0; i < 8; i++ {
			pause(t, 200*time.Millisecond)
			resp := h.Post(session, rev, wire.Request(fmt.Sprint(10+i), "ping", nil), "ping in a session used every 200 ms")
			if resp.Status != http.StatusOK {
				t.Fail(check.Failure{What: fmt.Sprintf("a session used every 250 ms, with -session-timeout 1s, expired after %v", time.Duration(i+1)*200*time.Millisecond),
					Got: resp.Summary(), Want: "HTTP 200 for as long as the session is in use: each request starts its idle time again"})
			}
		}
	}, func() {
		// One request longer than the timeout, then a request right after.
		session := initializeSession(t, h)
		resp := h.Do(wire.Req{Header: wire.Headers(session, rev), Within: 4 * time.Second, Purpose: "a 1.5 s countdown, with -session-timeout 1s",
			Body: wire.Request(`"long"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 15, "interval_ms": 100}, nil))})
		if m := resp.Find(`"long"`); m == nil || m.Error != nil {
			t.Fail(check.Failure{What: "a 1.5 s countdown, in a session with a 1 s timeout, did not get its result: the session expired while the request ran",
				Got: resp.Summary(), Want: "the countdown's result: a session with a request running never expires"})
		}
		resp = h.Post(session, rev, wire.Request(`"after"`, "ping", nil), "ping right after the 1.5 s countdown")
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: "right after a 1.5 s request ended, its session (timeout 1 s) was gone: its idle time counted from before the request",
				Got: resp.Summary(), Want: "HTTP 200: the idle time starts when the last request ends"})
		}
	})
}

func checkHTTPSessionCap(t *check.T) {
	h := wire.StartHTTP(t, "-max-sessions", "3")
	// Failed initializes first: they start nothing, so they take no place.
	for i := 0; i < 2; i++ {
		resp := h.Post("", "", wire.Request(`1`, "initialize", map[string]any{"capabilities": map[string]any{}}), "an initialize without protocolVersion, which fails")
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			t.Fail(check.Failure{What: "an initialize that failed (it had no protocolVersion) was given a session id", Got: resp.Summary(),
				Want: "no MCP-Session-Id: a failed initialize starts no session"})
		}
	}
	var sessions []string
	for i := 0; i < 3; i++ {
		resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), fmt.Sprintf("initialize %d of 3, with -max-sessions 3", i+1))
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: fmt.Sprintf("with -max-sessions 3, initialize %d of 3 was refused, after two initializes that failed", i+1), Got: resp.Summary(),
				Want: "HTTP 200: failed initializes take no place"})
		}
		sessions = append(sessions, resp.Header.Get("Mcp-Session-Id"))
	}
	resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(rev)), "a 4th initialize, with -max-sessions 3")
	if resp.Status != http.StatusServiceUnavailable && resp.Status != http.StatusTooManyRequests {
		t.Fail(check.Failure{What: "with -max-sessions 3, a 4th session was not refused", Got: resp.Summary(), Want: "HTTP 503 (or 429)"})
	}
	if resp.Header.Get("Retry-After") == "" {
		t.Fail(check.Failure{What: "the refusal of a 4th session does not say when to try again", Got: resp.Summary(), Want: "a Retry-After header, such as Retry-After: 30"})
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
		for _, m := range []struct{ body, what string }{
			{wire.Request(`2`, "ping", nil), "a request"},
			{wire.Notification("notifications/grader-unknown", nil), "a notification"},
			{"[" + wire.Request(`3`, "ping", nil) + "]", "a batch"},
		} {
			resp := h.Post(session, v, m.body, m.what+" with MCP-Protocol-Version: "+v)
			if resp.Status != http.StatusBadRequest {
				t.Fail(check.Failure{What: fmt.Sprintf("%s with MCP-Protocol-Version: %s was not refused", m.what, v), Got: resp.Summary(), Want: "HTTP 400", Spec: true})
			}
		}
	}
	resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, "1999-01-01"), Purpose: "DELETE with MCP-Protocol-Version: 1999-01-01"})
	if resp.Status != http.StatusBadRequest {
		t.Fail(check.Failure{What: "DELETE with MCP-Protocol-Version: 1999-01-01 was not refused", Got: resp.Summary(),
			Want: "HTTP 400, and the session left alone: the rule covers every request", Spec: true})
	}
	resp = h.Post(session, "", wire.Request(`4`, "ping", nil), "ping without MCP-Protocol-Version")
	if resp.Status != http.StatusOK {
		t.Fail(check.Failure{What: "a request without MCP-Protocol-Version was refused", Got: resp.Summary(),
			Want: "HTTP 200: without the header, use the session's version or assume 2025-03-26"})
	}
}

func checkHTTPBatchAt20250326(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize("2025-03-26")
	// The notification is one every server knows (a cancellation of no
	// request in particular), so that only batching is judged here.
	cancelled := wire.Notification("notifications/cancelled", map[string]any{"requestId": "no-such-request"})
	batch := "[" + wire.Request(`"b1"`, "ping", nil) + "," + wire.Request(`"b2"`, "ping", nil) + "," + cancelled + "]"
	resp := h.Post(session, "2025-03-26", batch, "a batch of two pings and a notification")
	expectStatus(t, resp, http.StatusOK, "a batch at 2025-03-26")
	for _, id := range []string{`"b1"`, `"b2"`} {
		if m := resp.Find(id); m == nil || m.Error != nil {
			t.Fail(check.Failure{What: fmt.Sprintf("the answer to the batch holds no result for ping %s", id), Got: resp.Summary(),
				Want: `[{"jsonrpc":"2.0","id":"b1","result":{}},{"jsonrpc":"2.0","id":"b2","result":{}}] (any order)`})
		}
	}
	resp = h.Post(session, "2025-03-26", "["+cancelled+"]", "a batch of notifications only")
	if resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
		t.Fail(check.Failure{What: "a batch holding only notifications did not get 202 with an empty body", Got: resp.Summary(), Want: "HTTP 202, empty body"})
	}
}

func checkHTTPBatchAt20251125(t *check.T) {
	h := wire.StartHTTP(t)
	refused := func(session, negotiated, header string) {
		what := fmt.Sprintf("a batch in a session at %s, with MCP-Protocol-Version: %s", negotiated, header)
		if header == "" {
			what = fmt.Sprintf("a batch in a session at %s, without MCP-Protocol-Version", negotiated)
		}
		resp := h.Post(session, header, "["+wire.Request(`"b1"`, "ping", nil)+"]", what)
		expectStatus(t, resp, http.StatusBadRequest, what+", a version without batches,")
		expectErrorBody(t, resp, -32600, what)
	}
	latest, _ := h.Initialize(rev)
	refused(latest, rev, rev)
	refused(latest, rev, "")
	older, _ := h.Initialize("2025-06-18")
	refused(older, "2025-06-18", "2025-06-18")
}

// ---- step 4 ----

func checkHTTPGet(t *check.T) {
	h := wire.StartHTTP(t)
	if t.Target.External() {
		checkExternalGet(t, h)
		return
	}
	sse := http.Header{"Accept": {"text/event-stream"}}
	expect405(t, h, wire.Req{Method: http.MethodGet, Header: sse, Purpose: "GET without a session"})
	session, _ := h.Initialize(rev)
	withSession := wire.Headers(session, rev)
	withSession.Set("Accept", "text/event-stream")
	withSession.Del("Content-Type")
	resp := expect405(t, h, wire.Req{Method: http.MethodGet, Header: withSession, Purpose: "GET with the session"})
	if allow := resp.Header.Get("Allow"); strings.Contains(strings.ToUpper(allow), "GET") {
		t.Fail(check.Failure{What: "the 405 to GET lists GET as allowed", Got: check.Quote(allow), Want: "Allow: POST, DELETE"})
	}
	odd := http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {"grader-made-up-session-id"}, "Mcp-Protocol-Version": {"1999-01-01"}}
	expect405(t, h, wire.Req{Method: http.MethodGet, Header: odd, Purpose: "GET with a made-up session id and an unsupported version: the method comes first"})
	expect405(t, h, wire.Req{Method: http.MethodPut, Header: wire.Headers(session, rev), Body: wire.Request(`2`, "ping", nil), Purpose: "PUT"})
}

// checkExternalGet is HTTP-21 for an external server, which may offer a
// standalone stream on GET (lesson 03 grades it): the spec's rule is that a
// GET gets either a stream or 405, and a 405 must say what is allowed.
func checkExternalGet(t *check.T, h *wire.HTTP) {
	session, _ := h.Initialize(rev)
	s := h.Open(wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, ""), Purpose: "GET with the session"})
	switch {
	case s.Status == http.StatusOK && s.ContentType == "text/event-stream":
		s.Close()
		t.Skip("the server answers GET with an SSE stream: it offers the standalone stream, which lesson 03 grades; this check grades a server that offers none")
	case s.Status != http.StatusMethodNotAllowed:
		t.Fail(check.Failure{What: fmt.Sprintf("a GET with the session got HTTP %d, neither an SSE stream nor 405", s.Status), Got: streamSummary(s),
			Want: "HTTP 200 with Content-Type: text/event-stream, or HTTP 405 Method Not Allowed", Spec: true})
	}
	s.End(wire.T1)
	expect405(t, h, wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, ""), Purpose: "GET with the session, again, for the whole answer"})
}

// initializeSession runs the handshake and returns the session id it
// issued; without one, the check cannot test what it is about.
func initializeSession(t *check.T, h *wire.HTTP) string {
	session, _ := h.Initialize(rev)
	if session == "" {
		t.Fail(check.Failure{What: "initialize issued no MCP-Session-Id, and this check needs a session", Cause: wire.CauseSession,
			Want: "MCP-Session-Id: <an id> on the response to initialize"})
	}
	return session
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
	token := "p-grader"
	stream := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, rev), Purpose: "countdown with a progress token",
		Body: wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 3, "interval_ms": 20}, token))})
	expectStream(t, stream, "countdown with a progress token", "three progress events, then the response")
	var before []*wire.Msg
	resp, _ := stream.Await(wire.T2, "response to the countdown (id 2)", func(m *wire.Msg) bool { return m.IsResponseTo(`2`) }, func(e wire.Event, m *wire.Msg) {
		if m != nil {
			before = append(before, m)
		}
	})
	if progress := progressValues(t, before, json.RawMessage(`"`+token+`"`)); len(progress) != 3 {
		t.Fail(check.Failure{What: fmt.Sprintf("the stream held %d progress notifications before the response", len(progress)),
			Got: check.Quote(string(resp.Raw)), Want: "3 notifications/progress events, then the response with id 2"})
	}
	events, ended := stream.End(time.Second)
	for _, e := range events {
		if e.Data != "" {
			t.Fail(check.Failure{What: "a message came after the response on the request's stream", Got: check.Quote(e.Data), Want: "the stream ends after the response"})
		}
	}
	if !ended {
		t.Fail(check.Failure{What: "the request's stream was still open 1 s after its response", Want: "the stream ends after the response (the handler returns)"})
	}

	// A 2 s countdown sends a notification every 100 ms: the first event
	// must arrive long before the response, not wait in a buffer for it.
	slow := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, rev), Purpose: "a 2 s countdown with a progress token",
		Body: wire.Request(`3`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 20, "interval_ms": 100}, "p-slow"))})
	expectStream(t, slow, "a 2 s countdown with a progress token", "a progress event every 100 ms, then the response")
	// Events without data (a priming event, which a server that offers
	// resumption sends first at 2025-11-25) carry no message: skip them.
	deadline := time.Now().Add(time.Second)
	e, err := slow.NextWithin(time.Second)
	for err == nil && e.Data == "" {
		e, err = slow.NextWithin(time.Until(deadline))
	}
	m, _ := wire.Parse([]byte(e.Data))
	if err != nil || m == nil || m.MethodName() != "notifications/progress" {
		t.Fail(check.Failure{What: "a 2 s countdown that reports progress every 100 ms had sent no event 1 s after its stream began: " +
			"events wait in a buffer until the response (flush each one: http.ResponseController.Flush)", Want: "the first progress event after about 100 ms"})
	}
	slow.HangUp() // the server is stopped when the check ends
}

// expectStream fails the check unless stream is an SSE response with 200.
func expectStream(t *check.T, stream *wire.Stream, what, want string) {
	if stream.Status != http.StatusOK || stream.ContentType != "text/event-stream" {
		t.Fail(check.Failure{What: "a request with a progress token (" + what + ") was not answered as an SSE stream, so its progress could not travel",
			Got: fmt.Sprintf("HTTP %d, Content-Type: %s", stream.Status, stream.Header.Get("Content-Type")), Want: "HTTP 200, Content-Type: text/event-stream: " + want})
	}
}

func checkHTTPCancellation(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	cancelled := func(id string, token any, kind string) {
		done := make(chan *wire.Response, 1)
		go func() {
			defer close(done)
			done <- h.Do(wire.Req{Header: wire.Headers(session, rev), Within: 6 * time.Second, Purpose: "countdown of 2 s, " + kind + ", to be cancelled",
				Body: wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 40, "interval_ms": 50}, token))})
		}()
		pause(t, 300*time.Millisecond) // let the countdown start
		resp := h.Post(session, rev, wire.Notification("notifications/cancelled", map[string]any{"requestId": json.RawMessage(id), "reason": "grader"}),
			"notifications/cancelled for id "+id)
		expectAccepted(t, resp, "notifications/cancelled")
		at := time.Now()
		countdown, ok := <-done
		if !ok {
			t.FailNow() // the countdown's request failed; its report says why
		}
		if m := countdown.Find(id); m != nil {
			t.Fail(check.Failure{What: "the cancelled countdown (" + kind + ") still got a response", Got: check.Quote(string(m.Raw)), Want: "the stream ends without a response"})
		}
		if countdown.Status != http.StatusOK || countdown.ContentType != "text/event-stream" {
			t.Fail(check.Failure{What: "the cancelled countdown (" + kind + ") was not answered with an SSE stream that ends: a POST that holds a request MUST get " +
				"Content-Type application/json (one JSON-RPC object) or text/event-stream", Got: countdown.Summary(),
				Want: "HTTP 200, Content-Type: text/event-stream, and a body that ends without a response",
				Spec: countdown.ContentType != "text/event-stream" && countdown.ContentType != "application/json"})
		}
		if waited := time.Since(at); waited > 1500*time.Millisecond {
			t.Fail(check.Failure{What: fmt.Sprintf("the cancelled countdown (%s) took %v more to end", kind, waited.Round(time.Millisecond)),
				Want: "the request stops within moments of the cancellation"})
		}
	}
	t.Parallel(func() { cancelled(`2`, "c", "answered as an SSE stream") }, func() { cancelled(`3`, nil, "which would have been answered as JSON") })
}

func checkHTTPDisconnectIsNotCancel(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	requireTool(t, h, session, "history")
	countdown := func(id string, token any) string {
		return wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 8, "interval_ms": 100}, token))
	}
	// One answered as JSON: hang up while it runs. (Had the request not
	// reached the server by then, on a loaded machine, the history shows no
	// entry for it, and there is nothing to judge.)
	h.Abandon(wire.Req{Header: wire.Headers(session, rev), Body: countdown(`21`, nil), Purpose: "a 0.8 s countdown, answered as JSON"}, 300*time.Millisecond)
	// One answered as a stream: hang up after its first event.
	stream := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, rev), Body: countdown(`22`, "d"), Purpose: "a 0.8 s countdown with a progress token"})
	if stream.ContentType != "text/event-stream" {
		t.Fail(check.Failure{What: "a countdown with a progress token was not answered as an SSE stream, so the grader could not hang up on it while it ran",
			Got: "Content-Type: " + stream.Header.Get("Content-Type"), Want: "Content-Type: text/event-stream (step 5)"})
	}
	stream.Next(time.Second, "first progress event of the countdown")
	stream.HangUp()

	want := []string{"countdown (id 22)"}
	// Both countdowns end 0.8 s after they start; the history tool says how.
	var history string
	deadline := time.Now().Add(2500 * time.Millisecond)
	for asked := 1; ; asked++ {
		pause(t, 300*time.Millisecond)
		history = callTool(t, h, session, fmt.Sprintf(`"history-%d"`, asked), "history", nil)
		ended := 0
		for _, w := range append(want, "countdown (id 21)") {
			if strings.Contains(history, w+": ") {
				ended++
			}
		}
		if ended == len(want)+1 || time.Now().After(deadline) {
			break
		}
	}
	if strings.Contains(history, "countdown (id 21): ") {
		want = append(want, "countdown (id 21)")
	}
	for _, w := range want {
		if !strings.Contains(history, w+": finished") {
			t.Fail(check.Failure{What: "a countdown whose client hung up did not run to its end: the server took the dropped connection for a cancellation",
				Got: check.Quote(history), Want: w + ": finished"})
		}
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
	resp = h.Post("", rev, wire.Notification("notifications/grader-unknown", nil), "a notification without a session")
	if resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
		t.Fail(check.Failure{What: "in stateless mode, a notification without a session did not get 202", Got: resp.Summary(), Want: "HTTP 202, empty body"})
	}
	resp = h.Post("", "2025-03-26", "["+wire.Request(`"b1"`, "ping", nil)+"]", "a batch at 2025-03-26, without a session")
	if m := resp.Find(`"b1"`); resp.Status != http.StatusOK || m == nil || m.Error != nil {
		t.Fail(check.Failure{What: "in stateless mode, a batch at 2025-03-26 without a session was not served", Got: resp.Summary(),
			Want: `HTTP 200, [{"jsonrpc":"2.0","id":"b1","result":{}}]`})
	}
}

func checkHTTPContentType(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	for i, ct := range []string{"text/plain", "application/x-www-form-urlencoded", ""} {
		hdr := wire.Headers(session, rev)
		hdr.Del("Content-Type")
		if ct != "" {
			hdr.Set("Content-Type", ct)
		}
		resp := h.Do(wire.Req{Header: hdr, Body: wire.Request(fmt.Sprint(10+i), "ping", nil), Purpose: fmt.Sprintf("ping with Content-Type %q", ct)})
		if resp.Status != http.StatusUnsupportedMediaType {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST with Content-Type %q was not refused with 415", ct), Got: resp.Summary(),
				Want: "HTTP 415 Unsupported Media Type"})
		}
	}
	for i, ct := range []string{"application/json; charset=utf-8", "Application/JSON"} {
		hdr := wire.Headers(session, rev)
		hdr.Set("Content-Type", ct)
		resp := h.Do(wire.Req{Header: hdr, Body: wire.Request(fmt.Sprint(20+i), "ping", nil), Purpose: fmt.Sprintf("ping with Content-Type %q", ct)})
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST with Content-Type %q, which is JSON, was refused", ct), Got: resp.Summary(),
				Want: "HTTP 200: compare the media type alone, without case or parameters"})
		}
	}
}

func checkHTTPBodyReadBounded(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	body := &endlessBody{prefix: wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "@"}, nil)), size: 48 << 20}
	resp := h.SendStreaming(wire.Req{Header: wire.Headers(session, rev), BodyReader: body, Within: wire.T2,
		Purpose: "echo with 48 MiB of text, chunked, without Content-Length"})
	taken := body.Taken()
	t.Wire.Event("the answer came once the server had taken %d MiB of the body", taken>>20)
	if resp.Status != http.StatusRequestEntityTooLarge {
		t.Fail(check.Failure{What: fmt.Sprintf("a 48 MiB chunked body got HTTP %d", resp.Status), Got: resp.Summary(), Want: "HTTP 413 Content Too Large"})
	}
	if taken > 24<<20 {
		t.Fail(check.Failure{What: fmt.Sprintf("the server took %d MiB of a 48 MiB body before it answered 413: it read the body whole, then looked at its size", taken>>20),
			Want: "the answer after about 4 MiB (plus what the network buffers hold), read through http.MaxBytesReader"})
	}
}

// endlessBody is a JSON-RPC request whose one string value goes on for size
// bytes, produced as it is read, and counted.
type endlessBody struct {
	prefix string // a request whose text ends in `"@"}}}`, where the filler goes
	size   int64
	taken  atomic.Int64
	done   bool
}

func (b *endlessBody) Read(p []byte) (int, error) {
	n := b.taken.Load()
	head, tail, _ := strings.Cut(b.prefix, "@")
	switch {
	case n < int64(len(head)):
		k := copy(p, head[n:])
		b.taken.Add(int64(k))
		return k, nil
	case n < b.size:
		k := int(min(int64(len(p)), b.size-n))
		for i := range p[:k] {
			p[i] = 'x'
		}
		b.taken.Add(int64(k))
		return k, nil
	case !b.done:
		b.done = true
		return copy(p, tail), nil
	}
	return 0, io.EOF
}

// Taken returns how many bytes have been read so far.
func (b *endlessBody) Taken() int64 { return b.taken.Load() }

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
