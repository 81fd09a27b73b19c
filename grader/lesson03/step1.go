package lesson03

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/proc"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step1 holds the checks of step 1: the standalone GET stream, and what a stream costs.
var step1 = check.Step{
	Checks: []*check.Check{sse01, sse02, sse03, sse04, sse05, sse06, sse07, sse08, sse09, sse10, sse30, sse40},
	Unchecked: []check.Claim{
		{Claim: "a GET that arrives while the server shuts down gets 503", Where: "step 1", How: "net/http drops every request it reads once Shutdown has begun (conn.serve returns), so only a GET whose handler starts in the microseconds between CloseStreams and Shutdown meets the 503: no client can aim at that window"},
	},
}

var sse01 = &check.Check{
	ID: "SSE-01", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "GET with a session opens an SSE stream at once, and keeps it open",
	Spec:  spec.Listening("The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed"),
	Course: "Stage 03 offers the stream, so GET must get 200 text/event-stream, with the headers flushed at once (the grader opens it at 2025-06-18, " +
		"where no priming event follows to push them out), and the stream stays open for the server's messages. The course's streams also carry " +
		"Cache-Control: no-cache and X-Accel-Buffering: no, so that no cache or proxy holds their events back.",
	Hint: check.Hint{
		Report:   "Write the headers with w.WriteHeader(http.StatusOK) and flush them (http.ResponseController.Flush) before you wait for anything; then block until the client, the session or the server goes away.",
		Question: "When does a client see a response's headers: when you write them, or when they leave net/http's buffer?",
		Pointer:  "net/http: ResponseWriter.WriteHeader, then http.ResponseController.Flush; basic/transports › Listening for Messages from the Server.",
		Near:     "startEventStream: set Content-Type: text/event-stream and Cache-Control: no-cache, w.WriteHeader(200), ew.flush(). Then hold the GET open in a loop until the client, the session or the server goes away.",
	},
	Claims: []check.Claim{
		{Claim: "GET with a live session gets 200 text/event-stream, headers flushed at once, and the stream stays open", Where: "concept, step 1", How: "at 2025-06-18 (no priming event to push the headers out) and at 2025-11-25; the stream must still be open after 0.4 s"},
		{Claim: "a stream's response carries Cache-Control: no-cache and X-Accel-Buffering: no", Where: "step 1", How: "on the GET stream here, on a POST stream in SSE-11 (the course's servers only)", Also: []string{"SSE-11"}},
	},
	Checklist: []string{"C1", "C20"},
	Split:     &check.Split{Rule: "what a GET gets", Parts: "on an external server, anything but a stream or 405 breaks the spec; a stream that stays open is the course's", Also: []string{"HTTP-21"}},
	Run:       checkGETOpensStream,
}

func checkGETOpensStream(t *check.T) {
	h := wire.StartHTTP(t)
	for _, v := range []string{"2025-06-18", spec.Rev} {
		session, _ := h.Initialize(v)
		s := probe.OpenGET(t, h, session, v, "", "GET with the session (initialized at "+v+")")
		if courseServer(t) {
			expectStreamHeaders(t, s, "the GET stream")
		}
		if events, ended := s.End(400 * time.Millisecond); ended {
			t.Fail(check.Failure{What: "the GET stream (" + v + ") ended at once; it must stay open for the messages the server sends later",
				Got: describeEvents(events), Want: "a stream that stays open until the client, the session or the server goes away"})
		}
		s.HangUp()
	}
}

