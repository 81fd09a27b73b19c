package grader

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/proc"
	"mcpcourse/grader/internal/wire"
)

// Where lesson 04's rules live in the spec.
var (
	securityRule  = func(q string) check.Spec { return httpRule("Security Warning", q) }
	forbiddenRule = securityRule("If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden. " +
		"The HTTP response body MAY comprise a JSON-RPC error response that has no id")
	validateRule  = securityRule("Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks")
	rebindingRule = securityRule("Without these protections, attackers could use DNS rebinding to interact with local MCP servers from remote websites.")
	bindRule      = securityRule("When running locally, servers SHOULD bind only to localhost (127.0.0.1) rather than all network interfaces (0.0.0.0)")
	corsRule      = check.Spec{Rev: rev, Section: "basic/transports › Streamable HTTP › Security Warning (the spec names no CORS rule; the course does)",
		Quote: "Servers MUST validate the Origin header on all incoming connections"}
	customRule = check.Spec{Rev: rev, Section: "basic/transports › Custom Transports",
		Quote: "Implementers who choose to support custom transports MUST ensure they preserve the JSON-RPC message format and lifecycle requirements defined by MCP."}
)

// allowArgs is the allowlist most of lesson 04's checks start the server
// with: wildcards, a port wildcard, a custom scheme, and an exact origin
// with a port.
var allowArgs = []string{"-allow-origin", "https://*.example.com,http://localhost:*", "-allow-origin", "vscode-webview://*,https://mcp.test:8443"}

// allowCourse says what the course asks of the allowlist beyond the spec's
// words, which leave "invalid" to the server.
const allowCourse = "The spec leaves \"invalid\" to the server. The course's allowlist takes exact origins and patterns " +
	"(https://*.example.com: hosts below example.com on a label boundary; http://localhost:*: any port; vscode-webview://*), " +
	"and compares parsed origins (scheme, host, port), never strings."

// Causes of lesson 04's own (see Lesson.Causes): the three entry points a
// browser reaches, each of which many checks go through.
const (
	// causeOriginGuard: a request from an Origin the server must refuse
	// went through: the server has no guard, and the Host check lives in it.
	causeOriginGuard = "origin-guard"
	// causeCORS: an allowed page's request got no CORS grant at all.
	causeCORS = "cors"
	// causeWebSocket: /ws did not upgrade, or answered as if it were not there.
	causeWebSocket = "websocket"
)

