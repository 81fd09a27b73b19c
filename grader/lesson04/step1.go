package lesson04

import (
	"fmt"
	"net/http"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step1 holds the checks of step 1: the guard.
var step1 = check.Step{
	Checks: []*check.Check{origin01, origin02, origin03, origin04, origin25},
}

var origin01 = &check.Check{
	ID: "ORIGIN-01", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Mode: check.AnyMode},
	Title:  "a POST whose Origin is not allowed gets 403 with a JSON-RPC error body",
	Spec:   forbiddenRule,
	Course: "The grader changes one header at a time: Origin: http://evil.example, with a correct Host. The course requires the error body.",
	Hint: check.Hint{
		Report:   "Wrap stage 03's handler in a middleware that runs first: when r.Header has an Origin and the allowlist does not allow it, answer 403 with httpjson.Error and return.",
		Question: "Which code runs before stage 03 sees a request, and what does it answer a page it does not trust?",
		Pointer:  "basic/transports › Security Warning: an Origin that is present and invalid gets 403; the body MAY be a JSON-RPC error without an id (httpjson.Error writes one).",
		Near:     "In guard: if !h.originAllowed(r) { forbidden(w, \"Origin %q is not allowed to use this server\", r.Header.Get(\"Origin\")); return }; next.ServeHTTP(w, r).",
	},
	Claims: []check.Claim{
		{Claim: "a POST from an Origin the allowlist does not name gets 403 with a JSON-RPC error without an id", Where: "concept, step 1", How: "one header changed at a time: Origin http://evil.example, with a correct Host"},
		{Claim: "CORS is not a security boundary: a page that cannot read the answer has still had its request served", Where: "concept", How: "the variant cors-is-the-only-guard, which looks safe from inside a browser, fails every check that sends a foreign Origin or a rebound Host"},
	},
	Checklist: []string{"C2"},
	Split:     &check.Split{Rule: "a foreign Origin", Parts: "anything but 403 breaks the spec; a 403 without the JSON-RPC error body only the course", Also: []string{"ORIGIN-02", "ORIGIN-04", "ORIGIN-06", "ORIGIN-07", "ORIGIN-08", "ORIGIN-14"}},
	Run:       checkForeignOrigin403,
}

func checkForeignOrigin403(t *check.T) {
	h := startOrigin(t)
	expectForeignRefused(t, initializeFrom(h, "http://evil.example"), "initialize from Origin http://evil.example",
		"the allowlist does not name it, and the spec requires 403 for a present, invalid Origin")
}

var origin02 = &check.Check{
	ID: "ORIGIN-02", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Title:  "GET, DELETE, and a POST with an unknown session, from a foreign Origin, get 403 before any session work",
	Spec:   forbiddenRule,
	Course: "The spec: \"Servers MUST validate the Origin header on all incoming connections\". All of them: the GET must not open a stream, the DELETE must not end the session, and a made-up session id must get 403, not 404. Go's http.CrossOriginProtection lets every GET through, so it cannot be the guard.",
	Hint: check.Hint{
		Report:   "Check Origin in the middleware around the whole handler, for every method, before the session is looked up; not inside the POST handler.",
		Question: "Does your check run for GET and DELETE, and before the session is looked up?",
		Pointer:  "\"on all incoming connections\" (basic/transports › Security Warning); Go's http.CrossOriginProtection lets GET, HEAD and OPTIONS through, so it cannot be this check.",
		Near:     "Judge Origin in the middleware around the whole handler (h.endpoint = h.guard(...)), whatever r.Method is; never inside servePOST.",
	},
	Claims: []check.Claim{
		{Claim: "the guard runs first, on every method: a foreign GET opens no stream, a foreign DELETE ends no session, a made-up session id gets 403, not 404", Where: "step 1", How: "the session still works afterwards"},
	},
	Checklist: []string{"C2"},
	Run:       checkEveryMethod,
}

