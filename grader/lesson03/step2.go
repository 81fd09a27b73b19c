package lesson03

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step2 holds the checks of step 2: event ids on every stream.
var step2 = check.Step{
	Checks: []*check.Check{sse11, sse12, sse13, sse14, sse15, sse16, sse36},
}

var sse11 = &check.Check{
	ID: "SSE-11", Step: 2, Severity: check.Must, Budget: 6 * time.Second,
	Title: "a POST stream flushes each event as it happens, then the response, then ends; no token still gets JSON",
	Spec:  spec.Sending("After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream."),
	Course: "Progress is only useful live: the course requires each event to reach the client when it is produced (the grader runs a countdown " +
		"with 400 ms between steps and wants the first progress event long before the response), and a request without a progress token to keep getting application/json.",
	StarterMayPass: "the starter's Open returns stage 02's plain stream, which already flushes each event; the check guards that your resumable streams keep doing so",
	Hint: check.Hint{
		Report:   "After writing each event, call http.ResponseController.Flush. Without it, net/http buffers the events and sends them all when the handler returns.",
		Question: "When does an event you write reach the client?",
		Pointer:  "http.ResponseController.Flush; net/http buffers a response until it is flushed or the handler returns.",
		Near:     "ew.write: SetWriteDeadline, w.Write(b), then ew.flush(); every event goes through it.",
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "each event is flushed as it is written, and a POST stream ends after its response; no progress token, JSON", Where: "step 2", How: "a countdown with 400 ms steps: the first progress event must come long before the response"},
	},
	Run: checkPOSTStreamFlushes,
}

func checkPOSTStreamFlushes(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	token := nonce("p")
	s := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 3, 400, token), "countdown from 3, 400 ms per step, with a progress token")
	if courseServer(t) {
		expectStreamHeaders(t, s, "the countdown's POST stream")
	}
	var msgs []*wire.Msg
	var firstProgress, response time.Time
	for response.IsZero() {
		m, _ := s.Await(wire.T2, "the countdown's progress and response", func(*wire.Msg) bool { return true }, nil)
		msgs = append(msgs, m)
		switch {
		case m.IsResponseTo(`2`):
			response = time.Now()
		case m.MethodName() == "notifications/progress" && firstProgress.IsZero():
			firstProgress = time.Now()
		}
	}
	if values := probe.ProgressValues(t, msgs, json.RawMessage(`"`+token+`"`)); len(values) != 3 {
		t.Fail(check.Failure{What: fmt.Sprintf("the stream carried %d progress notifications before the response", len(values)), Want: "3: one per step"})
	}
	if gap := response.Sub(firstProgress); gap < 400*time.Millisecond {
		t.Fail(check.Failure{What: fmt.Sprintf("the first progress event arrived only %v before the response, which came 800 ms after it was sent: the events were not flushed as they were written", gap.Round(time.Millisecond)),
			Want: "each event on the wire when it is produced: the first progress about 800 ms before the response"})
	}
	if events, ended := s.End(time.Second); !ended {
		t.Fail(check.Failure{What: "the POST stream was still open 1 s after its response", Got: describeEvents(events), Want: "the stream ends after the response"})
	}
	resp := h.Post(session, spec.Rev, wire.Request(`3`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "plain"}, nil)), "echo without a progress token")
	if resp.ContentType != "application/json" {
		t.Fail(check.Failure{What: "a request without a progress token was not answered with application/json", Got: resp.Summary(),
			Want: "Content-Type: application/json, as in lesson 02"})
	}
}