// Lesson04 grades stage 04: which web pages may use the server.
var Lesson04 = &Lesson{
	Number: "04",
	Stage:  "04-origin",
	Title:  "Origin allowlists, DNS rebinding, CORS and WebSocket",
	Guide:  "lessons/04-origin.md",
	// A server that does not start or fails initialize is the earlier
	// stages' trouble, which ORIGIN-03 meets first (it sends no Origin, so
	// nothing of stage 04 stands in the way); then one cause per entry point.
	Causes: map[string]string{wire.CauseStart: "ORIGIN-03", wire.CauseUnimplemented: "ORIGIN-03", wire.CauseInitialize: "ORIGIN-03",
		wire.CauseSession: "ORIGIN-03", causeOriginGuard: "ORIGIN-01", causeCORS: "ORIGIN-12", causeWebSocket: "ORIGIN-15"},
	Underneath: "stage 04 serves /mcp with your stage 03, and stage 03 with your stage 02: if lesson 03 does not pass yet (go test ./grader -run Lesson03), " +
		"finish it, or run go run ./cmd/course catch-up 04, which puts the reference in place of each earlier stage whose lesson does not pass; " +
		"once lessons 01 to 03 pass, the trouble is in stage 04 itself",
	Checks: []*check.Check{
		// Step 1: the guard.
		{
			ID: "ORIGIN-01", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Mode: check.AnyMode},
			Title:  "a POST whose Origin is not allowed gets 403 with a JSON-RPC error body",
			Spec:   forbiddenRule,
			Course: "The grader changes one header at a time: Origin: http://evil.example, with a correct Host. The course requires the error body.",
			Hint:   "Wrap stage 03's handler in a middleware that runs first: when r.Header has an Origin and the allowlist does not allow it, answer 403 with httpjson.Error and return.",
			Run:    checkForeignOrigin403,
		},
		{
			ID: "ORIGIN-02", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title:  "GET, DELETE, and a POST with an unknown session, from a foreign Origin, get 403 before any session work",
			Spec:   validateRule,
			Course: "\"All incoming connections\": the GET must not open a stream, the DELETE must not end the session, and a made-up session id must get 403, not 404. Go's http.CrossOriginProtection lets every GET through, so it cannot be the guard.",
			Hint:   "Check Origin in the middleware around the whole handler, for every method, before the session is looked up; not inside the POST handler.",
			Run:    checkEveryMethod,
		},
		{
			ID: "ORIGIN-03", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title:          "requests without an Origin are served: initialize, tools/call, the GET stream, DELETE",
			Spec:           forbiddenRule,
			Course:         "Only an Origin that is present and invalid is refused. CLI and desktop clients send none, and must keep working (typescript-sdk #1205 broke them).",
			Hint:           "Refuse only when the request has an Origin header: r.Header.Values(\"Origin\") is empty for a client that sent none.",
			StarterMayPass: "the starter checks nothing, so it serves every request; the check guards that your guard lets clients without an Origin in",
			Run:            checkNoOriginServed,
		},
		{
			ID: "ORIGIN-04", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Mode: check.AnyMode},
			Title:  "Origin: null gets 403",
			Spec:   forbiddenRule,
			Course: "Browsers send the literal origin \"null\" from sandboxed iframes, data: URLs and file:// pages: any site can produce it. The course never allows it.",
			Hint:   "\"null\" is not scheme://host: a parser that wants both finds nothing to match. Do not treat it like a missing Origin.",
			Run:    checkNullOrigin,
		},

		// Step 2: the allowlist.
		{
			ID: "ORIGIN-05", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Needs:          check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
			Title:          "the origins the allowlist names are served: wildcards, a port wildcard, a custom scheme, an exact origin with its port",
			Spec:           forbiddenRule,
			Course:         allowCourse,
			Hint:           "Parse each pattern once, into scheme, host (or the domain after \"*.\") and port (or \":*\"); parse the Origin the same way and compare the parts.",
			StarterMayPass: "the starter checks nothing, so it serves every origin; the check guards that your allowlist lets the listed ones in",
			Run:            checkListedOrigins,
		},
		{
			ID: "ORIGIN-06", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
			Title:  "look-alike origins get 403: a wildcard matches on a label boundary, and never the bare domain",
			Spec:   forbiddenRule,
			Course: allowCourse + " https://xexample.com, https://example.com.evil, https://evil.example.com.attacker.net and http://localhost.evil.example are other sites.",
			Hint:   "strings.HasSuffix(host, \"example.com\") lets xexample.com in, and strings.HasPrefix(origin, \"http://localhost\") lets localhost.evil.example in. Compare the parsed host with \".\"+domain as its suffix.",
			Run:    checkLookAlikes,
		},
		{
			ID: "ORIGIN-07", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
			Title:  "scheme and port are part of the origin: another scheme or another port gets 403",
			Spec:   forbiddenRule,
			Course: allowCourse + " http://app.example.com and https://app.example.com:8443 are different origins from https://app.example.com (RFC 6454).",
			Hint:   "An origin is the triple (scheme, host, port). A pattern without a port means the scheme's default (443 for https); only \":*\" means any port.",
			Run:    checkSchemeAndPort,
		},
		{
			ID: "ORIGIN-08", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
			Title:  "origins are parsed: case and an explicit default port do not matter; a path, userinfo, a trailing dot or raw Unicode match nothing",
			Spec:   forbiddenRule,
			Course: allowCourse + " Scheme and host compare without case, :443 on https is no port at all, and an Origin that is not exactly scheme://host[:port] in ASCII (browsers send punycode) is refused.",
			Hint:   "Lower-case scheme and host, drop a port equal to the scheme's default, and refuse anything with \"/\", \"@\", an empty label or a byte above 0x7F.",
			Run:    checkParsedOrigins,
		},
		{
			ID: "ORIGIN-09", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Restart: true},
			Title:  "without -allow-origin only loopback pages are allowed (localhost, 127.0.0.1, [::1], any port); with it, only what it names",
			Spec:   forbiddenRule,
			Course: "A server that allowed every origin by default would be open to every web site its user visits. The course's default is http://localhost:*, http://127.0.0.1:* and http://[::1]:*, and an explicit list replaces it.",
			Hint:   "When no pattern is given, use the loopback patterns (LoopbackOrigins); when some are given, use exactly those.",
			Run:    checkDefaultAllowlist,
		},

		{
			ID: "ORIGIN-10", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Restart: true},
			Title:  "a malformed or too-wide -allow-origin stops the server at start, naming the pattern",
			Spec:   forbiddenRule,
			Course: "An allowlist with a typo must stop the server, not quietly allow less, or more, than meant. The course refuses https://*, patterns without a scheme, a * inside a label, and paths.",
			Hint:   "Parse every pattern before listening; on the first error, exit non-zero with a message that quotes it.",
			Run:    checkBadPatterns,
		},

		// Step 3: the Host header.
		{
			ID: "ORIGIN-11", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Title:  "on loopback, a Host other than localhost, 127.0.0.1 or [::1] gets 403, on every method, Origin or not",
			Spec:   rebindingRule,
			Course: "After DNS rebinding, the attacker's page is same-origin with this server and a GET carries no Origin at all; only Host still names the attacker's domain. The course requires 403 for it (the official Go SDK does the same), changing Host alone.",
			Hint:   "Read the local address (r.Context().Value(http.LocalAddrContextKey)); when it is loopback, r.Host without its port must be localhost or a loopback IP address.",
			Run:    checkHostHeader,
		},

		// Step 4: CORS.
		{
			ID: "ORIGIN-12", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
			Title: "a preflight from an allowed origin echoes it, varies on Origin, and allows the method and MCP's headers",
			Spec:  corsRule,
			Course: "A browser page can only send MCP's headers after a CORS preflight. The course requires 2xx, Access-Control-Allow-Origin equal to the origin (never *), Vary: Origin, " +
				"and Content-Type, Authorization, Mcp-Session-Id, MCP-Protocol-Version and Last-Event-ID for GET, POST and DELETE.",
			Hint: "cors.New(cors.Options{AllowOriginFunc: allowlist.Allows, AllowedMethods: GET, POST, DELETE, AllowedHeaders: the MCP headers}), wrapped around stage 03's handler, inside your guard.",
			Run:  checkAllowedPreflight,
		},
		{
			ID: "ORIGIN-13", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Allowlist: courseAllowlist},
			Title:  "responses to an allowed origin carry Access-Control-Allow-Origin and expose Mcp-Session-Id",
			Spec:   corsRule,
			Course: "Without Access-Control-Expose-Headers: Mcp-Session-Id, a page can read the InitializeResult but not its session id, and cannot send a second request. The course requires the origin echoed on every answer, streams included.",
			Hint:   "rs/cors's ExposedHeaders: []string{\"Mcp-Session-Id\"}. Echo the origin, as AllowOriginFunc does; AllowedOrigins: []string{\"*\"} sends a literal *.",
			Run:    checkCORSResponses,
		},
		{
			ID: "ORIGIN-14", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
			Title:  "a preflight from a foreign origin gets 403, with no CORS grant",
			Spec:   forbiddenRule,
			Course: "rs/cors answers every preflight with 204, a refused origin's included (it only leaves out the grant). The course requires the guard's 403 for a preflight too, so the guard must run before rs/cors.",
			Hint:   "Order the middleware guard(cors(handler)), not cors(guard(handler)), and let the guard judge OPTIONS like every other method.",
			Run:    checkForeignPreflight,
		},

		// Step 5: the WebSocket.
		{
			ID: "ORIGIN-15", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Course: webSocket},
			Title:  "/ws upgrades a client with no Origin or an allowed one, and carries one JSON-RPC message per text frame",
			Spec:   customRule,
			Course: "WebSocket is not a standard MCP transport. The course adds one at /ws, judged by the same allowlist: one message per text frame each way, and stage 01's rules (no answer to a notification).",
			Hint:   "Upgrader.CheckOrigin: the allowlist's answer for r's Origin (and true when there is none). gorilla's default compares Origin with Host, which refuses every allowed origin on another host.",
			Run:    checkWebSocketServes,
		},
		{
			ID: "ORIGIN-16", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Course: webSocket},
			Title:  "/ws refuses the handshake of a foreign Origin, null and look-alikes included, with 403",
			Spec:   validateRule,
			Course: "A browser opens a WebSocket to any address without a preflight, carrying the page's Origin: without the check, any web site can drive the server (cross-site WebSocket hijacking). gorilla answers a refused handshake with 403.",
			Hint:   "Never `CheckOrigin: func(*http.Request) bool { return true }`. Mount /ws outside the /mcp guard, so that CheckOrigin is what refuses.",
			Run:    checkWebSocketRefuses,
		},
		{
			ID: "ORIGIN-17", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Course: webSocket},
			Title:  "/ws checks Host too: a rebound Host gets 403",
			Spec:   rebindingRule,
			Course: "A rebound page opens ws://evil.example:PORT/ws with its own, same-origin, Origin: only Host gives it away.",
			Hint:   "Run the same Host check at the top of the /ws handler, before Upgrade.",
			Run:    checkWebSocketHost,
		},
		{
			ID: "ORIGIN-18", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Course: webSocket},
			Title:  "a frame holding JSON over several lines is one message, with one answer",
			Spec:   customRule,
			Course: "Stage 01's loop reads one message per line; a frame is one message, however many lines its JSON spans. The course requires the frame's JSON compacted onto one line.",
			Hint:   "json.Compact the frame before it becomes a line of the loop's input: it drops the whitespace between tokens, newlines included.",
			Run:    checkMultiLineFrame,
		},
		{
			ID: "ORIGIN-19", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Course: webSocket},
			Title:  "a frame that is not valid JSON gets -32700, even when a raw newline sits in a string, and the socket keeps serving",
			Spec:   check.Spec{Rev: rev, Section: "basic/index › Messages (JSON-RPC 2.0 §5.1: -32700 Parse error)", Quote: "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."},
			Course: "A raw newline inside a JSON string is invalid. Replace it with a space and the frame becomes valid: the server would run a message the client never sent validly. Invalid must stay invalid.",
			Hint:   "When json.Compact fails, turn the frame's raw line breaks into bytes no JSON text can hold (NUL), so that the loop answers -32700 for the whole frame.",
			Run:    checkInvalidFrames,
		},
		{
			ID: "ORIGIN-20", Step: 5, Severity: check.Must, Budget: 6 * time.Second,
			Needs:  check.Needs{Course: webSocket},
			Title:  "the socket runs stage 01's loop: requests run concurrently, progress and log messages arrive as frames",
			Spec:   customRule,
			Course: "The WebSocket reuses stage 01's message loop through a seam (frames in, lines out), not a copy: a ping must not wait for a slow tool, and add_note's log message must reach the client, because stdio attaches its connection as the session's outlet.",
			Hint:   "Call stdio.Serve(ctx, in, out, server) with an io.Reader that yields one line per frame and an io.Writer that sends one frame per line.",
			Run:    checkWebSocketLoop,
		},
		{
			ID: "ORIGIN-21", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
			Needs:  check.Needs{Course: webSocket, Flags: []string{"-debug"}},
			Title:  "clients that drop their sockets mid-request leave no goroutine and no socket behind (counted via -debug's /debug/vars and /proc/PID/fd)",
			Spec:   customRule,
			Course: "When a socket breaks, nobody is left to read an answer: the course requires the connection's requests to be cancelled and everything freed within 2 s. Waiting for them, as stdio does at the end of stdin, holds each for as long as its tool runs.",
			Hint:   "When reading a frame fails, cancel the context you passed to stdio.Serve before you report end of input.",
			Run:    checkWebSocketLeaks,
		},
		{
			ID: "ORIGIN-22", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
			Needs:  check.Needs{Course: webSocket, Signal: true},
			Title:  "SIGTERM closes open WebSockets with 1001 (going away), and the server exits",
			Spec:   check.Spec{Rev: rev, Section: "basic/lifecycle › Shutdown", Quote: "the server SHOULD initiate shutdown by closing the connection"},
			Course: "http.Server.Shutdown does not track hijacked connections: the handler must close its sockets itself, with a close frame, when shutdown begins.",
			Hint:   "Keep the open sockets in a set; CloseStreams (which serve.Run calls before Shutdown) cancels each connection, which then sends a close frame with websocket.CloseGoingAway.",
			Run:    checkWebSocketShutdown,
		},
		{
			ID: "ORIGIN-24", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Course: webSocket},
			Title: "a binary frame closes the socket with 1003 (unsupported data), unanswered",
			Spec:  customRule,
			Course: "A message travels as one text frame, as UTF-8 JSON. A binary frame is data the endpoint cannot accept, and RFC 6455 §7.4.1 names the " +
				"close code for it: 1003. The course requires the socket closed with 1003 within 1 s, and the frame's content never run as a message.",
			Hint: "In frameReader.Read, check the kind ReadMessage returns: for anything but websocket.TextMessage, r.refuse(websocket.CloseUnsupportedData, ...) and return io.EOF.",
			Run:  checkBinaryFrame,
		},

		// Step 6: secure defaults.
		{
			ID: "ORIGIN-23", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
			Needs:  check.Needs{Restart: true},
			Title:  "without -allow-origin, the server refuses to listen beyond loopback (-addr 0.0.0.0:0), saying why",
			Spec:   bindRule,
			Course: "The loopback default trusts pages from this machine, which is wrong for a server others can reach. The course requires a non-zero exit and a message that names -allow-origin, before binding; localhost still works.",
			Hint:   "Before net.Listen, split -addr: unless its host is localhost or a loopback IP, and no origin was given, return an error that says to pass -allow-origin.",
			Run:    checkRefusesWideBind,
		},
	},
}

