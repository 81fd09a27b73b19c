package lesson04

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/proc"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step5 holds the checks of step 5: the WebSocket.
var step5 = check.Step{
	Checks: []*check.Check{origin15, origin16, origin17, origin18, origin19, origin20, origin21, origin22, origin24, origin31, origin32, origin33, origin34, origin35},
}

var origin15 = &check.Check{
	ID: "ORIGIN-15", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Course: webSocket},
	Title: "/ws upgrades a client with no Origin or an allowed one, and carries one JSON-RPC message per text frame",
	Spec:  customRule,
	Course: "WebSocket is not a standard MCP transport. The course adds one at /ws, judged by the same allowlist: one message per text frame each way, and stage 01's rules (no answer to a notification). " +
		"The MCP SDKs' WebSocket clients offer the subprotocol \"mcp\" and give up unless the 101 names it, so a handshake that offers it must get it back (the given Upgrader's Subprotocols).",
	Hint: check.Hint{
		Report:   "Upgrader.CheckOrigin: the allowlist's answer for r's Origin (and true when there is none). gorilla's default compares Origin with Host, which refuses every allowed origin on another host.",
		Question: "With CheckOrigin left nil, what does gorilla compare the Origin with?",
		Pointer:  "gorilla/websocket Upgrader.CheckOrigin: nil means the Origin's host must equal Host.",
		Near:     "websocket.Upgrader{CheckOrigin: h.originAllowed, ...}: the same function the guard uses.",
	},
	Claims: []check.Claim{
		{Claim: "/ws upgrades a client with no Origin or an allowed one, one JSON-RPC message per text frame each way", Where: "step 5", How: "also: no stray or empty frame"},
		{Claim: "a handshake that offers the subprotocol mcp gets it back in the 101", Where: "step 5", How: "offers \"mcp\" and \"json, mcp\": Sec-WebSocket-Protocol: mcp, and the socket serves"},
	},
	Checklist: []string{"C51"},
	Run:       checkWebSocketServes,
}

func checkWebSocketServes(t *check.T) {
	h := startOrigin(t)
	for _, origin := range []string{"", "https://app.example.com", "http://localhost:5173"} {
		ws := dialWS(t, h, originHeader(origin), "handshake"+from(origin))
		probe.CheckInitializeResult(t, ws.Initialize(spec.Rev))
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
	// The SDKs' WebSocket clients offer the subprotocol "mcp", alone or
	// among others, and close the connection unless the answer names it.
	for _, offer := range []string{"mcp", "json, mcp"} {
		purpose := "handshake offering the subprotocol " + offer
		ws := dialWS(t, h, http.Header{"Sec-Websocket-Protocol": {offer}}, purpose)
		if got := ws.Subprotocol(); got != "mcp" {
			t.Fail(check.Failure{What: fmt.Sprintf("the %s was answered with Sec-WebSocket-Protocol %q: an MCP SDK's WebSocket client closes such a connection", purpose, got),
				Want: "Sec-WebSocket-Protocol: mcp in the 101 (Upgrader.Subprotocols: []string{\"mcp\"})"})
		}
		ws.Call(`2`, "ping", nil)
	}
}

var origin16 = &check.Check{
	ID: "ORIGIN-16", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Course: webSocket},
	Title:  "/ws refuses a foreign, null, empty or second Origin, and look-alikes, with 403",
	Spec:   validateRule,
	Course: "A browser opens a WebSocket to any address without a preflight, carrying the page's Origin: without the check, any web site can drive the server (cross-site WebSocket hijacking). gorilla answers a refused handshake with 403.",
	Hint: check.Hint{
		Report:   "Never `CheckOrigin: func(*http.Request) bool { return true }`. Mount /ws outside the /mcp guard, so that CheckOrigin is what refuses.",
		Question: "Which web pages can open a WebSocket to your server, and what does a browser ask first?",
		Pointer:  "Nothing: a WebSocket handshake has no preflight; only Upgrader.CheckOrigin stands between any page and the socket (cross-site WebSocket hijacking).",
		Near:     "CheckOrigin: h.originAllowed, never func(*http.Request) bool { return true }; mount /ws outside the /mcp guard so that CheckOrigin is what refuses, with 403.",
	},
	Claims: []check.Claim{
		{Claim: "/ws refuses a foreign Origin, null and look-alikes with 403 (CheckOrigin, not gorilla's default)", Where: "concept, step 5", How: "with a positive control"},
		{Claim: "/ws judges every Origin header, as the guard does: an empty Origin and two Origins get 403", Where: "step 5", How: "an empty Origin; an allowed and a foreign one in both orders; an allowed one twice"},
	},
	Checklist: []string{"C2"},
	Run:       checkWebSocketRefuses,
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
	// Every Origin header counts, as on /mcp: an empty one is present and
	// invalid, and two are one too many, whichever of them is allowed.
	const app, evil = "https://app.example.com", "http://evil.example"
	for _, origins := range [][]string{{""}, {app, evil}, {evil, app}, {app, app}} {
		what := fmt.Sprintf("the WebSocket handshake with the Origin headers %q", origins)
		ws, resp := h.DialWS(http.Header{"Origin": origins}, what)
		if ws != nil || resp.Status != http.StatusForbidden {
			t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d: CheckOrigin must judge every Origin header, as the guard does", what, resp.Status),
				Got: resp.Summary(), Want: "HTTP 403, and no upgrade", Cause: noSocket(ws, resp.Status)})
		}
	}
	dialWS(t, h, originHeader(app), "handshake from Origin "+app+" (the positive control)")
}

var origin17 = &check.Check{
	ID: "ORIGIN-17", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Course: webSocket},
	Title:  "/ws checks Host too: a rebound Host gets 403",
	Spec:   rebindingRule,
	Course: "A rebound page opens ws://evil.example:PORT/ws with its own, same-origin, Origin: only Host gives it away.",
	Hint: check.Hint{
		Report:   "Run the same Host check at the top of the /ws handler, before Upgrade.",
		Question: "Does the Host check of /mcp run for /ws, which is mounted beside it?",
		Pointer:  "The WebSocket handler is not wrapped by guard; h.hostAllowed is a method you can call anywhere.",
		Near:     "At the top of WebSocket's handler: if !h.hostAllowed(r) { forbiddenHost(w, r); return }, before Upgrade.",
	},
	Claims: []check.Claim{
		{Claim: "/ws checks Host too", Where: "step 5", How: "evil.example and localhost.evil.example with a port, a rebound Host with X-Forwarded-Host: localhost; localhost, [::1] and 127.0.0.1 (no port) are served"},
	},
	Checklist: []string{"C4b"},
	Run:       checkWebSocketHost,
}