var sse12 = &check.Check{
	ID: "SSE-12", Step: 2, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "at 2025-11-25, every new stream opens with a priming event (an id, empty data) and a retry field: a POST's, the GET stream, and each later GET",
	Spec:  spec.Sending("The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect (using that event ID as Last-Event-ID)."),
	Course: "The spec says SHOULD; the course requires it, with a retry field in it (the spec: SHOULD, before the server closes a connection), " +
		"on every stream the server starts: a POST's answer, the standalone GET stream, and every later fresh GET of the session, whose connection breaks as easily as the first. " +
		"Without an id, a client whose connection breaks before the first message has nothing to resume from. The retry value is a number of milliseconds in ASCII digits (the WHATWG rules ignore anything else); " +
		"on the course's servers it is the given retryAfter, 1000, and replayed events carry none (SSE-21 and the other resume checks read that).",
	Hint: check.Hint{
		Report:   "When the session negotiated 2025-11-25 (mcp.ProtocolVersion.Priming), log and write an event with no message first, on every stream you open, GETs included: \"id: 1-1\\nretry: 1000\\ndata:\\n\\n\".",
		Question: "What does a client resume from if its connection breaks before the first message, on a POST's stream or on its third GET?",
		Pointer:  "basic/transports › Sending Messages to the Server: the priming event (an id, empty data) and the retry field, in milliseconds (WHATWG: digits only); mcp.ProtocolVersion.Priming.",
		Near:     "In Open and in listen, under s.mu after attaching, every time: if v, _ := sess.Version(); v.Priming { s.sendLocked(nil, retryAfter) }; appendEvent writes \"retry: \" and retry.Milliseconds().",
	},
	Claims: []check.Claim{
		{Claim: "at 2025-11-25 every new stream opens with a priming event (an id, a data field, empty data) and a retry field in digits", Where: "concept, step 2",
			How: "a course rule (the spec says SHOULD), on a POST stream, the first GET and a second fresh GET of the session; fields read by the WHATWG rules"},
	},
	Run: checkPriming,
}

func checkPriming(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	s := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 1, 0, nonce("p")), "countdown with a progress token, at 2025-11-25")
	events, _ := s.End(wire.T2)
	if !anyID(events) {
		// A priming event invites the client to resume: a server that
		// offers no resumption has no reason to send one.
		skipWithoutEventIDs(t, "the countdown's stream")
	}
	expectPrimed(t, events, "the POST stream", withoutIDs(events))
	expectCourseRetry(t, s, "the POST stream")
	t.Case("the GET streams", func() {
		g := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, ""), Purpose: "GET with the session, at 2025-11-25"})
		if t.Target.External() && g.Status == http.StatusMethodNotAllowed {
			t.Wire.Event("the server offers no standalone stream (405): only its POST streams are primed")
			return
		}
		probe.ExpectEventStream(t, g, "GET with the session", probe.CauseGETStream)
		expectPrimed(t, []wire.Event{g.Next(wire.T1, "priming event of the GET stream")}, "the GET stream", "")
		g.HangUp()
		again := reopenGET(t, h, session, spec.Rev, "a second fresh GET, after the first client hung up")
		expectPrimed(t, []wire.Event{again.Next(wire.T1, "priming event of the second GET stream")}, "the second fresh GET stream", "")
	})
}

// expectPrimed fails unless events, the first of a stream, open with a
// priming event: an id, a data field with nothing in it, and a valid retry
// field in it or in another event before the first message.
func expectPrimed(t *check.T, events []wire.Event, what, cause string) {
	if len(events) == 0 || !events[0].SetID || events[0].ID == "" || events[0].Data != "" || events[0].NoData {
		t.Fail(check.Failure{What: what + " does not open with a priming event", Got: describeEvents(events),
			Want: "a first event with an id and an empty data field, such as\nid: 1-1\nretry: 1000\ndata:", Cause: cause})
	}
	for _, e := range events {
		if e.Data != "" {
			break
		}
		if e.Retry != "" {
			return
		}
	}
	t.Fail(check.Failure{What: "no valid retry field came before the first message on " + what, Got: describeEvents(events),
		Want: "a retry: line with a number of milliseconds in ASCII digits, in the priming event (a client ignores any other value)"})
}

// reopenGET opens a fresh GET (no Last-Event-ID) in session once the
// server has seen the previous one's client leave: up to 2 s (SSE-06 is
// the check that wants it within 1 s).
func reopenGET(t *check.T, h *wire.HTTP, session, version, purpose string) *wire.Stream {
	var g *wire.Stream
	if !probe.Settle(t, 2*time.Second, func() bool {
		g = h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, version, ""), Purpose: purpose})
		if g.Status == http.StatusOK && g.ContentType == "text/event-stream" {
			return true
		}
		g.End(wire.T1)
		return false
	}) {
		t.Fail(check.Failure{What: "2 s after the previous GET's client hung up, " + purpose + " was still refused", Got: probe.StreamSummary(g), Want: "HTTP 200 text/event-stream"})
	}
	return g
}