var sse02 = &check.Check{
	ID: "SSE-02", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "GET without a session id gets 400; with an unknown or deleted one, 404",
	Spec:  spec.Ended,
	Course: "As for POST, the course requires 400 for a GET without MCP-Session-Id (the spec: SHOULD), and 404 for an id the server never issued " +
		"(the spec's words are about a session that has ended), and the answer must end at once: no stream for a client that has no session.",
	Hint: check.Hint{
		Report:   "Look the session up with stage 02's Handler.Session(w, r): it writes the 400 or the 404 itself. Only then start the stream.",
		Question: "Which code already knows how to answer a request whose session is missing or gone?",
		Pointer:  "Stage 02's Handler.Session(w, r): it writes 400 without MCP-Session-Id and 404 for an id it does not know.",
		Near:     "sess, done, ok := h.Session(w, r); if !ok { return }; defer done(). Only then open the stream.",
	},
	Claims: []check.Claim{
		{Claim: "GET without a session id gets 400; an unknown or deleted one 404, and no stream", Where: "step 1"},
	},
	Run: checkGETSessionErrors,
}

func checkGETSessionErrors(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	requireGETStream(t, h, session)
	t.Case("without MCP-Session-Id", func() {
		resp := h.Do(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders("", spec.Rev, ""), Purpose: "GET without MCP-Session-Id"})
		probe.ExpectStatus(t, resp, http.StatusBadRequest, "a GET without MCP-Session-Id")
	})
	t.Case("a session id the server never issued", func() {
		resp := h.Do(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders("grader-made-up-session", spec.Rev, ""), Purpose: "GET with a session id the server never issued"})
		probe.ExpectStatus(t, resp, http.StatusNotFound, "a GET with a session id the server never issued")
	})
	t.Case("a deleted session's id", func() {
		resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, spec.Rev), Purpose: "DELETE the session"})
		if resp.Status < 200 || resp.Status > 299 {
			if t.Target.External() {
				t.Wire.Event("the server did not end the session with DELETE (HTTP %d), which the spec allows (405): no ended session to ask about", resp.Status)
				return
			}
			t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status"})
		}
		defer t.SpecRule()() // the spec's MUST: 404 for a session that has ended
		resp = h.Do(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, ""), Purpose: "GET with the deleted session's id"})
		probe.ExpectStatus(t, resp, http.StatusNotFound, "a GET with a deleted session's id")
	})
}

var sse03 = &check.Check{
	ID: "SSE-03", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "DELETE ends the session's open GET stream",
	Spec:  spec.Session("The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"),
	Course: "A stream belongs to its session. When the session ends (DELETE, expiry, shutdown), the course requires its streams to end within 1 s, " +
		"and their state to be freed: a stream that outlives its session holds a connection for nothing.",
	Hint: check.Hint{
		Report:   "mcp.Session.Context() is cancelled when the session closes. Wait on it, beside the request's own context, in the loop that holds the GET open.",
		Question: "What tells a GET handler that its session has ended while it waits?",
		Pointer:  "mcp.Session.Context(): cancelled when the session closes (DELETE, expiry, shutdown).",
		Near:     "In hold's select, beside <-r.Context().Done(), add case <-sess.Context().Done(): and return.",
	},
	Claims: []check.Claim{
		{Claim: "a stream ends with its session (DELETE, expiry, shutdown)", Where: "step 1", How: "DELETE; the stream must end within 1 s"},
	},
	Run: checkDeleteEndsStream,
}

func checkDeleteEndsStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	s := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session")
	resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, spec.Rev), Purpose: "DELETE the session while its GET stream is open"})
	if resp.Status < 200 || resp.Status > 299 {
		t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status"})
	}
	if _, ended := s.End(time.Second); !ended {
		t.Fail(check.Failure{What: "the session's GET stream was still open 1 s after DELETE ended the session",
			Want: "the stream ends with its session"})
	}
}

var sse04 = &check.Check{
	ID: "SSE-04", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "GET with an unsupported MCP-Protocol-Version gets 400",
	Spec:  spec.HTTP("Protocol Version Header", "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"),
	Hint: check.Hint{
		Report:   "The rule holds for every request, GET included: call stage 02's Handler.ProtocolVersion(w, r, nil) before you look at anything else.",
		Question: "Does the MCP-Protocol-Version rule apply to POST only?",
		Pointer:  "basic/transports › Protocol Version Header: every request with an unsupported version gets 400; stage 02's Handler.ProtocolVersion writes it.",
		Near:     "At the top of serveGET: if _, ok := h.ProtocolVersion(w, r, nil); !ok { return }.",
	},
	Claims: []check.Claim{
		{Claim: "GET with an unsupported MCP-Protocol-Version gets 400", Where: "step 1"},
	},
	Run: checkGETVersion,
}

