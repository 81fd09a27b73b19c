// Package lesson04 holds the checks of lesson 04, which grades stage 04,
// the Origin guard, the Host check, CORS and the WebSocket, one file per
// step of the lesson.
package lesson04

import (
	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/spec"
)

// Lesson grades stage 04: which web pages may use the server.
var Lesson = &check.Lesson{
	Number:    "04",
	Stage:     "04-origin",
	Title:     "Origin allowlists, DNS rebinding, CORS and WebSocket",
	Guide:     "lessons/04-origin.md",
	Transport: check.HTTP,
	Stages:    []string{"01-stdio", "02-streamable-http", "03-sse-resume", "04-origin"},

	// A server that does not start or fails initialize is the earlier
	// stages' trouble, which ORIGIN-03 meets first (it sends no Origin, so
	// nothing of stage 04 stands in the way); then one cause per entry point.
	Causes: map[string]string{check.CauseStart: "ORIGIN-03", check.CauseUnimplemented: "ORIGIN-03", check.CauseInitialize: "ORIGIN-03",
		check.CauseSession: "ORIGIN-03", causeOriginGuard: "ORIGIN-01", causeCORS: "ORIGIN-12", causeWebSocket: "ORIGIN-15"},
	Underneath: "stage 04 serves /mcp with your stage 03, and stage 03 with your stage 02: if lesson 03 does not pass yet (go test ./grader -run Lesson03), " +
		"finish it, or run go run ./cmd/course catch-up 04, which puts the reference in place of each earlier stage whose lesson does not pass; " +
		"once lessons 01 to 03 pass, the trouble is in stage 04 itself",
	Steps: []check.Step{step1, step2, step3, step4, step5, step6},
	Unchecked: []check.Claim{
		{Claim: "a real browser: an allowed page initializes, reads its session id, calls a tool, reads the SSE stream and uses the WebSocket; a foreign page is refused at every step", Where: "deep dives", How: "proven by TestBrowser04 in a headless Chromium (grader/browser_test.go, go run ./cmd/course clients 04), which is not a check of the lesson"},
	},
	Checklist: &check.Checklist{Lessons: []string{"03", "04"}, Rows: []check.ChecklistRow{
		{Rule: "C1 one endpoint, POST and GET: GET gets a stream (stage 03)", Notes: "405 in stateless mode"},
		{Rule: "C2 validate Origin on all incoming connections; 403 when present and invalid", Notes: "POST, GET, DELETE and the WebSocket handshake; no Origin is served"},
		{Rule: "C3 bind to localhost when running locally", Notes: "the course makes the SHOULD a refusal without an explicit allowlist"},
		{Rule: "C4, C50 authentication", Notes: "no authorization in these stages"},
		{Rule: "C4b the DNS-rebinding defence through Host", Notes: "one header changed at a time, unlike the conformance suite"},
		{Rule: "C19 the client's Accept on GET; the server's reaction is the course's", Notes: "406"},
		{Rule: "C20 GET gets text/event-stream or 405"},
		{Rule: "C21 the server MAY send its own messages on the GET stream", Notes: "log messages through the session's outlet"},
		{Rule: "C22 no response on the GET stream unless it resumes a request's stream", Notes: "a resumed POST stream carries its response, as it must"},
		{Rule: "C23 either side MAY close the GET stream; polling", Notes: "the server never closes a stream on purpose; the deep dives explain polling"},
		{Rule: "C24, C28 (client: several streams; resuming with GET)", Notes: "learners write no client; the server's side of C28 is SSE-21"},
		{Rule: "C25 each message on one stream only, never broadcast"},
		{Rule: "C26 event ids unique across the session's streams"},
		{Rule: "C27 ids identify their stream", Notes: "indirect: resuming works from the id alone"},
		{Rule: "C29 replay only the disconnected stream's messages; never another session's; a clear 4xx past the buffer", Notes: "400, never 404"},
		{Rule: "C51 a custom transport (the WebSocket) keeps the JSON-RPC message format and the lifecycle", Notes: "the lesson says WebSocket is not a standard MCP transport, and cites Custom Transports"},
	}},
}

// Where lesson 04's rules live in the spec.
var (
	securityRule  = func(q string) check.Spec { return spec.HTTP("Security Warning", q) }
	forbiddenRule = securityRule("If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden. " +
		"The HTTP response body MAY comprise a JSON-RPC error response that has no id")
	validateRule  = securityRule("Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks")
	rebindingRule = securityRule("Without these protections, attackers could use DNS rebinding to interact with local MCP servers from remote websites.")
	bindRule      = securityRule("When running locally, servers SHOULD bind only to localhost (127.0.0.1) rather than all network interfaces (0.0.0.0)")
	corsRule      = check.Spec{Rev: spec.Rev, Section: "basic/transports › Streamable HTTP › Security Warning (the spec names no CORS rule; the course does)",
		Quote: "Servers MUST validate the Origin header on all incoming connections"}
	customRule = check.Spec{Rev: spec.Rev, Section: "basic/transports › Custom Transports",
		Quote: "Implementers who choose to support custom transports MUST ensure they preserve the JSON-RPC message format and lifecycle requirements defined by MCP."}
)

// courseAllowlist is the Origin allowlist most of lesson 04's checks start
// the server with: wildcards, a port wildcard, a custom scheme, and an
// exact origin with a port. A server at a URL that claims it is graded on
// every check that relies on it (check.Needs.Allowlist).
var courseAllowlist = []string{"https://*.example.com", "http://localhost:*", "vscode-webview://*", "https://mcp.test:8443"}

// allowArgs passes courseAllowlist to the server as two -allow-origin
// flags of two patterns each: the flag may be repeated, and each holds a
// comma-separated list.
var allowArgs = []string{"-allow-origin", courseAllowlist[0] + "," + courseAllowlist[1], "-allow-origin", courseAllowlist[2] + "," + courseAllowlist[3]}

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
