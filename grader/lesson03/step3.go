package lesson03

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step3 holds the checks of step 3: the session's outlet.
var step3 = check.Step{
	Checks: []*check.Check{sse17, sse18, sse19, sse20, sse38, sse39},
}

var sse17 = &check.Check{
	ID: "SSE-17", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Course: probe.NotesLog, Flags: []string{"-tick"}, Optional: []check.Feature{check.GETStream}},
	Title: "add_note's log message travels on its call's own stream, never on the standalone stream, where -tick's messages go",
	Spec:  spec.Listening("The server MAY send JSON-RPC requests and notifications on the stream. These messages SHOULD be unrelated to any concurrently-running JSON-RPC request from the client."),
	Course: "Which stream a message takes is a SHOULD in the spec (› Sending Messages to the Server: the messages before a response \"SHOULD relate to the originating client request\"); " +
		"the course requires it. add_note's log message belongs to its call, so it travels on the call's answer, which becomes an SSE stream for it, even while a GET stream is open; " +
		"the server's own messages (-tick's) go to the session's outlet, which the first GET attaches.",
	Hint: check.Hint{
		Report: "A request's messages go to the request's own Peer (stage 02's reply), whatever streams are open; only messages that belong to no request go through the outlet. " +
			"When the first GET opens the standalone stream, attach it with sess.Attach(stream), and start the ticker.",
		Question: "Which messages belong to the session's outlet, and which to the request that caused them?",
		Pointer:  "basic/transports › Listening for Messages from the Server: messages on the GET stream SHOULD be unrelated to any running request. mcp.Session.Attach(outlet Peer) sets the outlet; mcp.Request.Log sends on the request's own Peer.",
		Near:     "In listen, the first time (made), before the headers go out: sess.Attach(s), and after unlocking, go tick(sess, h.opts.Tick). Stage 02 passes every request its reply, so its messages never reach the outlet.",
	},
	Claims: []check.Claim{
		{Claim: "a request's messages travel on its own stream, even while a GET stream is open; only the server's own messages (the ticker's) go to the outlet, the GET stream", Where: "concept, step 3",
			How: "with -tick and a GET open: add_note's answer must be a stream with the note's log message before the result, and the GET must carry ticks and no note"},
	},
	Checklist: []string{"C12", "C21"},
	Run:       checkNoteOnItsOwnStream,
}

func checkNoteOnItsOwnStream(t *check.T) {
	h := wire.StartHTTP(t, "-tick", "40ms")
	session, _ := h.Initialize(spec.Rev)
	g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session, with -tick 40ms")
	readTicks(t, g, 1, 0, 500*time.Millisecond, "on the GET stream, before the note")
	note := nonce("note")
	probe.NoteOnItsStream(t, h, session, spec.Rev, `2`, note)
	// Whatever the GET stream got while the note was added is queued by
	// now: read it all, and on for a while, ticks included.
	ticks := 0
	deadline := time.Now().Add(400 * time.Millisecond)
	for left := time.Until(deadline); left > 0; left = time.Until(deadline) {
		e, err := g.NextWithin(left)
		if err != nil {
			break
		}
		m, _ := wire.Parse([]byte(e.Data))
		if _, logger, data, ok := probe.LogOf(m); ok && logger == "notes" && strings.Contains(string(data), note) {
			t.Fail(check.Failure{What: "the note's log message arrived on the standalone GET stream: it belongs to add_note's call, and travels on the call's own stream",
				Got: check.Quote(e.Data), Want: "on the GET stream, only messages that belong to no request (the ticks)"})
		}
		if probe.IsLogFrom("ticker")(m) {
			ticks++
		}
	}
	if ticks == 0 {
		t.Fail(check.Failure{What: "no tick arrived on the GET stream within 400 ms after the note, with -tick 40ms", Want: "the ticks go on on the GET stream: they belong to no request"})
	}
}

var sse18 = &check.Check{
	ID: "SSE-18", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "no JSON-RPC response ever travels on the standalone stream",
	Spec:  spec.Listening("The server MUST NOT send a JSON-RPC response on the stream unless resuming a stream associated with a previous client request."),
	Hint: check.Hint{
		Report:   "A response belongs to the POST that carried its request (its JSON body, or its own SSE stream). Only messages the server starts itself go to the outlet.",
		Question: "Which stream does a response belong to?",
		Pointer:  "basic/transports › Listening: the server MUST NOT send a JSON-RPC response on the GET stream unless resuming a request's stream.",
		Near:     "Responses go only to the POST's own stream (stage 02 sends them through the Stream Open returned), never to the outlet.",
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "no JSON-RPC response travels on the standalone stream", Where: "concept, step 3"},
	},
	Checklist: []string{"C22"},
	Run:       checkNoResponseOnStandalone,
}