// ---- helpers ----

// startOrigin starts the server with the standard allowlist and args.
func startOrigin(t *check.T, args ...string) *wire.HTTP {
	return wire.StartHTTP(t, append(append([]string(nil), allowArgs...), args...)...)
}

// with returns the standard client headers for a session and version, plus
// Origin (when not "") and the extra headers given as name, value pairs.
func with(session, version, origin string, extra ...string) http.Header {
	h := wire.Headers(session, version)
	if origin != "" {
		h.Set("Origin", origin)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

// initializeFrom sends initialize with an Origin ("" for none) and extra
// headers, and returns the answer.
func initializeFrom(h *wire.HTTP, origin string, extra ...string) *wire.Response {
	return h.Do(wire.Req{Header: with("", "", origin, extra...), Body: wire.Request(`1`, "initialize", wire.InitializeParams(rev)),
		Purpose: "initialize" + from(origin)})
}

func from(origin string) string {
	if origin == "" {
		return " without an Origin"
	}
	return " from Origin " + origin
}

// expectForeignRefused fails the check unless resp is 403 with a JSON-RPC
// error response without an id as its body. The request carried an Origin
// the server does not allow: any other status breaks the spec's MUST; a 403
// without the error body misses only the course's rule (the spec: MAY). One
// that goes through means there is no guard (causeOriginGuard), unless
// ORIGIN-01 passes. A 501 is an unwritten earlier stage's, which the wire
// already suspects (wire.CauseUnimplemented).
func expectForeignRefused(t *check.T, resp *wire.Response, what, why string) {
	cause := causeOriginGuard
	if resp.Status == http.StatusNotImplemented {
		cause = ""
	}
	expectRefused(t, resp, what, why, cause, true)
}

// expectForbiddenHost is expectForeignRefused for a request refused for its
// Host: the spec names the defence, not the status (a course rule).
func expectForbiddenHost(t *check.T, resp *wire.Response, what, why string) {
	expectRefused(t, resp, what, why, "", false)
}

// expectRefused fails the check unless resp is 403 with a JSON-RPC error
// body, naming cause when the request was not refused; spec says whether
// another status breaks the spec's rule or only the course's.
func expectRefused(t *check.T, resp *wire.Response, what, why, cause string, spec bool) {
	want := `HTTP 403, Content-Type: application/json, body {"jsonrpc":"2.0","error":{"code":-32000,"message":"..."}}`
	if resp.Status != http.StatusForbidden {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d: %s", what, resp.Status, why), Got: resp.Summary(), Want: want, Cause: cause, Spec: spec})
	}
	m := resp.ErrorBody()
	if m == nil || m.ID != nil {
		t.Fail(check.Failure{What: what + " got 403, but its body is not a JSON-RPC error response without an id", Got: resp.Summary(), Want: want})
	}
	if _, ok := m.ErrorCode(); !ok {
		t.Fail(check.Failure{What: what + " got 403, but its error has no integer code", Got: resp.Summary(), Want: want})
	}
}

// expectServed fails the check unless resp is a successful initialize.
func expectServed(t *check.T, resp *wire.Response, what, why string) {
	if resp.Status != http.StatusOK || resp.Find(`1`) == nil || resp.Find(`1`).Error != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d: %s", what, resp.Status, why), Got: resp.Summary(), Want: "HTTP 200 and the InitializeResult"})
	}
}

// originCase is one Origin and what the server must do with it.
type originCase struct {
	origin string
	allow  bool
	why    string
}

// expectOrigins sends initialize from each origin in turn.
func expectOrigins(t *check.T, h *wire.HTTP, cases []originCase) {
	for _, c := range cases {
		resp := initializeFrom(h, c.origin)
		if c.allow {
			expectServed(t, resp, "initialize from Origin "+c.origin, c.why)
		} else {
			expectForeignRefused(t, resp, "initialize from Origin "+c.origin, c.why)
		}
	}
}

// ---- step 1: the guard ----

func checkForeignOrigin403(t *check.T) {
	h := startOrigin(t)
	expectForeignRefused(t, initializeFrom(h, "http://evil.example"), "initialize from Origin http://evil.example",
		"the allowlist does not name it, and the spec requires 403 for a present, invalid Origin")
}

func checkEveryMethod(t *check.T) {
	h := startOrigin(t)
	session, _ := h.Initialize(rev)
	const evil = "http://evil.example"

	get := h.Open(wire.Req{Method: http.MethodGet, Header: with(session, rev, evil, "Accept", "text/event-stream"), Purpose: "GET with the session, from Origin " + evil})
	if get.Status != http.StatusForbidden {
		t.Fail(check.Failure{What: fmt.Sprintf("a GET from Origin %s got HTTP %d: a foreign page must not open the session's stream", evil, get.Status),
			Got: streamSummary(get), Want: "HTTP 403 with a JSON-RPC error body, at once", Spec: true, Cause: causeOriginGuard})
	}
	get.End(wire.T1)

	del := h.Do(wire.Req{Method: http.MethodDelete, Header: with(session, rev, evil), Purpose: "DELETE the session, from Origin " + evil})
	expectForeignRefused(t, del, "a DELETE from Origin "+evil, "a foreign page must not end the user's session")
	if text := callTool(t, h, session, `2`, "echo", map[string]any{"text": "still here"}); text != "still here" {
		t.Fail(check.Failure{What: "echo answered " + check.Quote(text), Want: `"still here"`})
	}

	post := h.Do(wire.Req{Header: with(session, rev, evil), Body: wire.Request(`3`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "x"}, nil)),
		Purpose: "tools/call in the session, from Origin " + evil})
	expectForeignRefused(t, post, "a tools/call from Origin "+evil, "every POST is judged, not only initialize")

	unknown := h.Do(wire.Req{Header: with("grader-made-up-session", rev, evil), Body: wire.Request(`4`, "ping", nil),
		Purpose: "ping with an unknown session, from Origin " + evil})
	expectForeignRefused(t, unknown, "a ping with an unknown session id from Origin "+evil,
		"the Origin is judged before the session is looked up; a 404 tells a foreign page which session ids exist")
}

