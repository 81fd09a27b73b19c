package lesson02

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step4 holds the checks of step 4: GET and the other methods.
var step4 = check.Step{
	Checks: []*check.Check{http21, http40},
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

var http40 = &check.Check{
	ID: "HTTP-40", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Flags: []string{"-max-body", "-max-sessions"}},
	Title: "every refusal stops where it is written: one JSON-RPC error body with the stage's code, and net/http reports no second WriteHeader and no panic",
	Spec:  spec.Sending("If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)"),
	Course: "A refusal that writes its error and then goes on does work the client was told was refused, and writes a second answer after the first. " +
		"The course requires every refusal of the stage (406, 415, 413, 400 for bad input, versions and missing ids, 404, 503 at the cap, 405) to be answered " +
		"with exactly one JSON-RPC error body, carrying the code the stage's handler.go names (-32001 for a session that is not there, -32000 for the transport's other refusals), and its handler to return: the grader reads the server's stderr for net/http's own reports of a handler that wrote " +
		"twice (\"superfluous response.WriteHeader\") or panicked (\"http: panic serving\"). Not graded on an external server, whose stderr the grader cannot read.",
	Hint: check.Hint{
		Report: "After every httpjson.Error (or any answer that ends the request), return: from servePOST, serveInitialize, Session's callers, serveBatch and serveDELETE. " +
			"A function that writes a refusal for its caller, as Session and ProtocolVersion do, says so with ok == false, and the caller must return on it.",
		Question: "After each place where your handler writes an error, what runs next? Does your server's stderr say \"superfluous response.WriteHeader call\"?",
		Pointer:  "net/http logs \"http: superfluous response.WriteHeader call\" when a handler sets a status twice, and \"http: panic serving\" when one panics: both are a handler that went on after it had answered.",
		Near: `	if !ok {
		return // the refusal is written: nothing more
	}`,
	},
	Claims: []check.Claim{
		{Claim: "every refusal is one JSON-RPC error body, and its handler returns: no second WriteHeader, no panic", Where: "steps 1 to 4",
			How: "course servers, -max-body 2000 -max-sessions 2: 406, 415, 413, 400 (a chunked body that breaks off, not JSON, invalid, bad version on a request, a notification, a batch and DELETE; no session id on each; an initialize with one), 404 (each kind, and DELETE), 503, 405 (PUT; HTTP-21 grades GET); each body one JSON-RPC error; then the server's stderr must hold neither of net/http's reports"},
	},
	Checklist: []string{"C9"},
	Run:       checkRefusalsStop,
}