func checkNoResponseOnStandalone(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session")
	for _, c := range []struct{ id, body string }{
		{`2`, wire.Request(`2`, "ping", nil)},
		{`3`, wire.Request(`3`, "tools/list", nil)},
		{`4`, wire.Request(`4`, "tools/call", wire.ToolCall("add_note", map[string]any{"text": nonce("note")}, nil))},
		{`5`, probe.CountdownCall(`5`, 2, 0, nonce("p"))},
	} {
		resp := h.Do(wire.Req{Header: wire.Headers(session, spec.Rev), Body: c.body, Within: wire.T2, Purpose: "request " + c.id})
		probe.ExpectStatus(t, resp, http.StatusOK, "request "+c.id)
		probe.ExpectResponse(t, resp, c.id, "request "+c.id)
	}
	events, _ := g.End(400 * time.Millisecond)
	for _, m := range messagesOf(events) {
		if m.IsResponse() {
			t.Fail(check.Failure{What: "a JSON-RPC response arrived on the standalone GET stream", Got: check.Quote(string(m.Raw)),
				Want: "responses only on the POST that carried the request"})
		}
	}
}

var sse19 = &check.Check{
	ID: "SSE-19", Step: 3, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "each message travels on exactly one stream: a request's progress and log messages on its POST, none on the GET",
	Spec:  multipleRule("The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams."),
	Course: "Which stream a message takes is a SHOULD in the spec: a request's messages on its POST stream, and on the GET stream only messages unrelated to " +
		"running requests. The course requires both, and that none is lost.",
	Hint: check.Hint{
		Report:   "A request's progress and log messages go to the request's own stream (its Peer), and nowhere else; only a message that belongs to no request goes to the outlet. Never copy a message to \"every open stream\".",
		Question: "Does any message of yours reach two streams?",
		Pointer:  "basic/transports › Multiple Connections: each message on only one stream, never broadcast.",
		Near:     "A request's messages go to its Peer (its POST stream) only; the outlet is for messages of no request. Do not copy messages between streams.",
	},
	Claims: []check.Claim{
		{Claim: "each message travels on exactly one stream: a request's progress and log messages on its POST, never on the GET", Where: "concept, step 3", How: "all streams of a session read at once"},
	},
	Early:     1,
	Checklist: []string{"C25"},
	Split:     &check.Split{Rule: "one message, one stream", Parts: "the same message on two streams breaks the spec; a message on the other stream than the course wants only the course (the spec: SHOULD)"},
	Run:       checkEachMessageOnce,
}