func checkGETVersion(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	requireGETStream(t, h, session)
	resp := h.Do(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, "1999-01-01", ""), Purpose: "GET with MCP-Protocol-Version: 1999-01-01"})
	probe.ExpectStatus(t, resp, http.StatusBadRequest, "a GET with MCP-Protocol-Version: 1999-01-01")
}

var sse05 = &check.Check{
	ID: "SSE-05", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "GET whose Accept lacks text/event-stream gets 406 (a course rule)",
	Spec:  spec.Listening("The client MUST include an Accept header, listing text/event-stream as a supported content type"),
	Course: "The spec puts this rule on the client and leaves the server's answer open. The course requires 406 Not Acceptable: " +
		"a GET can only be answered with a stream, and this client says it cannot read one.",
	Hint: check.Hint{
		Report:   "Check Accept with stage 02's Accepts(r.Header.Values(\"Accept\"), \"text/event-stream\") and answer 406 with a JSON-RPC error body when it is false.",
		Question: "What can a GET be answered with, and can this client read it?",
		Pointer:  "Stage 02's Accepts(r.Header.Values(\"Accept\"), \"text/event-stream\"); RFC 9110 §15.5.7 406 Not Acceptable.",
		Near:     "if !streamable.Accepts(r.Header.Values(\"Accept\"), \"text/event-stream\") { httpjson.Error(w, http.StatusNotAcceptable, codeServerError, \"...\"); return }",
	},
	Claims: []check.Claim{
		{Claim: "a GET whose Accept lacks text/event-stream gets 406", Where: "step 1", How: "a course rule: the spec leaves the server's answer open"},
	},
	Checklist: []string{"C19"},
	Run:       checkGETAccept,
}

func checkGETAccept(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	requireGETStream(t, h, session)
	hdr := probe.GETHeaders(session, spec.Rev, "")
	hdr.Set("Accept", "application/json")
	resp := h.Do(wire.Req{Method: http.MethodGet, Header: hdr, Purpose: "GET with Accept: application/json"})
	probe.ExpectStatus(t, resp, http.StatusNotAcceptable, "a GET whose Accept lists only application/json")
}

var sse06 = &check.Check{
	ID: "SSE-06", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "one standalone stream per session: a second GET gets 409 while the first is open",
	Spec:  multipleRule("The client MAY remain connected to multiple SSE streams simultaneously."),
	Course: "A course rule: the spec lets a client hold several streams, and asks of the server a stream or 405 for each GET, and each message on " +
		"one stream only (SSE-19 grades that). With two GET streams open, each message would have to pick one, and the client could not tell " +
		"which connection to trust, so the course requires 409 Conflict for the second (as the official SDKs answer), with a JSON-RPC error of code -32000 as stage 02's HTTP errors have, the first to stay open, " +
		"and a new GET to be served once the first client has gone. A server that serves both breaks no rule of the spec.",
	Hint: check.Hint{
		Report:   "Keep the session's standalone stream in one place, with the connection it is attached to. A GET that finds it attached gets 409; when the holder's request context ends, detach it.",
		Question: "Where do you remember that a session's standalone stream already has a connection?",
		Pointer:  "basic/transports › Multiple Connections: each message on only one stream. The stream's w field is its connection, or nil.",
		Near:     "In listen, under s.mu: if s.w != nil { unlock; conflict(w, ...); return }. hold's deferred s.detach(ew) frees it when that client leaves.",
	},
	Claims: []check.Claim{
		{Claim: "one standalone stream per session: a second GET gets 409, the first stays open, a new GET is served once the first client left", Where: "concept, step 1"},
	},
	Run: checkOneStandaloneStream,
}

func checkOneStandaloneStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	first := probe.OpenGET(t, h, session, spec.Rev, "", "the first GET")
	secondGET := wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, ""), Purpose: "a second GET while the first is open"}
	if t.Target.External() {
		// An external server may serve the second GET with a stream, as
		// the spec allows: say so, rather than wait for it to end.
		second := h.Open(secondGET)
		if second.Status == http.StatusOK && second.ContentType == "text/event-stream" {
			second.Close()
			t.Fail(check.Failure{What: "a second GET stream of the same session was served, beside the first: the spec allows it; the course asks 409",
				Got: "HTTP 200, Content-Type: text/event-stream", Want: "HTTP 409 Conflict, with a body that ends at once"})
		}
		if body, ended := second.End(wire.T1); second.Status != http.StatusConflict || !ended {
			t.Fail(check.Failure{What: fmt.Sprintf("a second GET stream of the same session got HTTP %d", second.Status),
				Got: fmt.Sprintf("HTTP %d, body %s", second.Status, check.Quote(describeBody(body))), Want: "HTTP 409 Conflict, with a body that ends at once"})
		}
	} else if resp := h.Do(secondGET); resp.Status != http.StatusConflict {
		t.Fail(check.Failure{What: fmt.Sprintf("a second GET stream of the same session got HTTP %d", resp.Status), Got: resp.Summary(),
			Want: "HTTP 409 Conflict, with a body that ends at once"})
	} else if errorCode(resp.Body) != -32000 {
		t.Fail(check.Failure{What: "the 409 for a second GET stream is not a JSON-RPC error with code -32000", Got: resp.Summary(),
			Want: `{"jsonrpc":"2.0","error":{"code":-32000,"message":"..."}}: the server error code of stage 02's HTTP errors, as the SDKs answer a second stream`})
	}
	if events, ended := first.End(200 * time.Millisecond); ended {
		t.Fail(check.Failure{What: "the first GET stream ended when a second GET was refused", Got: describeEvents(events), Want: "the first stream stays open"})
	}
	first.HangUp()
	t.Wire.Event("waiting up to 1 s for the server to see the first client leave")
	var last *wire.Response
	if !probe.Settle(t, time.Second, func() bool {
		s := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, ""), Purpose: "a GET after the first client hung up"})
		ok := s.Status == http.StatusOK
		if !ok {
			events, _ := s.End(wire.T1)
			last = &wire.Response{Status: s.Status, Header: s.Header, Body: []byte(describeBody(events))}
		}
		s.Close()
		return ok
	}) {
		t.Fail(check.Failure{What: "1 s after the first client hung up, a new GET was still refused: the server never noticed that the first stream's client left",
			Got: last.Summary(), Want: "HTTP 200 text/event-stream"})
	}
}

var sse07 = &check.Check{
	ID: "SSE-07", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Flags: []string{"-keepalive"}, Optional: []check.Feature{check.GETStream}},
	Title: "an idle GET stream sends a keep-alive comment every -keepalive",
	Spec:  spec.Listening("The server MAY close the SSE stream at any time."),
	Course: "Proxies and load balancers close connections that stay silent (often after 60 s), and a client cannot tell a quiet stream from a dead one. " +
		"The course requires an SSE comment (a line starting with \":\") every -keepalive; the grader sets 150ms and wants at least 3 in a second.",
	Hint: check.Hint{
		Report:   "In the loop that holds the GET open, add a time.Ticker of KeepAlive and write \": keep-alive\\n\\n\" on each tick, under the stream's lock, and flush it.",
		Question: "How does a proxy tell a quiet stream from a dead one?",
		Pointer:  "The SSE standard: a line that starts with \":\" is a comment, which clients ignore; time.NewTicker.",
		Near:     "In hold: keepAlive := time.NewTicker(h.opts.KeepAlive); on <-keepAlive.C, under s.mu, if s.w == ew { ew.comment(\"keep-alive\") }, then continue the loop.",
	},
	Claims: []check.Claim{
		{Claim: "an idle GET stream sends a keep-alive comment every -keepalive", Where: "step 1", How: "-keepalive 150ms, at least 3 comments in a second"},
	},
	Run: checkKeepAlive,
}