func checkNoOriginServed(t *check.T) {
	h := startOrigin(t)
	session, _ := h.Initialize(rev)
	if text := callTool(t, h, session, `2`, "echo", map[string]any{"text": "no origin"}); text != "no origin" {
		t.Fail(check.Failure{What: "echo answered " + check.Quote(text), Want: `"no origin"`})
	}
	g := openGET(t, h, session, rev, "", "GET with the session, without an Origin")
	g.Close()
	del := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, rev), Purpose: "DELETE without an Origin"})
	if del.Status < 200 || del.Status > 299 {
		t.Fail(check.Failure{What: fmt.Sprintf("DELETE without an Origin got HTTP %d", del.Status), Got: del.Summary(), Want: "2xx: the session ends"})
	}
}

func checkNullOrigin(t *check.T) {
	h := startOrigin(t)
	expectForeignRefused(t, initializeFrom(h, "null"), "initialize from Origin null",
		"any web page can send \"null\" (a sandboxed iframe, a data: URL), so it is never allowed")
}

// ---- step 2: the allowlist ----

func checkListedOrigins(t *check.T) {
	h := startOrigin(t)
	const app = "https://app.example.com"
	resp := initializeFrom(h, app)
	expectServed(t, resp, "initialize from Origin "+app, "https://*.example.com allows it")
	session := resp.Header.Get("Mcp-Session-Id")
	h.Do(wire.Req{Header: with(session, rev, app), Body: wire.Notification("notifications/initialized", nil), Purpose: "notifications/initialized from " + app})
	call := h.Do(wire.Req{Header: with(session, rev, app), Body: wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "hi"}, nil)),
		Purpose: "tools/call from " + app})
	expectStatus(t, call, http.StatusOK, "tools/call from Origin "+app)
	expectOrigins(t, h, []originCase{
		{"https://a.b.example.com", true, "a wildcard takes one label or more: https://*.example.com allows a.b.example.com"},
		{"http://localhost:5173", true, "http://localhost:* allows every port"},
		{"http://localhost", true, "http://localhost:* allows the default port too"},
		{"vscode-webview://1a2b3c4d5e6f", true, "vscode-webview://* allows any host of that scheme"},
		{"https://mcp.test:8443", true, "https://mcp.test:8443 is listed exactly"},
	})
}