func checkEachMessageOnce(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session")
	ta, tb, note := nonce("a"), nonce("b"), nonce("once")
	a := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`"a"`, 4, 50, ta), "countdown A")
	b := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`"b"`, 4, 50, tb), "countdown B")
	var evN []wire.Event
	if courseServer(t) {
		// The course's server logs each note as part of its call, on the
		// call's own stream. An external server need not log notes at all.
		resp := h.Do(wire.Req{Header: wire.Headers(session, spec.Rev), Body: wire.Request(`3`, "tools/call", wire.ToolCall("add_note", map[string]any{"text": note}, nil)),
			Within: wire.T2, Purpose: "add_note, which logs the note"})
		probe.ExpectResponse(t, resp, `3`, "add_note")
		evN = resp.Events
	}

	var evA, evB, evG []wire.Event
	t.Parallel(
		func() { evA, _ = a.End(wire.T2) },
		func() { evB, _ = b.End(wire.T2) },
		func() { evG, _ = g.End(time.Second) },
	)
	seen := map[string][]string{} // message → the streams it came on
	for name, events := range map[string][]wire.Event{"POST A": evA, "POST B": evB, "GET": evG, "POST note": evN} {
		for _, m := range messagesOf(events) {
			key := ""
			if tok, v, ok := probe.ProgressOf(m); ok {
				key = fmt.Sprintf("progress %v of token %s", v, tok)
			} else if _, _, data, ok := probe.LogOf(m); ok && strings.Contains(string(data), note) {
				key = "the note's log message"
			} else if m.IsResponse() {
				key = "the response with id " + string(m.ID)
			} else {
				continue
			}
			seen[key] = append(seen[key], name)
		}
	}
	want := map[string]string{`the response with id "a"`: "POST A", `the response with id "b"`: "POST B"}
	if courseServer(t) {
		want["the note's log message"] = "POST note"
	}
	for i := 1; i <= 4; i++ {
		want[fmt.Sprintf("progress %d of token %q", i, ta)] = "POST A"
		want[fmt.Sprintf("progress %d of token %q", i, tb)] = "POST B"
	}
	keys := make([]string, 0, len(seen))
	for key := range seen {
		keys = append(keys, key)
	}
	sort.Strings(keys) // the same report every run, a broadcast (the spec's MUST NOT) first
	for _, key := range keys {
		if streams := seen[key]; len(streams) > 1 {
			t.Fail(check.Failure{What: fmt.Sprintf("%s arrived %d times, on %s", key, len(streams), strings.Join(streams, " and ")),
				Want: "each message on exactly one stream", Spec: true})
		}
	}
	for _, key := range keys {
		if w, ok := want[key]; ok && seen[key][0] != w {
			t.Fail(check.Failure{What: fmt.Sprintf("%s arrived on %s", key, seen[key][0]), Want: "on " + w})
		}
	}
	for key, stream := range want {
		if len(seen[key]) == 0 {
			t.Fail(check.Failure{What: key + " never arrived", Want: "on " + stream,
				Got: "POST A: " + describeEvents(evA) + "\nPOST B: " + describeEvents(evB) + "\nGET: " + describeEvents(evG) + "\nPOST note: " + describeEvents(evN)})
		}
	}
}

var sse20 = &check.Check{
	ID: "SSE-20", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Flags: []string{"-tick", "-debug"}, Optional: []check.Feature{check.GETStream}},
	Title: "-tick sends {\"tick\": N} log messages on the standalone stream, N counting 1, 2, 3, … across every GET of the session: one ticker per session, which ends with it",
	Spec:  spec.Listening("The server MAY send JSON-RPC requests and notifications on the stream."),
	Course: "The course's -tick DURATION flag (the grader sets 40ms) sends each session's standalone stream a notifications/message " +
		"(level info, logger \"ticker\", data {\"tick\": N}) every interval, from the first GET on. The ticker belongs to the session: a client that " +
		"reconnects with a fresh GET, again and again, finds the same count going on, never a second ticker beside the first.",
	Hint: check.Hint{
		Report:   "Start one goroutine per session when its standalone stream is first made, not on every GET: a time.Ticker, and sess.Log(ctx, mcp.LevelInfo, \"ticker\", map[string]int{\"tick\": n}) on each tick, until sess.Context() is done.",
		Question: "What sends the ticks, how many of them are there after a client's third GET, and how long do they live?",
		Pointer:  "time.NewTicker; mcp.Session.Log; mcp.Session.Context() ends with the session; standaloneStream reports whether this GET made the stream.",
		Near:     "In listen, only when made is true, after unlocking: if h.opts.Tick > 0 { go tick(sess, h.opts.Tick) }; tick logs {\"tick\": n} on every tick until sess.Context() is done.",
	},
	Claims: []check.Claim{
		{Claim: "-tick sends {\"tick\": N} log messages on the standalone stream, N from 1; the ticker belongs to the session and goes on while the client is away", Where: "step 3", Also: []string{"SSE-25"},
			How: "three fresh GETs of one session in turn: the ticks count from 1 and up by one on each, and each GET's first tick comes after the last one the previous GET saw"},
		{Claim: "a session's ticker ends with its session", Where: "step 3", How: "8 sessions start their tickers and are deleted: their goroutines are freed (-debug)"},
	},
	Checklist: []string{"C21"},
	Run:       checkTicks,
}