func checkKeepAlive(t *check.T) {
	h := wire.StartHTTP(t, "-keepalive", "150ms")
	session, _ := h.Initialize("2025-06-18")
	s := probe.OpenGET(t, h, session, "2025-06-18", "", "GET with the session")
	events, ended := s.End(time.Second)
	if ended {
		t.Fail(check.Failure{What: "the idle GET stream ended", Got: describeEvents(events), Want: "a stream that stays open"})
	}
	if n := s.Comments(); n < 3 {
		t.Fail(check.Failure{What: fmt.Sprintf("an idle GET stream sent %d comments in 1 s, with -keepalive 150ms", n),
			Got: describeEvents(events), Want: "a comment line such as \": keep-alive\" about every 150 ms"})
	}
}

var sse08 = &check.Check{
	ID: "SSE-08", Step: 1, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Flags: []string{"-debug"}, Optional: []check.Feature{check.GETStream}},
	Title: "clients that drop their streams leave no goroutine and no socket behind (counted via -debug's /debug/vars and /proc/PID/fd)",
	Spec:  spec.Sending("Disconnection MAY occur at any time (e.g., due to network conditions)."),
	Course: "The course requires every stream's goroutines and its connection to be freed when its client leaves. The grader drops 16 streams and " +
		"reads the server's goroutine count (the given cmd/server publishes it at /debug/vars with -debug) and, on Linux, its open file descriptors.",
	Hint: check.Hint{
		Report:   "A GET handler must return when r.Context() is done, and every goroutine you start for a stream must end with it. A loop that only waits for messages never notices the client left.",
		Question: "What makes a GET handler return when its client hangs up, and does every goroutine you start end too?",
		Pointer:  "http.Request.Context() is cancelled when the client's connection closes; a ticker's channel is never closed by Stop.",
		Near:     "hold must select on r.Context().Done() and return; keep the keep-alive in hold's own loop instead of a goroutine of its own.",
	},
	Claims: []check.Claim{
		{Claim: "a stream ends with its client: no goroutine and no socket left behind, keep-alive ticker included", Where: "step 1", How: "16 streams dropped; goroutines from -debug's /debug/vars and open files from /proc/PID/fd, before and after"},
	},
	Run: checkNoLeaks,
}

func checkNoLeaks(t *check.T) {
	h := wire.StartHTTP(t, "-debug")
	var sessions []string
	for i := 0; i < 8; i++ {
		s, _ := h.Initialize(spec.Rev)
		sessions = append(sessions, s)
	}
	base := probe.TakeBaseline(t, h)

	var streams []*wire.Stream
	for i, s := range sessions {
		streams = append(streams, probe.OpenGET(t, h, s, spec.Rev, "", fmt.Sprintf("GET stream %d", i+1)))
		p := openPOST(t, h, s, spec.Rev, probe.CountdownCall(`2`, 2, 30, nonce("p")), fmt.Sprintf("POST stream %d", i+1))
		p.Next(wire.T1, "the first event")
		streams = append(streams, p)
	}
	for _, s := range streams {
		s.Close()
	}
	t.Wire.Event("hung up on 16 streams; waiting up to 2 s for the server to free them")
	base.ExpectFreed(t, h, "16 clients dropped their streams", "every goroutine and socket of a stream freed once its client leaves")
}

