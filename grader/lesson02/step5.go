package lesson02

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step5 holds the checks of step 5: progress on the request's own stream, and cancellation.
var step5 = check.Step{
	Checks: []*check.Check{http22, http37, http23, http30, http31, http32, http38},
}

var http22 = &check.Check{
	ID: "HTTP-22", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "progress notifications arrive on the request's SSE stream as they happen, before the response, and the stream ends",
	Spec:  spec.Sending("After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream"),
	Course: "The course requires a request with a progress token to be answered as an SSE stream carrying its progress, " +
		"then its response, and then to end (the spec: SHOULD).",
	Hint: check.Hint{
		Report: "When params._meta.progressToken is set, answer with Content-Type: text/event-stream, pass the stream to the session as its Peer so each notification becomes an event, " +
			"flushed at once (http.ResponseController.Flush), write the response as the last event, and return.",
		Question: "When a request carries _meta.progressToken, where do the countdown's progress notifications go, and does the response end after the last event?",
		Pointer:  "› Sending Messages to the Server: the server may answer a request with an SSE stream carrying notifications and then the response, and SHOULD end the stream after the response. The request's reply is its mcp.Peer; rp.open() opens its stream (h.streams.Open) at once.",
		Near: `In serveRequest, with the request's reply as its Peer:

	rp := h.newReply(w, r, sess)
	if wantsProgress(msg) {
		rp.open() // the stream opens at once
	}
	resp := sess.Handle(h.requestContext(r), msg, rp)
	if stream := rp.end(); stream != nil {
		stream.Send(ctx, resp) // the last event
		stream.Close()         // and the end
	}`,
	},
	Claims: []check.Claim{
		{Claim: "a request with a progress token is answered as an SSE stream: progress events flushed as they happen, then the response, then the stream ends", Where: "concept, step 5", How: "events are read as they arrive; a 2 s countdown that reports every 100 ms must show its first event within 1 s; the stream must end within 1 s after the response"},
	},
	Checklist: []string{"C10", "C11", "C12", "C14", "D12"},
	Run:       checkHTTPProgress,
}

func checkHTTPProgress(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	token := "p-grader"
	stream := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Purpose: "countdown with a progress token",
		Body: wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 3, "interval_ms": 20}, token))})
	expectStream(t, stream, "countdown with a progress token", "three progress events, then the response")
	var before []*wire.Msg
	resp, _ := stream.Await(wire.T2, "response to the countdown (id 2)", func(m *wire.Msg) bool { return m.IsResponseTo(`2`) }, func(e wire.Event, m *wire.Msg) {
		if m != nil {
			before = append(before, m)
		}
	})
	if progress := probe.ProgressValues(t, before, json.RawMessage(`"`+token+`"`)); len(progress) != 3 {
		t.Fail(check.Failure{What: fmt.Sprintf("the stream held %d progress notifications before the response", len(progress)),
			Got: check.Quote(string(resp.Raw)), Want: "3 notifications/progress events, then the response with id 2"})
	}
	events, ended := stream.End(time.Second)
	for _, e := range events {
		if e.Data != "" {
			t.Fail(check.Failure{What: "a message came after the response on the request's stream", Got: check.Quote(e.Data), Want: "the stream ends after the response"})
		}
	}
	if !ended {
		t.Fail(check.Failure{What: "the request's stream was still open 1 s after its response", Want: "the stream ends after the response (the handler returns)"})
	}

	// A 2 s countdown sends a notification every 100 ms: the first event
	// must arrive long before the response, not wait in a buffer for it.
	slow := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Purpose: "a 2 s countdown with a progress token",
		Body: wire.Request(`3`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 20, "interval_ms": 100}, "p-slow"))})
	expectStream(t, slow, "a 2 s countdown with a progress token", "a progress event every 100 ms, then the response")
	// Events without data (a priming event, which a server that offers
	// resumption sends first at 2025-11-25) carry no message: skip them.
	deadline := time.Now().Add(time.Second)
	e, err := slow.NextWithin(time.Second)
	for err == nil && e.Data == "" {
		e, err = slow.NextWithin(time.Until(deadline))
	}
	m, _ := wire.Parse([]byte(e.Data))
	if err != nil || m == nil || m.MethodName() != "notifications/progress" {
		t.Fail(check.Failure{What: "a 2 s countdown that reports progress every 100 ms had sent no event 1 s after its stream began: " +
			"events wait in a buffer until the response (flush each one: http.ResponseController.Flush)", Want: "the first progress event after about 100 ms"})
	}
	slow.HangUp() // the server is stopped when the check ends
}