func checkTicks(t *check.T) {
	h := wire.StartHTTP(t, "-tick", "40ms", "-debug")
	session, _ := h.Initialize(spec.Rev)
	s := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session, with -tick 40ms")
	ticks := readTicks(t, s, 4, 1, time.Second, "on the GET stream")
	for _, name := range []string{"second", "third"} {
		s.HangUp()
		s = reopenGET(t, h, session, spec.Rev, "a "+name+" fresh GET, after the previous client hung up")
		more := readTicks(t, s, 6, 0, time.Second, "on the "+name+" GET stream")
		if last := ticks[len(ticks)-1]; more[0] <= last {
			t.Fail(check.Failure{What: fmt.Sprintf("the %s GET's first tick is %d, after tick %d on the previous GET", name, more[0], last),
				Want: "the session's one ticker counting on: a fresh GET gets the ticks from where the count stands, never a new count beside it"})
		}
		ticks = more
	}
	s.HangUp()

	// The ticker lives as long as its session, no longer.
	var sessions []string
	for i := 0; i < 8; i++ {
		id, _ := h.Initialize(spec.Rev)
		sessions = append(sessions, id)
	}
	base := probe.TakeBaseline(t, h)
	for i, id := range sessions {
		g := probe.OpenGET(t, h, id, spec.Rev, "", fmt.Sprintf("GET in session %d of 8, which starts its ticker", i+1))
		readTicks(t, g, 1, 1, time.Second, fmt.Sprintf("in session %d", i+1))
		g.HangUp()
		resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(id, spec.Rev), Purpose: fmt.Sprintf("DELETE session %d of 8", i+1)})
		if resp.Status < 200 || resp.Status > 299 {
			t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status"})
		}
	}
	base.ExpectFreed(t, h, "8 sessions started their tickers and were deleted", "each session's ticker ends with its session")
}

var sse39 = &check.Check{
	ID: "SSE-39", Step: 3, Severity: check.Must, Budget: 15 * time.Second,
	Needs: check.Needs{Flags: []string{"-debug", "-tick", "-keepalive"}, Optional: []check.Feature{check.GETStream}},
	Title: "a stream's keep-alive ticker and a session's -tick ticker are stopped when they end: the server goes idle after 20 sessions listened and ended (-tick 1ns, -keepalive 1µs)",
	Spec:  spec.NoLimit,
	Course: "The course requires every ticker a stream or a session starts to be stopped when it ends. The course module's go.mod says go 1.22, so a time.Ticker " +
		"nobody stops fires for ever, even once nothing refers to it; with -keepalive 1µs and -tick 1ns, twenty of them wake the server about a thousand times a second. The grader lets 20 " +
		"sessions each open their GET stream, read a tick on it (1ns is the smallest positive -tick, and it ticks too) and end (DELETE), waits for the " +
		"server's goroutines to come back, then counts the server's context switches (/proc/PID/task/*/status, on Linux): within 6 s, some second must have fewer than 200.",
	Hint: check.Hint{
		Report:   "Stop every time.Ticker when its loop ends: defer keepAlive.Stop() in hold, defer ticker.Stop() in tick. Returning from the loop does not stop it.",
		Question: "When the loop that reads a ticker returns, does the ticker stop firing?",
		Pointer:  "time.NewTicker: \"Stop the ticker to release associated resources.\" Before Go 1.23 (and in modules whose go.mod says an older go), an unstopped ticker is never collected.",
		Near:     "keepAlive := time.NewTicker(h.opts.KeepAlive); defer keepAlive.Stop() in hold, and ticker := time.NewTicker(interval); defer ticker.Stop() in tick.",
	},
	Claims: []check.Claim{
		{Claim: "a stream's keep-alive ticker and the session's ticker stop when they end", Where: "steps 1 and 3",
			How: "-tick 1ns and -keepalive 1µs: 20 sessions open their GET stream, get a tick and are deleted; the server's context switches (Linux) must fall under 200 in some second within 6 s"},
		{Claim: "any positive -tick ticks, 1ns included", Where: "step 3", How: "-tick 1ns: each of 20 GET streams gets a tick within 1 s"},
	},
	Run: checkTickersStopped,
}