func checkLookAlikes(t *check.T) {
	h := startOrigin(t)
	expectOrigins(t, h, []originCase{
		{"https://app.example.com", true, "https://*.example.com allows it (the positive control)"},
		{"https://xexample.com", false, "xexample.com is not below example.com: the match must end on a label boundary"},
		{"https://example.com", false, "*.example.com names hosts below example.com, not the bare domain"},
		{"https://evil.example.com.attacker.net", false, "its host ends in attacker.net"},
		{"https://example.com.evil", false, "its host ends in .evil"},
		{"https://app-example.com", false, "app-example.com is another domain"},
		{"https://mcp.test.evil.example:8443", false, "only https://mcp.test:8443 is listed, not names that start like it"},
		{"http://localhost.evil.example", false, "localhost.evil.example is a domain anyone can register, not localhost"},
		{"http://localhost.evil.example:5173", false, "localhost.evil.example is a domain anyone can register, not localhost"},
		{"http://127.0.0.1.nip.io:5173", false, "127.0.0.1.nip.io is a DNS name on the internet"},
	})
}

func checkSchemeAndPort(t *check.T) {
	h := startOrigin(t)
	expectOrigins(t, h, []originCase{
		{"https://app.example.com", true, "https://*.example.com allows it (the positive control)"},
		{"http://localhost:5173", true, "http://localhost:* allows it (the positive control)"},
		{"https://mcp.test:8443", true, "listed exactly (the positive control)"},
		{"http://app.example.com", false, "the pattern says https; http is another origin"},
		{"wss://app.example.com", false, "the pattern says https"},
		{"https://localhost:5173", false, "the pattern says http://localhost:*; https is another origin"},
		{"https://app.example.com:8443", false, "https://*.example.com names port 443 only"},
		{"https://mcp.test", false, "the list names port 8443; no port means 443"},
		{"http://mcp.test:8443", false, "the list names https"},
		{"vscode-webviewx://1a2b3c", false, "another scheme than vscode-webview"},
	})
}

func checkParsedOrigins(t *check.T) {
	h := startOrigin(t)
	expectOrigins(t, h, []originCase{
		{"HTTPS://APP.EXAMPLE.COM", true, "scheme and host compare without regard to case"},
		{"https://App.Example.Com", true, "scheme and host compare without regard to case"},
		{"https://app.example.com:443", true, "443 is https's default port: the same origin as https://app.example.com"},
		{"http://LOCALHOST:5173", true, "host names compare without regard to case"},
		{"https://xn--bcher-kva.example.com", true, "browsers send international names in punycode, and that is below example.com"},
		{"https://app.example.com/", false, "an origin has no path"},
		{"https://evil.net@app.example.com", false, "an origin has no userinfo; no browser sends one"},
		{"https://app.example.com.", false, "the course's allowlist does not strip a trailing dot: app.example.com. is a different origin to a browser"},
		{"https://bücher.example.com", false, "raw Unicode is not an origin a browser sends (it sends punycode)"},
		{"https://app.example.com:", false, "a colon with no port is malformed"},
	})
}

func checkDefaultAllowlist(t *check.T) {
	h := wire.StartHTTP(t)
	expectOrigins(t, h, []originCase{
		{"http://localhost:5173", true, "the default allowlist is http://localhost:*, http://127.0.0.1:* and http://[::1]:*"},
		{"http://127.0.0.1:8080", true, "the default allowlist is http://localhost:*, http://127.0.0.1:* and http://[::1]:*"},
		{"http://[::1]:3000", true, "the default allowlist is http://localhost:*, http://127.0.0.1:* and http://[::1]:*"},
		{"http://evil.example", false, "without -allow-origin only loopback pages are allowed"},
		{"https://app.example.com", false, "without -allow-origin only loopback pages are allowed"},
		{"http://localhost.evil.example:5173", false, "a look-alike of localhost"},
		{"http://127.0.0.1.nip.io:8080", false, "a look-alike of 127.0.0.1"},
	})
	explicit := startOrigin(t)
	resp := initializeFrom(explicit, "http://127.0.0.1:5173")
	expectForeignRefused(t, resp, "with -allow-origin 'https://*.example.com,http://localhost:*' (and two more), initialize from Origin http://127.0.0.1:5173",
		"an explicit allowlist replaces the loopback default; it does not add to it")
}

// ---- step 3: the Host header ----

func checkHostHeader(t *check.T) {
	h := startOrigin(t)
	suspectNoGuard(t, h)
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(h.URL, "http://"), "/mcp"))
	for _, good := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "localhost"} {
		expectServed(t, initializeFrom(h, "", "Host", good), "initialize with Host "+good, "it names this machine without DNS")
	}
	for _, bad := range []string{"evil.example:" + port, "localhost.evil.example:" + port, "127.0.0.1.nip.io:" + port, "evil.example"} {
		expectForbiddenHost(t, initializeFrom(h, "", "Host", bad), "initialize with Host "+bad+" (no Origin)",
			"the request came in on loopback under a DNS name other than localhost: a rebound name")
	}
	session, _ := h.Initialize(rev)
	rebound := "evil.example:" + port
	get := h.Open(wire.Req{Method: http.MethodGet, Header: with(session, rev, "", "Accept", "text/event-stream", "Host", rebound), Purpose: "GET with Host " + rebound})
	if get.Status != http.StatusForbidden {
		t.Fail(check.Failure{What: fmt.Sprintf("a GET with Host %s got HTTP %d: a rebound page's GET carries no Origin, so Host is all there is to judge", rebound, get.Status),
			Got: streamSummary(get), Want: "HTTP 403 with a JSON-RPC error body, at once"})
	}
	get.End(wire.T1)
	expectForbiddenHost(t, h.Do(wire.Req{Method: http.MethodDelete, Header: with(session, rev, "", "Host", rebound), Purpose: "DELETE with Host " + rebound}),
		"a DELETE with Host "+rebound, "the Host check holds for every method")
	expectForbiddenHost(t, initializeFrom(h, "https://app.example.com", "Host", rebound), "initialize from an allowed Origin with Host "+rebound,
		"Host and Origin are checked separately: an allowed Origin does not excuse a rebound Host")
}

