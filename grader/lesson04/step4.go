package lesson04

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

// step4 holds the checks of step 4: CORS.
var step4 = check.Step{
	Checks: []*check.Check{origin12, origin13, origin14, origin30},
}

var origin12 = &check.Check{
	ID: "ORIGIN-12", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
	Title: "a preflight from an allowed origin echoes it, varies on Origin, and allows the method and MCP's headers",
	Spec:  corsRule,
	Course: "A browser page can only send MCP's headers after a CORS preflight. The course requires 2xx, Access-Control-Allow-Origin equal to the origin (never *), Vary: Origin, " +
		"Content-Type, Authorization, Mcp-Session-Id, MCP-Protocol-Version and Last-Event-ID for GET, POST and DELETE, and Access-Control-Max-Age: 600 (ten minutes). " +
		"The grant follows the allowlist, not rs/cors's own string matching: every origin the guard serves is granted, the default port written out or left out included.",
	Hint: check.Hint{
		Report:   "cors.New(cors.Options{AllowOriginFunc: allowlist.Allows, AllowedMethods: GET, POST, DELETE, AllowedHeaders: the MCP headers}), wrapped around stage 03's handler, inside your guard.",
		Question: "What must a preflight answer say for a browser to send MCP's headers from another origin?",
		Pointer:  "The Fetch standard's CORS protocol; github.com/rs/cors Options: AllowOriginFunc, AllowedMethods, AllowedHeaders.",
		Near:     "cors.New(cors.Options{AllowOriginFunc: allow.Allows, AllowedMethods: []string{\"GET\", \"POST\", \"DELETE\"}, AllowedHeaders: []string{\"Accept\", \"Content-Type\", \"Authorization\", \"Mcp-Session-Id\", \"Mcp-Protocol-Version\", \"Last-Event-Id\"}}).Handler(h.mcp).",
	},
	Claims: []check.Claim{
		{Claim: "a preflight from an allowed origin echoes it (never *), varies on Origin, and allows the method and MCP's headers (Last-Event-ID, Mcp-Session-Id, MCP-Protocol-Version among them), for ten minutes", Where: "step 4",
			How: "headers lower-case and sorted, as browsers send them; origins of every pattern of the allowlist, with the default port left out and written out"},
	},
	Run: checkAllowedPreflight,
}

func checkAllowedPreflight(t *check.T) {
	h := startOrigin(t)
	for _, c := range []struct{ origin, method, headers string }{
		{"https://app.example.com", http.MethodPost, "content-type,mcp-protocol-version,mcp-session-id"},
		{"http://localhost:5173", http.MethodGet, "last-event-id,mcp-protocol-version,mcp-session-id"},
		{"vscode-webview://1a2b3c4d5e6f", http.MethodDelete, "mcp-protocol-version,mcp-session-id"},
		{"https://app.example.com", http.MethodPost, "authorization,content-type"},
		// Origins the guard serves that a matcher of strings would not grant:
		// the default port, left out and written out, and a second label.
		{"http://localhost", http.MethodGet, "last-event-id,mcp-protocol-version,mcp-session-id"},
		{"https://app.example.com:443", http.MethodPost, "content-type,mcp-protocol-version,mcp-session-id"},
		{"https://a.b.example.com", http.MethodGet, "last-event-id,mcp-protocol-version,mcp-session-id"},
		{"https://mcp.test:8443", http.MethodDelete, "mcp-protocol-version,mcp-session-id"},
	} {
		expectPreflightGranted(t, h, c.origin, c.method, c.headers)
	}
}

// expectPreflightGranted sends a preflight from an allowed origin and fails
// the check unless its answer grants that origin (echoed, never *), varies
// on Origin, allows the method and every header asked for, and lets the
// browser keep the grant for ten minutes.
func expectPreflightGranted(t *check.T, h *wire.HTTP, origin, method, headers string) {
	resp := preflight(h, origin, method, headers)
	what := fmt.Sprintf("the preflight of a %s from %s (Access-Control-Request-Headers: %s)", method, origin, headers)
	got := resp.Summary() + "; " + corsHeaders(resp.Header)
	switch acao := resp.Header.Get("Access-Control-Allow-Origin"); {
	case resp.Status < 200 || resp.Status > 299:
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", what, resp.Status), Got: got, Want: "2xx with the CORS grant"})
	case acao == "*":
		t.Fail(check.Failure{What: what + " was answered Access-Control-Allow-Origin: *, which grants every web site", Got: got,
			Want: "Access-Control-Allow-Origin: " + origin + " (the origin, echoed)"})
	case acao != origin:
		t.Fail(check.Failure{What: what + " did not echo the origin in Access-Control-Allow-Origin", Got: got, Want: "Access-Control-Allow-Origin: " + origin})
	case !hasToken(resp.Header.Values("Vary"), "Origin"):
		t.Fail(check.Failure{What: what + " has no Vary: Origin, so a cache may serve one origin's grant to another", Got: got, Want: "Vary: Origin"})
	case !hasToken(resp.Header.Values("Access-Control-Allow-Methods"), method):
		t.Fail(check.Failure{What: what + " does not allow the method", Got: got, Want: "Access-Control-Allow-Methods listing " + method})
	case resp.Header.Get("Access-Control-Max-Age") != "600":
		t.Fail(check.Failure{What: what + " does not let the browser keep the grant for ten minutes", Got: "Access-Control-Max-Age: " + resp.Header.Get("Access-Control-Max-Age"),
			Want: "Access-Control-Max-Age: 600, so that not every request costs a preflight"})
	}
	for _, name := range strings.Split(headers, ",") {
		if !hasToken(resp.Header.Values("Access-Control-Allow-Headers"), name) {
			t.Fail(check.Failure{What: what + " does not allow the header " + name, Got: got, Want: "Access-Control-Allow-Headers listing " + headers})
		}
	}
}