func checkTickersStopped(t *check.T) {
	const sessions = 20
	h := wire.StartHTTP(t, "-debug", "-tick", "1ns", "-keepalive", "1us")
	h.Initialize(spec.Rev)
	if _, ok := wakeupsOf(h); !ok {
		t.Skip("the server's context switches are read from /proc/PID/task/*/status, which this system does not have")
	}
	base := probe.TakeBaseline(t, h)
	for i := 1; i <= sessions; i++ {
		session, _ := h.Initialize(spec.Rev)
		g := probe.OpenGET(t, h, session, spec.Rev, "", fmt.Sprintf("GET stream of session %d of %d", i, sessions))
		g.Await(wire.T2, "a tick, with -tick 1ns", probe.IsLogFrom("ticker"), nil)
		resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, spec.Rev), Purpose: fmt.Sprintf("DELETE session %d of %d, which ends its GET stream", i, sessions)})
		if resp.Status < 200 || resp.Status > 299 {
			t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status"})
		}
		if _, ended := g.End(wire.T2); !ended {
			t.Fail(check.Failure{What: fmt.Sprintf("a session's GET stream was still open %v after DELETE ended the session", wire.T2), Want: "the stream ends with its session"})
		}
	}
	base.ExpectFreed(t, h, fmt.Sprintf("%d sessions listened and ended", sessions), "every stream's goroutine and the session's ticker goroutine end with the session")
	// Idle: a second in which the server's threads leave the CPU fewer
	// than 200 times (context switches, summed over its threads), within
	// 6 s. An idle reference leaves it 0 to 15 times a second; a ticker
	// left running wakes it about a thousand times. The window is long so
	// that a loaded machine, which preempts the threads instead, has many
	// seconds to show one quiet one.
	var wakeups int64
	if probe.Settle(t, 6*time.Second, func() bool {
		start, _ := wakeupsOf(h)
		probe.Pause(t, time.Second)
		end, _ := wakeupsOf(h)
		wakeups = end - start
		t.Wire.Event("the server's threads left the CPU %d times in 1 s", wakeups)
		return wakeups < 200
	}) {
		return
	}
	t.Fail(check.Failure{What: fmt.Sprintf("after %d sessions listened and ended, the server never went idle: its threads left the CPU %d times in the last second, with no client connected", sessions, wakeups),
		Want: "fewer than 200 context switches in some second within 6 s: every keep-alive ticker and every session's ticker is stopped when its stream or session ends"})
}

// wakeupsOf counts the times the server's threads have left the CPU, to
// sleep until woken or because the system preempted them (voluntary and
// nonvoluntary context switches, from /proc/PID/task/*/status); ok is
// false where there is no such count.
func wakeupsOf(h *wire.HTTP) (int64, bool) {
	if h.Proc == nil {
		return 0, false
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", h.Proc.PID()))
	if err != nil {
		return 0, false
	}
	var n int64
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", h.Proc.PID(), task.Name()))
		if err != nil {
			continue // the thread has just ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimPrefix(line, "non"), "voluntary_ctxt_switches:"); ok {
				c, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += c
			}
		}
	}
	return n, true
}

var sse38 = &check.Check{
	ID: "SSE-38", Step: 3, Severity: check.Must, Budget: 45 * time.Second,
	Needs: check.Needs{Flags: []string{"-tick", "-keepalive"}, Course: probe.ClearNotes, Optional: []check.Feature{check.GETStream}},
	Title: "a client that stops reading is let go of once a write has waited 10 s, and a stream quiet for longer still ends cleanly: no write deadline outlives its stream",
	Spec:  spec.Sending("Disconnection MAY occur at any time (e.g., due to network conditions)."),
	Course: "The course requires each write of an event to have a deadline (writeTimeout, 10 s): a client that stops reading must not block its stream, and every " +
		"sender on it, for as long as TCP keeps trying. The deadline is set on the connection, and net/http writes the end of a response after the handler " +
		"returns: a stream that ends must clear it first (eventWriter.finish), or a stream that has been quiet for longer than 10 s is cut instead of ended. " +
		"The grader opens a GET stream and a clear_notes call that waits for its answer, each quiet after its first events, then stops reading a GET stream " +
		"that -tick 1µs floods on a second server and waits for that server to let it go (a new GET is served within 30 s); then it ends the two quiet streams " +
		"(DELETE, notifications/cancelled) and wants each to end whole.",
	Hint: check.Hint{
		Report: "Give each write a deadline with http.ResponseController.SetWriteDeadline(time.Now().Add(writeTimeout)) before you write, and clear it " +
			"(SetWriteDeadline(time.Time{})) when the stream ends, in every way it can end: hold returning, a POST's stream closing.",
		Question: "What happens to a write when the client has stopped reading, and to the end of a response whose connection has a deadline that has passed?",
		Pointer:  "net/http: http.ResponseController.SetWriteDeadline sets the connection's deadline; the end of a chunked response is written after the handler returns, under whatever deadline is left.",
		Near:     "eventWriter.write sets the deadline before each write; eventWriter.finish clears it; hold defers ew.finish(), postStream.Close calls p.own.finish().",
	},
	Claims: []check.Claim{
		{Claim: "each write has a deadline, so a client that stops reading cannot block its stream for ever", Where: "step 1",
			How: "a GET stream flooded by -tick 1µs whose client stops reading: a new GET for it must be served within 30 s"},
		{Claim: "a stream that ends clears its write deadline, so a stream quiet for longer than it still ends whole", Where: "step 1",
			How: "a GET stream ended by DELETE and a clear_notes stream ended by notifications/cancelled, each quiet for more than 10 s first"},
	},
	Run: checkWriteDeadlines,
}