func checkWebSocketHost(t *check.T) {
	h := startOrigin(t)
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(h.URL, "http://"), "/mcp"))
	for _, bad := range [][]string{{"Host", "evil.example:" + port}, {"Host", "localhost.evil.example:" + port}, {"Host", "evil.example:" + port, "X-Forwarded-Host", "localhost"}} {
		what := "Host " + bad[1]
		if len(bad) > 2 {
			what += " and " + bad[2] + ": " + bad[3]
		}
		ws, resp := h.DialWS(originHeader("", bad...), "handshake with "+what)
		if ws != nil || resp.Status != http.StatusForbidden {
			t.Fail(check.Failure{What: fmt.Sprintf("the WebSocket handshake with %s got HTTP %d", what, resp.Status), Got: resp.Summary(), Want: "HTTP 403, and no upgrade",
				Cause: noSocket(ws, resp.Status)})
		}
	}
	for _, good := range []string{"localhost:" + port, "[::1]", "127.0.0.1"} {
		dialWS(t, h, originHeader("", "Host", good), "handshake with Host "+good+" (a name no DNS answer can change)")
	}
}

var origin18 = &check.Check{
	ID: "ORIGIN-18", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Course: webSocket},
	Title:  "a frame holding JSON over several lines is one message, with one answer",
	Spec:   customRule,
	Course: "Stage 01's loop reads one message per line; a frame is one message, however many lines its JSON spans. The course requires the frame's JSON compacted onto one line.",
	Hint: check.Hint{
		Report:   "json.Compact the frame before it becomes a line of the loop's input: it drops the whitespace between tokens, newlines included.",
		Question: "How many lines does stage 01's loop see in a frame whose JSON is pretty-printed?",
		Pointer:  "encoding/json.Compact removes insignificant whitespace, newlines included.",
		Near:     "asLine: var b bytes.Buffer; if json.Compact(&b, frame) == nil { return append(b.Bytes(), '\\n') }; else the invalid-JSON path.",
	},
	Claims: []check.Claim{
		{Claim: "a frame holding JSON over several lines is one message", Where: "step 5"},
	},
	Checklist: []string{"C51"},
	Run:       checkMultiLineFrame,
}

func checkMultiLineFrame(t *check.T) {
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(spec.Rev)
	pretty := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 7,\n  \"method\": \"tools/call\",\n  \"params\": {\"name\": \"echo\", \"arguments\": {\"text\": \"pretty\"}}\n}"
	ws.Send(pretty)
	resp := ws.AwaitResponse(`7`, "tools/call echo, sent as JSON over 6 lines")
	if text := toolTextOf(t, resp); text != "pretty" {
		t.Fail(check.Failure{What: "echo answered " + check.Quote(text), Want: `"pretty"`})
	}
	ws.Quiet(wire.Q, "a second answer to that one frame (each of its lines read as a message?)")
}

var origin19 = &check.Check{
	ID: "ORIGIN-19", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Course: webSocket},
	Title:  "a frame that is not valid JSON gets -32700, even when a raw newline sits in a string, and the socket keeps serving",
	Spec:   check.Spec{Rev: spec.Rev, Section: "basic/index › Messages (JSON-RPC 2.0 §5.1: -32700 Parse error)", Quote: "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."},
	Course: "A raw newline inside a JSON string is invalid. Replace it with a space and the frame becomes valid: the server would run a message the client never sent validly. Invalid must stay invalid.",
	Hint: check.Hint{
		Report:   "When json.Compact fails, turn the frame's raw line breaks into bytes no JSON text can hold (NUL), so that the loop answers -32700 for the whole frame.",
		Question: "If you turn a raw newline into a space, can an invalid frame become valid?",
		Pointer:  "RFC 8259 §7: control characters, U+000A among them, must be escaped inside strings; no JSON text contains a NUL byte.",
		Near:     "When json.Compact fails, copy the frame with each '\\n' and '\\r' replaced by 0, then append '\\n': the loop answers -32700 for the whole frame.",
	},
	Claims: []check.Claim{
		{Claim: "a frame that is not valid JSON gets -32700, even with a raw newline inside a string, and the socket keeps serving", Where: "step 5"},
	},
	Checklist: []string{"C51"},
	Run:       checkInvalidFrames,
}

func checkInvalidFrames(t *check.T) {
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(spec.Rev)
	for _, bad := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"a\nb\"}}}",
		`{"jsonrpc":"2.0","id":9,"method":"ping"`,
	} {
		ws.Send(bad)
		m := ws.Await(wire.T1, "error response -32700 to a frame that is not JSON", func(m *wire.Msg) bool { return m.IsResponse() || m.Error != nil })
		probe.ExpectError(t, m, -32700, "a frame that is not valid JSON ("+check.Quote(bad)+")")
	}
	ws.Quiet(wire.Q, "another answer to the invalid frames")
	ws.Call(`10`, "ping", nil)
}

var origin20 = &check.Check{
	ID: "ORIGIN-20", Step: 5, Severity: check.Must, Budget: 6 * time.Second,
	Needs:  check.Needs{Course: webSocket},
	Title:  "the socket runs stage 01's loop: requests run concurrently, progress and log messages arrive as frames",
	Spec:   customRule,
	Course: "The WebSocket reuses stage 01's message loop through a seam (frames in, lines out), not a copy: a ping must not wait for a slow tool, and add_note's log message must reach the client, because stage 01's loop gives each request its connection as its peer.",
	Hint: check.Hint{
		Report:   "Call stdio.Serve(ctx, in, out, server) with an io.Reader that yields one line per frame and an io.Writer that sends one frame per line.",
		Question: "Who runs requests concurrently and attaches the outlet in stage 01, and are you reusing it?",
		Pointer:  "stdio.Serve(ctx, in io.Reader, out io.Writer, srv): one line in per message, one Write out per message, concurrency and Session.Attach included.",
		Near:     "In serveSocket: stdio.Serve(ctx, in, &frameWriter{ws: ws}, h.server), with frameReader yielding asLine(frame) per text frame and frameWriter sending each line as one TextMessage.",
	},
	Claims: []check.Claim{
		{Claim: "the socket runs stage 01's loop: concurrent requests, progress and the session's log messages as frames", Where: "step 5", How: "a countdown and a ping on one socket; add_note's log message"},
	},
	Checklist: []string{"C51"},
	Run:       checkWebSocketLoop,
}