var http37 = &check.Check{
	ID: "HTTP-37", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "a request with a progress token gets its SSE stream at once, before its first progress, even one that never reports any",
	Spec:  spec.RequestAnswer,
	Course: "The spec lets the server choose JSON or SSE per request. The course decides it for a request that carries _meta.progressToken: the client has said it expects a long request, " +
		"so its stream opens at once (and from stage 03 on, its first event is the point to resume from). The grader wants the headers of a countdown whose first step " +
		"takes 1.5 s within 0.7 s, and a ping with a progress token, a string or an integer, answered as an SSE stream.",
	Hint: check.Hint{
		Report: "In serveRequest, when wantsProgress(msg), call rp.open() before sess.Handle: the stream, and its headers, go out then, not with the first notification. " +
			"A request with a token that sends nothing is still answered on its stream.",
		Question: "When a request carries a progress token, when do your response's headers leave: at once, or with the first progress notification?",
		Pointer:  "Lesson 02, step 5: a request with a progress token gets its stream at once (rp.open(), which calls h.streams.Open and flushes the headers). basic/utilities/progress: the token is a string or an integer.",
		Near: `	rp := h.newReply(w, r, sess)
	if wantsProgress(msg) {
		rp.open() // headers now, before the request has anything to say
	}
	resp := sess.Handle(ctx, msg, rp)`,
	},
	Claims: []check.Claim{
		{Claim: "a request with a progress token gets its SSE stream at once, before any progress, and keeps it even when it reports none", Where: "step 5",
			How: "a countdown whose first step takes 1.5 s must have its headers within 0.7 s; pings with a string and an integer progress token must be answered as text/event-stream"},
	},
	Checklist: []string{"C10", "D12"},
	Run:       checkHTTPProgressStreamAtOnce,
}

func checkHTTPProgressStreamAtOnce(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	sent := time.Now()
	slow := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Within: 3 * time.Second, Purpose: "a countdown whose first step takes 1.5 s, with a progress token",
		Body: wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 1, "interval_ms": 1500}, "p-late"))})
	if took := time.Since(sent); took > 700*time.Millisecond {
		t.Fail(check.Failure{What: fmt.Sprintf("a countdown with a progress token, whose first step takes 1.5 s, had its response headers only after %v: its stream waited for the first progress",
			took.Round(time.Millisecond)), Got: fmt.Sprintf("HTTP %d, Content-Type: %s", slow.Status, slow.Header.Get("Content-Type")),
			Want: "the headers of an SSE stream at once (rp.open() before sess.Handle)"})
	}
	expectStream(t, slow, "a countdown whose first step takes 1.5 s", "the stream at once, its progress later")
	slow.HangUp()
	for i, token := range []any{"p-ping", 7} {
		params := map[string]any{"_meta": map[string]any{"progressToken": token}}
		id := fmt.Sprint(3 + i)
		what := fmt.Sprintf("a ping with progress token %v", token)
		resp := h.Post(session, spec.Rev, wire.Request(id, "ping", params), what)
		if resp.Status != http.StatusOK || resp.ContentType != "text/event-stream" {
			t.Fail(check.Failure{What: what + " was not answered as an SSE stream: a request with a progress token gets its stream at once, whether it reports progress or not",
				Got: resp.Summary(), Want: "HTTP 200, Content-Type: text/event-stream, the response as its event"})
		}
		probe.ExpectResponse(t, resp, id, what)
	}
}

