package lesson02

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step6 holds the checks of step 6: stateless mode.
var step6 = check.Step{
	Checks: []*check.Check{http24, http25, http26, http39},
}

var http24 = &check.Check{
	ID: "HTTP-24", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.Stateless},
	Title: "stateless: no session id is issued, and none is needed or checked, for requests, notifications or batches",
	Spec:  spec.Session("A server using the Streamable HTTP transport MAY assign a session ID at initialization time"),
	Course: "With -stateless, the course requires a server with no sessions at all: initialize gets no MCP-Session-Id, " +
		"and every request is served whether it carries one or not.",
	Hint: check.Hint{
		Report:   "In stateless mode, serve every POST with a fresh session (server.NewSession()) and ignore the MCP-Session-Id header.",
		Question: "With -stateless, does initialize still set MCP-Session-Id? Does a request with no id, or a made-up one, still get served?",
		Pointer:  "› Session Management: a server MAY assign a session id, so a server without sessions is allowed. Options.Stateless is set by -stateless, and h.sessions is nil then.",
		Near: `	// in serveInitialize:
	if h.opts.Stateless {
		h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg)
		return
	}

	// in Session, before any look at the header:
	if h.opts.Stateless {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}`,
	},
	Claims: []check.Claim{
		{Claim: "stateless: no session id issued; none needed or checked, for requests, notifications and batches", Where: "step 6"},
		{Claim: "stateless: without the version header a batch is served at 2025-03-26; with an empty one it is refused", Where: "step 6", How: "a batch without the header, and one with MCP-Protocol-Version set to an empty value"},
	},
	Checklist: []string{"C40"},
	Run:       checkStatelessNoSessions,
}

func checkStatelessNoSessions(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	session, resp := h.Initialize(spec.Rev)
	if session != "" {
		t.Fail(check.Failure{What: "in stateless mode, initialize returned an MCP-Session-Id", Got: check.Quote(session), Want: "no MCP-Session-Id header"})
	}
	probe.CheckInitializeResult(t, probe.ExpectResponse(t, resp, `1`, "initialize"))
	for _, header := range []string{"", "grader-made-up-session"} {
		purpose := "echo without a session"
		if header != "" {
			purpose = "echo with a session id the server never issued"
		}
		resp := h.Post(header, spec.Rev, wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "hi"}, nil)), purpose)
		probe.ExpectStatus(t, resp, http.StatusOK, "a stateless "+purpose)
		probe.ToolText(t, probe.ExpectResponse(t, resp, `2`, purpose), "echo")
	}
	resp = h.Post("", spec.Rev, wire.Notification("notifications/grader-unknown", nil), "a notification without a session")
	if resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
		t.Fail(check.Failure{What: "in stateless mode, a notification without a session did not get 202", Got: resp.Summary(), Want: "HTTP 202, empty body"})
	}
	resp = h.Post("", "2025-03-26", "["+wire.Request(`"b1"`, "ping", nil)+"]", "a batch at 2025-03-26, without a session")
	if m := resp.Find(`"b1"`); resp.Status != http.StatusOK || m == nil || m.Error != nil {
		t.Fail(check.Failure{What: "in stateless mode, a batch at 2025-03-26 without a session was not served", Got: resp.Summary(),
			Want: `HTTP 200, [{"jsonrpc":"2.0","id":"b1","result":{}}]`})
	}
	// Without the header and without a session, the version is 2025-03-26,
	// which has batches; an empty header is no missing one.
	resp = h.Post("", "", "["+wire.Request(`"b2"`, "ping", nil)+"]", "a batch without MCP-Protocol-Version, without a session")
	if m := resp.Find(`"b2"`); resp.Status != http.StatusOK || m == nil || m.Error != nil {
		t.Fail(check.Failure{What: "in stateless mode, a batch without MCP-Protocol-Version was not served: with no header and no session, the version is 2025-03-26, which has batches",
			Got: resp.Summary(), Want: `HTTP 200, [{"jsonrpc":"2.0","id":"b2","result":{}}]`, Cites: &noVersionHeader})
	}
	hdr := wire.Headers("", "")
	hdr.Set("Mcp-Protocol-Version", "")
	resp = h.Do(wire.Req{Header: hdr, Body: "[" + wire.Request(`"b3"`, "ping", nil) + "]", Purpose: "a batch with an empty MCP-Protocol-Version, without a session"})
	if resp.Status != http.StatusBadRequest {
		t.Fail(check.Failure{What: "in stateless mode, a batch with an empty MCP-Protocol-Version header was not refused: an empty header is present, and names no version",
			Got: resp.Summary(), Want: "HTTP 400", Cites: &badVersionHeader})
	}
}