// suspectNoGuard notes causeOriginGuard when the server serves a foreign
// Origin: it has no guard then, and the Host check lives in the guard. That
// holds for the course's stage, not for any server: an external server may
// check Host and Origin in separate places, so its failures stand alone.
func suspectNoGuard(t *check.T, h *wire.HTTP) {
	if t.Target.External() {
		return
	}
	if resp := initializeFrom(h, "http://evil.example"); resp.Status != http.StatusForbidden {
		t.Suspect(causeOriginGuard)
	}
}

// ---- step 4: CORS ----

// preflight sends a CORS preflight for method with the request headers a
// browser would list (lower case, sorted, comma-separated).
func preflight(h *wire.HTTP, origin, method, headers string) *wire.Response {
	hdr := http.Header{}
	hdr.Set("Origin", origin)
	hdr.Set("Access-Control-Request-Method", method)
	if headers != "" {
		hdr.Set("Access-Control-Request-Headers", headers)
	}
	return h.Do(wire.Req{Method: http.MethodOptions, Header: hdr, Purpose: fmt.Sprintf("preflight of a %s from %s", method, origin)})
}

// hasToken reports whether a comma-separated header holds token (case-insensitive), or "*".
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if strings.EqualFold(t, token) || t == "*" {
				return true
			}
		}
	}
	return false
}

func checkAllowedPreflight(t *check.T) {
	h := startOrigin(t)
	for _, c := range []struct{ origin, method, headers string }{
		{"https://app.example.com", http.MethodPost, "content-type,mcp-protocol-version,mcp-session-id"},
		{"http://localhost:5173", http.MethodGet, "last-event-id,mcp-protocol-version,mcp-session-id"},
		{"vscode-webview://1a2b3c4d5e6f", http.MethodDelete, "mcp-protocol-version,mcp-session-id"},
		{"https://app.example.com", http.MethodPost, "authorization,content-type"},
	} {
		resp := preflight(h, c.origin, c.method, c.headers)
		what := fmt.Sprintf("the preflight of a %s from %s (Access-Control-Request-Headers: %s)", c.method, c.origin, c.headers)
		got := resp.Summary() + "; " + corsHeaders(resp.Header)
		switch acao := resp.Header.Get("Access-Control-Allow-Origin"); {
		case resp.Status < 200 || resp.Status > 299:
			t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", what, resp.Status), Got: got, Want: "2xx with the CORS grant"})
		case acao == "*":
			t.Fail(check.Failure{What: what + " was answered Access-Control-Allow-Origin: *, which grants every web site", Got: got,
				Want: "Access-Control-Allow-Origin: " + c.origin + " (the origin, echoed)"})
		case acao != c.origin:
			t.Fail(check.Failure{What: what + " did not echo the origin in Access-Control-Allow-Origin", Got: got, Want: "Access-Control-Allow-Origin: " + c.origin})
		case !hasToken(resp.Header.Values("Vary"), "Origin"):
			t.Fail(check.Failure{What: what + " has no Vary: Origin, so a cache may serve one origin's grant to another", Got: got, Want: "Vary: Origin"})
		case !hasToken(resp.Header.Values("Access-Control-Allow-Methods"), c.method):
			t.Fail(check.Failure{What: what + " does not allow the method", Got: got, Want: "Access-Control-Allow-Methods listing " + c.method})
		}
		for _, name := range strings.Split(c.headers, ",") {
			if !hasToken(resp.Header.Values("Access-Control-Allow-Headers"), name) {
				t.Fail(check.Failure{What: what + " does not allow the header " + name, Got: got, Want: "Access-Control-Allow-Headers listing " + c.headers})
			}
		}
	}
}

// corsHeaders lists the CORS headers of an answer, for reports.
func corsHeaders(h http.Header) string {
	var parts []string
	for _, name := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
		"Access-Control-Expose-Headers", "Access-Control-Allow-Credentials", "Vary"} {
		if v := h.Values(name); len(v) > 0 {
			parts = append(parts, name+": "+strings.Join(v, ", "))
		}
	}
	if len(parts) == 0 {
		return "no CORS headers"
	}
	return strings.Join(parts, "; ")
}

func checkCORSResponses(t *check.T) {
	h := startOrigin(t)
	const app = "https://app.example.com"
	resp := initializeFrom(h, app)
	expectServed(t, resp, "initialize from Origin "+app, "https://*.example.com allows it")
	got := resp.Summary() + "; " + corsHeaders(resp.Header)
	switch {
	case resp.Header.Get("Access-Control-Allow-Origin") != app:
		t.Fail(check.Failure{What: "the answer to initialize from " + app + " does not grant that origin", Got: got, Want: "Access-Control-Allow-Origin: " + app,
			Cause: noGrant(resp.Header)})
	case !hasToken(resp.Header.Values("Access-Control-Expose-Headers"), "Mcp-Session-Id") || resp.Header.Get("Access-Control-Expose-Headers") == "*":
		t.Fail(check.Failure{What: "the answer to initialize does not expose Mcp-Session-Id, so the page cannot read its session id", Got: got,
			Want: "Access-Control-Expose-Headers: Mcp-Session-Id"})
	case !hasToken(resp.Header.Values("Vary"), "Origin"):
		t.Fail(check.Failure{What: "the answer to initialize from " + app + " has no Vary: Origin", Got: got, Want: "Vary: Origin"})
	}
	session := resp.Header.Get("Mcp-Session-Id")
	h.Do(wire.Req{Header: with(session, rev, app), Body: wire.Notification("notifications/initialized", nil), Purpose: "notifications/initialized from " + app})
	g := h.Open(wire.Req{Method: http.MethodGet, Header: with(session, rev, app, "Accept", "text/event-stream"), Purpose: "GET stream from " + app})
	expectEventStream(t, g, "GET from "+app, "")
	if g.Header.Get("Access-Control-Allow-Origin") != app {
		t.Fail(check.Failure{What: "the GET stream opened for " + app + " does not grant that origin, so the page cannot read it",
			Got: corsHeaders(g.Header), Want: "Access-Control-Allow-Origin: " + app})
	}
}