var http31 = &check.Check{
	ID: "HTTP-31", Step: 5, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Course: probe.NotesLog},
	Title: "a request that sends a message before its response gets an SSE stream: the message, the response, the end; a quick request stays JSON",
	Spec:  spec.Sending("The server MAY send JSON-RPC requests and notifications before sending the JSON-RPC response. These messages SHOULD relate to the originating client request."),
	Course: "The spec lets a server answer a request with JSON or with an SSE stream, and says the messages before the response SHOULD relate to that request; the course requires " +
		"both halves of its lazy answer: a request that says nothing before its response gets plain JSON, and one that speaks (add_note logs its note) gets an SSE stream " +
		"that carries its message, then its response. No GET stream is open, and none is needed.",
	Hint: check.Hint{
		Report: "Give every request a reply of its own as its mcp.Peer (h.newReply): nothing is written until the request either sends a message (then Send opens the stream, " +
			"h.streams.Open, and the message is its first event) or returns its response (then, if no stream was opened, the response goes out as JSON).",
		Question: "When add_note logs its note, which Peer does the log message go to, and what has been written on the POST's response by then?",
		Pointer:  "› Sending Messages to the Server: a request gets application/json or text/event-stream, and the messages before the response SHOULD relate to that request. A Peer is whatever Send is called on.",
		Near: `In reply.Send, under rp.mu:

	if rp.ended {
		return errAnswered
	}
	rp.openLocked() // the first message turns the answer into a stream
	return rp.stream.Send(ctx, msg)

and in serveRequest, pass rp to sess.Handle, then stream := rp.end(): nil means JSON.`,
	},
	Claims: []check.Claim{
		{Claim: "a request's answer is JSON until the request sends a message before its response; then it becomes an SSE stream with that message, the response, and the end", Where: "concept, step 5",
			How: "ping and echo must get application/json; add_note, which logs its note, must get text/event-stream with the log message before the response, in a session with no GET stream"},
	},
	Checklist: []string{"C10", "C12", "C14"},
	Run:       checkLazyUpgrade,
}

func checkLazyUpgrade(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	for _, c := range []struct{ id, body, what string }{
		{`2`, wire.Request(`2`, "ping", nil), "ping"},
		{`3`, wire.Request(`3`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "quick"}, nil)), "echo"},
	} {
		resp := h.Post(session, spec.Rev, c.body, c.what)
		probe.ExpectStatus(t, resp, http.StatusOK, c.what)
		if resp.ContentType != "application/json" {
			t.Fail(check.Failure{What: c.what + " sends nothing before its response, and was not answered as plain JSON", Got: resp.Summary(),
				Want: "HTTP 200, Content-Type: application/json: a stream is for a request that has something to send first"})
		}
		probe.ExpectResponse(t, resp, c.id, c.what)
	}
	probe.NoteOnItsStream(t, h, session, spec.Rev, `4`, fmt.Sprintf("note-%d", time.Now().UnixNano()%1e9))
}

var http32 = &check.Check{
	ID: "HTTP-32", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Course: probe.ClearNotes},
	Title: "a tool's question to the client (elicitation/create) travels at once on its call's stream; the answer, POSTed back, reaches the tool",
	Spec:  spec.Sending("The server MAY send JSON-RPC requests and notifications before sending the JSON-RPC response. These messages SHOULD relate to the originating client request."),
	Course: "The course requires a request of the server's own to travel on the stream of the call that makes it, flushed at once: clear_notes cannot answer before the client " +
		"confirms, so a message held back until the response would wait for ever. The answer is a JSON-RPC response in a POST of its own, which MUST get 202, and must reach the waiting tool.",
	Hint: check.Hint{
		Report: "Send each message on the request's stream as it comes, and flush it: never hold messages back until the response is known. The client's answer arrives in another POST, " +
			"with the same session id, and goes to sess.Handle like any response, which hands it to the waiting call.",
		Question: "clear_notes waits for the client's answer before it can return: when does your reply write its question to the client?",
		Pointer:  "› Sending Messages to the Server: a response from the client is a POST of its own, answered 202. mcp.Request.Call sends the request through the request's Peer and waits for the response that Session.Handle delivers.",
		Near: `reply.Send writes at once, on the stream it opens:

	rp.openLocked()
	return rp.stream.Send(ctx, msg) // flushed: the stream's Send flushes each event

and servePOST hands a response from the client to sess.Handle, then answers 202.`,
	},
	Claims: []check.Claim{
		{Claim: "a request of the server's own travels on the stream of the call that makes it, at once; the client's answer, in a POST, gets 202 and reaches the waiting tool", Where: "concept, step 5",
			How: "clear_notes's elicitation/create must arrive within 1 s while the call waits; the grader POSTs the answer, then wants the call's result on the same stream"},
	},
	Checklist: []string{"C8", "C12"},
	Run:       checkServerRequestOnTheCallsStream,
}

