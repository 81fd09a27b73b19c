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

// step4 holds the checks of step 4: GET and the other methods.
var step4 = check.Step{
	Checks: []*check.Check{http21},
}

var http21 = &check.Check{
	ID: "HTTP-21", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
	Title: "GET gets 405 at once, before any session or version check, with an Allow header that does not list GET, and a body that ends",
	Spec:  spec.Listening("The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed"),
	Course: "This stage offers no stream on GET (stage 03 adds it), so GET must be refused at once: headers and the whole body within 2 s. " +
		"RFC 9110 requires an Allow header on every 405.",
	Hint: check.Hint{
		Report: "Check the method first. Set Allow to the methods you serve (\"POST, DELETE\"), write a JSON-RPC error body with status 405, and return from the handler. " +
			"Do not start an SSE response you will never write to.",
		Question: "What does a GET to /mcp get from your server, and how long does its response take to end, body included?",
		Pointer:  "› Listening for Messages from the Server: the server MUST either return text/event-stream or 405 Method Not Allowed. RFC 9110 §15.5.6: a 405 carries an Allow header. A status says how a response begins, not that it ends.",
		Near: `In ServeHTTP, everything but POST (and DELETE in stateful mode) goes here at once:

	func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", h.allowed())
		httpjson.Error(w, http.StatusMethodNotAllowed, codeInvalidRequest,
			"%s is not supported at this endpoint", r.Method)
	}`,
	},
	Claims: []check.Claim{
		{Claim: "GET and every other method get 405 at once, before any session or version check, with Allow listing what is served (not GET), and a body that ends", Where: "step 4", How: "GET without a session, with one, with a made-up id and a bad version; PUT, PATCH, OPTIONS, HEAD and a made-up method"},
	},
	Checklist: []string{"C1"},
	Run:       checkHTTPGet,
}

func checkHTTPGet(t *check.T) {
	h := wire.StartHTTP(t)
	if t.Target.External() {
		checkExternalGet(t, h)
		return
	}
	sse := http.Header{"Accept": {"text/event-stream"}}
	probe.Expect405(t, h, wire.Req{Method: http.MethodGet, Header: sse, Purpose: "GET without a session"})
	session, _ := h.Initialize(spec.Rev)
	withSession := wire.Headers(session, spec.Rev)
	withSession.Set("Accept", "text/event-stream")
	withSession.Del("Content-Type")
	resp := probe.Expect405(t, h, wire.Req{Method: http.MethodGet, Header: withSession, Purpose: "GET with the session"})
	if allow := resp.Header.Get("Allow"); strings.Contains(strings.ToUpper(allow), "GET") {
		t.Fail(check.Failure{What: "the 405 to GET lists GET as allowed", Got: check.Quote(allow), Want: "Allow: POST, DELETE"})
	}
	odd := http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {"grader-made-up-session-id"}, "Mcp-Protocol-Version": {"1999-01-01"}}
	probe.Expect405(t, h, wire.Req{Method: http.MethodGet, Header: odd, Purpose: "GET with a made-up session id and an unsupported version: the method comes first"})
	// Every other method, with a body or without: the method table has
	// more rows than GET.
	for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodOptions, http.MethodHead, "GRADER"} {
		req := wire.Req{Method: m, Header: wire.Headers(session, spec.Rev), Purpose: m}
		if m == http.MethodPut || m == http.MethodPatch {
			req.Body = wire.Request(`2`, "ping", nil)
		}
		probe.Expect405(t, h, req)
	}
}

// checkExternalGet is HTTP-21 for an external server, which may offer a
// standalone stream on GET (lesson 03 grades it): the spec's rule is that a
// GET gets either a stream or 405, and a 405 must say what is allowed.
func checkExternalGet(t *check.T, h *wire.HTTP) {
	session, _ := h.Initialize(spec.Rev)
	s := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, ""), Purpose: "GET with the session"})
	switch {
	case s.Status == http.StatusOK && s.ContentType == "text/event-stream":
		s.Close()
		t.Skip("the server answers GET with an SSE stream: it offers the standalone stream, which lesson 03 grades; this check grades a server that offers none")
	case s.Status != http.StatusMethodNotAllowed:
		t.Fail(check.Failure{What: fmt.Sprintf("a GET with the session got HTTP %d, neither an SSE stream nor 405", s.Status), Got: probe.StreamSummary(s),
			Want: "HTTP 200 with Content-Type: text/event-stream, or HTTP 405 Method Not Allowed", Spec: true})
	}
	s.End(wire.T1)
	probe.Expect405(t, h, wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, ""), Purpose: "GET with the session, again, for the whole answer"})
}