func checkWebSocketLoop(t *check.T) {
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(spec.Rev)
	ws.Send(probe.CountdownCall(`20`, 3, 300, "ws-progress"))
	ping := ws.Call(`21`, "ping", nil)
	probe.MustResult(t, ping, "ping")
	for _, f := range ws.Pending() {
		if f.Msg != nil && f.Msg.IsResponseTo(`20`) {
			t.Fail(check.Failure{What: "the countdown finished before the ping sent after it was answered: requests on the socket run one at a time",
				Want: "ping answered at once, while the countdown runs"})
		}
	}
	ws.Await(wire.T1, `progress notification for token "ws-progress"`, func(m *wire.Msg) bool {
		token, _, ok := probe.ProgressOf(m)
		return ok && token == `"ws-progress"`
	})
	ws.Await(wire.T2, "the countdown's response (id 20)", func(m *wire.Msg) bool { return m.IsResponseTo(`20`) })
	ws.Call(`22`, "tools/call", wire.ToolCall("add_note", map[string]any{"text": "from a socket"}, nil))
	ws.Await(wire.T1, `notifications/message from logger "notes" (add_note logs each note as part of its call)`, probe.IsLogFrom("notes"))
}

var origin21 = &check.Check{
	ID: "ORIGIN-21", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
	Needs:  check.Needs{Course: webSocket, Flags: []string{"-debug"}},
	Title:  "clients that drop their sockets mid-request leave no goroutine and no socket behind (counted via -debug's /debug/vars and /proc/PID/fd)",
	Spec:   customRule,
	Course: "When a socket breaks, nobody is left to read an answer: the course requires the connection's requests to be cancelled and everything freed within 2 s. Waiting for them, as stdio does at the end of stdin, holds each for as long as its tool runs.",
	Hint: check.Hint{
		Report:   "When reading a frame fails, cancel the context you passed to stdio.Serve before you report end of input.",
		Question: "When the socket breaks, who is left to read the answers the loop is waiting to write?",
		Pointer:  "stdio.Serve waits for requests in flight at the end of input, but returns at once when its context is cancelled.",
		Near:     "In frameReader.Read, when ReadMessage fails: r.gone() (the cancel of serveSocket's context), then return 0, io.EOF.",
	},
	Claims: []check.Claim{
		{Claim: "a client that drops its socket mid-request leaves no goroutine and no socket behind", Where: "step 5", How: "counted via -debug and /proc/PID/fd"},
	},
	Run: checkWebSocketLeaks,
}

func checkWebSocketLeaks(t *check.T) {
	h := startOrigin(t, "-debug")
	base := probe.TakeBaseline(t, h)
	var sockets []*wire.WS
	for i := 0; i < 8; i++ {
		ws := dialWS(t, h, nil, fmt.Sprintf("socket %d", i+1))
		ws.Initialize(spec.Rev)
		ws.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 50, "interval_ms": 200}, nil)))
		ws.Call(`3`, "ping", nil) // the countdown has started
		sockets = append(sockets, ws)
	}
	for _, ws := range sockets {
		ws.Drop()
	}
	t.Wire.Event("dropped 8 sockets, each with a 10 s countdown running; waiting up to 2 s for the server to free them")
	base.ExpectFreed(t, h, "8 clients dropped their sockets", "each socket's requests cancelled, and its goroutines and connection freed, once its client is gone")
}

var origin22 = &check.Check{
	ID: "ORIGIN-22", Step: 5, Severity: check.Must, Budget: 30 * time.Second, // megabytes, on a loaded machine or under the race detector
	Needs: check.Needs{Course: webSocket, Signal: true, Optional: []check.Feature{check.GETStream}},
	Title: "SIGTERM closes every WebSocket with 1001 and ends the GET streams at once; the server exits",
	Spec:  check.Spec{Rev: spec.Rev, Section: "basic/lifecycle › Shutdown", Quote: "the server SHOULD initiate shutdown by closing the connection"},
	Course: "http.Server.Shutdown does not track hijacked connections: the handler must close its sockets itself, with a close frame, when shutdown begins. " +
		"The process waits for those goodbyes, a socket's answer in progress included, but not for ever: a client that stopped reading cannot be said goodbye to, and the server exits within 3 s all the same.",
	Hint: check.Hint{
		Report:   "Keep the open sockets in a set; CloseStreams (which serve.Run calls before Shutdown) cancels each connection, which then sends a close frame with websocket.CloseGoingAway.",
		Question: "Does http.Server.Shutdown know about a connection the upgrader hijacked?",
		Pointer:  "net/http: Shutdown does not close or wait for hijacked connections; the given serve.Run calls CloseStreams before it.",
		Near:     "CloseStreams calls h.sockets.closeAll(), which cancels each connection; serveSocket then sends websocket.CloseGoingAway; Close waits for them (h.sockets.wait).",
	},
	Claims: []check.Claim{
		{Claim: "SIGTERM closes open sockets with 1001, and the server exits 0", Where: "step 5", How: "24 sockets, each with a countdown running: every one gets its close frame before the process exits"},
		{Claim: "SIGTERM ends stage 03's GET streams at once, through the stage's CloseStreams", Where: "step 5", How: "a GET stream open at SIGTERM ends within 1 s"},
		{Claim: "the process waits for a socket still writing an answer: its client gets the whole answer, then 1001", Where: "step 5",
			How: "a client stopped in the middle of a 5 MiB answer reads again once another socket has its 1001"},
		{Claim: "a socket that cannot say goodbye does not hold the exit: the server exits within 3 s of SIGTERM all the same", Where: "step 5",
			How: "beside it, a client stopped in the middle of such an answer that never reads again"},
	},
	Run: checkWebSocketShutdown,
}