func checkServerRequestOnTheCallsStream(t *check.T) {
	h := wire.StartHTTP(t)
	session := probe.InitializeEliciting(t, h, spec.Rev)
	probe.CallTool(t, h, session, `2`, "add_note", map[string]any{"text": "to be cleared"})
	s := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Body: probe.ClearNotesCall(`3`), Within: time.Second,
		Purpose: "clear_notes, which asks the client to confirm before it answers"})
	q := probe.AwaitQuestion(t, s, time.Second)
	probe.Answer(t, h, session, spec.Rev, q)
	probe.ExpectCleared(t, s, `3`, 1)
}

var http38 = &check.Check{
	ID: "HTTP-38", Step: 5, Severity: check.Must, Budget: 12 * time.Second,
	Needs: check.Needs{Course: probe.NotesLog},
	Title: "at 2025-03-26, a batch's messages travel on the batch's own answer: one well-formed SSE stream, with every log message and every response, batch after batch",
	Spec:  spec.Sending("The server MAY send JSON-RPC requests and notifications before sending the JSON-RPC response. These messages SHOULD relate to the originating client request."),
	Course: "The course requires the messages a batch's requests send before their responses to travel on the batch's own answer, as a single request's do: " +
		"the batch's requests run at once and share one reply, so their first messages race to open its stream. The grader sends 60 batches of 8 add_note calls and 8 one-step countdowns, " +
		"three clients at a time, and reads each answer strictly: one SSE stream, each event one JSON-RPC message, every log message, every progress notification and every response exactly once.",
	Hint: check.Hint{
		Report: "In serveBatch, pass the batch's reply (rp := h.newReply(w, r, sess)) to stdio.ServeBatch as its peer, never nil, and send each response on the stream rp.end() returns. " +
			"The batch's requests run concurrently and share that reply: reply.Send must hold rp.mu while it opens the stream and writes, or two of them open two streams on one response.",
		Question: "When eight requests of one batch log at the same moment, how many SSE streams does your reply open on the one HTTP response? What keeps two of them from writing at once?",
		Pointer:  "Lesson 02, step 5: a batch's messages travel on its own answer too. The requests of a batch run concurrently (stage 01's ServeBatch), so whatever they share needs a lock. GRADER_RACE=1 lets the race detector look as well.",
		Near: `In serveBatch:

{{quote 0}}

and reply.Send holds rp.mu from the check of rp.ended to the end of the write.`,
		Quotes: []check.Source{{File: "solutions/02-streamable-http/post.go", Func: "serveBatch", From: "rp := h.newReply(w, r, sess)", To: "stream.Close()"}},
	},
	Claims: []check.Claim{
		{Claim: "a batch's requests speak on the batch's own answer, one SSE stream, with every log message and every response", Where: "step 5",
			How: "60 batches at 2025-03-26 of 8 add_note calls (each logs) and 8 countdowns of one step (each reports progress at once), three clients at once; each answer read strictly: text/event-stream, each event one JSON-RPC message, each log, each progress and each response exactly once"},
	},
	Checklist: []string{"A8", "C12"},
	Run:       checkBatchOnItsStream,
}