func checkRefusalsStop(t *check.T) {
	if t.Target.External() {
		t.Skip("the grader reads the server's stderr for net/http's reports, and cannot read an external server's")
	}
	h := wire.StartHTTP(t, "-max-body", "2000", "-max-sessions", "2")
	session := initializeSession(t, h)
	h.Initialize(spec.Rev) // the second and last place
	ping := wire.Request(`2`, "ping", nil)
	notification := wire.Notification("notifications/grader-unknown", nil)
	batch := "[" + wire.Request(`3`, "ping", nil) + "]"
	headers := func(session, version string, edit func(http.Header)) http.Header {
		hdr := wire.Headers(session, version)
		if edit != nil {
			edit(hdr)
		}
		return hdr
	}
	type refusal struct {
		what   string
		req    wire.Req
		status int
	}
	var refusals []refusal
	post := func(what string, status int, hdr http.Header, body string) {
		refusals = append(refusals, refusal{what, wire.Req{Header: hdr, Body: body, Purpose: what}, status})
	}
	// The JSON-RPC code each refusal carries, as the stage's handler.go
	// names them: the standard codes for bad messages and headers, -32001
	// for a session that is not there, -32000 for every other refusal of
	// the transport.
	codes := map[int]int{http.StatusNotAcceptable: -32000, http.StatusUnsupportedMediaType: -32000, http.StatusRequestEntityTooLarge: -32000,
		http.StatusServiceUnavailable: -32000, http.StatusMethodNotAllowed: -32000, http.StatusNotFound: -32001}
	post("a POST whose Accept lists only application/json", http.StatusNotAcceptable, headers(session, spec.Rev, func(h http.Header) { h.Set("Accept", "application/json") }), ping)
	post("a POST with Content-Type: text/plain", http.StatusUnsupportedMediaType, headers(session, spec.Rev, func(h http.Header) { h.Set("Content-Type", "text/plain") }), ping)
	post("a body of 2001 bytes, with -max-body 2000", http.StatusRequestEntityTooLarge, headers(session, spec.Rev, nil), sizedEcho(`4`, 2001))
	post("a body that is not JSON", http.StatusBadRequest, headers(session, spec.Rev, nil), `{"jsonrpc":"2.0",`)
	post("a message that is not valid", http.StatusBadRequest, headers(session, spec.Rev, nil), `{"jsonrpc":"2.0","id":5,"method":42}`)
	for _, m := range []struct{ what, body string }{{"a request", ping}, {"a notification", notification}, {"a batch", batch}} {
		post(m.what+" with MCP-Protocol-Version: 1999-01-01", http.StatusBadRequest, headers(session, "1999-01-01", nil), m.body)
		post(m.what+" without MCP-Session-Id", http.StatusBadRequest, headers("", spec.Rev, nil), m.body)
		post(m.what+" with a session id the server never issued", http.StatusNotFound, headers("grader-made-up-session-id", spec.Rev, nil), m.body)
	}
	initialize := wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev))
	post("an initialize that carries MCP-Session-Id", http.StatusBadRequest, headers(session, "", nil), initialize)
	post("an initialize at the cap of 2 sessions", http.StatusServiceUnavailable, headers("", "", nil), initialize)
	for _, r := range []refusal{
		{"DELETE without MCP-Session-Id", wire.Req{Method: http.MethodDelete, Header: headers("", spec.Rev, nil)}, http.StatusBadRequest},
		{"DELETE of a session that never existed", wire.Req{Method: http.MethodDelete, Header: headers("grader-made-up-session-id", spec.Rev, nil)}, http.StatusNotFound},
		{"DELETE with MCP-Protocol-Version: 1999-01-01", wire.Req{Method: http.MethodDelete, Header: headers(session, "1999-01-01", nil)}, http.StatusBadRequest},
		{"PUT", wire.Req{Method: http.MethodPut, Header: headers(session, spec.Rev, nil), Body: ping}, http.StatusMethodNotAllowed},
	} {
		r.req.Purpose = r.what
		refusals = append(refusals, r)
	}
	for _, r := range refusals {
		resp := h.Do(r.req)
		if resp.Status != r.status {
			t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", r.what, resp.Status), Got: resp.Summary(), Want: fmt.Sprintf("HTTP %d", r.status)})
		}
		m := resp.ErrorBody()
		if m == nil {
			t.Fail(check.Failure{What: fmt.Sprintf("the %d to %s is not one JSON-RPC error body: something more was written after the refusal, or nothing at all", r.status, r.what),
				Got: resp.Summary(), Want: `Content-Type: application/json, the body {"jsonrpc":"2.0","error":{"code":...,"message":"..."}}, once`})
		}
		if want, ok := codes[r.status]; ok {
			if code, _ := m.ErrorCode(); code != want {
				t.Fail(check.Failure{What: fmt.Sprintf("the %d to %s carries the JSON-RPC code %d", r.status, r.what, code), Got: check.Quote(string(m.Raw)),
					Want: fmt.Sprintf("code %d, as handler.go names it (codeSessionNotFound for a missing session, codeServerError for the transport's other refusals)", want)})
			}
		}
	}
	t.Case("a body the server cannot read", func() {
		status, body := postUnreadable(t, h, session)
		if status != http.StatusBadRequest {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST whose chunked body breaks off (a chunk size that is no number) got HTTP %d", status), Got: check.Quote(string(body)),
				Want: "HTTP 400: any error reading the body but its size is a 400"})
		}
		m, err := wire.Parse(body)
		if err != nil || m.Error == nil {
			t.Fail(check.Failure{What: "the 400 to a POST whose body cannot be read is not one JSON-RPC error body", Got: check.Quote(string(body)),
				Want: `{"jsonrpc":"2.0","error":{"code":...,"message":"..."}}, once`})
		}
		if code, _ := m.ErrorCode(); code != -32000 {
			t.Fail(check.Failure{What: fmt.Sprintf("the 400 to a POST whose body cannot be read carries the JSON-RPC code %d", code), Got: check.Quote(string(body)),
				Want: "code -32000 (codeServerError): the transport, not the message, failed"})
		}
	})
	probe.ExpectStatus(t, h.Post(session, spec.Rev, wire.Request(`6`, "ping", nil), "ping after every refusal"), http.StatusOK, "a ping in the session after every refusal")
	expectNoHandlerReports(t, h, "the refusals")
}

// expectNoHandlerReports fails the check if the server's stderr holds
// net/http's report of a handler that set its status twice or panicked:
// a handler that went on after it had answered. A server the grader did
// not start has no stderr to read.
func expectNoHandlerReports(t *check.T, h *wire.HTTP, after string) {
	if h.Proc == nil {
		return
	}
	for _, report := range []string{"superfluous response.WriteHeader", "http: panic serving"} {
		if stderr := h.Proc.Stderr(); strings.Contains(stderr, report) {
			line := stderr[strings.Index(stderr, report):]
			line, _, _ = strings.Cut(line, "\n")
			t.Fail(check.Failure{What: fmt.Sprintf("after %s, the server's stderr holds net/http's report %q: a handler went on after it had answered", after, report),
				Got: check.Quote(line), Want: "no such report: return once an answer is written"})
		}
	}
}

// postUnreadable sends, over a connection of its own, a POST whose chunked
// body breaks off with a chunk size that is no number, so that reading the
// body fails for another reason than its size, and returns the answer's
// status and body.
func postUnreadable(t *check.T, h *wire.HTTP, session string) (int, []byte) {
	u, err := url.Parse(h.URL)
	if err != nil {
		t.Failf("grader bug: the endpoint %q is no URL: %v", h.URL, err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, wire.T1)
	if err != nil {
		t.Failf("connecting to %s: %v", u.Host, err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(wire.T1))
	request := "POST " + u.Path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" +
		"Mcp-Session-Id: " + session + "\r\nMcp-Protocol-Version: " + spec.Rev + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
		"a\r\n{\"jsonrpc\"\r\nzz\r\n"
	t.Wire.Sent(strings.ReplaceAll(request, "\r\n", "\n"))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Failf("sending the request: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fail(check.Failure{What: "a POST whose chunked body breaks off got no HTTP answer: " + err.Error(), Want: "HTTP 400 with a JSON-RPC error body"})
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	t.Wire.Received(fmt.Sprintf("HTTP %d", resp.StatusCode))
	t.Wire.Received(string(body))
	return resp.StatusCode, body
}