func checkEveryMethod(t *check.T) {
	h := startOrigin(t)
	session, _ := h.Initialize(spec.Rev)
	const evil = "http://evil.example"

	t.Case("GET", func() {
		get := h.Open(wire.Req{Method: http.MethodGet, Header: with(session, spec.Rev, evil, "Accept", "text/event-stream"), Purpose: "GET with the session, from Origin " + evil})
		if get.Status != http.StatusForbidden {
			t.Fail(check.Failure{What: fmt.Sprintf("a GET from Origin %s got HTTP %d: a foreign page must not open the session's stream", evil, get.Status),
				Got: probe.StreamSummary(get), Want: "HTTP 403 with a JSON-RPC error body, at once", Spec: true, Cause: causeOriginGuard})
		}
		get.End(wire.T1)
	})

	t.Case("DELETE", func() {
		del := h.Do(wire.Req{Method: http.MethodDelete, Header: with(session, spec.Rev, evil), Purpose: "DELETE the session, from Origin " + evil})
		expectForeignRefused(t, del, "a DELETE from Origin "+evil, "a foreign page must not end the user's session")
		if text := probe.CallTool(t, h, session, `2`, "echo", map[string]any{"text": "still here"}); text != "still here" {
			t.Fail(check.Failure{What: "echo answered " + check.Quote(text), Want: `"still here"`})
		}
	})

	t.Case("POST in the session", func() {
		post := h.Do(wire.Req{Header: with(session, spec.Rev, evil), Body: wire.Request(`3`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "x"}, nil)),
			Purpose: "tools/call in the session, from Origin " + evil})
		expectForeignRefused(t, post, "a tools/call from Origin "+evil, "every POST is judged, not only initialize")
	})

	t.Case("POST with an unknown session", func() {
		unknown := h.Do(wire.Req{Header: with("grader-made-up-session", spec.Rev, evil), Body: wire.Request(`4`, "ping", nil),
			Purpose: "ping with an unknown session, from Origin " + evil})
		expectForeignRefused(t, unknown, "a ping with an unknown session id from Origin "+evil,
			"the Origin is judged before the session is looked up; a 404 tells a foreign page which session ids exist")
	})
}

var origin03 = &check.Check{
	ID: "ORIGIN-03", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs:          check.Needs{Optional: []check.Feature{check.GETStream}},
	Title:          "requests without an Origin are served: initialize, tools/call, the GET stream, DELETE",
	Spec:           forbiddenRule,
	Course:         "Only an Origin that is present and invalid is refused. CLI and desktop clients send none, and must keep working (typescript-sdk #1205 broke them).",
	StarterMayPass: "the starter checks nothing, so it serves every request; the check guards that your guard lets clients without an Origin in",
	Hint: check.Hint{
		Report:   "Refuse only when the request has an Origin header: r.Header.Values(\"Origin\") is empty for a client that sent none.",
		Question: "What does a request from a CLI client, which sends no Origin, look like to your guard?",
		Pointer:  "r.Header.Values(\"Origin\") is empty when the header is absent; the spec refuses an Origin only \"if present and invalid\".",
		Near:     "originAllowed: origins := r.Header.Values(\"Origin\"); return len(origins) == 0 || (len(origins) == 1 && h.allow.Allows(origins[0])).",
	},
	Claims: []check.Claim{
		{Claim: "a request without an Origin is served (CLI and desktop clients send none)", Where: "concept, step 1", How: "initialize, tools/call, the GET stream, DELETE"},
	},
	Checklist: []string{"C2"},
	Run:       checkNoOriginServed,
}

func checkNoOriginServed(t *check.T) {
	h := startOrigin(t)
	session, _ := h.Initialize(spec.Rev)
	if text := probe.CallTool(t, h, session, `2`, "echo", map[string]any{"text": "no origin"}); text != "no origin" {
		t.Fail(check.Failure{What: "echo answered " + check.Quote(text), Want: `"no origin"`})
	}
	g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session, without an Origin")
	g.Close()
	del := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, spec.Rev), Purpose: "DELETE without an Origin"})
	if del.Status < 200 || del.Status > 299 {
		t.Fail(check.Failure{What: fmt.Sprintf("DELETE without an Origin got HTTP %d", del.Status), Got: del.Summary(), Want: "2xx: the session ends"})
	}
}