// The two halves of the protocol version header's rule, which a stateless
// batch is judged by.
var (
	noVersionHeader  = spec.HTTP("Protocol Version Header", "if the server does not receive an MCP-Protocol-Version header, and has no other way to identify the version, the server SHOULD assume protocol version 2025-03-26")
	badVersionHeader = spec.HTTP("Protocol Version Header", "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request")
)

var http25 = &check.Check{
	ID: "HTTP-25", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.Stateless},
	Title: "stateless: GET and DELETE get 405 at once, before any other work",
	Spec:  spec.Listening("or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint"),
	Course: "A stateless server has no stream to offer and no session to delete. The course requires GET and DELETE to get 405 with Allow: POST " +
		"and no WWW-Authenticate, before any session, version or auth check, with a body that ends at once. A stateless server that " +
		"opened a stream on GET held every such request for 5 minutes until the platform killed it.",
	Hint: check.Hint{
		Report:   "Check the method first. In stateless mode only POST is served: answer anything else 405 with Allow: POST and return. Never start an SSE response on GET.",
		Question: "In stateless mode, what do GET and DELETE get, with which Allow header, and does the response end at once?",
		Pointer:  "› Listening for Messages from the Server: 405 Method Not Allowed when the server offers no SSE stream at the endpoint. A stateless server has neither a stream nor a session to delete. allowed() returns \"POST\" when stateless.",
		Near: `Check the method first:

	switch {
	case r.Method == http.MethodPost:
		h.servePOST(w, r)
	case r.Method == http.MethodDelete && !h.opts.Stateless:
		h.serveDELETE(w, r)
	default:
		h.methodNotAllowed(w, r) // Allow: POST when stateless
	}`,
	},
	Early: 4,
	Claims: []check.Claim{
		{Claim: "stateless: GET and DELETE get 405 with Allow: POST, no WWW-Authenticate, at once", Where: "concept, step 6"},
	},
	Checklist: []string{"C1"},
	Run:       checkStatelessGetDelete,
}

func checkStatelessGetDelete(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		hdr := http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {"grader-made-up-session"}}
		resp := probe.Expect405(t, h, wire.Req{Method: method, Header: hdr, Purpose: method + " on a stateless server"})
		if allow := resp.Header.Get("Allow"); strings.Contains(strings.ToUpper(allow), method) {
			t.Fail(check.Failure{What: fmt.Sprintf("the 405 to %s lists %s as allowed", method, method), Got: check.Quote(allow), Want: "Allow: POST"})
		}
		if wa := resp.Header.Get("WWW-Authenticate"); wa != "" {
			t.Fail(check.Failure{What: fmt.Sprintf("the 405 to %s carries WWW-Authenticate, which invites the client to authenticate for a method that will never work", method),
				Got: check.Quote(wa), Want: "no WWW-Authenticate header"})
		}
	}
}

var http26 = &check.Check{
	ID: "HTTP-26", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.Stateless},
	Title: "stateless: requests share no state",
	Spec:  spec.Session("A server using the Streamable HTTP transport MAY assign a session ID at initialization time"),
	Course: "Without sessions nothing ties two requests together, so nothing may carry over between them: a note saved by " +
		"one client must never be listed to the next.",
	Hint: check.Hint{
		Report:   "Give every stateless request a new mcp.Session. One shared session for all requests leaks one client's data to every other.",
		Question: "In stateless mode, is a note saved by one request visible to the next? Which mcp.Session serves each stateless request?",
		Pointer:  "› Session Management: without a session id nothing ties two requests together, so nothing may carry over. mcp.Server.NewSession makes a fresh, empty session.",
		Near: `Never keep a shared session in the Handler for stateless mode. In Session and serveInitialize, every stateless request gets its own:

	&Session{Session: h.server.NewSession()}`,
	},
	Early: 1, EarlyEnds: 2,
	Claims: []check.Claim{
		{Claim: "stateless: a fresh session per request; nothing shared", Where: "concept, step 6"},
	},
	Run: checkStatelessSharesNothing,
}