var sse09 = &check.Check{
	ID: "SSE-09", Step: 1, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Signal: true, Optional: []check.Feature{check.GETStream}},
	Title: "SIGTERM ends the open GET streams at once, lets a running call finish with its result, and the server exits",
	Spec:  check.Spec{Rev: spec.Rev, Section: "basic/lifecycle › Shutdown › HTTP", Quote: "For HTTP transports, shutdown is indicated by closing the associated HTTP connection(s)."},
	Course: "http.Server.Shutdown waits for every response to finish, and a GET stream never does. The course requires SIGTERM to end open GET streams " +
		"within 1.5 s, a call already running to finish and send its result (the given serve.Run gives it a grace period; CloseStreams must not end the sessions), " +
		"and the process to exit, with status 0, within 3 s.",
	Hint: check.Hint{
		Report:   "The given serve.Run calls the handler's CloseStreams before Shutdown: make hold return when it closes h.closing, so that the GET streams end while the POSTs finish.",
		Question: "What does http.Server.Shutdown wait for, and does a GET stream ever finish by itself?",
		Pointer:  "net/http: Server.Shutdown waits for active connections to go idle; the given serve.Run calls the handler's CloseStreams before it.",
		Near:     "CloseStreams closes h.closing, and serve.Run calls it before srv.Shutdown; make hold return on <-h.closing. Ending the sessions is Close's job, after the grace period.",
	},
	Claims: []check.Claim{
		{Claim: "SIGTERM ends the GET streams (CloseStreams on shutdown) and the server exits 0", Where: "step 1", How: "within 1.5 s and 3 s"},
		{Claim: "CloseStreams ends the GET streams only: a call running at SIGTERM still finishes and sends its result", Where: "step 1", How: "a 300 ms countdown running when SIGTERM comes must answer on its stream"},
	},
	Run: checkSIGTERMEndsStreams,
}

func checkSIGTERMEndsStreams(t *check.T) {
	if !proc.CanTerminate {
		return // no SIGTERM on this system; the check has nothing to test
	}
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session")
	p := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 3, 100, nonce("p")), "countdown from 3, 100 ms per step")
	p.Next(wire.T1, "the first event")
	t.Wire.Event("sent SIGTERM")
	sent := time.Now()
	if err := h.Proc.Terminate(); err != nil {
		t.Failf("could not send SIGTERM: %v", err)
	}
	if _, ended := g.End(1500 * time.Millisecond); !ended {
		t.Fail(check.Failure{What: "the GET stream was still open 1.5 s after SIGTERM", Want: "SIGTERM ends the open GET streams at once"})
	}
	events, _ := p.End(time.Until(sent.Add(3 * time.Second)))
	if !answered(events, `2`) {
		t.Fail(check.Failure{What: "after SIGTERM, the running countdown (300 ms of work) never got its result: ending the GET streams ended the sessions, or the requests, too",
			Got: describeEvents(events), Want: "the countdown's result on its stream: CloseStreams ends the GET streams only, and running requests get the grace period"})
	}
	if !h.Proc.WaitExit(time.Until(sent.Add(3 * time.Second))) {
		t.Fail(check.Failure{What: "the server was still running 3 s after SIGTERM", Want: "the server exits"})
	}
	if code := h.Proc.ExitCode(); code != 0 {
		t.Fail(check.Failure{What: "after SIGTERM the server exited with " + h.Proc.Status(), Want: "exit status 0: a requested stop is not a failure"})
	}
}

var sse10 = &check.Check{
	ID: "SSE-10", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.Stateless},
	Title: "stateless: GET still gets 405 at once, Last-Event-ID or not",
	Spec:  spec.Listening("or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint"),
	Course: "Adding the GET stream is where lesson 02's bug comes back: a stateless server that opened a stream on GET held every such request for " +
		"5 minutes. The course requires 405 with an Allow header and a body that ends within 2 s.",
	StarterMayPass: "stage 02 already answers a stateless GET with 405; the check guards that adding the stream does not change it",
	Hint: check.Hint{
		Report:   "The GET plug is for stateful mode only: in stateless mode answer 405 before anything else, as stage 02 does.",
		Question: "Which requests reach your GET handler in stateless mode?",
		Pointer:  "Stage 02's ServeHTTP passes GET to Options.GET only when not stateless; basic/transports › Listening: 405 when no stream is offered.",
		Near:     "Keep stage 02's !h.opts.Stateless guard: in stateless mode GET gets 405 with Allow: POST, at once.",
	},
	Claims: []check.Claim{
		{Claim: "stateless mode: GET still gets 405 at once, Last-Event-ID or not", Where: "concept, step 1", How: "lesson 02's seed bug, guarded"},
	},
	Checklist: []string{"C1", "C20"},
	Run:       checkStatelessGET405,
}