var origin04 = &check.Check{
	ID: "ORIGIN-04", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "Origin: null, or an empty Origin, gets 403",
	Spec:  forbiddenRule,
	Course: "Browsers send the literal origin \"null\" from sandboxed iframes, data: URLs and file:// pages: any site can produce it. The course never allows it. " +
		"An Origin header that is present but empty is present and invalid, not absent: only a request with no Origin header at all is served.",
	Hint: check.Hint{
		Report:   "\"null\" and \"\" are not scheme://host: a parser that wants both finds nothing to match. Do not treat either like a missing Origin: test whether the header is there (r.Header.Values), not whether its value is empty.",
		Question: "Is \"null\" a missing Origin, or an origin any page can produce?",
		Pointer:  "The HTML standard serialises an opaque origin (a sandboxed iframe, a data: URL, a file:// page) as the string \"null\".",
		Near:     "Do not special-case it: parseOrigin finds no \"://\" in \"null\", returns false, and Allows refuses it.",
	},
	Claims: []check.Claim{
		{Claim: "Origin: null is never allowed, nor an Origin header that is present but empty", Where: "concept, step 1", How: "initialize with Origin: null, and with an empty Origin header"},
	},
	Checklist: []string{"C2"},
	Run:       checkNullOrigin,
}

func checkNullOrigin(t *check.T) {
	h := startOrigin(t)
	expectForeignRefused(t, initializeFrom(h, "null"), "initialize from Origin null",
		"any web page can send \"null\" (a sandboxed iframe, a data: URL), so it is never allowed")
	hdr := with("", "", "")
	hdr["Origin"] = []string{""}
	resp := h.Do(wire.Req{Header: hdr, Body: wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), Purpose: "initialize with an empty Origin header"})
	expectForeignRefused(t, resp, "initialize with an Origin header that is present but empty",
		"an empty Origin is present and invalid, not absent: it names no origin the allowlist could allow")
}

var origin25 = &check.Check{
	ID: "ORIGIN-25", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
	Title: "two Origin headers get 403, whichever of them is allowed; one allowed Origin alone is served",
	Spec:  forbiddenRule,
	Course: "The spec says what a present, invalid Origin gets, not what two do. A browser never sends two (RFC 6454 §7.3: a user agent MUST NOT), " +
		"so a request with two did not come from one as it claims, and a guard that judges only the first or only the last lets the other in unjudged. " +
		"The course reads two Origin headers as an invalid Origin: 403.",
	Hint: check.Hint{
		Report:   "r.Header.Get(\"Origin\") returns the first Origin header only. Read them all with r.Header.Values(\"Origin\"), and allow none or exactly one.",
		Question: "When a request carries two Origin headers, which of them does your guard judge, and what happens to the other?",
		Pointer:  "net/http: Header.Get returns a header's first value, Header.Values every value. RFC 6454 §7.3: a user agent MUST NOT send more than one Origin header field.",
		Near: `In originAllowed, read every Origin header, and allow one at most:

	origins := r.Header.Values("Origin")
	return len(origins) == 0 || (len(origins) == 1 && h.allow.Allows(origins[0]))`,
		Quotes: []check.Source{{File: "solutions/04-origin/handler.go", Func: "originAllowed"}},
	},
	Claims: []check.Claim{
		{Claim: "two Origin headers are one too many", Where: "step 1", How: "an allowed origin and a foreign one, in both orders, after the allowed one alone is served; no browser sends two"},
	},
	Checklist: []string{"C2"},
	Run:       checkTwoOrigins,
}

func checkTwoOrigins(t *check.T) {
	h := startOrigin(t)
	// An exact origin of the allowlist, which step 1's allowlist of exact
	// strings allows as well as the parsed one of step 2.
	const allowed, evil = "https://mcp.test:8443", "http://evil.example"
	expectServed(t, initializeFrom(h, allowed), "initialize from Origin "+allowed+" alone", "the allowlist names it")
	for _, origins := range [][]string{{allowed, evil}, {evil, allowed}} {
		hdr := with("", "", "")
		hdr["Origin"] = origins
		resp := h.Do(wire.Req{Header: hdr, Body: wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)),
			Purpose: "initialize with two Origin headers, " + origins[0] + " then " + origins[1]})
		expectRefused(t, resp, "initialize with two Origin headers ("+origins[0]+", then "+origins[1]+")",
			"a guard that judges one of them lets the other in; two are one too many", causeOriginGuard, false)
	}
}