func checkStatelessSharesNothing(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	secret := fmt.Sprintf("secret-%d", time.Now().UnixNano()%1e6)
	probe.CallTool(t, h, "", `2`, "add_note", map[string]any{"text": secret})
	if got := probe.CallTool(t, h, "", `3`, "list_notes", nil); strings.Contains(got, secret) {
		t.Fail(check.Failure{What: "a later stateless request lists a note an earlier one saved: requests share state", Got: check.Quote(got),
			Want: "no notes: every stateless request starts fresh"})
	}
}

var http39 = &check.Check{
	ID: "HTTP-39", Step: 6, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Mode: check.Stateless, Flags: []string{"-debug"}},
	Title: "stateless: a request whose client hangs up stops, answered as JSON or as a stream (goroutines counted via -debug's /debug/vars)",
	Spec:  spec.Sending("Disconnection MAY occur at any time (e.g., due to network conditions)."),
	Course: "In stateful mode a dropped connection is no cancellation (HTTP-30): the client can still cancel through its session. A stateless request has no session, " +
		"so the connection is all that ties it to its client, and the course requires a request to stop when it goes: otherwise nothing can ever stop it. " +
		"The grader hangs up on eight 4 s countdowns, four answered as JSON and four as streams, and wants the server's goroutines back to where they were within 2 s.",
	Hint: check.Hint{
		Report: "Run a stateless request under r.Context() itself, which ends when the client hangs up: the given requestContext does that when h.opts.Stateless, " +
			"and context.WithoutCancel only in stateful mode.",
		Question: "In stateless mode, what could ever stop a request whose client has gone? Which context does it run under?",
		Pointer:  "net/http: r.Context() is cancelled when the client's connection closes. context.WithoutCancel drops that cancellation, which stateful mode wants (its sessions can cancel) and stateless mode must not.",
		Near: `	func (h *Handler) requestContext(r *http.Request) context.Context {
		if h.opts.Stateless {
			return r.Context() // the connection is all a stateless request has
		}
		return context.WithoutCancel(r.Context())
	}`,
	},
	Claims: []check.Claim{
		{Claim: "stateless: a dropped connection cancels the request", Where: "step 6",
			How: "eight 4 s countdowns (four JSON, four with a progress token) hung up on after 0.3 s; the server's goroutines (-debug's /debug/vars) must be back to the baseline within 2 s"},
	},
	// requestContext is given code: a stateless request runs under its
	// connection at every step, and at step 1 every request has a fresh
	// session, as stateless mode gives it. From step 2 on a request needs
	// a session id until step 6.
	Early: 1, EarlyEnds: 2,
	Run: checkStatelessHangUpCancels,
}

func checkStatelessHangUpCancels(t *check.T) {
	h := wire.StartHTTP(t, "-stateless", "-debug")
	// First, that the server runs a countdown at all: otherwise a hang-up
	// would stop nothing because nothing ran.
	resp := h.Post("", spec.Rev, wire.Request(`1`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 1, "interval_ms": 10}, nil)), "a countdown of one step")
	probe.ToolText(t, probe.ExpectResponse(t, resp, `1`, "a countdown of one step"), "countdown")
	base := probe.TakeBaseline(t, h)
	for i := 0; i < 8; i++ {
		var token any
		if i%2 == 1 {
			token = fmt.Sprintf("hang-%d", i)
		}
		h.Abandon(wire.Req{Header: wire.Headers("", spec.Rev), Purpose: "a 4 s countdown, hung up on after 0.3 s",
			Body: wire.Request(fmt.Sprint(10+i), "tools/call", wire.ToolCall("countdown", map[string]any{"from": 40, "interval_ms": 100}, token))}, 300*time.Millisecond)
	}
	probe.Pause(t, 400*time.Millisecond) // every client has hung up
	base.ExpectFreed(t, h, "eight stateless clients hung up on their 4 s countdowns",
		"every request stopped once its client left: in stateless mode the connection is all that ties a request to its client")
}