func checkWebSocketShutdown(t *check.T) {
	if !proc.CanTerminate {
		return // no SIGTERM on this system; the check has nothing to test
	}
	// A GET stream, which stage 03 ends for the shutdown, beside a socket.
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(spec.Rev)
	session, _ := h.Initialize(spec.Rev)
	get := probe.OpenGET(t, h, session, spec.Rev, "", "GET stream of an HTTP session")
	sent := terminate(t, h)
	if _, ended := get.End(time.Second); !ended {
		t.Fail(check.Failure{What: "the GET stream was still open 1 s after SIGTERM: the shutdown waits for a stream that never ends by itself, then cuts it off",
			Want: "the stream ended at once: CloseStreams ends stage 03's GET streams (h.mcp.CloseStreams()) as well as the sockets"})
	}
	expectGoingAway(t, ws, sent, "the socket")
	expectExit(t, h, sent)

	// Many sockets, each with a request running, and nothing else: once the
	// last has said goodbye, nothing is left to wait for, and a process
	// that waits out a fixed time, or none, shows.
	h = startOrigin(t)
	const n = 24
	var sockets []*wire.WS
	for i := 0; i < n; i++ {
		ws := dialWS(t, h, nil, fmt.Sprintf("socket %d", i+1))
		ws.Initialize(spec.Rev)
		ws.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 50, "interval_ms": 100}, nil)))
		sockets = append(sockets, ws)
	}
	for _, ws := range sockets {
		ws.Call(`3`, "ping", nil) // its countdown has started
	}
	sent = terminate(t, h)
	for i, ws := range sockets {
		expectGoingAway(t, ws, sent, fmt.Sprintf("socket %d of %d", i+1, n))
	}
	closed := time.Now()
	expectExit(t, h, sent)
	allowed := exitAfterGoodbyes
	if probe.RaceBuilt(t) {
		allowed += time.Second // the race detector's runtime sleeps a second before exiting (GORACE atexit_sleep_ms)
	}
	if waited := time.Since(closed); waited > allowed {
		t.Fail(check.Failure{What: fmt.Sprintf("the server exited %v after the last socket's close frame, with nothing left to wait for", waited.Round(10*time.Millisecond)),
			Want: fmt.Sprintf("an exit within %v once every socket has closed: Close waits for the sockets until the last one is done, not for a fixed time", allowed)})
	}

	// A socket still writing a long answer when SIGTERM comes, to a client
	// that reads again once the shutdown has begun: the process waits for
	// its goodbye, the whole answer and then 1001, before it exits. Beside
	// it, a socket whose client never reads again cannot say goodbye: it
	// must not hold the exit for longer than a bound.
	h = startOrigin(t)
	herald := dialWS(t, h, nil, "a socket whose close frame shows that the shutdown has begun")
	herald.Initialize(spec.Rev)
	var slow *stalledSocket
	t.Parallel(func() { slow = openStalled(t, h, oneFrame, "a client that reads again after SIGTERM") },
		func() { openStalled(t, h, oneFrame, "a client that never reads again") })
	sent = terminate(t, h)
	expectGoingAway(t, herald, sent, "the idle socket")
	// The client reads again only after a moment: a process that does not
	// wait for its sockets' goodbyes has nothing else to wait for, and
	// exits now, in the middle of the answer. One that waits, waits for
	// the client that never reads again too, up to its bound (a second).
	if h.Proc.WaitExit(wire.Q) {
		t.Fail(check.Failure{What: fmt.Sprintf("the server exited within %v of the first close frame, while a socket was still writing an answer to a client that had paused", wire.Q),
			Want: "the process waits for every socket's goodbye, up to a bound, before it exits: the client reads again, and gets the rest of the answer, then 1001"})
	}
	frames, why := slow.finish(wire.T1)
	switch {
	case frames == 0:
		t.Fail(check.Failure{What: "after SIGTERM, a client that read again found the answer the server had been writing cut off: " + describe(why),
			Want: "the rest of the answer, then a close frame with 1001: the process waits for a socket's goodbye before it exits (Close waits for the sockets, up to its bound)"})
	case !isGoingAway(why):
		t.Fail(check.Failure{What: fmt.Sprintf("after SIGTERM, a client that read again got %d frames, then %s", frames, describe(why)),
			Want: "the rest of what the server was writing, then a close frame with 1001: the process waits for a socket's goodbye before it exits (Close waits for the sockets, up to its bound)"})
	}
	if !h.Proc.WaitExit(time.Until(sent.Add(3 * time.Second))) {
		t.Fail(check.Failure{What: "the server was still running 3 s after SIGTERM, with a socket whose client had stopped reading",
			Want: "an exit all the same: Close waits for the sockets' goodbyes up to a bound (a second), since a socket whose client stopped reading cannot say goodbye"})
	}
	expectExit(t, h, sent)
}

// describe says how a connection ended: a close frame, or why there was none.
func describe(why error) string {
	if code, ok := wire.CloseCode(why); ok {
		return fmt.Sprintf("a close frame with code %d", code)
	}
	if why == nil {
		return "nothing more for 2 s"
	}
	return "no close frame (" + why.Error() + ")"
}

// terminate sends the server SIGTERM, and returns when.
func terminate(t *check.T, h *wire.HTTP) time.Time {
	t.Wire.Event("sent SIGTERM")
	sent := time.Now()
	if err := h.Proc.Terminate(); err != nil {
		t.Failf("could not send SIGTERM: %v", err)
	}
	return sent
}

// expectGoingAway fails the check unless ws ends with close code 1001
// within 1.5 s of sent.
func expectGoingAway(t *check.T, ws *wire.WS, sent time.Time, which string) {
	why, ended := ws.AwaitEnd(time.Until(sent.Add(1500 * time.Millisecond)))
	switch {
	case !ended:
		t.Fail(check.Failure{What: which + " was still open 1.5 s after SIGTERM", Want: "a close frame with code 1001 (going away), at once"})
	case !isGoingAway(why):
		t.Fail(check.Failure{What: "after SIGTERM " + which + " ended without a close frame saying 1001 (going away)", Got: fmt.Sprint(why),
			Want: "a close frame with code 1001 on every socket, so each client knows to come back later: the process waits for the sockets' goodbyes before it exits"})
	}
}

// expectExit fails the check unless the server exits with status 0 within
// 3 s of sent.
func expectExit(t *check.T, h *wire.HTTP, sent time.Time) {
	if !h.Proc.WaitExit(time.Until(sent.Add(3 * time.Second))) {
		t.Fail(check.Failure{What: "the server was still running 3 s after SIGTERM", Want: "the server exits"})
	}
	if code := h.Proc.ExitCode(); code != 0 {
		t.Fail(check.Failure{What: "after SIGTERM the server exited with " + h.Proc.Status(), Want: "exit status 0: a requested stop is not a failure"})
	}
}

// exitAfterGoodbyes is how long a server may take to exit once its last
// socket has closed: no time to wait out, but room for a loaded machine.
const exitAfterGoodbyes = 600 * time.Millisecond

// isGoingAway reports whether a connection ended with close code 1001.
func isGoingAway(err error) bool {
	code, ok := wire.CloseCode(err)
	return ok && code == 1001
}