// withoutIDs names causeEventIDs when events came and none had an id: the
// stream has no ids at all, which SSE-14 tests.
func withoutIDs(events []wire.Event) string {
	for _, e := range events {
		if e.SetID {
			return ""
		}
	}
	if len(events) == 0 {
		return ""
	}
	return causeEventIDs
}

var sse13 = &check.Check{
	ID: "SSE-13", Step: 2, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.GETStream}},
	Title: "at 2025-06-18 and 2025-03-26, no priming event and no retry field, on POST streams and on every GET stream",
	Spec:  check.Spec{Rev: spec.Rev, Section: "basic/transports › Streamable HTTP › Sending Messages to the Server (the priming event is new in 2025-11-25)", Quote: "The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field"},
	Course: "Events with empty data broke clients written for earlier revisions (go-sdk #768, typescript-sdk #1184, python-sdk #1719), so every SDK sends " +
		"the priming event only to sessions that negotiated 2025-11-25. The course requires the same on every stream, the standalone GET stream and each later GET included: judge the session's version row, not the server's, and not whether a version was found.",
	Hint: check.Hint{
		Report:   "Decide by the session's negotiated version (sess.Version()), from the version table: only 2025-11-25 has Priming set. The same test in Open and in listen.",
		Question: "Whose protocol version decides, and what does the version row say: that the version exists, or that it primes?",
		Pointer:  "The version table in internal/mcp/versions.go: only 2025-11-25 has Priming; sess.Version() is what the session negotiated.",
		Near:     "Gate the priming event on the session's version row, v.Priming, in Open and in listen, never on a constant or on Version's ok.",
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "no priming event and no retry at 2025-06-18 and 2025-03-26", Where: "concept, step 2", How: "a POST stream, the first GET and a second fresh GET, at each version"},
	},
	Run: checkNoPrimingBefore20251125,
}

func checkNoPrimingBefore20251125(t *check.T) {
	h := wire.StartHTTP(t)
	for _, v := range []string{"2025-06-18", "2025-03-26"} {
		session, _ := h.Initialize(v)
		s := openPOST(t, h, session, v, probe.CountdownCall(`2`, 2, 0, nonce("p")), "countdown with a progress token, at "+v)
		events, _ := s.End(wire.T2)
		expectUnprimed(t, events, "the POST stream of a session that negotiated "+v)
		t.Case("the GET streams at "+v, func() {
			g := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, v, ""), Purpose: "GET with the session, at " + v})
			if t.Target.External() && g.Status == http.StatusMethodNotAllowed {
				return // no standalone stream: nothing to prime
			}
			probe.ExpectEventStream(t, g, "GET with the session, at "+v, probe.CauseGETStream)
			events, _ := g.End(300 * time.Millisecond)
			expectUnprimed(t, events, "the GET stream of a session that negotiated "+v)
			g.HangUp()
			again := reopenGET(t, h, session, v, "a second fresh GET at "+v+", after the first client hung up")
			events, _ = again.End(300 * time.Millisecond)
			expectUnprimed(t, events, "the second GET stream of a session that negotiated "+v)
			again.HangUp()
		})
	}
}

// expectUnprimed fails if any of events has empty data or a retry field.
func expectUnprimed(t *check.T, events []wire.Event, what string) {
	for _, e := range events {
		if e.Data == "" || e.Retry != "" {
			t.Fail(check.Failure{What: what + " got an event with empty data or a retry field, which clients of that revision may not expect",
				Got: describeEvents(events), Want: "only events that carry a message"})
		}
	}
}