var origin13 = &check.Check{
	ID: "ORIGIN-13", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Allowlist: courseAllowlist},
	Title:  "responses to an allowed origin carry Access-Control-Allow-Origin and expose Mcp-Session-Id",
	Spec:   corsRule,
	Course: "Without Access-Control-Expose-Headers: Mcp-Session-Id, a page can read the InitializeResult but not its session id, and cannot send a second request. The course requires the origin echoed on every answer, streams included.",
	Hint: check.Hint{
		Report:   "rs/cors's ExposedHeaders: []string{\"Mcp-Session-Id\"}. Echo the origin, as AllowOriginFunc does; AllowedOrigins: []string{\"*\"} sends a literal *.",
		Question: "Which response headers may a page's script read by default, and is Mcp-Session-Id one of them?",
		Pointer:  "The Fetch standard's CORS-safelisted response headers; rs/cors Options.ExposedHeaders.",
		Near:     "ExposedHeaders: []string{streamable.SessionIDHeader}, and AllowOriginFunc rather than AllowedOrigins: []string{\"*\"}, so that the origin is echoed.",
	},
	Claims: []check.Claim{
		{Claim: "answers to an allowed origin carry Access-Control-Allow-Origin and expose Mcp-Session-Id, the GET stream's too", Where: "step 4",
			How: "initialize from an origin of every pattern, with the default port left out and written out, and the GET stream"},
	},
	Run: checkCORSResponses,
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
	h.Do(wire.Req{Header: with(session, spec.Rev, app), Body: wire.Notification("notifications/initialized", nil), Purpose: "notifications/initialized from " + app})
	g := h.Open(wire.Req{Method: http.MethodGet, Header: with(session, spec.Rev, app, "Accept", "text/event-stream"), Purpose: "GET stream from " + app})
	probe.ExpectEventStream(t, g, "GET from "+app, "")
	if g.Header.Get("Access-Control-Allow-Origin") != app {
		t.Fail(check.Failure{What: "the GET stream opened for " + app + " does not grant that origin, so the page cannot read it",
			Got: corsHeaders(g.Header), Want: "Access-Control-Allow-Origin: " + app})
	}
	// The grant follows the allowlist: every origin the guard serves is
	// granted, however a matcher of strings would read it.
	for _, origin := range []string{"http://localhost", "http://localhost:5173", "https://app.example.com:443", "https://a.b.example.com", "vscode-webview://1a2b3c4d5e6f", "https://mcp.test:8443"} {
		expectAnswerGranted(t, initializeFrom(h, origin), origin)
	}
}

// expectAnswerGranted fails the check unless resp, the answer to an
// initialize from origin, which the allowlist allows, was served and grants
// that origin: echoed (never *), Mcp-Session-Id exposed.
func expectAnswerGranted(t *check.T, resp *wire.Response, origin string) {
	expectServed(t, resp, "initialize from Origin "+origin, "the allowlist allows it")
	got := corsHeaders(resp.Header)
	switch acao := resp.Header.Get("Access-Control-Allow-Origin"); {
	case acao == "*":
		t.Fail(check.Failure{What: "the answer to initialize from " + origin + " carries Access-Control-Allow-Origin: *, which grants every web site", Got: got,
			Want: "Access-Control-Allow-Origin: " + origin + " (the origin, echoed)"})
	case acao != origin:
		t.Fail(check.Failure{What: "the answer to initialize from " + origin + ", which the guard served, does not grant that origin: the page cannot read it", Got: got,
			Want: "Access-Control-Allow-Origin: " + origin + ": the grant follows the allowlist", Cause: noGrant(resp.Header)})
	case !hasToken(resp.Header.Values("Access-Control-Expose-Headers"), "Mcp-Session-Id") || resp.Header.Get("Access-Control-Expose-Headers") == "*":
		t.Fail(check.Failure{What: "the answer to initialize from " + origin + " does not expose Mcp-Session-Id", Got: got, Want: "Access-Control-Expose-Headers: Mcp-Session-Id"})
	}
}