var origin24 = &check.Check{
	ID: "ORIGIN-24", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Course: webSocket},
	Title: "a binary frame closes the socket with 1003 (unsupported data), unanswered",
	Spec:  customRule,
	Course: "A message travels as one text frame, as UTF-8 JSON. A binary frame is data the endpoint cannot accept, and RFC 6455 §7.4.1 names the " +
		"close code for it: 1003. The course requires the socket closed with 1003 within 2 s, with a request still running, and the frame's content never run as a message.",
	Hint: check.Hint{
		Report:   "In frameReader.Read, check the kind ReadMessage returns: for anything but websocket.TextMessage, r.refuse(websocket.CloseUnsupportedData, ...) and return io.EOF.",
		Question: "How does a WebSocket message say whether it is text, and what does the course's transport carry?",
		Pointer:  "websocket.Conn.ReadMessage returns the frame's kind first; RFC 6455 §7.4.1 reserves close code 1003 for data an endpoint cannot accept.",
		Near:     "if kind != websocket.TextMessage { r.refuse(websocket.CloseUnsupportedData, \"send each JSON-RPC message as one text frame\"); return 0, io.EOF }",
	},
	Claims: []check.Claim{
		{Claim: "a binary frame closes the socket with 1003", Where: "step 5", How: "a ping in a binary frame, with a 5 s countdown running: no frame at all, and close code 1003 within 2 s"},
	},
	Run: checkBinaryFrame,
}

func checkBinaryFrame(t *check.T) {
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(spec.Rev)
	// A request still running does not hold the refusal up: the socket
	// closes at once, its requests cancelled, as when the client goes.
	ws.Send(wire.Request(`29`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 50, "interval_ms": 100}, nil)))
	ws.Call(`28`, "ping", nil)
	ws.SendFrame(websocket.BinaryMessage, `{"jsonrpc":"2.0","id":30,"method":"ping"}`)
	why, ended := ws.AwaitEnd(wire.T1)
	for _, f := range ws.Pending() {
		what := "the server answered a ping sent in a binary frame"
		if f.Msg == nil || !f.Msg.IsResponseTo(`30`) {
			what = "a frame arrived after the binary frame, before the socket closed: its bytes, or a piece of them, were read as a message"
		}
		t.Fail(check.Failure{What: what, Got: check.Quote(f.Text), Want: "no frame at all: a binary frame is not a message, and closes the socket with 1003"})
	}
	if code, ok := wire.CloseCode(why); !ended || !ok || code != websocket.CloseUnsupportedData {
		got := "the socket was still open after 2 s"
		if ended {
			got = fmt.Sprint("the socket ended: ", why)
		}
		t.Fail(check.Failure{What: "a binary frame did not close the socket with 1003", Got: got,
			Want: "a close frame with code 1003 (unsupported data), within 2 s"})
	}
}

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

// toolTextOf returns the text of a tools/call result that arrived on a socket.
func toolTextOf(t *check.T, resp *wire.Msg) string {
	return probe.ToolText(t, resp, "echo")
}

const webSocket = "the WebSocket transport at /ws"

// boundsRule is where the WebSocket's bounds stand: the spec names none
// for a custom transport; the course does.
var boundsRule = check.Spec{Rev: spec.Rev, Section: "basic/transports › Custom Transports (the spec names no bound; the course does)", Quote: customRule.Quote}

var origin31 = &check.Check{
	ID: "ORIGIN-31", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Course: webSocket, Flags: []string{"-max-sessions"}, Restart: true},
	Title: "/ws holds at most -max-sessions sockets (503 beyond), and a socket that ends frees its place",
	Spec:  boundsRule,
	Course: "Each socket is a session with goroutines of its own, and a browser opens one to any address without asking: the course bounds them by -max-sessions. " +
		"The grader runs the server with -max-sessions 3: three sockets are served, a fourth handshake gets 503 with Retry-After, and once a socket ends, " +
		"by a close frame or by a client that vanished, a new handshake is served again within a second.",
	Hint: check.Hint{
		Report:   "Count the sockets being served (h.sockets): full() is len(s.live) >= s.max, checked before Upgrade; serveSocket removes its connection when it ends (defer h.sockets.remove(ws)), whichever way it ends.",
		Question: "With the limit at 3 and three sockets open, what does the fourth handshake get, and what gives its place back when one of the three goes?",
		Pointer:  "An off-by-one (>) admits one socket too many; a socket that is never removed holds its place forever. RFC 9110 §15.6.4: 503 with Retry-After says when to come back.",
		Near:     "In WebSocket(): if h.sockets.full() { w.Header().Set(\"Retry-After\", \"5\"); http.Error(w, ..., http.StatusServiceUnavailable); return }; in serveSocket, right after h.sockets.add: defer h.sockets.remove(ws).",
	},
	Claims: []check.Claim{
		{Claim: "/ws answers 503 with Retry-After when the server holds -max-sessions sockets, and admits the last one below it", Where: "step 5", How: "-max-sessions 3: three sockets served, the fourth refused; again after each socket comes and goes"},
		{Claim: "a socket that ends gives its place back, whether the client closed it or vanished", Where: "step 5", How: "a close frame, then a dropped connection: each time a new handshake is served within 1 s"},
		{Claim: "a client's close frame is answered with one, and the server then closes the connection", Where: "step 5", How: "RFC 6455 §7.1.1: the TCP connection ends within 2 s of the closing handshake"},
	},
	Run: checkSocketCap,
}

func checkSocketCap(t *check.T) {
	// -max-sessions 0 means the default, for sockets as for sessions.
	dialWS(t, startOrigin(t, "-max-sessions", "0"), nil, "a handshake, with -max-sessions 0 (the default limit)").Initialize(spec.Rev)

	const limit = 3
	h := startOrigin(t, "-max-sessions", fmt.Sprint(limit))
	var open []*wire.WS
	admit := func(purpose string) {
		ws := dialWS(t, h, nil, purpose)
		ws.Initialize(spec.Rev) // once answered, the server serves it
		open = append(open, ws)
	}
	for i := 1; i <= limit; i++ {
		admit(fmt.Sprintf("socket %d of -max-sessions %d", i, limit))
	}
	expectSocketRefused(t, h, fmt.Sprintf("a handshake with %d sockets open, -max-sessions %d", limit, limit))

	for _, end := range []string{"closed", "dropped"} {
		gone := open[0]
		open = open[1:]
		if end == "closed" {
			answered, closed := gone.Close()
			switch {
			case !answered:
				t.Fail(check.Failure{What: "a client's close frame (1000) got no close frame back", Want: "the server's close frame, then the connection closed (RFC 6455 §5.5.1, §7.1.1)"})
			case !closed:
				t.Fail(check.Failure{What: "after the closing handshake, the server kept the TCP connection open for 2 s", Want: "the server closes the connection once the close frames are exchanged (RFC 6455 §7.1.1)"})
			}
		} else {
			gone.Drop()
		}
		ws := awaitSocketAdmitted(t, h, time.Second, "a handshake after one of the "+fmt.Sprint(limit)+" sockets was "+end)
		ws.Initialize(spec.Rev)
		open = append(open, ws)
		expectSocketRefused(t, h, fmt.Sprintf("a handshake with %d sockets open again, -max-sessions %d", limit, limit))
	}
}