var sse14 = &check.Check{
	ID: "SSE-14", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title:  "every event carries an id, unique across all the session's streams",
	Spec:   resumeRule("If present, the ID MUST be globally unique across all streams within that session"),
	Course: resumeCourse + " Ids that repeat across streams make a Last-Event-ID ambiguous.",
	Hint: check.Hint{
		Report:   "Number each stream (0 for the standalone one) and each event within its stream, and write both: \"id: 2-7\" is event 7 of stream 2. A per-stream count alone repeats on every stream.",
		Question: "If two streams both number their events 1, 2, 3, which stream does Last-Event-ID: 2 mean?",
		Pointer:  "basic/transports › Resumability and Redelivery: ids MUST be unique across all streams of a session, and SHOULD name their stream.",
		Near:     "event.id returns strconv.Itoa(e.stream) + \"-\" + strconv.FormatUint(e.n, 10); each stream counts its own events in s.last, and the standalone stream keeps counting across GETs.",
	},
	Claims: []check.Claim{
		{Claim: "every event of every stream has an id, unique across the session's streams", Where: "concept, step 2", How: "ids from two POST streams and two GETs of one session"},
	},
	Checklist: []string{"C26"},
	Split:     &check.Split{Rule: "replay", Parts: "duplicate event ids, or another stream's messages in a replay, break the spec; events without ids, or missed events not replayed, only the course", Also: []string{"SSE-21", "SSE-22"}},
	Run:       checkUniqueIDs,
}

func checkUniqueIDs(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session")
	a := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`"a"`, 3, 0, nonce("a")), "countdown A")
	evA, _ := a.End(wire.T2)
	b := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`"b"`, 3, 0, nonce("b")), "countdown B")
	evB, _ := b.End(wire.T2)
	evG, _ := g.End(300 * time.Millisecond)
	g.HangUp()
	var evG2 []wire.Event
	if !probe.Settle(t, time.Second, func() bool {
		g2 := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, ""), Purpose: "a new GET, after the first hung up"})
		if g2.Status != http.StatusOK || g2.ContentType != "text/event-stream" {
			g2.Close()
			return false
		}
		evG2, _ = g2.End(300 * time.Millisecond)
		return true
	}) {
		t.Fail(check.Failure{What: "1 s after the first GET hung up, a new GET was still refused", Want: "HTTP 200 text/event-stream"})
	}

	if !anyID(evA) && !anyID(evB) && !anyID(evG) && !anyID(evG2) {
		skipWithoutEventIDs(t, "the session's streams")
	}
	streams := []struct {
		name   string
		events []wire.Event
	}{{"POST A", evA}, {"POST B", evB}, {"the first GET", evG}, {"the second GET", evG2}}
	t.Case("ids unique across the session's streams", func() {
		defer t.SpecRule()() // the spec's MUST, for the ids that are present
		where := map[string]string{}
		for _, st := range streams {
			for _, e := range st.events {
				if !e.SetID || e.ID == "" {
					continue
				}
				if prev, dup := where[e.ID]; dup {
					t.Fail(check.Failure{What: fmt.Sprintf("the event id %q is used twice: on %s and on %s", e.ID, prev, st.name),
						Got:  "POST A: " + describeEvents(evA) + "\nPOST B: " + describeEvents(evB) + "\nGET: " + describeEvents(evG),
						Want: "ids unique across all the session's streams"})
				}
				where[e.ID] = st.name
			}
		}
	})
	t.Case("an id on every event", func() {
		for _, st := range streams {
			for _, e := range st.events {
				if !e.SetID || e.ID == "" {
					t.Fail(check.Failure{What: "an event on " + st.name + " has no id, so a client cannot resume from it", Got: describeEvents(st.events),
						Want: "an id: line in every event"})
				}
			}
		}
	})
}