func checkForeignPreflight(t *check.T) {
	h := startOrigin(t)
	for _, origin := range []string{"http://evil.example", "https://evil.example.com.attacker.net", "null"} {
		resp := preflight(h, origin, http.MethodPost, "content-type,mcp-protocol-version")
		expectForeignRefused(t, resp, "the preflight of a POST from "+origin, "the guard refuses a foreign Origin on every method, OPTIONS included")
		if acao := resp.Header.Get("Access-Control-Allow-Origin"); acao != "" {
			t.Fail(check.Failure{What: "the refused preflight from " + origin + " still carries a CORS grant", Got: corsHeaders(resp.Header), Want: "no Access-Control-Allow-Origin"})
		}
	}
	const app = "https://app.example.com"
	if resp := preflight(h, app, http.MethodPost, "content-type"); resp.Status < 200 || resp.Status > 299 {
		t.Fail(check.Failure{What: fmt.Sprintf("the preflight of a POST from %s, which is allowed, got HTTP %d (the positive control)", app, resp.Status),
			Got: resp.Summary(), Want: "2xx"})
	}
}

// ---- step 5: the WebSocket ----

func originHeader(origin string, extra ...string) http.Header {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

// dialWS opens /ws and fails the check unless the server upgrades: what
// ORIGIN-15 tests (causeWebSocket).
func dialWS(t *check.T, h *wire.HTTP, header http.Header, purpose string) *wire.WS {
	ws, resp := h.DialWS(header, purpose)
	if ws == nil {
		t.Fail(check.Failure{What: fmt.Sprintf("the WebSocket handshake (%s) got HTTP %d", purpose, resp.Status), Got: resp.Summary(), Want: "HTTP 101 Switching Protocols",
			Cause: causeWebSocket})
	}
	return ws
}

// noSocket names causeWebSocket when a handshake the server should have
// refused with 403 was neither refused nor upgraded: no /ws at all.
func noSocket(ws *wire.WS, status int) string {
	if ws == nil && status != http.StatusForbidden {
		return causeWebSocket
	}
	return ""
}

// noGrant names causeCORS when an answer carries no CORS header at all.
func noGrant(h http.Header) string {
	for name := range h {
		if strings.HasPrefix(name, "Access-Control-") {
			return ""
		}
	}
	return causeCORS
}

func checkWebSocketServes(t *check.T) {
	h := startOrigin(t)
	for _, origin := range []string{"", "https://app.example.com", "http://localhost:5173"} {
		ws := dialWS(t, h, originHeader(origin), "handshake"+from(origin))
		checkInitializeResult(t, ws.Initialize(rev))
		ws.Quiet(wire.Q, "an answer to notifications/initialized")
		resp := ws.Call(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "over a socket"}, nil))
		if text := toolTextOf(t, resp); text != "over a socket" {
			t.Fail(check.Failure{What: "echo over the WebSocket answered " + check.Quote(text), Want: `"over a socket"`})
		}
		for _, f := range ws.Pending() {
			t.Fail(check.Failure{What: "a frame that is not one JSON-RPC message, or that nobody asked for, arrived", Got: check.Quote(f.Text),
				Want: "one JSON-RPC message per text frame"})
		}
	}
}

// toolTextOf returns the text of a tools/call result that arrived on a socket.
func toolTextOf(t *check.T, resp *wire.Msg) string {
	return toolText(t, resp, "echo")
}

func checkWebSocketRefuses(t *check.T) {
	h := startOrigin(t)
	for _, origin := range []string{"http://evil.example", "https://evil.example.com.attacker.net", "null", "https://example.com"} {
		ws, resp := h.DialWS(originHeader(origin), "handshake from Origin "+origin)
		if ws != nil || resp.Status != http.StatusForbidden {
			t.Fail(check.Failure{What: fmt.Sprintf("the WebSocket handshake from Origin %s got HTTP %d: any web site could open this socket and drive the server", origin, resp.Status),
				Got: resp.Summary(), Want: "HTTP 403, and no upgrade", Cause: noSocket(ws, resp.Status)})
		}
	}
	dialWS(t, h, originHeader("https://app.example.com"), "handshake from Origin https://app.example.com (the positive control)")
}

func checkWebSocketHost(t *check.T) {
	h := startOrigin(t)
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(h.URL, "http://"), "/mcp"))
	for _, bad := range []string{"evil.example:" + port, "localhost.evil.example:" + port} {
		ws, resp := h.DialWS(originHeader("", "Host", bad), "handshake with Host "+bad)
		if ws != nil || resp.Status != http.StatusForbidden {
			t.Fail(check.Failure{What: fmt.Sprintf("the WebSocket handshake with Host %s got HTTP %d", bad, resp.Status), Got: resp.Summary(), Want: "HTTP 403, and no upgrade",
				Cause: noSocket(ws, resp.Status)})
		}
	}
	dialWS(t, h, originHeader("", "Host", "localhost:"+port), "handshake with Host localhost:"+port+" (the positive control)")
}

func checkMultiLineFrame(t *check.T) {
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(rev)
	pretty := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 7,\n  \"method\": \"tools/call\",\n  \"params\": {\"name\": \"echo\", \"arguments\": {\"text\": \"pretty\"}}\n}"
	ws.Send(pretty)
	resp := ws.AwaitResponse(`7`, "tools/call echo, sent as JSON over 6 lines")
	if text := toolTextOf(t, resp); text != "pretty" {
		t.Fail(check.Failure{What: "echo answered " + check.Quote(text), Want: `"pretty"`})
	}
	ws.Quiet(wire.Q, "a second answer to that one frame (each of its lines read as a message?)")
}

func checkInvalidFrames(t *check.T) {
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(rev)
	for _, bad := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"a\nb\"}}}",
		`{"jsonrpc":"2.0","id":9,"method":"ping"`,
	} {
		ws.Send(bad)
		m := ws.Await(wire.T1, "error response -32700 to a frame that is not JSON", func(m *wire.Msg) bool { return m.IsResponse() || m.Error != nil })
		expectError(t, m, -32700, "a frame that is not valid JSON ("+check.Quote(bad)+")")
	}
	ws.Quiet(wire.Q, "another answer to the invalid frames")
	ws.Call(`10`, "ping", nil)
}