// expectSocketRefused fails the check unless a handshake gets 503 with a
// Retry-After of whole seconds.
func expectSocketRefused(t *check.T, h *wire.HTTP, purpose string) {
	ws, resp := h.DialWS(nil, purpose)
	switch {
	case ws != nil:
		t.Fail(check.Failure{What: purpose + " was upgraded: the server holds more sockets than -max-sessions", Want: "HTTP 503 Service Unavailable, with Retry-After"})
	case resp.Status != http.StatusServiceUnavailable:
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", purpose, resp.Status), Got: resp.Summary(), Want: "HTTP 503 Service Unavailable, with Retry-After"})
	}
	if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || n <= 0 {
		t.Fail(check.Failure{What: purpose + " got 503 without a Retry-After of whole seconds", Got: resp.Summary(), Want: "Retry-After: 5 (seconds), so a client knows when to come back"})
	}
}

// awaitSocketAdmitted dials /ws until the server upgrades, for up to within,
// and fails the check if it never does.
func awaitSocketAdmitted(t *check.T, h *wire.HTTP, within time.Duration, purpose string) *wire.WS {
	deadline := time.Now().Add(within)
	for {
		ws, resp := h.DialWS(nil, purpose)
		if ws != nil {
			return ws
		}
		if resp.Status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d, for %v: the socket that ended still holds its place", purpose, resp.Status, within), Got: resp.Summary(),
				Want: "HTTP 101: a socket that ends gives its place back at once"})
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var origin32 = &check.Check{
	ID: "ORIGIN-32", Step: 5, Severity: check.Must, Budget: 20 * time.Second, // 16 MiB frames are slow under the race detector
	Needs: check.Needs{Course: webSocket},
	Title: "frames up to 16 MiB arrive whole; a longer one closes with 1009; a blank one gets no answer",
	Spec:  boundsRule,
	Course: "A frame is one message, as a line is on stdin, within stage 01's bound: frames up to stdio.MaxMessageBytes (16 MiB) are served, a frame longer than any read buffer arrives whole, " +
		"and a longer one closes the socket with 1009 (message too big, RFC 6455 §7.4.1) before it is read into memory. A blank frame, like a blank line, is no message and gets no answer.",
	Hint: check.Hint{
		Report:   "Keep ws.SetReadLimit(stdio.MaxMessageBytes) before the loop; in frameReader.Read keep what did not fit in p for the next Read (r.line = r.line[n:]); in asLine, a frame of white space is a blank line.",
		Question: "What happens to the rest of a frame that does not fit in the loop's buffer, and what bounds the size of a frame the server reads into memory?",
		Pointer:  "gorilla/websocket Conn.SetReadLimit: a longer message is refused with close code 1009 before it is read; io.Reader: Read may return fewer bytes than the caller's buffer holds, the rest comes on the next call.",
		Near:     "In serveSocket: ws.SetReadLimit(stdio.MaxMessageBytes). In frameReader.Read: n := copy(p, r.line); r.line = r.line[n:]. In asLine: if len(bytes.TrimSpace(frame)) == 0 { return []byte(\"\\n\") }.",
	},
	Claims: []check.Claim{
		{Claim: "a frame longer than the loop's read buffer arrives whole, and the next frame is a message of its own", Where: "step 5", How: "an echo of 200 KiB, then a ping"},
		{Claim: "blank frames get no answer", Where: "step 5", How: "\"\", \" \", \"\\n\", \"\\r\\n\", \" \\t\\r\\n \", then a ping: only the ping is answered"},
		{Claim: "a frame of 16 MiB is served; one byte more closes the socket with 1009, unanswered", Where: "step 5", How: "a ping padded with spaces to 16 MiB, then to 16 MiB + 1"},
	},
	Checklist: []string{"C51"},
	Run:       checkFrameBounds,
}

// maxFrame is stage 01's stdio.MaxMessageBytes: the longest message.
const maxFrame = 16 << 20

func checkFrameBounds(t *check.T) {
	h := startOrigin(t)
	ws := dialWS(t, h, nil, "handshake")
	ws.Initialize(spec.Rev)

	within := wire.T2
	if probe.RaceBuilt(t) {
		within = 15 * time.Second // 16 MiB through json.Compact, under the race detector
	}
	long := strings.Repeat("0123456789abcdef", 200<<10/16)
	ws.Send(wire.Request(`40`, "tools/call", wire.ToolCall("echo", map[string]any{"text": long}, nil)))
	ws.Send(wire.Request(`41`, "ping", nil))
	echo := ws.Await(within, "response to tools/call echo of 200 KiB (id 40)", func(m *wire.Msg) bool { return m.IsResponseTo(`40`) })
	if text := toolTextOf(t, echo); text != long {
		t.Fail(check.Failure{What: fmt.Sprintf("echo of a 200 KiB text answered %d bytes that differ from it: the frame's tail was lost or moved", len(text)), Got: check.Quote(text),
			Want: "the same 200 KiB: a frame is one message, however long"})
	}
	ws.AwaitResponse(`41`, "ping, sent in the frame after the long one")

	for _, blank := range []string{"", " ", "\n", "\r\n", " \t\r\n "} {
		ws.Send(blank)
	}
	ws.Call(`42`, "ping", nil)
	for _, f := range ws.Pending() {
		t.Fail(check.Failure{What: "a blank frame was answered", Got: check.Quote(f.Text), Want: "no answer to a blank frame, as to a blank line"})
	}

	padded := func(id string, size int) string {
		head := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"`
		return head + strings.Repeat(" ", size-len(head)-1) + "}"
	}
	if err := ws.TrySend(padded(`43`, maxFrame), within); err != nil {
		t.Fail(check.Failure{What: "a frame of 16 MiB, the longest message, could not be sent: " + err.Error(), Want: "the server reads frames of up to 16 MiB"})
	}
	ws.Await(within, "response to a ping padded to 16 MiB (id 43), the longest message", func(m *wire.Msg) bool { return m.IsResponseTo(`43`) })

	ws.TrySend(padded(`44`, maxFrame+1), within) // the server may close before it has all been written
	why, ended := ws.AwaitEnd(within - wire.T2 + wire.T1)
	for _, f := range ws.Pending() {
		if f.Msg != nil && f.Msg.IsResponseTo(`44`) {
			t.Fail(check.Failure{What: "a frame of 16 MiB + 1 byte was read and answered: the server reads frames of any size into memory", Got: check.Quote(f.Text),
				Want: "the socket closed with 1009 (message too big), the frame unread"})
		}
	}
	code, ok := wire.CloseCode(why)
	switch {
	case !ended:
		t.Fail(check.Failure{What: "the socket was still open 2 s after a frame of 16 MiB + 1 byte", Want: "the socket closed with 1009 (message too big)"})
	case ok && code != websocket.CloseMessageTooBig:
		t.Fail(check.Failure{What: fmt.Sprintf("a frame of 16 MiB + 1 byte closed the socket with %d", code), Got: fmt.Sprint(why), Want: "close code 1009 (message too big)"})
	}
}