func checkBatchOnItsStream(t *check.T) {
	h := wire.StartHTTP(t)
	// Each batch holds 8 add_note calls, which log their notes, and 8
	// countdowns of one step with no wait, which report their progress at
	// once: their first messages race to open the batch's stream. 20
	// batches per client, three clients at once; a session holds at most
	// 100 notes, so each client starts a new one every 12 batches.
	const batches, half, perSession = 20, 8, 12
	run := func(worker int) func() {
		return func() {
			var session string
			for b := 0; b < batches; b++ {
				if b%perSession == 0 {
					session, _ = h.Initialize("2025-03-26")
				}
				// Each call, and the text its message before the response
				// holds: the note, or the progress token, quoted.
				var calls, ids, marks []string
				for i := 0; i < half; i++ {
					id, note := fmt.Sprintf(`"n%d-%d-%d"`, worker, b, i), fmt.Sprintf("batch-note-%d-%d-%d", worker, b, i)
					calls = append(calls, wire.Request(id, "tools/call", wire.ToolCall("add_note", map[string]any{"text": note}, nil)))
					ids, marks = append(ids, id), append(marks, strconv.Quote(note))
					id, token := fmt.Sprintf(`"c%d-%d-%d"`, worker, b, i), fmt.Sprintf("tk-%d-%d-%d", worker, b, i)
					calls = append(calls, wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 1, "interval_ms": 0}, token)))
					ids, marks = append(ids, id), append(marks, strconv.Quote(token))
				}
				what := fmt.Sprintf("batch %d of client %d: %d add_note calls, which log their notes, and %d countdowns, which report progress at once", b+1, worker+1, half, half)
				resp := h.Do(wire.Req{Header: wire.Headers(session, "2025-03-26"), Body: "[" + strings.Join(calls, ",") + "]", Within: 2 * wire.T2, Purpose: what})
				if resp.Status != http.StatusOK || resp.ContentType != "text/event-stream" {
					t.Fail(check.Failure{What: "the answer to " + what + " is not an SSE stream, so their messages did not travel with it", Got: resp.Summary(),
						Want: "HTTP 200, Content-Type: text/event-stream: the notes' notifications/message and the countdowns' notifications/progress, and the responses"})
				}
				responses, before := map[string]int{}, map[string]int{}
				for _, e := range resp.Events {
					if e.Data == "" {
						continue
					}
					m, err := wire.Parse([]byte(e.Data))
					if err != nil {
						t.Fail(check.Failure{What: fmt.Sprintf("an event of the answer to %s is not one JSON-RPC message (%v): two writers wrote the stream at once", what, err),
							Got: check.Quote(e.Data), Want: "each event's data one JSON-RPC message"})
					}
					for k, id := range ids {
						switch {
						case m.IsResponseTo(id) && m.Error == nil:
							responses[id]++
						case m.ID == nil && bytes.Contains(m.Params, []byte(marks[k])):
							before[id]++
						}
					}
				}
				for _, id := range ids {
					if responses[id] != 1 || before[id] != 1 {
						t.Fail(check.Failure{What: fmt.Sprintf("the answer to %s held call %s's message %d times and its result %d times", what, id, before[id], responses[id]),
							Got: resp.Summary(), Want: "each call's notification (the note's log, the countdown's progress) once, and its result once, on the batch's one stream"})
					}
				}
			}
		}
	}
	t.Parallel(run(0), run(1), run(2))
	expectNoHandlerReports(t, h, "the batches")
}

// expectStream fails the check unless stream is an SSE response with 200.
func expectStream(t *check.T, stream *wire.Stream, what, want string) {
	if stream.Status != http.StatusOK || stream.ContentType != "text/event-stream" {
		t.Fail(check.Failure{What: "a request with a progress token (" + what + ") was not answered as an SSE stream, so its progress could not travel",
			Got: fmt.Sprintf("HTTP %d, Content-Type: %s", stream.Status, stream.Header.Get("Content-Type")), Want: "HTTP 200, Content-Type: text/event-stream: " + want})
	}
}