var sse15 = &check.Check{
	ID: "SSE-15", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.Stateless},
	Title: "stateless: a POST stream has no priming event, since nothing can be resumed",
	Spec:  spec.Sending("The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect (using that event ID as Last-Event-ID)."),
	Course: "A priming event promises a stream the client can resume, and a stateless server has no session to resume it in (its GET is 405). " +
		"The course requires no priming event and no retry field in stateless mode.",
	StarterMayPass: "stage 02's plain streams have no priming event; the check guards that stateless streams stay that way",
	Hint: check.Hint{
		Report:   "In stateless mode, Open returns a plain stream (sse.NewStream), as stage 02 did: no ids, no log, no priming.",
		Question: "Can a client of a stateless server ever resume a stream?",
		Pointer:  "Stateless GET is 405, so a priming event promises what the server cannot keep; internal/sse.NewStream is stage 02's plain stream.",
		Near:     "At the top of Open: if h.opts.Stateless { return sse.NewStream(w) }.",
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "stateless POST streams are plain: no ids, no priming", Where: "step 2"},
	},
	Run: checkStatelessNoPriming,
}

func checkStatelessNoPriming(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	h.Initialize(spec.Rev)
	s := openPOST(t, h, "", spec.Rev, probe.CountdownCall(`2`, 2, 0, nonce("p")), "countdown with a progress token, stateless")
	events, _ := s.End(wire.T2)
	for _, e := range events {
		if e.Data == "" || e.Retry != "" {
			t.Fail(check.Failure{What: "a stateless POST stream carries a priming event or a retry field, inviting the client to resume a stream it cannot (GET is 405)",
				Got: describeEvents(events), Want: "only events that carry a message"})
		}
	}
	if len(messagesOf(events)) != 3 {
		t.Fail(check.Failure{What: "the stateless countdown's stream did not carry 2 progress events and the response", Got: describeEvents(events)})
	}
}

var sse16 = &check.Check{
	ID: "SSE-16", Step: 2, Severity: check.Must, Budget: 30 * time.Second,
	Needs: check.Needs{Flags: []string{"-debug", "-max-sessions"}},
	Title: "an idle session stays small, a short stream costs what it holds, not the whole replay buffer, and what the log drops or an ended session held is freed (heap via -debug)",
	Spec:  spec.NoLimit,
	Course: "A server holds thousands of sessions, most of them idle. The course requires per-session stream state to be made on the first stream and to grow " +
		"with its events: the grader opens 200 sessions and wants under 8 KiB each while idle, and under 12 KiB more after a 12-event stream.",
	StarterMayPass: "the starter keeps no stream state at all; the check guards that yours stays small as you add it",
	Hint: check.Hint{
		Report:   "Make a session's stream state on its first stream, not before, and start its ring small (make it grow like append does, up to ReplayBuffer).",
		Question: "What does a session cost before its first stream, and after a stream of three events?",
		Pointer:  "make([]T, n) allocates all n at once; append-style growth doubles as needed. The eventLog ring grows from initialRing.",
		Near:     "Create a session's sessionStreams only in streamsOf(sess, true), on its first stream, and let the ring grow up to ReplayBuffer instead of making it full size.",
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "an idle session holds no stream state, and a short stream costs what it holds, not the whole buffer", Where: "step 2", How: "heap of 200 sessions via -debug"},
		{Claim: "an ended session's streams and their log are let go of", Where: "step 2", How: "20 sessions holding a 128 KiB answer each, then DELETE: the heap comes back within 1 MiB"},
		{Claim: "an event dropped from the log is let go of at once", Where: "step 2", How: "two 2.1 MiB answers in one session, whose log keeps 4 MiB: the heap grows by one of them"},
	},
	Run: checkSessionsStaySmall,
}