var origin33 = &check.Check{
	ID: "ORIGIN-33", Step: 5, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Course: webSocket, Flags: []string{"-max-sessions"}, Restart: true},
	Title: "a refused handshake gets its answer and nothing more: no upgrade behind a 403 or 503",
	Spec: check.Spec{Rev: spec.Rev, Section: "basic/transports › Custom Transports (RFC 6455 §4.2.2 for the version; the rest is the course's)",
		Quote: customRule.Quote},
	Course: "A refusal ends the request: a handler that answers 403 (a rebound Host) or 503 (no room) and goes on to Upgrade writes an upgrade behind its refusal, and serves a socket the client was told it did not get. " +
		"RFC 6455 §4.2.2: a server that does not speak the client's version MUST say which it speaks, in Sec-WebSocket-Version. The course answers every refused handshake but the 503 with a JSON-RPC error body, as /mcp does.",
	Hint: check.Hint{
		Report:   "In WebSocket(), return after forbiddenHost(w, r) and after the 503; keep the given Upgrader.Error, which answers 403 with forbidden and every other status with Sec-Websocket-Version: 13 and httpjson.Error.",
		Question: "After your handler has answered 403 or 503, what stops it from calling Upgrade anyway?",
		Pointer:  "net/http: writing a response does not end the handler; gorilla's Upgrade hijacks the connection and writes 101 behind whatever was written. RFC 6455 §4.2.2 (/version/), §4.4.",
		Near:     "if !h.hostAllowed(r) { forbiddenHost(w, r); return }; if h.sockets.full() { ...; http.Error(w, ..., http.StatusServiceUnavailable); return }.",
	},
	Claims: []check.Claim{
		{Claim: "a refused handshake gets its answer and nothing more: no upgrade behind a 403 or a 503", Where: "step 5", How: "raw connections: a rebound Host, a foreign Origin, a handshake beyond -max-sessions 1; nothing may follow the answer within 200 ms"},
		{Claim: "an unsupported WebSocket version is told Sec-WebSocket-Version: 13; refused handshakes carry a JSON-RPC error body", Where: "step 5", How: "Sec-WebSocket-Version: 8, a POST handshake, a GET without Upgrade"},
	},
	Run: checkHandshakeRefusals,
}

func checkHandshakeRefusals(t *check.T) {
	h := startOrigin(t, "-max-sessions", "1")
	port := portOf(t, h)
	const key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	upgrade := "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n" + key
	for _, c := range []struct {
		what, head string
		status     int
	}{
		{"a handshake with a rebound Host (evil.example)", "GET /ws HTTP/1.1\r\nHost: evil.example:" + port + "\r\n" + upgrade, http.StatusForbidden},
		{"a handshake from Origin http://evil.example", "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nOrigin: http://evil.example\r\n" + upgrade, http.StatusForbidden},
		{"a handshake that asks for WebSocket version 8", "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 8\r\n" + key, http.StatusBadRequest},
		{"a handshake sent as a POST", "POST /ws HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Length: 0\r\n" + upgrade, http.StatusMethodNotAllowed},
		{"a GET of /ws without Upgrade", "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n", http.StatusBadRequest},
	} {
		resp, after := rawExchange(t, h, c.head+"\r\n", c.what)
		if resp.Status == http.StatusNotImplemented {
			t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", c.what, resp.Status), Got: resp.Summary(), Want: fmt.Sprintf("HTTP %d", c.status), Cause: causeWebSocket})
		}
		expectNothingAfter(t, c.what, resp, after)
		if c.status == http.StatusForbidden {
			expectRefused(t, resp, c.what, "the socket is refused", "", false)
			continue
		}
		if resp.Status/100 != 4 {
			t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", c.what, resp.Status), Got: resp.Summary(), Want: fmt.Sprintf("HTTP %d, with a JSON-RPC error body", c.status)})
		}
		if m := resp.ErrorBody(); m == nil || !m.HasNoID() {
			t.Fail(check.Failure{What: c.what + " got no JSON-RPC error body", Got: resp.Summary(), Want: fmt.Sprintf("HTTP %d, with a JSON-RPC error body", c.status)})
		}
		if !hasToken(resp.Header.Values("Sec-WebSocket-Version"), "13") || resp.Header.Get("Sec-WebSocket-Version") == "*" {
			t.Fail(check.Failure{What: c.what + " was not told which version the server speaks", Got: resp.Summary() + "; " + headerList(resp.Header),
				Want: "Sec-WebSocket-Version: 13 (RFC 6455 §4.2.2: a server MUST name the versions it understands)"})
		}
	}

	// With the one socket -max-sessions allows open, the next handshake
	// gets 503, and nothing behind it.
	dialWS(t, h, nil, "the one socket -max-sessions 1 allows").Initialize(spec.Rev)
	what := "a handshake with the one socket -max-sessions 1 allows open"
	resp, after := rawExchange(t, h, "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:"+port+"\r\n"+upgrade+"\r\n", what)
	if resp.Status != http.StatusServiceUnavailable {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", what, resp.Status), Got: resp.Summary(), Want: "HTTP 503"})
	}
	expectNothingAfter(t, what, resp, after)
}