var http23 = &check.Check{
	ID: "HTTP-23", Step: 5, Severity: check.Must, Budget: 10 * time.Second,
	Title: "notifications/cancelled in its own POST stops a running request, which is answered by an SSE stream that ends without a response",
	Spec: check.Spec{Rev: spec.Rev, Section: "basic/transports › Streamable HTTP › Sending Messages to the Server; basic/utilities/cancellation",
		Quote: "To cancel, the client SHOULD explicitly send an MCP CancelledNotification"},
	Course: "The spec says receivers SHOULD stop a cancelled request and SHOULD NOT answer it; the course requires both.",
	Hint: check.Hint{
		Report: "The cancellation arrives on another POST, with the same session id: it must reach the same mcp.Session as the running request, which then returns nil. " +
			"End that request's stream without a JSON-RPC response; a request that was to be answered with JSON gets a stream that ends at once " +
			"(h.streams.Open(w, r, sess).Close()). Not 204: a POST that holds a request MUST be answered with JSON or SSE.",
		Question: "The cancellation comes in another POST with the same session id: does it reach the same mcp.Session as the running request? What does your server write when Handle then returns nil?",
		Pointer:  "basic/utilities/cancellation: the receiver should stop and not answer a cancelled request. A POST that holds a request MUST be answered with application/json or text/event-stream, so a cancelled one gets a stream that ends with no event.",
		Near: `Both POSTs go through h.Session, so they reach the same mcp.Session. In serveRequest, after stream := rp.end():

	switch {
	case stream != nil: // send resp only if it is not nil, then stream.Close()
	case resp != nil: // JSON
	default: // cancelled, and no stream was opened: one that ends at once
		h.streams.Open(w, r, sess).Close()
	}`,
	},
	Claims: []check.Claim{
		{Claim: "notifications/cancelled in its own POST gets 202 and stops the request; its stream ends without a response", Where: "step 5"},
		{Claim: "a cancelled request that was to be answered with JSON gets 200 text/event-stream that ends without an event, never 204", Where: "step 5"},
	},
	Checklist: []string{"C10", "D11"},
	Run:       checkHTTPCancellation,
}

func checkHTTPCancellation(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	cancelled := func(id string, token any, kind string) {
		done := make(chan *wire.Response, 1)
		go func() {
			defer close(done)
			done <- h.Do(wire.Req{Header: wire.Headers(session, spec.Rev), Within: 6 * time.Second, Purpose: "countdown of 2 s, " + kind + ", to be cancelled",
				Body: wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 40, "interval_ms": 50}, token))})
		}()
		probe.Pause(t, 300*time.Millisecond) // let the countdown start
		resp := h.Post(session, spec.Rev, wire.Notification("notifications/cancelled", map[string]any{"requestId": json.RawMessage(id), "reason": "grader"}),
			"notifications/cancelled for id "+id)
		expectAccepted(t, resp, "notifications/cancelled")
		at := time.Now()
		countdown, ok := <-done
		if !ok {
			t.FailNow() // the countdown's request failed; its report says why
		}
		if m := countdown.Find(id); m != nil {
			t.Fail(check.Failure{What: "the cancelled countdown (" + kind + ") still got a response", Got: check.Quote(string(m.Raw)), Want: "the stream ends without a response"})
		}
		if countdown.Status != http.StatusOK || countdown.ContentType != "text/event-stream" {
			t.Fail(check.Failure{What: "the cancelled countdown (" + kind + ") was not answered with an SSE stream that ends: a POST that holds a request MUST get " +
				"Content-Type application/json (one JSON-RPC object) or text/event-stream", Got: countdown.Summary(),
				Want: "HTTP 200, Content-Type: text/event-stream, and a body that ends without a response",
				Spec: countdown.ContentType != "text/event-stream" && countdown.ContentType != "application/json"})
		}
		if waited := time.Since(at); waited > 1500*time.Millisecond {
			t.Fail(check.Failure{What: fmt.Sprintf("the cancelled countdown (%s) took %v more to end", kind, waited.Round(time.Millisecond)),
				Want: "the request stops within moments of the cancellation"})
		}
	}
	t.Parallel(func() { cancelled(`2`, "c", "answered as an SSE stream") }, func() { cancelled(`3`, nil, "which would have been answered as JSON") })
}