func checkSessionsStaySmall(t *check.T) {
	const n = 200
	h := wire.StartHTTP(t, "-debug", "-max-sessions", "1000")
	h.Initialize(spec.Rev)
	before := h.VarInt("heap_live")
	var sessions []string
	for i := 0; i < n; i++ {
		s, _ := h.Initialize(spec.Rev)
		sessions = append(sessions, s)
	}
	idle := h.VarInt("heap_live")
	for i, s := range sessions {
		openPOST(t, h, s, spec.Rev, probe.CountdownCall(`2`, 10, 0, "p"), fmt.Sprintf("countdown from 10 in session %d", i+1)).End(wire.T1)
	}
	streamed := h.VarInt("heap_live")
	t.Wire.Event("heap after a GC: %d bytes; with %d idle sessions %d; after a stream in each %d", before, n, idle, streamed)
	if per := (idle - before) / n; per > 8<<10 {
		t.Fail(check.Failure{What: fmt.Sprintf("each idle session holds about %d KiB of heap", per>>10), Want: "under 8 KiB: nothing is made for streams before the first one"})
	}
	if per := (streamed - idle) / n; per > 12<<10 {
		t.Fail(check.Failure{What: fmt.Sprintf("a session's first stream, of 12 events, added about %d KiB to it", per>>10),
			Want: "under 12 KiB: the replay buffer grows with the events it holds, up to -replay-buffer"})
	}

	// Sessions that end let go of their streams' logs: 40 sessions, each
	// holding a 128 KiB answer for replay, then DELETE.
	const ended = 20
	big := strings.Repeat("x", 128<<10)
	beforeBig := h.VarInt("heap_live")
	var bigSessions []string
	for i := 0; i < ended; i++ {
		s, _ := h.Initialize(spec.Rev)
		p := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(s, spec.Rev), Within: bigUpload,
			Body: wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": big}, nonce("e"))), Purpose: fmt.Sprintf("a 128 KiB echo in session %d of %d", i+1, ended)})
		probe.ExpectEventStream(t, p, "a 128 KiB echo", "")
		p.End(bigUpload)
		bigSessions = append(bigSessions, s)
	}
	held := h.VarInt("heap_live")
	for i, s := range bigSessions {
		resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(s, spec.Rev), Purpose: fmt.Sprintf("DELETE session %d of %d", i+1, ended)})
		if resp.Status < 200 || resp.Status > 299 {
			t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status"})
		}
	}
	var freed int64
	probe.Settle(t, time.Second, func() bool {
		freed = h.VarInt("heap_live")
		return freed-beforeBig < 1<<20
	})
	t.Wire.Event("heap before the 128 KiB answers: %d bytes; holding them: %d; after DELETE of their %d sessions: %d", beforeBig, held, ended, freed)
	if freed-beforeBig >= 1<<20 {
		t.Fail(check.Failure{What: fmt.Sprintf("after DELETE of %d sessions whose logs held a 128 KiB answer each, the heap stayed %d KiB above where it was before them", ended, (freed-beforeBig)>>10),
			Want: "under 1 MiB: an ended session's streams and their log are let go of"})
	}
	expectDroppedFreed(t, h)
}

// anyID reports whether any of events carries an id.
func anyID(events []wire.Event) bool {
	for _, e := range events {
		if e.SetID && e.ID != "" {
			return true
		}
	}
	return false
}

var sse36 = &check.Check{
	ID: "SSE-36", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Flags: []string{"-keepalive", "-tick"}, Optional: []check.Feature{check.GETStream}},
	Title: "every stream is well-formed event-stream text: no field a client ignores, every event ended by a blank line",
	Spec: check.Spec{Rev: spec.Rev, Section: "basic/transports › Streamable HTTP (SSE, as the WHATWG HTML standard's \"Server-sent events\" defines it)",
		Quote: "Server can optionally make use of Server-Sent Events (SSE) to stream multiple server messages."},
	Course: "An event stream is read by the WHATWG \"interpreting an event stream\" rules, which ignore what they do not know: a field name in another case " +
		"(\"Data:\"), an unknown field, a retry that is not all ASCII digits (\"retry: 1s\"), an id with a NUL, and an event the stream ends in the middle of. " +
		"A server that writes one means something the client never sees. The course requires none: the grader reads a POST stream, a GET stream with " +
		"keep-alives (-keepalive 50ms) and ticks (-tick 40ms), and a second GET, field by field (resumed streams are read the same way in SSE-32 and SSE-35).",
	Hint: check.Hint{
		Report:   "Write each event as lines of \"name: value\" with the names in lower case (id, event, data, retry), retry in milliseconds as digits, a comment as \": text\", and a blank line after every event.",
		Question: "What does an EventSource do with a line it does not understand?",
		Pointer:  "WHATWG HTML › Server-sent events › Interpreting an event stream: field names are case-sensitive, unknown fields are ignored, retry must be ASCII digits.",
		Near:     "appendEvent: \"id: \", e.id(), \"\\n\"; \"retry: \" and strconv.AppendInt(b, retry.Milliseconds(), 10); \"event: message\\ndata: \" and the JSON; then \"\\n\\n\". comment: \": \" + text + \"\\n\\n\".",
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "every stream is well-formed event-stream text: lower-case known field names only, retry in digits, ids without NUL, every event ended by a blank line", Where: "concept, step 2",
			How: "a POST stream, a GET stream with keep-alives and ticks, and a second GET, read strictly by the WHATWG rules; resumed streams in SSE-32 and SSE-35"},
	},
	Run: checkWellFormed,
}