// rawExchange sends head, a whole HTTP request, on a connection of its
// own, and returns the answer and whatever the server wrote after it
// within afterRefusal: for a refused handshake, nothing.
func rawExchange(t *check.T, h *wire.HTTP, head, purpose string) (*wire.Response, []byte) {
	u, err := url.Parse(h.URL)
	if err != nil {
		t.Failf("grader bug: the server's URL %q: %v", h.URL, err)
	}
	t.Wire.Sent(purpose + ": " + head)
	conn, err := net.DialTimeout("tcp", u.Host, wire.T1)
	if err != nil {
		t.Failf("connecting to %s: %v", u.Host, err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(wire.T1))
	if _, err := io.WriteString(conn, head); err != nil {
		t.Failf("sending %s: %v", purpose, err)
	}
	br := bufio.NewReader(conn)
	hr, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fail(check.Failure{What: purpose + " got no HTTP answer within 2 s: " + err.Error(), Want: "an HTTP answer, at once"})
	}
	body, _ := io.ReadAll(io.LimitReader(hr.Body, 1<<16))
	hr.Body.Close()
	resp := &wire.Response{Status: hr.StatusCode, Header: hr.Header, Body: body, ContentType: strings.TrimSpace(strings.Split(hr.Header.Get("Content-Type"), ";")[0])}
	t.Wire.Received(fmt.Sprintf("HTTP %d %s", resp.Status, body))
	// A handler that goes on writes its upgrade at once, in the same
	// goroutine: the refusal's own bytes go out only when Upgrade hijacks.
	conn.SetReadDeadline(time.Now().Add(afterRefusal))
	after, _ := io.ReadAll(br)
	return resp, after
}

// afterRefusal is how long rawExchange waits for bytes after an answer.
const afterRefusal = 200 * time.Millisecond

// expectNothingAfter fails the check when the server wrote more after its
// refusal of a handshake.
func expectNothingAfter(t *check.T, what string, resp *wire.Response, after []byte) {
	if len(after) > 0 {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d, and then more on the same connection: the handler went on after its refusal", what, resp.Status),
			Got: check.Quote(string(after)), Want: "the answer and nothing after it: a refusal ends the request, and no upgrade follows"})
	}
}

// headerList shows every header of an answer, for reports.
func headerList(h http.Header) string {
	var parts []string
	for name, values := range h {
		parts = append(parts, name+": "+strings.Join(values, ", "))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

var origin34 = &check.Check{
	ID: "ORIGIN-34", Step: 5, Severity: check.Must, Budget: 28 * time.Second, // a write must wait out its 10 s; megabytes under the race detector
	Needs: check.Needs{Course: webSocket, Flags: []string{"-debug"}},
	Title: "a client that stops reading is dropped once a frame has waited 10 s, and all its socket held is freed",
	Spec:  boundsRule,
	Course: "A client that stops reading, but keeps its connection open, would hold its socket's goroutines, its place and a half-written answer for ever: " +
		"frameWriter gives each frame a write deadline (writeTimeout, 10 s), and a write that fails ends the loop, which closes the socket. " +
		"The grader stops two clients in the middle of megabytes of notifications, hundreds of requests queued behind them: within 18 s all they held must be gone. " +
		"A client that is only idle, and reads, is still served after those seconds.",
	Hint: check.Hint{
		Report:   "Before each frame, set a write deadline (w.ws.SetWriteDeadline(time.Now().Add(writeTimeout))), and return the error of a write that fails: stage 01's loop stops at the first failed write, and serveSocket then closes the socket.",
		Question: "What becomes of a write to a client that has stopped reading, and what ends the loop then?",
		Pointer:  "gorilla/websocket Conn.SetWriteDeadline: a write not done by then fails, and every write after it; stdio.Serve returns at its first failed write, after cancelling the requests in flight.",
		Near:     "In frameWriter.Write, for each line: w.ws.SetWriteDeadline(time.Now().Add(writeTimeout)); if err := w.ws.WriteMessage(websocket.TextMessage, msg); err != nil { return 0, err }.",
	},
	Claims: []check.Claim{
		{Claim: "a client that stops reading is let go once a frame has waited writeTimeout (10 s): the loop ends, the socket closes, its goroutines and connection are freed", Where: "step 5",
			How: "two clients stopped in the middle of megabytes of progress notifications (a 256 KiB receive buffer), hundreds of pings queued behind each; counted via -debug's /debug/vars and /proc/PID/fd within 18 s of the stream's start"},
		{Claim: "an idle socket whose client reads is not let go", Where: "step 5", How: "idle through those 10 s, then a ping"},
	},
	Run: checkStalledClients,
}

// stalledWait is how long after a stalled client's stream began a server
// may take to free its socket: writeTimeout (10 s) from when the write
// began to wait, which comes once the kernels' buffers are full, and room
// for a loaded machine, which may take seconds to fill them.
const stalledWait = 18 * time.Second

func checkStalledClients(t *check.T) {
	h := startOrigin(t, "-debug")
	idle := dialWS(t, h, nil, "a socket that stays idle, and reads")
	idle.Initialize(spec.Rev)
	idleSince := time.Now()
	base := probe.TakeBaseline(t, h)

	const n = 2
	stalled := make([]*stalledSocket, n)
	var opens []func()
	for i := range stalled {
		i := i
		opens = append(opens, func() {
			stalled[i] = openStalled(t, h, stream, fmt.Sprintf("client %d of %d, which stops reading", i+1, n))
		})
	}
	t.Parallel(opens...)
	var began time.Time
	for _, s := range stalled {
		if s.began.After(began) {
			began = s.began
		}
	}
	queue(t, stalled, began.Add(3*time.Second))
	t.Wire.Event("%d clients stopped reading in the middle of a stream of long notifications, pings queued behind each; waiting up to %v for the server to let them go", n, stalledWait)

	allowed := stalledWait
	if probe.RaceBuilt(t) {
		allowed += 3 * time.Second
	}
	base.ExpectFreedBy(t, h, began.Add(allowed), 1, fmt.Sprintf("%v after %d clients stopped reading in the middle of a stream", allowed, n),
		"each socket let go once its frame had waited 10 s: the write fails at its deadline, the loop ends, the socket closes, and every goroutine it held ends (the pinger too)")
	// The idle socket has sent nothing since it initialized, and answered
	// whatever pings came: it is kept.
	if wait := time.Until(idleSince.Add(10*time.Second + 500*time.Millisecond)); wait > 0 {
		probe.Pause(t, wait)
	}
	idle.Call(`9`, "ping", nil)
}