var origin30 = &check.Check{
	ID: "ORIGIN-30", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Restart: true},
	Title:  "CORS under the default allowlist: loopback pages are granted their origin, never *",
	Spec:   corsRule,
	Course: "Without -allow-origin the allowlist is LoopbackOrigins, and CORS must follow it: rs/cors's own AllowedOrigins, left empty, means every origin, and answers Access-Control-Allow-Origin: *. The course requires the grant to come from the allowlist, under the defaults as under flags.",
	Hint: check.Hint{
		Report:   "Give rs/cors the allowlist itself (AllowOriginFunc: allow.Allows), never the raw -allow-origin list (AllowedOrigins: opts.AllowOrigins), which is empty without the flag: rs/cors reads an empty list as \"every origin\".",
		Question: "Started without -allow-origin, what does your CORS layer think it allows?",
		Pointer:  "rs/cors Options.AllowedOrigins: an empty list allows every origin, as a list holding * does; AllowOriginFunc, when set, decides instead.",
		Near:     "cors.New(cors.Options{AllowOriginFunc: allow.Allows, ...}): allow is NewAllowlist's answer, LoopbackOrigins when no pattern was given.",
	},
	Claims: []check.Claim{
		{Claim: "CORS follows the allowlist under the defaults too: loopback pages are granted their origin, never *; a foreign preflight gets 403", Where: "step 4",
			How: "a server without -allow-origin: preflights and initialize from http://localhost:5173, http://127.0.0.1:8080, http://[::1]:3000; a preflight from http://evil.example"},
	},
	Run: checkDefaultCORS,
}

func checkDefaultCORS(t *check.T) {
	h := wire.StartHTTP(t)
	for _, origin := range []string{"http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000"} {
		expectPreflightGranted(t, h, origin, http.MethodPost, "content-type,mcp-protocol-version,mcp-session-id")
		expectPreflightGranted(t, h, origin, http.MethodGet, "last-event-id,mcp-protocol-version,mcp-session-id")
		expectAnswerGranted(t, initializeFrom(h, origin), origin)
	}
	for _, origin := range []string{"http://evil.example", "https://app.example.com"} {
		resp := preflight(h, origin, http.MethodPost, "content-type,mcp-protocol-version")
		expectForeignRefused(t, resp, "without -allow-origin, the preflight of a POST from "+origin, "the default allowlist trusts loopback pages only")
		if acao := resp.Header.Get("Access-Control-Allow-Origin"); acao != "" {
			t.Fail(check.Failure{What: "the refused preflight from " + origin + " still carries a CORS grant", Got: corsHeaders(resp.Header), Want: "no Access-Control-Allow-Origin"})
		}
	}
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

var origin14 = &check.Check{
	ID: "ORIGIN-14", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
	Title:  "a preflight from a foreign origin gets 403, with no CORS grant",
	Spec:   forbiddenRule,
	Course: "rs/cors answers every preflight with 204, a refused origin's included (it only leaves out the grant). The course requires the guard's 403 for a preflight too, so the guard must run before rs/cors.",
	Hint: check.Hint{
		Report:   "Order the middleware guard(cors(handler)), not cors(guard(handler)), and let the guard judge OPTIONS like every other method.",
		Question: "What does rs/cors answer a preflight from an origin it does not allow?",
		Pointer:  "rs/cors v1.11 Handler: every OPTIONS with Access-Control-Request-Method gets OptionsSuccessStatus (204), with or without a grant.",
		Near:     "h.endpoint = h.guard(grant.Handler(h.mcp)): the guard first, for OPTIONS as for every method.",
	},
	Claims: []check.Claim{
		{Claim: "CORS sits inside the guard: a foreign preflight gets 403 with no grant", Where: "concept, step 4", How: "with a positive control: an allowed preflight gets 2xx"},
	},
	Run: checkForeignPreflight,
}

func checkForeignPreflight(t *check.T) {
	h := startOrigin(t)
	for _, origin := range []string{"http://evil.example", "https://evil.example.com.attacker.net", "null"} {
		t.Case("a preflight from "+origin, func() {
			resp := preflight(h, origin, http.MethodPost, "content-type,mcp-protocol-version")
			expectForeignRefused(t, resp, "the preflight of a POST from "+origin, "the guard refuses a foreign Origin on every method, OPTIONS included")
			if acao := resp.Header.Get("Access-Control-Allow-Origin"); acao != "" {
				t.Fail(check.Failure{What: "the refused preflight from " + origin + " still carries a CORS grant", Got: corsHeaders(resp.Header), Want: "no Access-Control-Allow-Origin"})
			}
		})
	}
	const app = "https://app.example.com"
	if resp := preflight(h, app, http.MethodPost, "content-type"); resp.Status < 200 || resp.Status > 299 {
		t.Fail(check.Failure{What: fmt.Sprintf("the preflight of a POST from %s, which is allowed, got HTTP %d (the positive control)", app, resp.Status),
			Got: resp.Summary(), Want: "2xx"})
	}
}

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