func checkWebSocketLoop(t *check.T) {
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(rev)
	ws.Send(countdownCall(`20`, 3, 300, "ws-progress"))
	ping := ws.Call(`21`, "ping", nil)
	mustResult(t, ping, "ping")
	for _, f := range ws.Pending() {
		if f.Msg != nil && f.Msg.IsResponseTo(`20`) {
			t.Fail(check.Failure{What: "the countdown finished before the ping sent after it was answered: requests on the socket run one at a time",
				Want: "ping answered at once, while the countdown runs"})
		}
	}
	ws.Await(wire.T1, `progress notification for token "ws-progress"`, func(m *wire.Msg) bool {
		token, _, ok := progressOf(m)
		return ok && token == `"ws-progress"`
	})
	ws.Await(wire.T2, "the countdown's response (id 20)", func(m *wire.Msg) bool { return m.IsResponseTo(`20`) })
	ws.Call(`22`, "tools/call", wire.ToolCall("add_note", map[string]any{"text": "from a socket"}, nil))
	ws.Await(wire.T1, `notifications/message from logger "notes" (add_note logs each note through the session's outlet)`, isLogFrom("notes"))
}

func checkWebSocketLeaks(t *check.T) {
	h := startOrigin(t, "-debug")
	base := takeBaseline(t, h)
	var sockets []*wire.WS
	for i := 0; i < 8; i++ {
		ws := dialWS(t, h, nil, fmt.Sprintf("socket %d", i+1))
		ws.Initialize(rev)
		ws.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 50, "interval_ms": 200}, nil)))
		ws.Call(`3`, "ping", nil) // the countdown has started
		sockets = append(sockets, ws)
	}
	for _, ws := range sockets {
		ws.Drop()
	}
	t.Wire.Event("dropped 8 sockets, each with a 10 s countdown running; waiting up to 2 s for the server to free them")
	base.expectFreed(t, h, "8 clients dropped their sockets", "each socket's requests cancelled, and its goroutines and connection freed, once its client is gone")
}

func checkWebSocketShutdown(t *check.T) {
	if !proc.CanTerminate {
		return // no SIGTERM on this system; the check has nothing to test
	}
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(rev)
	t.Wire.Event("sent SIGTERM")
	sent := time.Now()
	if err := h.Proc.Terminate(); err != nil {
		t.Failf("could not send SIGTERM: %v", err)
	}
	why, ended := ws.AwaitEnd(1500 * time.Millisecond)
	switch {
	case !ended:
		t.Fail(check.Failure{What: "the WebSocket was still open 1.5 s after SIGTERM", Want: "a close frame with code 1001 (going away), at once"})
	case !isGoingAway(why):
		t.Fail(check.Failure{What: "after SIGTERM the WebSocket ended without a close frame saying 1001 (going away)", Got: fmt.Sprint(why),
			Want: "a close frame with code 1001, so the client knows to come back later"})
	}
	if !h.Proc.WaitExit(time.Until(sent.Add(3 * time.Second))) {
		t.Fail(check.Failure{What: "the server was still running 3 s after SIGTERM", Want: "the server exits"})
	}
	if code := h.Proc.ExitCode(); code != 0 {
		t.Fail(check.Failure{What: "after SIGTERM the server exited with " + h.Proc.Status(), Want: "exit status 0: a requested stop is not a failure"})
	}
}

// ---- step 6: secure defaults ----

// expectRefusedStart runs the server with args and fails the check unless it
// exits non-zero within wire.EXIT, without saying it listens, with a message
// on stderr that contains mention.
func expectRefusedStart(t *check.T, mention string, args ...string) {
	p, err := proc.Start(t.Context(), t.Target.Binary, args...)
	if err != nil {
		t.Failf("could not start %s: %v", t.Target.Package, err)
	}
	t.Cleanup(p.Kill)
	t.AttachStderr(p.Stderr)
	cmd := "go run " + t.Target.Package + " " + strings.Join(quoteArgs(args), " ")
	t.Wire.Sent(cmd)
	if !p.WaitExit(wire.EXIT) {
		t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after starting with %s", wire.EXIT, strings.Join(quoteArgs(args), " ")),
			Got: check.Quote(p.Stderr()), Want: "a non-zero exit, at once, with a message that says why", Repro: cmd})
	}
	stderr := p.Stderr()
	switch {
	case p.ExitCode() == 0:
		t.Fail(check.Failure{What: "the server exited with status 0", Got: check.Quote(stderr), Want: "a non-zero exit", Repro: cmd})
	case strings.Contains(stderr, "listening on"):
		t.Fail(check.Failure{What: "the server said it was listening before it gave up", Got: check.Quote(stderr), Want: "a refusal before anything listens", Repro: cmd})
	case !strings.Contains(stderr, mention):
		t.Fail(check.Failure{What: "the server exited, but its message does not mention " + check.Quote(mention), Got: check.Quote(stderr),
			Want: "a message that says what to change", Repro: cmd})
	}
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if strings.ContainsAny(a, "*,:/ ") {
			out[i] = "'" + a + "'"
		}
	}
	return out
}

func checkRefusesWideBind(t *check.T) {
	expectRefusedStart(t, "-allow-origin", "-addr", "0.0.0.0:0")
	h := wire.StartHTTP(t, "-addr", "localhost:0")
	h.Initialize(rev)
}

func checkBadPatterns(t *check.T) {
	for _, bad := range []string{"https://*", "app.example.com", "https://app*.example.com", "https://example.com/mcp"} {
		expectRefusedStart(t, bad, "-addr", "127.0.0.1:0", "-allow-origin", "http://localhost:*,"+bad)
	}
}

// isGoingAway reports whether a connection ended with close code 1001.
func checkBinaryFrame(t *check.T) {
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(rev)
	ws.SendFrame(websocket.BinaryMessage, `{"jsonrpc":"2.0","id":30,"method":"ping"}`)
	why, ended := ws.AwaitEnd(wire.T1)
	for _, f := range ws.Pending() {
		if f.Msg != nil && f.Msg.IsResponseTo(`30`) {
			t.Fail(check.Failure{What: "the server answered a ping sent in a binary frame", Got: f.Text,
				Want: "no answer: a binary frame is not a message, and closes the socket with 1003"})
		}
	}
	if code, ok := wire.CloseCode(why); !ended || !ok || code != websocket.CloseUnsupportedData {
		got := "the socket was still open after 1 s"
		if ended {
			got = fmt.Sprint("the socket ended: ", why)
		}
		t.Fail(check.Failure{What: "a binary frame did not close the socket with 1003", Got: got,
			Want: "a close frame with code 1003 (unsupported data), within 1 s"})
	}
}

func isGoingAway(err error) bool {
	code, ok := wire.CloseCode(err)
	return ok && code == 1001
}