func checkWriteDeadlines(t *check.T) {
	h := wire.StartHTTP(t, "-keepalive", "1h")
	flood := wire.StartHTTP(t, "-tick", "1us", "-keepalive", "1h")

	// Two streams that go quiet after their first events: the standalone
	// stream, and clear_notes's, which waits for the client's answer.
	listener, _ := h.Initialize(spec.Rev)
	quietGET := dialRaw(t, h, 0)
	quietGET.request(http.MethodGet, probe.GETHeaders(listener, spec.Rev, ""), "")
	getBody := openRaw(t, quietGET, "a GET stream on a connection of the grader's own")
	asker := probe.InitializeEliciting(t, h, spec.Rev)
	probe.CallTool(t, h, asker, `2`, "add_note", map[string]any{"text": nonce("to be cleared")})
	quietPOST := dialRaw(t, h, 0)
	quietPOST.request(http.MethodPost, wire.Headers(asker, spec.Rev), probe.ClearNotesCall(`3`))
	postBody := openRaw(t, quietPOST, "clear_notes, which asks the client to confirm, on a connection of the grader's own")
	if !awaitQuestion(postBody) {
		t.Fail(check.Failure{What: "clear_notes's stream carried no elicitation/create within 1 s", Want: "the question, at once"})
	}

	// A client that stops reading a stream the ticker floods: once the
	// buffers between it and the server are full, a write waits, and past
	// its deadline the server must let the client go. Until then a GET for
	// the stream may wait, or get 409.
	flooded, _ := flood.Initialize(spec.Rev)
	stuck := dialRaw(t, flood, 0)
	stuck.request(http.MethodGet, probe.GETHeaders(flooded, spec.Rev, ""), "")
	openRaw(t, stuck, "a GET stream on a connection of the grader's own")
	t.Wire.Event("stopped reading the GET stream, which -tick 1µs floods; waiting up to 30 s for a new GET of the session to be served")
	deadline := time.Now().Add(30 * time.Second) // the flood fills the buffers in a second or two; a race-detector build takes ten
	for {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fail(check.Failure{What: "30 s after its client stopped reading, the server still held the GET stream: every new GET got 409",
				Want: "a write that waits 10 s fails; the client counts as gone, and a new GET is served"})
		}
		g := flood.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(flooded, spec.Rev, ""), Within: left,
			Purpose: "a new GET of the session whose GET stream's client stopped reading"})
		if g.Status == http.StatusOK {
			g.HangUp()
			break
		}
		if g.Status != http.StatusConflict {
			t.Fail(check.Failure{What: fmt.Sprintf("a new GET, while the session's GET stream's client had stopped reading, got HTTP %d", g.Status),
				Want: "HTTP 409 while the stream is held, then 200 once the server has let the client go"})
		}
		g.End(wire.T1)
		probe.Pause(t, 100*time.Millisecond)
	}

	// More than 10 s have passed since the quiet streams' last writes: a
	// write deadline left on their connections has passed.
	if d := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(listener, spec.Rev), Purpose: "DELETE the session, which ends its quiet GET stream"}); d.Status < 200 || d.Status > 299 {
		t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: d.Summary(), Want: "a 2xx status"})
	}
	expectWholeEnd(t, quietGET, getBody, "a GET stream quiet for more than 10 s, which DELETE ended")
	resp := h.Post(asker, spec.Rev, wire.Notification("notifications/cancelled", map[string]any{"requestId": 3}), "notifications/cancelled for clear_notes")
	probe.ExpectStatus(t, resp, http.StatusAccepted, "notifications/cancelled")
	expectWholeEnd(t, quietPOST, postBody, "clear_notes's stream, quiet for more than 10 s, which notifications/cancelled ended")
}