func checkStatelessGET405(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	h.Initialize(spec.Rev)
	probe.Expect405(t, h, wire.Req{Method: http.MethodGet, Header: probe.GETHeaders("", spec.Rev, ""), Purpose: "GET on a stateless server"})
	probe.Expect405(t, h, wire.Req{Method: http.MethodGet, Header: probe.GETHeaders("grader-made-up-session", spec.Rev, "1-1"), Purpose: "GET with Last-Event-ID on a stateless server"})
}

var sse30 = &check.Check{
	ID: "SSE-30", Step: 1, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Flags: []string{"-session-timeout"}, Optional: []check.Feature{check.GETStream}},
	Title: "a session whose client listens on GET never expires; once the stream closes, it expires as any idle session",
	Spec:  spec.Session("The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"),
	Course: "Expiry is for sessions nobody uses, and a client listening on GET is using its session: it waits for the server's messages. The course " +
		"requires the stream and the session to live on past -session-timeout (the grader sets 500ms and listens for 1.5 s), and the session to " +
		"expire as usual once the stream has closed.",
	Hint: check.Hint{
		Report: "The done function that stage 02's Handler.Session returns marks the session idle again: defer it in serveGET, so that it runs when the GET " +
			"returns, neither sooner (the session expires under a listening client) nor never (a session that once listened lives for ever).",
		Question: "When does a session count as idle, and is a client listening on GET idle?",
		Pointer:  "Stage 02's Handler.Session returns done, which marks the end of a use of the session: its idle time starts when the last use ends.",
		Near:     "sess, done, ok := h.Session(w, r); if !ok { return }; defer done(): the GET holds the session until it returns, and gives it back then.",
	},
	Claims: []check.Claim{
		{Claim: "a session with a client listening on GET does not expire, and expires as usual once its stream closes", Where: "step 1", How: "-session-timeout 500ms: listening for 1.5 s, then idle for 1.5 s"},
	},
	Run: checkListeningKeepsSession,
}

func checkListeningKeepsSession(t *check.T) {
	h := wire.StartHTTP(t, "-session-timeout", "500ms")
	session, _ := h.Initialize(spec.Rev)
	s := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session, whose timeout is 500 ms")
	if events, ended := s.End(1500 * time.Millisecond); ended {
		t.Fail(check.Failure{What: "with -session-timeout 500ms, the session's GET stream ended while its client was listening",
			Got: describeEvents(events), Want: "the stream stays open: a session with a client listening is in use, and does not expire"})
	}
	resp := h.Post(session, spec.Rev, wire.Request(`2`, "ping", nil), "ping after listening on GET for 1.5 s, with -session-timeout 500ms")
	if resp.Status != http.StatusOK {
		t.Fail(check.Failure{What: "the session expired while its client was listening on GET", Got: resp.Summary(),
			Want: "HTTP 200: a session with a client listening does not expire"})
	}
	s.Close()
	t.Wire.Event("closed the GET stream; the session is idle from now on")
	probe.Pause(t, 1500*time.Millisecond)
	resp = h.Post(session, spec.Rev, wire.Request(`3`, "ping", nil), "ping 1.5 s after the GET stream closed, with -session-timeout 500ms")
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: fmt.Sprintf("1.5 s after its GET stream closed, a session with a 500 ms timeout was still alive (HTTP %d)", resp.Status),
			Got: resp.Summary(), Want: "HTTP 404: once nobody listens, the session is idle, and expires like any other"})
	}
}

// requireGETStream opens and drops a GET stream in session, and skips the
// check on an external server that offers none (skipWithoutGETStream).
// Checks of what a GET gets when something is wrong call it first: on a
// server without the stream, every GET is rightly 405.
func requireGETStream(t *check.T, h *wire.HTTP, session string) {
	t.Relies(check.GETStream)
	if !t.Target.External() {
		return
	}
	s := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, ""), Purpose: "GET with the session, to see whether the server offers a standalone stream"})
	probe.SkipWithoutGETStream(t, s.Status)
	s.Close()
}

