package lesson03

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step3 holds the checks of step 3: the session's outlet.
var step3 = check.Step{
	Checks: []*check.Check{sse17, sse18, sse19, sse20},
}

var sse17 = &check.Check{
	ID: "SSE-17", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Course: notesLog, Optional: []check.Feature{check.GETStream}},
	Title: "add_note's log message arrives on the standalone stream; one from before the first GET is not kept",
	Spec:  spec.Listening("The server MAY send JSON-RPC requests and notifications on the stream."),
	Course: "The course's server sends a notifications/message (level info, logger \"notes\") for each note, through the session's outlet. " +
		"The first GET must attach its stream as that outlet. Before it, nothing is kept: a session nobody listens to must not grow.",
	Hint: check.Hint{
		Report:   "When the first GET opens the standalone stream, call sess.Attach(stream): the stream is an mcp.Peer whose Send logs the event and writes it.",
		Question: "Where do the messages the server starts on its own go, and when does that place exist?",
		Pointer:  "mcp.Session.Attach(outlet Peer): until one is attached, such messages are dropped (ErrNoOutlet).",
		Near:     "In listen, the first time (made), before the headers go out: sess.Attach(s). The stream's Send logs and writes.",
	},
	Claims: []check.Claim{
		{Claim: "the first GET becomes the session's outlet, before its headers go out; messages from before any GET are dropped", Where: "concept, step 3", How: "add_note before and after the first GET"},
	},
	Checklist: []string{"C21"},
	Run:       checkNoteOnStandalone,
}

func checkNoteOnStandalone(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	before, after := nonce("before"), nonce("after")
	probe.CallTool(t, h, session, `2`, "add_note", map[string]any{"text": before})
	s := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session")
	probe.CallTool(t, h, session, `3`, "add_note", map[string]any{"text": after})
	m, _ := s.Await(wire.T1, "notifications/message for the note added while the GET stream was open", func(m *wire.Msg) bool {
		_, logger, data, ok := probe.LogOf(m)
		return ok && logger == "notes" && strings.Contains(string(data), after)
	}, func(e wire.Event, m *wire.Msg) {
		if m != nil && strings.Contains(string(m.Raw), before) {
			t.Fail(check.Failure{What: "the GET stream delivered the log message of a note added before any GET: nothing should be kept for a session nobody listens to",
				Got: check.Quote(e.Data), Want: "only messages sent once the stream exists"})
		}
	})
	if level, _, _, _ := probe.LogOf(m); level != "info" {
		t.Fail(check.Failure{What: "the note's log message does not have level info", Got: check.Quote(string(m.Raw)), Want: `"level":"info","logger":"notes"`})
	}
}

const notesLog = `add_note's log message (notifications/message, logger "notes") sent through the session's outlet, the standalone GET stream`

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
	Title: "each message travels on exactly one stream: progress on its POST, log messages on the GET",
	Spec:  multipleRule("The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams."),
	Course: "Which stream a message takes is a SHOULD in the spec: a request's messages on its POST stream, and on the GET stream only messages unrelated to " +
		"running requests. The course requires both, and that none is lost.",
	Hint: check.Hint{
		Report:   "A request's progress goes to the request's own stream (its Peer), and nowhere else; a message for the session goes to the outlet only. Never copy a message to \"every open stream\".",
		Question: "Does any message of yours reach two streams?",
		Pointer:  "basic/transports › Multiple Connections: each message on only one stream, never broadcast.",
		Near:     "A request's progress goes to its Peer (its POST stream) only; log messages go to the outlet only. Do not copy messages between streams.",
	},
	Claims: []check.Claim{
		{Claim: "each message travels on exactly one stream: progress on its POST, log messages on the GET", Where: "concept, step 3", How: "all streams of a session read at once"},
	},
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
	if courseServer(t) {
		// The course's server logs each note through the session's outlet,
		// the GET stream. An external server need not log notes at all.
		probe.CallTool(t, h, session, `3`, "add_note", map[string]any{"text": note})
	}

	var evA, evB, evG []wire.Event
	t.Parallel(
		func() { evA, _ = a.End(wire.T2) },
		func() { evB, _ = b.End(wire.T2) },
		func() { evG, _ = g.End(time.Second) },
	)
	seen := map[string][]string{} // message → the streams it came on
	for name, events := range map[string][]wire.Event{"POST A": evA, "POST B": evB, "GET": evG} {
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
		want["the note's log message"] = "GET"
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
				Got: "POST A: " + describeEvents(evA) + "\nPOST B: " + describeEvents(evB) + "\nGET: " + describeEvents(evG)})
		}
	}
}

var sse20 = &check.Check{
	ID: "SSE-20", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Flags: []string{"-tick"}, Optional: []check.Feature{check.GETStream}},
	Title: "-tick sends {\"tick\": N} log messages on the standalone stream, N counting 1, 2, 3, …",
	Spec:  spec.Listening("The server MAY send JSON-RPC requests and notifications on the stream."),
	Course: "The course's -tick DURATION flag (the grader sets 40ms) sends each session's standalone stream a notifications/message " +
		"(level info, logger \"ticker\", data {\"tick\": N}) every interval, from the first GET on.",
	Hint: check.Hint{
		Report:   "Start one goroutine per session when its standalone stream is first opened: a time.Ticker, and sess.Log(ctx, mcp.LevelInfo, \"ticker\", map[string]int{\"tick\": n}) on each tick, until sess.Context() is done.",
		Question: "What sends the ticks, and how long does it live?",
		Pointer:  "time.NewTicker; mcp.Session.Log; mcp.Session.Context() ends with the session.",
		Near:     "In listen, the first time, after unlocking: if h.opts.Tick > 0 { go tick(sess, h.opts.Tick) }; tick logs {\"tick\": n} on every tick until sess.Context() is done.",
	},
	Claims: []check.Claim{
		{Claim: "-tick sends {\"tick\": N} log messages on the standalone stream, N from 1; the ticker belongs to the session and goes on while the client is away", Where: "step 3", Also: []string{"SSE-25"}},
	},
	Checklist: []string{"C21"},
	Run:       checkTicks,
}

func checkTicks(t *check.T) {
	h := wire.StartHTTP(t, "-tick", "40ms")
	session, _ := h.Initialize(spec.Rev)
	s := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session, with -tick 40ms")
	readTicks(t, s, 5, 0, 500*time.Millisecond, "on the GET stream")
}