var http30 = &check.Check{
	ID: "HTTP-30", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.History}},
	Title: "a client that drops its connection has not cancelled: the request runs to its end (seen in the history tool)",
	Spec:  spec.Sending("Disconnection SHOULD NOT be interpreted as the client cancelling its request"),
	Course: "The spec says SHOULD NOT; in stateful mode the course requires it: a request stops when the client cancels it, or when its session ends. " +
		"The grader hangs up on two countdowns, one answered as JSON and one as an SSE stream, then asks the session's history tool how they ended.",
	Hint: check.Hint{
		Report: "Run requests under the given h.requestContext(r): in stateful mode it is context.WithoutCancel(r.Context()), so that a dropped connection " +
			"does not cancel the request. r.Context() alone is cancelled the moment the client goes away.",
		Question: "Which context does a request run under: the connection's, which ends when the client hangs up, or one that ends only when the client cancels or the session ends?",
		Pointer:  "r.Context() is cancelled when the client's connection closes. context.WithoutCancel keeps its values without its cancellation. basic/transports › Sending Messages to the Server: disconnection SHOULD NOT be taken for cancellation.",
		Near: `Run every request under the given h.requestContext(r), which in stateful mode is

	context.WithoutCancel(r.Context())

and never under r.Context() itself: sess.Handle(h.requestContext(r), msg, stream).`,
	},
	Claims: []check.Claim{
		{Claim: "a dropped connection does not cancel a request in stateful mode", Where: "step 5", How: "the grader hangs up on a JSON and an SSE countdown, then reads the session's history tool: both must say finished (if the JSON request had not reached the server before the hang-up, only the SSE one counts)"},
	},
	Checklist: []string{"C15"},
	Run:       checkHTTPDisconnectIsNotCancel,
}

func checkHTTPDisconnectIsNotCancel(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	probe.RequireHistory(t, h, session)
	countdown := func(id string, token any) string {
		return wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 8, "interval_ms": 100}, token))
	}
	// One answered as JSON: hang up while it runs. (Had the request not
	// reached the server by then, on a loaded machine, the history shows no
	// entry for it, and there is nothing to judge.)
	h.Abandon(wire.Req{Header: wire.Headers(session, spec.Rev), Body: countdown(`21`, nil), Purpose: "a 0.8 s countdown, answered as JSON"}, 300*time.Millisecond)
	// One answered as a stream: hang up after its first event.
	stream := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Body: countdown(`22`, "d"), Purpose: "a 0.8 s countdown with a progress token"})
	if stream.ContentType != "text/event-stream" {
		t.Fail(check.Failure{What: "a countdown with a progress token was not answered as an SSE stream, so the grader could not hang up on it while it ran",
			Got: "Content-Type: " + stream.Header.Get("Content-Type"), Want: "Content-Type: text/event-stream (step 5)"})
	}
	stream.Next(time.Second, "first progress event of the countdown")
	stream.HangUp()

	want := []string{"countdown (id 22)"}
	// Both countdowns end 0.8 s after they start; the history tool says how.
	var history string
	deadline := time.Now().Add(2500 * time.Millisecond)
	for asked := 1; ; asked++ {
		probe.Pause(t, 300*time.Millisecond)
		history = probe.CallTool(t, h, session, fmt.Sprintf(`"history-%d"`, asked), "history", nil)
		ended := 0
		for _, w := range append(want, "countdown (id 21)") {
			if strings.Contains(history, w+": ") {
				ended++
			}
		}
		if ended == len(want)+1 || time.Now().After(deadline) {
			break
		}
	}
	if strings.Contains(history, "countdown (id 21): ") {
		want = append(want, "countdown (id 21)")
	}
	for _, w := range want {
		if !strings.Contains(history, w+": finished") {
			t.Fail(check.Failure{What: "a countdown whose client hung up did not run to its end: the server took the dropped connection for a cancellation",
				Got: check.Quote(history), Want: w + ": finished"})
		}
	}
}