func checkWellFormed(t *check.T) {
	h := wire.StartHTTP(t, "-keepalive", "50ms", "-tick", "40ms")
	session, _ := h.Initialize(spec.Rev)
	p := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 3, 20, nonce("p")), "countdown from 3, 20 ms per step")
	p.End(wire.T2)
	expectWellFormed(t, p, "the countdown's POST stream")
	t.Case("the GET streams", func() {
		g := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, ""), Purpose: "GET with the session, with -keepalive 50ms and -tick 40ms"})
		if t.Target.External() && g.Status == http.StatusMethodNotAllowed {
			return // no standalone stream
		}
		probe.ExpectEventStream(t, g, "GET with the session", probe.CauseGETStream)
		g.End(400 * time.Millisecond)
		expectWellFormed(t, g, "the GET stream")
		g.HangUp()
		again := reopenGET(t, h, session, spec.Rev, "a second fresh GET, after the first client hung up")
		again.End(200 * time.Millisecond)
		expectWellFormed(t, again, "the second GET stream")
		again.HangUp()
	})
}

// expectWellFormed fails when a strict reading of s found a field a client
// would ignore, or an event cut off by the stream's end.
func expectWellFormed(t *check.T, s *wire.Stream, what string) {
	if bad := s.Malformed(); len(bad) > 0 {
		t.Fail(check.Failure{What: what + " is not well-formed event-stream text: " + bad[0], Got: strings.Join(bad, "\n"),
			Want: "lines of \"id: …\", \"event: …\", \"data: …\" and \"retry: <digits>\" (or comments), each event ended by a blank line"})
	}
}

// bigUpload is how long the grader waits for the answer to a request of
// megabytes: parsing and writing them is slow under the race detector, on
// a loaded machine slower still, and no rule here is about speed.
const bigUpload = 15 * time.Second

// expectDroppedFreed sends two answers of 2.1 MiB in one session, whose
// log keeps 4 MiB of messages: the second pushes the first out, and the
// heap must then hold about one of them, not both. (Only the byte bound
// frees slots that the next event does not take at once.)
func expectDroppedFreed(t *check.T, h *wire.HTTP) {
	session, _ := h.Initialize(spec.Rev)
	before := h.VarInt("heap_live")
	text := strings.Repeat("y", 2150<<10)
	for i := 2; i <= 3; i++ {
		s := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Within: bigUpload,
			Body: wire.Request(fmt.Sprint(i), "tools/call", wire.ToolCall("echo", map[string]any{"text": text}, nonce("e"))), Purpose: fmt.Sprintf("a 2.1 MiB echo, %d of 2", i-1)})
		probe.ExpectEventStream(t, s, "a 2.1 MiB echo", "")
		s.End(bigUpload)
	}
	var after int64
	probe.Settle(t, time.Second, func() bool {
		after = h.VarInt("heap_live")
		return after-before < 3<<20
	})
	t.Wire.Event("heap before two 2.1 MiB answers in a session that keeps 4 MiB: %d bytes; after: %d", before, after)
	if after-before >= 3<<20 {
		t.Fail(check.Failure{What: fmt.Sprintf("after two 2.1 MiB answers, of which the log keeps only the second, the heap grew by %d KiB", (after-before)>>10),
			Want: "about 2.1 MiB: an event dropped from the log is let go of (its slot cleared), not kept until the slot is reused"})
	}
}