// answered reports whether events carry the response with id.
func answered(events []wire.Event, id string) bool {
	for _, m := range messagesOf(events) {
		if m.IsResponseTo(id) {
			return true
		}
	}
	return false
}

// expectStreamHeaders fails unless the stream's response carries the
// headers the course's streams send: Cache-Control: no-cache, and
// X-Accel-Buffering: no, which asks a proxy such as nginx not to buffer it.
func expectStreamHeaders(t *check.T, s *wire.Stream, what string) {
	if cc, xab := s.Header.Get("Cache-Control"), s.Header.Get("X-Accel-Buffering"); cc != "no-cache" || xab != "no" {
		t.Fail(check.Failure{What: what + " lacks the headers that keep caches and proxies from holding its events back",
			Got: fmt.Sprintf("Cache-Control: %q, X-Accel-Buffering: %q", cc, xab), Want: "Cache-Control: no-cache and X-Accel-Buffering: no"})
	}
}

// errorCode returns the code of the JSON-RPC error body, or 0 when body is
// not one.
func errorCode(body []byte) int {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil || m.Error == nil {
		return 0
	}
	return m.Error.Code
}

var sse40 = &check.Check{
	ID: "SSE-40", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "now that GET is served, a 405 lists GET in its Allow header, beside POST and DELETE",
	Spec:  spec.Listening("The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed"),
	Course: "RFC 9110 §15.5.6: a 405 MUST carry an Allow header listing the methods the resource supports. Stage 02 served POST and DELETE; stage 03 serves " +
		"GET too, so the Allow of every 405 must now list GET, POST and DELETE. The grader sends PUT and a made-up method with a live session.",
	StarterMayPass: "stage 02's allowed() lists GET as soon as Options.GET is set, which the given NewHandler does; the check guards that it stays so",
	Hint: check.Hint{
		Report:   "The 405 comes from stage 02's methodNotAllowed, whose Allow is allowed(): it must say GET, POST, DELETE when Options.GET is set.",
		Question: "Which methods does your endpoint serve now, and does its 405 say so?",
		Pointer:  "RFC 9110 §15.5.6 405 Method Not Allowed: the Allow header lists the target resource's supported methods.",
		Near:     "Stage 02's Handler.allowed: case h.opts.GET != nil: return \"GET, POST, DELETE\".",
	},
	Claims: []check.Claim{
		{Claim: "a 405 lists GET in Allow once the endpoint serves GET", Where: "step 1", How: "PUT and a made-up method, stateful, with a live session; stateless mode's Allow: POST is SSE-10's"},
	},
	Run: checkAllowListsGET,
}

func checkAllowListsGET(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	requireGETStream(t, h, session)
	want := []string{"GET", "POST"}
	if courseServer(t) {
		want = append(want, "DELETE")
	}
	for _, method := range []string{http.MethodPut, "BREW"} {
		resp := h.Do(wire.Req{Method: method, Header: wire.Headers(session, spec.Rev), Body: wire.Request(`2`, "ping", nil), Purpose: method + ", a method the endpoint does not serve"})
		probe.ExpectStatus(t, resp, http.StatusMethodNotAllowed, "a "+method+" with a live session")
		allowed := map[string]bool{}
		for _, m := range strings.Split(resp.Header.Get("Allow"), ",") {
			allowed[strings.ToUpper(strings.TrimSpace(m))] = true
		}
		for _, m := range want {
			if !allowed[m] {
				t.Fail(check.Failure{What: "the 405 to " + method + " does not list " + m + " in its Allow header, though the endpoint serves it", Got: check.Quote(resp.Header.Get("Allow")),
					Want: "Allow: " + strings.Join(want, ", ") + " (RFC 9110 §15.5.6: the methods the resource supports)"})
			}
		}
	}
}
