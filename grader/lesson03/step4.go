package lesson03

import (
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

// step4 holds the checks of step 4: resuming with Last-Event-ID.
var step4 = check.Step{
	Checks: []*check.Check{sse21, sse22, sse23, sse24, sse25, sse26, sse27, sse28, sse29, sse31, sse32, sse33, sse34, sse35, sse37, sse41, sse42},
}

var sse21 = &check.Check{
	ID: "SSE-21", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.EventIDs}},
	Title: "GET with Last-Event-ID resumes a cut POST stream: exactly the missed events, then live, then the response and the end",
	Spec:  resumeMayRule, Course: resumeCourse,
	Hint: check.Hint{
		Report:   "Parse the id, find its stream, and under the stream's lock write the logged events that come after it, then attach the GET's connection so that new events go there. Holding the lock across both keeps an event from being lost or sent twice.",
		Question: "Between collecting the missed events and attaching the new connection, can an event slip through, or come twice?",
		Pointer:  "basic/transports › Resumability and Redelivery: replay what came after the last event id, on that stream, then resume it.",
		Near:     "In resume, hold s.mu from the 409 check to the attach: replay s.set.replay(s, n), write each event, then s.attachLocked(ew). sendLocked holds the same lock, so every event lands before or after, once.",
	},
	Claims: []check.Claim{
		{Claim: "a POST whose client dropped lets go of its connection at once, so a GET can resume the stream", Where: "step 2", How: "the grader retries a 409 for up to 1 s, as a real client waits for retry", Also: []string{"SSE-24"}},
		{Claim: "GET with Last-Event-ID resumes a cut POST stream: the missed events, then live ones, the response, the end", Where: "concept, step 4", How: "a slow countdown, a fast one resumed while it runs (where a replay without the lock loses or repeats an event), and a replay of 600 events (about 100 KB, more than one write)"},
	},
	Checklist: []string{"C22", "C27", "C29"},
	Run:       checkResumePOSTStream,
}

func checkResumePOSTStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	token := nonce("p")
	p := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 8, 100, token), "countdown from 8, 100 ms per step")
	seen := readProgress(t, p, 2)
	id := resumeID(t, p, "the countdown's stream")
	p.HangUp()
	probe.Pause(t, afterHangUp)
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id)
	expectRest(t, r, token, `2`, seen[len(seen)-1], 8)

	// A fast one, resumed while it is still running: events logged during
	// the replay must come after it, none lost, none twice.
	token = nonce("q")
	p = openPOST(t, h, session, spec.Rev, probe.CountdownCall(`3`, 100, 5, token), "countdown from 100, 5 ms per step")
	seen = readProgress(t, p, 1)
	id = resumeID(t, p, "the fast countdown's stream")
	p.HangUp()
	probe.Pause(t, afterHangUp)
	r = openResume(t, h, session, id, "GET with Last-Event-ID: "+id+", while the countdown runs on")
	expectRest(t, r, token, `3`, seen[0], 100)

	// A long one, missed almost whole: its replay is larger than any one
	// write holds (the reference writes 64 KiB at a time), and must still
	// carry each missed event once.
	token = nonce("r")
	p = openPOST(t, h, session, spec.Rev, probe.CountdownCall(`4`, 600, 0, token), "countdown from 600, at once")
	seen = readProgress(t, p, 1)
	id = resumeID(t, p, "the long countdown's stream")
	p.HangUp()
	probe.Pause(t, afterHangUp)
	r = openResume(t, h, session, id, "GET with Last-Event-ID: "+id+", after about 100 KB of missed events")
	expectRest(t, r, token, `4`, seen[0], 600)
}

var sse22 = &check.Check{
	ID: "SSE-22", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "a resumed stream replays its own events only, never another stream's",
	Spec:  ownStreamRule,
	Course: "Beyond the spec's MUST NOT, the course requires the resumed stream to carry exactly the events its client missed, " +
		"then the response, and then to end.",
	Hint: check.Hint{
		Report:   "The log holds every stream's events, interleaved. Replay only the events whose stream is the one the Last-Event-ID names.",
		Question: "When your log holds every stream's events, how do you pick one stream's?",
		Pointer:  "basic/transports › Resumability and Redelivery: MUST NOT replay messages that would have been delivered on a different stream.",
		Near:     "eventLog.after(stream, n) keeps only events with e.stream == stream and e.n > n, and skips priming events.",
	},
	Claims: []check.Claim{
		{Claim: "a replay holds its own stream's events only", Where: "concept, step 4"},
	},
	Checklist: []string{"C27", "C29"},
	Run:       checkReplayStaysOnItsStream,
}

func checkReplayStaysOnItsStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	ta, tb := nonce("a"), nonce("b")
	a := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`"a"`, 6, 80, ta), "countdown A")
	seen := readProgress(t, a, 1)
	id := resumeID(t, a, "countdown A's stream")
	a.HangUp()
	b := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`"b"`, 3, 0, tb), "countdown B, while A's client is away")
	b.End(wire.T2)
	probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session") // its priming event: one of the standalone stream's in the log
	if courseServer(t) {
		// add_note's answer is a stream of its own, whose events (the
		// note's log message, the result) are in the session's log too.
		probe.CallTool(t, h, session, `4`, "add_note", map[string]any{"text": nonce("note")})
	}
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id+", from A")
	expectRest(t, r, ta, `"a"`, seen[0], 6)
}

var sse23 = &check.Check{
	ID: "SSE-23", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "a Last-Event-ID is looked up in the request's own session only: another session's id replays none of its events, and where this session has no such event, 400",
	Spec:  resumeRule("The server MUST NOT replay messages that would have been delivered on a different stream."),
	Course: "Event ids are only meaningful within their session. A server that keeps one log for everyone, or looks ids up across sessions, " +
		"hands one client's messages to another (a real advisory, GHSA-84j6-jc92-77jm). An id names a place in the streams of the session the request's MCP-Session-Id names: " +
		"where that session has no such event, the course requires 400 with a JSON-RPC error. (With per-session ids the same id can name an event of both sessions; then it resumes " +
		"the requesting session's own stream, which is no leak. The grader asks in a session that has not streamed.)",
	Hint: check.Hint{
		Report:   "Keep the event log per session, and look a Last-Event-ID up only in the log of the session the request's MCP-Session-Id names.",
		Question: "Where do you look a Last-Event-ID up: in this session's streams, or everyone's?",
		Pointer:  "GHSA-84j6-jc92-77jm: one log for all sessions let an event id carry another session's messages.",
		Near:     "Keep a sessionStreams per session (h.sessions keyed by the session), and resolve the id only in h.streamsOf(sess, false). Unknown there: 400.",
	},
	Claims: []check.Claim{
		{Claim: "a Last-Event-ID is looked up in the request's own session only: another session's id replays none of its events; where this session has no such event, 400", Where: "step 4",
			How: "a good id first, so a server that refuses every resume does not pass; then the same id in a fresh session that has not streamed"},
	},
	Checklist: []string{"C29"},
	Run:       checkCrossSessionID,
}

func checkCrossSessionID(t *check.T) {
	h := wire.StartHTTP(t)
	x, _ := h.Initialize(spec.Rev)
	secret := nonce("x-secret")
	p := openPOST(t, h, x, spec.Rev, probe.CountdownCall(`2`, 2, 0, secret), "countdown in session X")
	events, _ := p.End(wire.T2)
	if len(events) == 0 || events[0].ID == "" {
		if len(events) > 0 {
			skipWithoutEventIDs(t, "session X's stream")
		}
		t.Fail(check.Failure{What: "the events of session X carry no id, so there is nothing to resume from", Got: describeEvents(events), Cause: causeEventIDs})
	}
	first := events[0].ID
	t.Case("the session's own id", func() {
		expectReplay(t, h, x, first, `2`, "GET in session X with Last-Event-ID "+first+", its own")
	})
	y, _ := h.Initialize(spec.Rev)
	t.Case("another session's id", func() {
		expectRefusal(t, h, y, first, http.StatusBadRequest, true, "GET in session Y with Last-Event-ID "+first+" of session X",
			"it carried session X's events to session Y")
	})
	if !t.Target.External() {
		return
	}
	// An external server may answer otherwise than the course asks; the
	// spec's MUST NOT is that session X's messages never reach session Y.
	t.Case("none of the other session's messages", func() {
		s := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(y, spec.Rev, first), Purpose: "GET in session Y with Last-Event-ID " + first + " of session X, again"})
		events, _ := s.End(time.Second)
		for _, e := range events {
			if strings.Contains(e.Data, secret) {
				t.Fail(check.Failure{What: "a GET in session Y with an event id of session X replayed session X's messages", Got: describeEvents(events),
					Want: "none of session X's messages", Cites: &ownStreamRule})
			}
		}
	})
}

var sse24 = &check.Check{
	ID: "SSE-24", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.EventIDs, check.History}},
	Title: "a POST stream whose client went away runs to its end, and can be resumed afterwards",
	Spec:  spec.Sending("Disconnection SHOULD NOT be interpreted as the client cancelling its request."),
	Course: "The course requires a request to finish after its client drops (the history tool shows it), and its stream to stay resumable: " +
		"a GET with Last-Event-ID then gets the rest of its events and its response, and the stream ends.",
	Hint: check.Hint{
		Report:   "Run requests under a context the connection does not cancel (stage 02 does), keep logging their events while no client is attached, and let a GET replay an ended stream before it ends the response.",
		Question: "Does your request stop when its client hangs up, and does its stream keep logging?",
		Pointer:  "basic/transports: disconnection SHOULD NOT be taken as cancellation; context.WithoutCancel; context.AfterFunc.",
		Near:     "Stage 02 runs requests under a context the connection does not cancel. In Open, context.AfterFunc(r.Context(), ...) detaches the dead connection; Send keeps logging; a later GET replays, and ends since the stream has ended.",
	},
	Claims: []check.Claim{
		{Claim: "every event is logged before it is written, and waits in the log while its client is away", Where: "concept, step 2", How: "a POST stream and the standalone stream, both resumed after their client went away", Also: []string{"SSE-25"}},
		{Claim: "a POST stream whose client went away runs to its end, and can be resumed afterwards", Where: "concept, step 4", How: "the countdown's end is read in the history tool"},
	},
	Run: checkResumeAfterTheEnd,
}

func checkResumeAfterTheEnd(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	token := nonce("p")
	p := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 4, 100, token), "countdown from 4, 100 ms per step")
	seen := readProgress(t, p, 1)
	id := resumeID(t, p, "the countdown's stream")
	p.HangUp()
	t.Wire.Event("waiting 700 ms: the countdown ends while its client is away")
	probe.Pause(t, 700*time.Millisecond)
	probe.RequireHistory(t, h, session)
	if history := probe.CallTool(t, h, session, `3`, "history", nil); !strings.Contains(history, "countdown (id 2): finished") {
		t.Fail(check.Failure{What: "the countdown did not run to its end after its client went away", Got: check.Quote(history),
			Want: "history lists \"countdown (id 2): finished\""})
	}
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id+", after the countdown ended")
	expectRest(t, r, token, `2`, seen[0], 4)
}

var sse25 = &check.Check{
	ID: "SSE-25", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
	Needs:  check.Needs{Flags: []string{"-tick"}, Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title:  "the standalone stream resumes too: messages sent while the client was away are replayed, then ticking goes on",
	Spec:   resumeRule("This mechanism applies regardless of how the original stream was initiated (via POST or GET). Resumption is always via HTTP GET with Last-Event-ID."),
	Course: resumeCourse + " Once a session's standalone stream exists, its messages are kept while the client is away (within -replay-buffer).",
	Hint: check.Hint{
		Report:   "The outlet stays attached when the GET's client leaves: its Send keeps logging. The ticker belongs to the session, not to the connection.",
		Question: "Who owns the ticker and the outlet: the connection, or the session?",
		Pointer:  "basic/transports › Resumability: resumption works for GET streams too; mcp.Session.Attach stays until detached.",
		Near:     "Attach the standalone stream as the outlet once and never detach it; hold only detaches the connection (s.w). Resume stream 0 like any other.",
	},
	Claims: []check.Claim{
		{Claim: "the standalone stream resumes too", Where: "step 4", How: "ticks missed while away are replayed, then ticking goes on"},
	},
	Run: checkResumeStandalone,
}

func checkResumeStandalone(t *check.T) {
	h := wire.StartHTTP(t, "-tick", "40ms")
	session, _ := h.Initialize(spec.Rev)
	g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session, with -tick 40ms")
	ticks := readTicks(t, g, 3, 0, time.Second, "on the GET stream")
	id := resumeID(t, g, "the GET stream")
	g.HangUp()
	t.Wire.Event("away for 300 ms: about 7 ticks to catch up on")
	probe.Pause(t, 300*time.Millisecond)
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id)
	readTicks(t, r, 12, ticks[len(ticks)-1]+1, time.Second, "after resuming")
}

var sse26 = &check.Check{
	ID: "SSE-26", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "a malformed or unknown Last-Event-ID, or two of them, gets 400 with a JSON-RPC error, at once",
	Spec:  resumeMayRule,
	Course: "The course requires a clear refusal for an id the server cannot resume from: 400 with a JSON-RPC error body. Not a fresh stream that " +
		"pretends all is well, and not 404, which tells the client its session is gone.",
	Hint: check.Hint{
		Report:   "When the id does not parse, or names a stream or an event this session never had, answer with httpjson.Error and status 400 before starting any stream.",
		Question: "What should an id you never wrote get: a fresh stream, or a refusal?",
		Pointer:  "RFC 9110 §15.5.1 400 Bad Request; 404 would mean the session is gone.",
		Near:     "parseEventID rejects anything but \"<digits>-<digits>\"; an unknown stream or a number above s.last is refused too: badEventID(w, id, why) with 400.",
	},
	Claims: []check.Claim{
		{Claim: "a malformed or unknown Last-Event-ID gets 400 with a JSON-RPC error, at once", Where: "step 4", How: "a good id first, as above; near misses of it (a sign, event 0, a trailing letter) on the course's servers, whose ids are \"<stream>-<n>\"; one past the newest event of a quiet standalone stream"},
		{Claim: "a GET with two Last-Event-ID headers gets 400", Where: "step 4", How: "two ids each of which resumes alone; the first resumes again after the refusal"},
	},
	Run: checkBadEventIDs,
}

func checkBadEventIDs(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	first, real := endedCountdown(t, h, session, "countdown, for a real event id")
	expectReplay(t, h, session, first, `2`, "GET with Last-Event-ID: "+first+", a real id")
	for _, id := range []string{"not-an-event-id", real + "9999", "%%%"} {
		expectRefusal(t, h, session, id, http.StatusBadRequest, true, "GET with Last-Event-ID: "+id,
			"an id the server never wrote must be refused, not answered with a stream")
	}
	// Near misses of the good id, which Go's number parsers would read as
	// it: a sign, an event 0 before the first, a trailing letter. (A space at either end is no part of a header value.)
	if stream, _, ok := strings.Cut(first, "-"); ok && courseServer(t) {
		for _, id := range []string{"+" + first, stream + "-0", stream + "-+1", stream + "--1", stream + "-1x"} {
			expectRefusal(t, h, session, id, http.StatusBadRequest, true, fmt.Sprintf("GET with Last-Event-ID: %q, a near miss of the good id %s", id, first),
				"an id the server never wrote must be refused, however close it is to one it wrote")
		}
	}
	// Two headers, each a good id alone: only the rule against two refuses.
	two := probe.GETHeaders(session, spec.Rev, first)
	two.Add("Last-Event-ID", real)
	expectRefusalHeader(t, h, two, http.StatusBadRequest, true, "GET with two Last-Event-ID headers, "+first+" and "+real+", each of which resumes alone",
		"a client has one last event id; two headers name no one place to resume from")
	expectReplay(t, h, session, first, `2`, "GET with Last-Event-ID: "+first+" again, after the refusal")

	// A live stream, whose client has gone: an id past its newest event is
	// refused there too, not taken for "nothing missed yet".
	live := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`3`, 8, 500, nonce("l")), "countdown from 8, 500 ms per step, left running")
	live.Next(wire.T1, "the first event of the running countdown")
	beyond := resumeID(t, live, "the running countdown's stream") + "9999"
	live.HangUp()
	awaitLetGo(t, h, session, beyond)
	expectRefusal(t, h, session, beyond, http.StatusBadRequest, true, "GET with Last-Event-ID: "+beyond+", past the newest event of a stream still running",
		"an id the server never wrote must be refused, on a live stream too")

	// Exactly one past the newest event, on a stream that stays quiet: the
	// standalone stream, whose only event is its priming one (there is no
	// -tick). That id does not exist yet, so it is refused at the bound
	// itself, and not kept open as if the client had seen it.
	if courseServer(t) {
		g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session: a standalone stream with its priming event, then nothing")
		g.Next(wire.T1, "the standalone stream's priming event")
		newest := resumeID(t, g, "the standalone stream")
		g.HangUp()
		num, n, _ := strings.Cut(newest, "-")
		if k, err := strconv.Atoi(n); err == nil {
			next := num + "-" + strconv.Itoa(k+1)
			purpose := "GET with Last-Event-ID: " + next + ", one past " + newest + ", the newest event of the quiet standalone stream"
			judgeRefusal(t, afterLetGo(t, h, session, next, purpose), http.StatusBadRequest, true, purpose,
				"the stream has not reached that id: no event of it was ever written, so none can be the client's last")
		}
	}
}

var sse27 = &check.Check{
	ID: "SSE-27", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Flags: []string{"-replay-buffer"}, Optional: []check.Feature{check.EventIDs}},
	Title: "the replay buffer is bounded per session (-replay-buffer); an id whose sequel was dropped gets 400, never a partial replay",
	Spec:  spec.NoLimit,
	Course: "Keeping every event for ever lets one client grow the server without bound. The course requires at most -replay-buffer events per session " +
		"(the grader sets 10), and a 400 with a JSON-RPC error when events after the client's id are gone: a replay with a hole in it looks complete and is not.",
	Hint: check.Hint{
		Report:   "Keep the events in a ring of at most ReplayBuffer; when one falls out, note on its stream the number of the newest event it lost. A Last-Event-ID below that number gets 400.",
		Question: "When the buffer is full, what is dropped, and how does a stream know it lost something?",
		Pointer:  "A ring buffer of ReplayBuffer events per session; eventLog.add hands each dropped event to a callback.",
		Near:     "In evicted, set s.dropped = e.n and s.kept--. In replay, n < s.dropped means events after n are gone: refuse with 400, never replay what is left.",
	},
	Claims: []check.Claim{
		{Claim: "the replay buffer is bounded per session (-replay-buffer); an id whose sequel was dropped gets 400, never a partial replay", Where: "concept, step 4", How: "-replay-buffer 10, with three sessions"},
	},
	Checklist: []string{"C29"},
	Run:       checkBoundedReplay,
}

func checkBoundedReplay(t *check.T) {
	h := wire.StartHTTP(t, "-replay-buffer", "10")

	// Session A loses most of a 30-step countdown while its client is away.
	a, _ := h.Initialize(spec.Rev)
	pa := openPOST(t, h, a, spec.Rev, probe.CountdownCall(`2`, 30, 5, nonce("a")), "session A: countdown from 30")
	readProgress(t, pa, 1)
	idA := resumeID(t, pa, "session A's stream")
	pa.HangUp()

	// Session B's short countdown fits, whatever session C does meanwhile.
	b, _ := h.Initialize(spec.Rev)
	tokenB := nonce("b")
	pb := openPOST(t, h, b, spec.Rev, probe.CountdownCall(`2`, 5, 5, tokenB), "session B: countdown from 5")
	first := pb.Next(wire.T1, "the first event of B's stream")
	seenB := 0.0
	if m, err := wire.Parse([]byte(first.Data)); err == nil {
		_, seenB, _ = probe.ProgressOf(m)
	}
	idB := resumeID(t, pb, "session B's stream")
	pb.HangUp()
	c, _ := h.Initialize(spec.Rev)
	openPOST(t, h, c, spec.Rev, probe.CountdownCall(`2`, 40, 0, nonce("c")), "session C: 40 steps at once").End(wire.T2)
	probe.Pause(t, 300*time.Millisecond)

	rb := openResume(t, h, b, idB, "session B: GET with Last-Event-ID: "+idB)
	expectRest(t, rb, tokenB, `2`, seenB, 5)

	// Session D's first stream is short, but the session's later streams
	// push it out: the bound is per session, not per stream.
	d, _ := h.Initialize(spec.Rev)
	pd := openPOST(t, h, d, spec.Rev, probe.CountdownCall(`2`, 2, 0, nonce("d")), "session D: countdown from 2")
	pd.Next(wire.T1, "the first event of D's first stream")
	idD := resumeID(t, pd, "session D's first stream")
	pd.End(wire.T1)
	for i := 3; i <= 5; i++ {
		openPOST(t, h, d, spec.Rev, probe.CountdownCall(fmt.Sprint(i), 3, 0, nonce("d")), fmt.Sprintf("session D: stream %d, countdown from 3", i-1)).End(wire.T2)
	}
	expectRefusal(t, h, d, idD, http.StatusBadRequest, true, "session D: GET with Last-Event-ID: "+idD+", of a stream whose events 15 later ones pushed out",
		"the session's buffer holds 10 events in all, whatever stream they belong to, so that stream's events are gone")
	expectRefusal(t, h, a, idA, http.StatusBadRequest, true, "session A: GET with Last-Event-ID: "+idA+", 30 events ago, with -replay-buffer 10",
		"events after it no longer fit in the buffer, so a replay would have a gap")
}

var sse28 = &check.Check{
	ID: "SSE-28", Step: 4, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.EventIDs}},
	Title: "a second GET resuming a stream that another GET holds gets 409; GETs resuming an ended stream at once each get its rest",
	Spec:  multipleRule("The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams."),
	Course: "A course rule: the spec asks only that each message go to one stream, never to two. One stream, one connection: the course requires " +
		"409 Conflict for a GET that resumes a stream already attached to another connection (the official Go SDK does the same), and the first to go on undisturbed.",
	Hint: check.Hint{
		Report:   "Under the stream's lock, a GET that finds another connection attached answers 409 and touches nothing.",
		Question: "What does a GET find when another connection already holds the stream it resumes?",
		Pointer:  "basic/transports › Multiple Connections; the official Go SDK answers 409 Conflict.",
		Near:     "In resume, under s.mu: if s.w != nil { unlock; conflict(w, ...); return } before anything is replayed.",
	},
	Claims: []check.Claim{
		{Claim: "a second GET resuming a stream another GET holds gets 409", Where: "step 4"},
		{Claim: "a stream that has ended is held by no connection: GETs resuming it at once each get its rest", Where: "step 4", How: "three rounds of two GETs at once, each replaying 400 events of an ended countdown"},
	},
	Run: checkResumeConflict,
}

func checkResumeConflict(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	token := nonce("p")
	p := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 10, 80, token), "countdown from 10, 80 ms per step")
	seen := readProgress(t, p, 1)
	id := resumeID(t, p, "the countdown's stream")
	p.HangUp()
	probe.Pause(t, afterHangUp)
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id)
	resp := h.Do(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, id), Purpose: "a second GET with Last-Event-ID: " + id})
	if resp.Status != http.StatusConflict {
		t.Fail(check.Failure{What: fmt.Sprintf("a second GET resuming a stream another GET holds got HTTP %d", resp.Status), Got: resp.Summary(),
			Want: "HTTP 409 Conflict, with a body that ends at once"})
	}
	expectRest(t, r, token, `2`, seen[0], 10)

	// An ended stream is held by no one: GETs that resume it at once each
	// get its rest, however long the replay.
	token = nonce("e")
	long := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`3`, 400, 0, token), "countdown from 400, at once")
	seen = readProgress(t, long, 1)
	id = resumeID(t, long, "the long countdown's stream")
	long.End(wire.T2)
	for round := 1; round <= 3; round++ {
		var a, b *wire.Stream
		t.Parallel(
			func() {
				a = h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, id), Purpose: fmt.Sprintf("round %d: GET A resuming the ended countdown from %s", round, id)})
			},
			func() {
				b = h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, id), Purpose: fmt.Sprintf("round %d: GET B, at the same time", round)})
			},
		)
		for _, s := range []*wire.Stream{a, b} {
			if s.Status == http.StatusConflict {
				events, _ := s.End(wire.T1)
				t.Fail(check.Failure{What: "of two GETs resuming a stream that has ended, one got 409: replaying an ended stream attached the other to it",
					Got: "HTTP 409, body " + check.Quote(describeBody(events)), Want: "both get the rest of the stream: an ended stream is held by no connection"})
			}
			probe.ExpectEventStream(t, s, "GET resuming the ended countdown", "")
		}
		t.Parallel(
			func() { expectRest(t, a, token, `3`, seen[0], 400) },
			func() { expectRest(t, b, token, `3`, seen[0], 400) },
		)
	}
}

var sse29 = &check.Check{
	ID: "SSE-29", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "resuming a stream that has ended with nothing left (after a result, an error, a cancellation or a batch's responses) gets a 4xx at once",
	Spec:  resumeMayRule,
	Course: "The spec does not say what such a GET gets; the course does. The official TypeScript SDK (1.32.2) resumes every POST stream that ends without a result, " +
		"and reconnects without limit to a GET stream that ends: an empty 200 stream makes it loop for ever, a stream held open makes it wait for ever. " +
		"So the course requires a 4xx with a body that ends (400 in the reference), not 404 (the session lives) and not 405 (GET is served).",
	Hint: check.Hint{
		Report:   "Before starting the stream, check: has the stream ended, and is there nothing to replay? Then answer 400 with a JSON-RPC error that says so.",
		Question: "What will a client that resumes until it sees a result do with an empty 200 stream, or one that never ends?",
		Pointer:  "@modelcontextprotocol/sdk 1.32.2 StreamableHTTPClientTransport: it reconnects to a GET stream that ends, without limit, and gives up after 2 failed attempts.",
		Near:     "In resume: if len(missed) == 0 && s.isEnded() { unlock; badEventID(w, id, \"its stream has ended\"); return }.",
	},
	Claims: []check.Claim{
		{Claim: "resuming a stream that ended with nothing left gets a 4xx at once (not 404, not 405, not an empty or endless 200)", Where: "concept, step 4", How: "after a result, an error and a cancellation, and after a batch's responses (2025-03-26, when the batch's answer became a stream)"},
	},
	Checklist: []string{"C29"},
	Run:       checkResumeEndedStream,
}

func checkResumeEndedStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	const why = "a client that resumes until it sees a result reconnects for ever to an empty stream, and waits for ever on one held open"

	done := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 2, 0, nonce("p")), "countdown from 2")
	first := done.Next(wire.T1, "the first event of the countdown's stream")
	done.End(wire.T2)
	if first.ID == "" {
		skipWithoutEventIDs(t, "the countdown's stream")
		t.Fail(check.Failure{What: "the first event of the countdown's stream has no id", Got: describeEvents([]wire.Event{first}), Cause: causeEventIDs})
	}
	expectReplay(t, h, session, first.ID, `2`, "GET resuming the ended stream from its first event, "+first.ID)
	expectRefusal(t, h, session, resumeID(t, done, "the countdown's stream"), 0, false,
		"GET resuming a stream after its result", why)
	// The refusal leaves the stream as it was: its rest can still be had.
	expectReplay(t, h, session, first.ID, `2`, "GET resuming the ended stream from its first event again, after the refusal")

	failed := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Purpose: "an unknown tool, with a progress token",
		Body: wire.Request(`3`, "tools/call", wire.ToolCall("grader-no-such-tool", map[string]any{}, nonce("p")))})
	if failed.ContentType == "text/event-stream" {
		failed.End(wire.T2)
		expectRefusal(t, h, session, resumeID(t, failed, "the failed call's stream"), 0, false,
			"GET resuming a stream after its error response", why)
	}

	cancelled := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`4`, 40, 50, nonce("p")), "countdown from 40, to be cancelled")
	readProgress(t, cancelled, 1)
	resp := h.Post(session, spec.Rev, wire.Notification("notifications/cancelled", map[string]any{"requestId": 4}), "notifications/cancelled")
	probe.ExpectStatus(t, resp, http.StatusAccepted, "notifications/cancelled")
	if events, ended := cancelled.End(wire.T1); !ended {
		t.Fail(check.Failure{What: "the cancelled countdown's stream did not end", Got: describeEvents(events), Want: "the stream ends without a response"})
	}
	expectRefusal(t, h, session, resumeID(t, cancelled, "the cancelled countdown's stream"), 0, false,
		"GET resuming the stream of a cancelled request", why)

	// A batch's answer that became a stream: at 2025-03-26, the one version
	// with batches, add_note's log message comes before the responses.
	old, _ := h.Initialize("2025-03-26")
	batch := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(old, "2025-03-26"), Purpose: "a batch of add_note and ping, at 2025-03-26",
		Body: "[" + wire.Request(`5`, "tools/call", wire.ToolCall("add_note", map[string]any{"text": nonce("batch")}, nil)) + "," + wire.Request(`6`, "ping", nil) + "]"})
	if batch.ContentType == "text/event-stream" {
		if events, ended := batch.End(wire.T2); !ended {
			t.Fail(check.Failure{What: "the stream of a batch's answer did not end after its responses", Got: describeEvents(events), Want: "the stream ends after the batch's last response"})
		}
		expectRefusal(t, h, old, resumeID(t, batch, "the batch's stream"), 0, false,
			"GET resuming a batch's stream after its responses", why)
	} else {
		batch.End(wire.T1)
	}
}

// openResume opens a GET that resumes a stream whose client the grader has
// just dropped. The server may not have seen that client go yet, and then
// answers 409, as it should: like a real client, which waits for the retry
// field, the grader tries again, for up to 1 s.
func openResume(t *check.T, h *wire.HTTP, session, lastEventID, purpose string) *wire.Stream {
	return openResumeEvery(t, h, session, lastEventID, purpose, 100*time.Millisecond)
}

// openResumeEvery is openResume, trying again every pause after a 409.
func openResumeEvery(t *check.T, h *wire.HTTP, session, lastEventID, purpose string, pause time.Duration) *wire.Stream {
	deadline := time.Now().Add(time.Second)
	for {
		s := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, lastEventID), Purpose: purpose})
		if s.Status != http.StatusConflict || time.Now().After(deadline) {
			probe.ExpectEventStream(t, s, purpose, "")
			return s
		}
		s.End(wire.T1)
		probe.Pause(t, pause)
	}
}

// readProgress reads a POST stream until n progress notifications have come,
// and returns their values. The stream's LastEventID is then the id to
// resume from.
func readProgress(t *check.T, s *wire.Stream, n int) []float64 {
	var values []float64
	for len(values) < n {
		m, _ := s.Await(wire.T1, fmt.Sprintf("progress notification %d", len(values)+1), func(m *wire.Msg) bool {
			_, _, ok := probe.ProgressOf(m)
			return ok
		}, nil)
		_, v, _ := probe.ProgressOf(m)
		values = append(values, v)
	}
	return values
}

// resumeID returns the stream's last event id, or fails: a stream whose
// events carry no id cannot be resumed.
func resumeID(t *check.T, s *wire.Stream, what string) string {
	t.Relies(check.EventIDs)
	id := s.LastEventID()
	if id == "" {
		skipWithoutEventIDs(t, what)
		t.Fail(check.Failure{What: "the events of " + what + " carry no id, so there is nothing to resume from",
			Want: "an id: line in every event, such as \"id: 1-3\"", Cause: causeEventIDs})
	}
	return id
}

// expectRefusal opens a GET that must be refused with status (0: any 4xx
// but 404 and 405) and a body that ends at once, holding a JSON-RPC error
// when wantError is set. A 200 stream is read for up to 1 s, so that the
// report shows what it carried.
func expectRefusal(t *check.T, h *wire.HTTP, session, lastEventID string, status int, wantError bool, purpose, why string) {
	expectRefusalHeader(t, h, probe.GETHeaders(session, spec.Rev, lastEventID), status, wantError, purpose, why)
}

// expectRefusalHeader is expectRefusal for a GET with the given headers.
func expectRefusalHeader(t *check.T, h *wire.HTTP, header http.Header, status int, wantError bool, purpose, why string) {
	judgeRefusal(t, h.Open(wire.Req{Method: http.MethodGet, Header: header, Purpose: purpose}), status, wantError, purpose, why)
}

// judgeRefusal is expectRefusalHeader's judgement of an answer s already
// opened.
func judgeRefusal(t *check.T, s *wire.Stream, status int, wantError bool, purpose, why string) {
	want := fmt.Sprintf("HTTP %d with a JSON-RPC error body, at once", status)
	if status == 0 {
		want = "a 4xx status other than 404 and 405 (400 in the reference), with a body that ends at once"
	}
	if s.Status == http.StatusOK {
		events, ended := s.End(time.Second)
		what := purpose + " was answered with a 200 stream"
		switch {
		case !ended:
			what += " that stayed open: " + why
		case len(messagesOf(events)) == 0:
			what += " that ended at once, without an event: " + why
		default:
			what += ": " + why
		}
		t.Fail(check.Failure{What: what, Got: describeEvents(events), Want: want})
	}
	body, ended := s.End(wire.T1)
	got := fmt.Sprintf("HTTP %d, Content-Type: %q, body %s", s.Status, s.Header.Get("Content-Type"), check.Quote(describeBody(body)))
	switch {
	case !ended:
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d, but its body did not end within %v", purpose, s.Status, wire.T1), Got: got, Want: want})
	case status != 0 && s.Status != status:
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", purpose, s.Status), Got: got, Want: want})
	case status == 0 && s.Status == http.StatusNotFound:
		t.Fail(check.Failure{What: purpose + " got 404, which tells the client its whole session is gone, and it is not", Got: got, Want: want})
	case status == 0 && s.Status == http.StatusMethodNotAllowed:
		t.Fail(check.Failure{What: purpose + " got 405, which says the server offers no GET stream, and it does", Got: got, Want: want})
	case status == 0 && (s.Status < 400 || s.Status > 499):
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", purpose, s.Status), Got: got, Want: want})
	}
	if wantError {
		m, err := wire.Parse([]byte(describeBody(body)))
		if err != nil || m.Error == nil || s.ContentType != "application/json" {
			t.Fail(check.Failure{What: purpose + " was refused without a JSON-RPC error body", Got: got,
				Want: `Content-Type: application/json, body {"jsonrpc":"2.0","error":{"code":-32600,"message":"..."}}`})
		}
	}
}

// expectReplay resumes a stream that has ended, from an id before its end,
// and wants the rest of it: at least the response with respID, then the end.
// It is the positive control of the checks that want a resume refused: a
// server that refuses every Last-Event-ID must not pass them.
func expectReplay(t *check.T, h *wire.HTTP, session, lastEventID, respID, purpose string) {
	s := probe.OpenGET(t, h, session, spec.Rev, lastEventID, purpose)
	s.Await(wire.T2, "the replayed response with id "+respID, func(m *wire.Msg) bool { return m.IsResponseTo(respID) }, nil)
	if events, ended := s.End(time.Second); !ended {
		t.Fail(check.Failure{What: purpose + ": the replay of a stream that has ended did not end after its response", Got: describeEvents(events),
			Want: "the missed events, the response, then the end of the stream"})
	}
}

// afterHangUp is how long a check waits after dropping a stream before it
// resumes it: the server must first notice that the client left. A real
// client waits longer (the retry field, a second in the reference).
const afterHangUp = 200 * time.Millisecond

// expectRest reads a resumed POST stream to its end and checks that it
// carries exactly the progress values after seen, up to to, then the
// response with id, then ends.
func expectRest(t *check.T, s *wire.Stream, token, id string, seen float64, to int) {
	var values []float64
	answered := false
	for !answered {
		m, _ := s.Await(wire.T2, "further event of the countdown (its progress or its response)", func(*wire.Msg) bool { return true }, nil)
		switch tok, v, ok := probe.ProgressOf(m); {
		case ok && tok != `"`+token+`"`:
			t.Fail(check.Failure{What: "the resumed stream carried another request's progress", Got: check.Quote(string(m.Raw)), Want: "progress with token " + token,
				Cites: &ownStreamRule})
		case ok:
			values = append(values, v)
		case m.IsResponseTo(id):
			answered = true
		default:
			t.Fail(check.Failure{What: "the resumed stream carried a message that does not belong to it", Got: check.Quote(string(m.Raw)), Cites: &ownStreamRule})
		}
	}
	var want []float64
	for v := int(seen) + 1; v <= to; v++ {
		want = append(want, float64(v))
	}
	if fmt.Sprint(values) != fmt.Sprint(want) {
		t.Fail(check.Failure{What: fmt.Sprintf("after progress %v, the resumed stream carried progress %v before the response", seen, values),
			Want: fmt.Sprintf("%v: every missed event, once, in order", want)})
	}
	events, ended := s.End(time.Second)
	if !ended {
		t.Fail(check.Failure{What: "the resumed POST stream was still open 1 s after its response", Got: describeEvents(events), Want: "the stream ends after the response"})
	}
	if after := messagesOf(events); len(after) > 0 {
		t.Fail(check.Failure{What: "the resumed POST stream carried a message after its response", Got: check.Quote(string(after[0].Raw)),
			Want: "the response last: every missed event once, in order, then the response, then the end"})
	}
	expectWellFormed(t, s, "the resumed POST stream")
	expectCourseRetry(t, s, "the resumed POST stream")
}

// expectCourseRetry fails when a course server's stream carried a retry
// field other than the course's one second (retryAfter, 1000 ms).
func expectCourseRetry(t *check.T, s *wire.Stream, what string) {
	if !courseServer(t) {
		return
	}
	if r := s.Retries(); len(r) > 0 {
		for _, v := range r {
			if v != "1000" {
				t.Fail(check.Failure{What: what + " carried a retry field of " + v, Got: "retry: " + v,
					Want: "retry: 1000 (the course's retryAfter, one second, in milliseconds), and none on replayed events"})
			}
		}
	}
}

var sse31 = &check.Check{
	ID: "SSE-31", Step: 4, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Course: probe.ClearNotes, Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "a call's answer that became a stream when the call spoke resumes like any other: a priming event, ids, and its result after a cut",
	Spec:  resumeMayRule,
	Course: resumeCourse + " The stream a request's answer becomes when the request sends a message before its response (stage 02's reply) is one of them: " +
		"at 2025-11-25 it opens with a priming event, its events carry ids and count toward the replay bound, and it resumes after a cut, with the client's answer to its question still reaching the tool.",
	Hint: check.Hint{
		Report: "Stage 02's reply opens its stream through h.streams.Open, which is stage 03's Open: the stream gets an id for every event and a priming event, like the stream of a request " +
			"with a progress token. A reply that opens a stream of its own (sse.NewStream) bypasses that.",
		Question: "Which Open does the reply call when a request's first message turns its answer into a stream?",
		Pointer:  "streamable.Options.Streams is the seam: every SSE answer to a request, opened at once or when the request first speaks, comes from it.",
		Near:     "In stage 02's reply.openLocked: rp.stream = rp.h.streams.Open(rp.w, rp.r, rp.sess), never a plain sse.NewStream.",
	},
	Claims: []check.Claim{
		{Claim: "the stream a request's answer becomes when it speaks has a priming event and ids, and resumes with Last-Event-ID", Where: "concept, step 4",
			How: "clear_notes's stream is cut after its question; the grader POSTs the answer, then resumes from the question's id and wants the result"},
	},
	Checklist: []string{"C16", "C26", "C28", "C29"},
	Run:       checkSpokenStreamResumes,
}

func checkSpokenStreamResumes(t *check.T) {
	h := wire.StartHTTP(t)
	session := probe.InitializeEliciting(t, h, spec.Rev)
	probe.CallTool(t, h, session, `2`, "add_note", map[string]any{"text": nonce("to be cleared")})
	s := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Body: probe.ClearNotesCall(`3`), Within: time.Second,
		Purpose: "clear_notes, which asks the client to confirm before it answers"})
	probe.ExpectEventStream(t, s, "clear_notes", "")
	first, err := s.NextWithin(time.Second)
	if err != nil || !first.SetID || first.Data != "" || first.Retry == "" {
		t.Fail(check.Failure{What: "at 2025-11-25, the stream clear_notes's answer became did not open with a priming event", Got: describeEvents([]wire.Event{first}),
			Want: "a first event with an id, a retry field and empty data, before the question"})
	}
	q := probe.AwaitQuestion(t, s, time.Second)
	id := resumeID(t, s, "clear_notes's stream")
	s.HangUp()
	// Resume once before answering: when the resumption is served, the
	// server has seen the cut, so a server that cancels a request whose
	// POST dropped has cancelled the tool before the answer comes (not only
	// when the answer happens to be slower than the cut).
	purpose := "GET with Last-Event-ID: " + id + ", the id of clear_notes's question"
	openResume(t, h, session, id, purpose).HangUp()
	probe.Answer(t, h, session, spec.Rev, q) // the tool goes on, and its result waits in the log
	r := openResume(t, h, session, id, purpose+", again after the answer")
	probe.ExpectCleared(t, r, `3`, 1)
}

var sse32 = &check.Check{
	ID: "SSE-32", Step: 4, Severity: check.Must, Budget: 7 * time.Second,
	Needs: check.Needs{Flags: []string{"-tick"}, Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "a stream whose client left is resumable at once, and its replay is flushed at once, on a quiet stream too (POST and GET)",
	Spec:  resumeMayRule,
	Course: resumeCourse + " A client waits the retry time and resumes once: the course requires the dropped connection to be let go of as soon as its client " +
		"leaves (the grader resumes 300 ms after hanging up, with no second try), even when the stream has nothing to send for a while, and the missed events " +
		"to reach the client at once, not when the next live event happens to push them out. The grader resumes a slow countdown (700 ms per step) " +
		"and the standalone stream under -tick 700ms twice: once before anything was missed, once after one event was.",
	Hint: check.Hint{
		Report: "Let go of a POST's connection when its request's context ends (context.AfterFunc(r.Context(), …)), not when a write fails or the session ends; " +
			"and flush the replay like any other write.",
		Question: "How long after its client leaves does your stream still hold the dead connection, if nothing is sent on it? And when does a replay leave net/http's buffer?",
		Pointer:  "http.Request.Context() is cancelled when the client's connection closes; context.AfterFunc; http.ResponseController.Flush.",
		Near:     "In Open: p.unwatch = context.AfterFunc(r.Context(), func() { s.detach(p.own) }); hold's deferred s.detach(ew) for a GET; eventWriter.replay writes through ew.write, which flushes.",
	},
	Claims: []check.Claim{
		{Claim: "a POST whose client dropped lets go of its connection at once, so a GET can resume the stream", Where: "step 2",
			How: "a slow countdown resumed 300 ms after its client left, before its next event, with no retry after a 409", Also: []string{"SSE-21", "SSE-24"}},
		{Claim: "a replay reaches the client at once, on a quiet stream too, not with the next live event", Where: "step 4",
			How: "a POST stream and the standalone stream, each resumed after missing one event, the next 700 ms away"},
	},
	Checklist: []string{"C27", "C29"},
	Run:       checkQuietResume,
}

// quietStep is how far apart the events of SSE-32's streams are: far
// enough that a replay held back until the next live event shows.
const quietStep = 700 * time.Millisecond

func checkQuietResume(t *check.T) {
	h := wire.StartHTTP(t, "-tick", "700ms")
	post, _ := h.Initialize(spec.Rev)
	get, _ := h.Initialize(spec.Rev)
	t.Parallel(
		func() {
			token := nonce("q")
			p := openPOST(t, h, post, spec.Rev, probe.CountdownCall(`2`, 4, int(quietStep.Milliseconds()), token), "countdown from 4, 700 ms per step")
			readProgress(t, p, 1)
			resumeQuietly(t, h, post, resumeID(t, p, "the countdown's stream"), p, "the slow countdown's stream", func(s *wire.Stream) int {
				return int(readProgress(t, s, 1)[0])
			})
		},
		func() {
			g := probe.OpenGET(t, h, get, spec.Rev, "", "GET with the session, with -tick 700ms")
			readTicks(t, g, 1, 1, 2*quietStep, "on the GET stream")
			resumeQuietly(t, h, get, resumeID(t, g, "the GET stream"), g, "the standalone stream", func(s *wire.Stream) int {
				m, _ := s.Await(2*quietStep, "tick", probe.IsLogFrom("ticker"), nil)
				return tickOf(t, m)
			})
		},
	)
}

// resumeQuietly hangs up on s, whose last event was the count-th 1 (a
// progress or a tick), and resumes it twice: 300 ms later, when nothing
// has been missed, with no retry after a 409; then after one event has
// been missed, which must come at once, though the next is a step away.
// next reads a stream's next counted event and returns its count.
func resumeQuietly(t *check.T, h *wire.HTTP, session, id string, s *wire.Stream, what string, next func(*wire.Stream) int) {
	s.HangUp()
	probe.Pause(t, 300*time.Millisecond)
	r := h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, id), Purpose: "GET with Last-Event-ID: " + id + ", 300 ms after the client of " + what + " left"})
	if r.Status == http.StatusConflict {
		events, _ := r.End(wire.T1)
		t.Fail(check.Failure{What: "300 ms after its client hung up, resuming " + what + " got 409: the server still held the dead connection, since nothing had been sent on it",
			Got: "HTTP 409, body " + check.Quote(describeBody(events)), Want: "HTTP 200 text/event-stream: a connection is let go of when its client leaves, not when a write to it fails"})
	}
	probe.ExpectEventStream(t, r, "GET with Last-Event-ID: "+id, "")
	if n := next(r); n != 2 {
		t.Fail(check.Failure{What: fmt.Sprintf("resumed from event 1 of %s, with nothing missed, the next event counted %d", what, n), Want: "2: every event once, in order"})
	}
	got := time.Now()
	id = r.LastEventID()
	r.HangUp()
	t.Wire.Event("away for %v: the next event is logged while the client is away, and the one after it is %v later", quietStep+150*time.Millisecond, quietStep)
	probe.Pause(t, quietStep+150*time.Millisecond-time.Since(got))
	again := openResume(t, h, session, id, "GET with Last-Event-ID: "+id+", after "+what+" logged one more event")
	replayed, err := again.NextWithin(400 * time.Millisecond)
	if err != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("resuming %s after one missed event, nothing came within 400 ms: the replay was written but not flushed, or not written", what),
			Got: fmt.Sprint(err), Want: fmt.Sprintf("the missed event at once, not %v later with the next live one", quietStep)})
	}
	for replayed.Data == "" { // a priming event, which a resumed stream may send first
		replayed = again.Next(400*time.Millisecond, "the replayed event")
	}
	m, _ := wire.Parse([]byte(replayed.Data))
	_, _, _, isLog := probe.LogOf(m)
	_, _, isProgress := probe.ProgressOf(m)
	if m == nil || (!isLog && !isProgress) {
		t.Fail(check.Failure{What: "the first message resuming " + what + " is not its missed event", Got: check.Quote(replayed.Data)})
	}
	expectWellFormed(t, again, "the resumed "+what)
}

var sse33 = &check.Check{
	ID: "SSE-33", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Flags: []string{"-replay-buffer"}, Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "the replay bound is exact: from the newest dropped event a stream resumes, from the one before it, 400; a live stream whose events were all pushed out still resumes",
	Spec:  resumeMayRule,
	Course: resumeCourse + " The session keeps its newest -replay-buffer events, priming events included, and refuses a Last-Event-ID exactly when an event " +
		"after it is gone: the grader sets 10, reads a stream of 14 events, and resumes from the 4th (the newest dropped: nothing missed is gone) and from the 3rd " +
		"(the 4th is gone: 400). A stream is forgotten only when it has ended with nothing left to replay: a live standalone stream whose only event later " +
		"streams pushed out resumes with nothing to replay, and stays open.",
	Hint: check.Hint{
		Report: "A Last-Event-ID n can be resumed when every event after n is still kept: refuse n below the newest dropped number, and nothing else. " +
			"Forget a stream when it has ended and keeps no event, never while it runs.",
		Question: "If event 4 was the newest one dropped, can a client whose last event was 4 be given everything it missed? One whose last event was 3?",
		Pointer:  "An off-by-one at a bound is tested on both sides; eventLog.add hands every dropped event to evicted.",
		Near:     "In replay: case n < s.dropped is the refusal (not <=, and not n+1 < s.dropped). In evicted: delete the stream only if s.kept == 0 && s.isEnded().",
	},
	Claims: []check.Claim{
		{Claim: "the replay bound is exact on both sides: a Last-Event-ID is refused exactly when an event after it was dropped", Where: "step 4",
			How: "-replay-buffer 10 and a stream of 14 events: from its 4th event, the rest; from its 3rd, 400"},
		{Claim: "a live stream is never forgotten, even when every event of it was pushed out of the buffer", Where: "step 4",
			How: "the standalone stream's priming event pushed out by a later POST stream; resuming from it is served and stays open"},
	},
	Checklist: []string{"C29"},
	Run:       checkReplayBoundEdge,
}

func checkReplayBoundEdge(t *check.T) {
	h := wire.StartHTTP(t, "-replay-buffer", "10")
	a, _ := h.Initialize(spec.Rev)
	token := nonce("a")
	p := openPOST(t, h, a, spec.Rev, probe.CountdownCall(`2`, 12, 0, token), "countdown from 12, at once, with -replay-buffer 10")
	events, _ := p.End(wire.T2)
	if !anyID(events) {
		skipWithoutEventIDs(t, "the countdown's stream")
	}
	if len(events) != 14 || withoutIDs(events) != "" || !allIDs(events) {
		t.Fail(check.Failure{What: fmt.Sprintf("the countdown's stream carried %d events", len(events)), Got: describeEvents(events),
			Want: "14 events, each with an id: the priming event, 12 progress notifications and the response"})
	}
	t.Case("from the newest dropped event", func() {
		r := openResume(t, h, a, events[3].ID, "GET with Last-Event-ID: "+events[3].ID+", the 4th of 14 events, the newest that -replay-buffer 10 dropped")
		expectRest(t, r, token, `2`, 3, 12)
	})
	t.Case("from the event before it", func() {
		expectRefusal(t, h, a, events[2].ID, http.StatusBadRequest, true, "GET with Last-Event-ID: "+events[2].ID+", the 3rd of 14 events, with -replay-buffer 10",
			"the 4th event, which the client missed, is no longer kept, so a replay would have a gap")
	})
	t.Case("an ended stream down to its last event", func() {
		// 9 more events leave the ended stream one of its own: its response.
		openPOST(t, h, a, spec.Rev, probe.CountdownCall(`3`, 7, 0, nonce("a")), "countdown from 7, at once: 9 more events, which leave the first stream only its response").End(wire.T2)
		expectReplay(t, h, a, events[12].ID, `2`, "GET with Last-Event-ID: "+events[12].ID+", the event before the first stream's response, the one event of it still kept")
	})
	t.Case("a live stream whose events were pushed out", func() {
		b, _ := h.Initialize(spec.Rev)
		g := probe.OpenGET(t, h, b, spec.Rev, "", "GET in a second session")
		g.Next(wire.T1, "the priming event of the GET stream")
		id := resumeID(t, g, "the GET stream")
		g.HangUp()
		openPOST(t, h, b, spec.Rev, probe.CountdownCall(`2`, 12, 0, nonce("b")), "countdown from 12, at once, which pushes the GET stream's event out").End(wire.T2)
		r := openResume(t, h, b, id, "GET with Last-Event-ID: "+id+", the standalone stream's newest event, pushed out of the buffer since")
		events, ended := r.End(400 * time.Millisecond)
		if ended || len(messagesOf(events)) > 0 {
			t.Fail(check.Failure{What: "the resumed standalone stream, which had missed nothing, carried messages or ended", Got: describeEvents(events),
				Want: "a stream that stays open, with nothing to replay"})
		}
	})
}

// allIDs reports whether every one of events carries an id.
func allIDs(events []wire.Event) bool {
	for _, e := range events {
		if !e.SetID || e.ID == "" {
			return false
		}
	}
	return true
}

var sse34 = &check.Check{
	ID: "SSE-34", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Flags: []string{"-tick"}, Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "resuming a POST stream does not move the outlet: the server's own messages stay on the standalone stream",
	Spec:  spec.Listening("These messages SHOULD be unrelated to any concurrently-running JSON-RPC request from the client."),
	Course: "The session's outlet is its standalone stream, for good: a GET that resumes a request's stream takes that stream back, nothing more. " +
		"The course requires the ticks (-tick 40ms) to go on on the standalone stream while a cut countdown is resumed, and none of them on the countdown's stream.",
	Hint: check.Hint{
		Report:   "Attach the outlet (sess.Attach) in one place only: when the first GET makes the standalone stream. resume attaches a connection to a stream (s.attachLocked), never a stream to the session.",
		Question: "When a GET resumes a POST's stream, which of the session's streams should the server's own messages go to?",
		Pointer:  "basic/transports › Listening: messages on the GET stream SHOULD be unrelated to any running request; mcp.Session.Attach sets the outlet.",
		Near:     "sess.Attach(s) only in listen, when made; resume calls s.attachLocked(ew) and nothing that touches the session's outlet.",
	},
	Claims: []check.Claim{
		{Claim: "the outlet stays on the standalone stream when a POST stream is resumed", Where: "step 3, step 4",
			How: "with -tick 40ms and a GET open: a countdown cut and resumed carries no tick, and the GET's ticks go on counting"},
	},
	Run: checkOutletStays,
}

func checkOutletStays(t *check.T) {
	h := wire.StartHTTP(t, "-tick", "40ms")
	session, _ := h.Initialize(spec.Rev)
	g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session, with -tick 40ms")
	ticks := readTicks(t, g, 2, 0, 500*time.Millisecond, "on the GET stream")
	token := nonce("p")
	p := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 6, 60, token), "countdown from 6, 60 ms per step")
	seen := readProgress(t, p, 1)
	id := resumeID(t, p, "the countdown's stream")
	p.HangUp()
	probe.Pause(t, afterHangUp)
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id+", while the GET stream is open")
	expectRest(t, r, token, `2`, seen[0], 6)
	more := readTicks(t, g, 12, ticks[len(ticks)-1]+1, 500*time.Millisecond, "on the GET stream, during and after the countdown's resumption")
	t.Wire.Event("ticks %d to %d on the GET stream", more[0], more[len(more)-1])
}

var sse35 = &check.Check{
	ID: "SSE-35", Step: 4, Severity: check.Must, Budget: 20 * time.Second,
	Needs: check.Needs{Flags: []string{"-tick", "-keepalive", "-replay-buffer"}, Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "under a flood of live events, every resume continues the stream exactly and the body stays well-formed (-tick 100µs, -keepalive 1ms, 10 resumes)",
	Spec:  resumeMayRule,
	Course: resumeCourse + " A replay, the live events and the keep-alives all write to one response: each must go out whole, under the stream's lock, and in order. " +
		"Races show only when writes meet, so the grader makes them meet: a tick every 100 µs, a keep-alive every millisecond, and ten resumes of the standalone stream, " +
		"each of which must go on from the tick after the last one seen, with a body that stays well-formed event-stream text. Every other resume comes back after " +
		"200 ms away, so that a replay of hundreds of ticks meets the live ones, and is read with two thousand live ticks after it.",
	Hint: check.Hint{
		Report: "Every write to a stream's connection happens under the stream's lock: the events, the keep-alives, and the whole replay, from the attach check to attachLocked. " +
			"A replay written after unlocking races the live events, which go to the new connection as soon as it is attached.",
		Question: "Which writes to one response can run at once in your server, and what happens to the order of the ticks while a replay is being written?",
		Pointer:  "net/http: a ResponseWriter is not safe for concurrent use; sync.Mutex; go test -race shows such a race, the grader shows its effect on the wire.",
		Near:     "In hold, the keep-alive is written under s.mu (and only if s.w == ew); in resume, s.mu is held from the 409 check through ew.replay(missed) to s.attachLocked(ew).",
	},
	Claims: []check.Claim{
		{Claim: "a replay, the live events and the keep-alives never interleave on one response: every write happens under the stream's lock", Where: "step 1, step 4",
			How: "-tick 100µs, -keepalive 1ms, ten resumes of the standalone stream, five of them after 200 ms away (a long replay): each continues at the next tick, the body stays well-formed; without GRADER_RACE"},
	},
	Run: checkResumeUnderLoad,
}

func checkResumeUnderLoad(t *check.T) {
	h := wire.StartHTTP(t, "-tick", "100us", "-keepalive", "1ms", "-replay-buffer", "20000")
	session, _ := h.Initialize(spec.Rev)
	g := probe.OpenGET(t, h, session, spec.Rev, "", "GET with the session, with -tick 100us and -keepalive 1ms")
	ticks := readTicks(t, g, 100, 0, time.Second, "on the GET stream")
	for i := 1; i <= 10; i++ {
		expectWellFormed(t, g, "the GET stream")
		id := resumeID(t, g, "the GET stream")
		g.HangUp()
		// Back at once, so that the ticks missed stay few, or, every
		// other time, after 200 ms: a replay of hundreds of ticks, which
		// live ticks written outside the lock meet on the response, read
		// with two thousand live ticks after it.
		want := 200
		if i%2 == 0 {
			probe.Pause(t, 200*time.Millisecond)
			want = 2500
		}
		g = openResumeEvery(t, h, session, id, fmt.Sprintf("resume %d of 10: GET with Last-Event-ID: %s", i, id), 5*time.Millisecond)
		ticks = readTicks(t, g, want, ticks[len(ticks)-1]+1, time.Second, fmt.Sprintf("after resume %d of 10", i))
	}
	expectWellFormed(t, g, "the GET stream, resumed 10 times")
}

var sse37 = &check.Check{
	ID: "SSE-37", Step: 4, Severity: check.Must, Budget: 45 * time.Second,
	Needs: check.Needs{Flags: []string{"-replay-buffer", "-keepalive", "-max-body"}, Course: probe.ClearNotes, Optional: []check.Feature{check.EventIDs, check.GETStream}},
	Title: "the replay bounds under the defaults are exact: 1000 events and 4 MiB of messages per session; -replay-buffer 0 and -keepalive 0 mean the defaults, -replay-buffer 1 means one event",
	Spec:  spec.NoLimit,
	Course: "The course's defaults are part of its contract: a session keeps its newest 1000 events (DefaultReplayBuffer), priming events included, and at most " +
		"4 MiB of their messages (DefaultReplayBytes); a flag of 0 (or less) means the default, and any positive value is taken as it is. The grader tests each bound " +
		"on both sides: 1002 events, then a resume from the 1st (gone: 400) and from the 2nd (kept); two answers whose messages come to exactly 4 MiB " +
		"(both kept), then 1 KiB more (the first pushed out: 400; the second kept); and one answer of 4 MiB and 1 KiB, which cannot be kept even alone.",
	Hint: check.Hint{
		Report:   "NewHandler replaces each option that is not positive by its default (the given positive), and eventLog.add drops the oldest events while there are more than maxEvents, or more than maxBytes of data.",
		Question: "What does -replay-buffer 0 mean, and what does a server with no flags keep: 1000 events, or 999, or 1001?",
		Pointer:  "DefaultReplayBuffer and DefaultReplayBytes in handler.go; positive; eventLog.add's two bounds.",
		Near:     "opts.KeepAlive = positive(opts.KeepAlive, DefaultKeepAlive), and the same for ReplayBuffer and ReplayBytes; positive returns v only when v > 0.",
	},
	Claims: []check.Claim{
		{Claim: "the log is also bounded in bytes (ReplayBytes)", Where: "deep dives", How: "at the default, 4 MiB: two answers of exactly 4 MiB together are both kept; 1 KiB more pushes out the first and keeps the second; an answer of 4 MiB and 1 KiB alone is not kept"},
		{Claim: "an event too large for the log empties it, and every event after it is kept, through the log's growth", Where: "deep dives",
			How: "clear_notes's question pushed out by a 4 MiB and 1 KiB answer while the tool waits; after its result, 42 more events; a resume from the question gets the result"},
		{Claim: "a session keeps its newest -replay-buffer events (1000 by default), priming events included; 0 means the default", Where: "step 4",
			How: "no flags: 1002 events, both sides of the bound; -replay-buffer 0 and -keepalive 0 serve as the defaults; -replay-buffer 1 keeps one event"},
	},
	Checklist: []string{"C29"},
	Run:       checkDefaultBounds,
}

func checkDefaultBounds(t *check.T) {
	defaults := wire.StartHTTP(t)
	zero := wire.StartHTTP(t, "-replay-buffer", "0", "-keepalive", "0", "-max-body", "8388608")
	one := wire.StartHTTP(t, "-replay-buffer", "1")
	// The two parts on the server with the defaults run one after the
	// other, so that a server whose sessions share one log fails the same
	// way every time.
	t.Parallel(
		func() {
			session, _ := defaults.Initialize(spec.Rev)
			a := streamIDs(t, defaults, session, `2`, 1, "countdown from 1, the session's first stream")
			openPOST(t, defaults, session, spec.Rev, probe.CountdownCall(`3`, 997, 0, nonce("b")), "countdown from 997, at once: 999 more events, 1002 in all").End(wire.T2)
			expectRefusal(t, defaults, session, a[0], http.StatusBadRequest, true, "GET with Last-Event-ID: "+a[0]+", the 1st of 1002 events, with the default -replay-buffer",
				"a session keeps its newest 1000 events by default, so the event after it is gone")
			expectReplay(t, defaults, session, a[1], `2`, "GET with Last-Event-ID: "+a[1]+", the 2nd of 1002 events, with the default -replay-buffer")

			session, _ = defaults.Initialize(spec.Rev)
			// Two answers whose messages come to exactly 4 MiB, then one
			// more small one: the bound is kept at 4 MiB, and passed by a byte.
			echo := func(id string, size int, what string) (priming string, data int) {
				s := defaults.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Within: bigUpload,
					Body: wire.Request(id, "tools/call", wire.ToolCall("echo", map[string]any{"text": strings.Repeat("x", size)}, nonce("e"))), Purpose: what})
				probe.ExpectEventStream(t, s, what, "")
				events, _ := s.End(bigUpload)
				if len(events) != 2 || events[0].Data != "" || !events[0].SetID {
					t.Fail(check.Failure{What: what + " did not carry a priming event and its answer", Got: fmt.Sprintf("%d events", len(events)), Want: "2 events"})
				}
				return events[0].ID, len(events[1].Data)
			}
			const half = 2 << 20
			primeA, lenA := echo(`2`, half, "echo A, 2 MiB, with a progress token")
			overhead := lenA - half // the answer's JSON around its text; B's has the same
			primeB, _ := echo(`3`, 4<<20-lenA-overhead, "echo B, sized so that A's and B's answers come to exactly 4 MiB")
			probe.ExpectEventStream(t, defaults.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, primeA),
				Purpose: "GET with Last-Event-ID: " + primeA + ", A's priming event, with exactly 4 MiB of messages kept"}), "GET resuming A at exactly the byte bound", "")
			echo(`4`, 1024, "echo C, 1 KiB more, past the byte bound")
			expectRefusal(t, defaults, session, primeA, http.StatusBadRequest, true, "GET with Last-Event-ID: "+primeA+", A's priming event, once C has passed the byte bound",
				"4 MiB of messages no longer hold A's answer, so it was pushed out")
			probe.ExpectEventStream(t, defaults.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, primeB),
				Purpose: "GET with Last-Event-ID: " + primeB + ", B's priming event, whose answer is still kept"}), "GET resuming B", "")
		},
		func() {
			session, _ := zero.Initialize(spec.Rev)
			g := probe.OpenGET(t, zero, session, spec.Rev, "", "GET with -keepalive 0, which means the default")
			if events, ended := g.End(300 * time.Millisecond); ended {
				t.Fail(check.Failure{What: "with -keepalive 0, the GET stream ended at once", Got: describeEvents(events), Want: "a stream that stays open: 0 means the default keep-alive"})
			}
			ids := streamIDs(t, zero, session, `2`, 1, "countdown from 1, with -replay-buffer 0")
			expectReplay(t, zero, session, ids[0], `2`, "GET with Last-Event-ID: "+ids[0]+", with -replay-buffer 0, which means the default")
			// An answer larger than the byte bound by itself: it cannot be
			// kept, not even as the log's one event.
			const over = 4<<20 + 1<<10
			what := "echo of 4 MiB and 1 KiB, an answer larger than the 4 MiB byte bound by itself (-max-body 8 MiB)"
			s := zero.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Within: bigUpload,
				Body: wire.Request(`3`, "tools/call", wire.ToolCall("echo", map[string]any{"text": strings.Repeat("x", over)}, nonce("e"))), Purpose: what})
			probe.ExpectEventStream(t, s, what, "")
			events, _ := s.End(bigUpload)
			if len(events) != 2 || events[0].Data != "" || !events[0].SetID || len(events[1].Data) <= over {
				t.Fail(check.Failure{What: what + " did not carry a priming event and its whole answer", Got: fmt.Sprintf("%d events", len(events)), Want: "2 events"})
			}
			expectRefusal(t, zero, session, events[0].ID, http.StatusBadRequest, true, "GET with Last-Event-ID: "+events[0].ID+", the priming event of an answer larger than 4 MiB",
				"an event larger than the byte bound cannot be kept, even alone: it is dropped at once, so the stream cannot be resumed from before it")

			// An answer that large empties the log; the events after it
			// must all be kept, through the log's growth: clear_notes's
			// question is pushed out while the tool waits, its result comes
			// after, then a countdown adds 42 more events.
			asker := probe.InitializeEliciting(t, zero, spec.Rev)
			probe.CallTool(t, zero, asker, `2`, "add_note", map[string]any{"text": nonce("to be cleared")})
			q := zero.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(asker, spec.Rev), Body: probe.ClearNotesCall(`3`), Within: time.Second,
				Purpose: "clear_notes, which asks the client to confirm before it answers"})
			question := probe.AwaitQuestion(t, q, time.Second)
			qid := resumeID(t, q, "clear_notes's stream")
			q.HangUp()
			s = zero.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(asker, spec.Rev), Within: bigUpload,
				Body: wire.Request(`4`, "tools/call", wire.ToolCall("echo", map[string]any{"text": strings.Repeat("x", over)}, nonce("e"))), Purpose: what + ", while clear_notes waits"})
			probe.ExpectEventStream(t, s, what, "")
			s.End(bigUpload)
			awaitLetGo(t, zero, asker, qid)
			probe.Answer(t, zero, asker, spec.Rev, question)
			streamIDs(t, zero, asker, `5`, 40, "countdown from 40, 42 events after clear_notes's result")
			probe.ExpectCleared(t, openResume(t, zero, asker, qid, "GET with Last-Event-ID: "+qid+", clear_notes's question, pushed out by the large answer; its result came after"), `3`, 1)
		},
		func() {
			session, _ := one.Initialize(spec.Rev)
			ids := streamIDs(t, one, session, `2`, 1, "countdown from 1, with -replay-buffer 1")
			expectRefusal(t, one, session, ids[0], http.StatusBadRequest, true, "GET with Last-Event-ID: "+ids[0]+", the 1st of 3 events, with -replay-buffer 1",
				"a session with -replay-buffer 1 keeps one event, so the one after it is gone")
			expectReplay(t, one, session, ids[1], `2`, "GET with Last-Event-ID: "+ids[1]+", the 2nd of 3 events, with -replay-buffer 1")
		},
	)
}

// streamIDs runs a countdown on a stream of its own, reads it to its end,
// and returns its events' ids, which must all be there.
func streamIDs(t *check.T, h *wire.HTTP, session, id string, from int, purpose string) []string {
	s := openPOST(t, h, session, spec.Rev, probe.CountdownCall(id, from, 0, nonce("c")), purpose)
	events, _ := s.End(wire.T2)
	if !anyID(events) {
		skipWithoutEventIDs(t, "the countdown's stream")
	}
	if len(events) != from+2 || !allIDs(events) {
		t.Fail(check.Failure{What: fmt.Sprintf("%s carried %d events", purpose, len(events)), Got: describeEvents(events),
			Want: fmt.Sprintf("%d events, each with an id: the priming event, %d progress notifications and the response", from+2, from)})
	}
	var ids []string
	for _, e := range events {
		ids = append(ids, e.ID)
	}
	return ids
}

// awaitLetGo waits, up to 1 s, until a GET with Last-Event-ID id is no
// longer refused with 409 because the stream's dropped client still holds
// it: a refusal probe that follows must meet only the rule it tests.
// (SSE-32 is the check that wants the connection let go of at once.)
func awaitLetGo(t *check.T, h *wire.HTTP, session, id string) {
	// The probe that follows judges the answer.
	afterLetGo(t, h, session, id, "GET with Last-Event-ID: "+id+", until the dropped client's connection is let go of").Close()
}

// afterLetGo opens GETs with Last-Event-ID id, up to 1 s, until one is not
// refused with 409, and returns that answer, open, for the caller to judge:
// for a probe whose id, once the dropped client is let go of, a mistaken
// server would attach to, so that a second GET would meet 409 again.
func afterLetGo(t *check.T, h *wire.HTTP, session, id, purpose string) *wire.Stream {
	var answer *wire.Stream
	probe.Settle(t, time.Second, func() bool {
		answer = h.Open(wire.Req{Method: http.MethodGet, Header: probe.GETHeaders(session, spec.Rev, id), Purpose: purpose})
		if answer.Status == http.StatusConflict {
			answer.End(wire.T1)
			return false
		}
		return true
	})
	return answer
}

// endedCountdown runs a countdown from 1 to its end on a POST stream of
// session, and returns the ids of its first and last events: a stream with
// events to replay after the first. It fails the check when they carry no
// id.
func endedCountdown(t *check.T, h *wire.HTTP, session, purpose string) (first, last string) {
	p := openPOST(t, h, session, spec.Rev, probe.CountdownCall(`2`, 1, 0, nonce("c")), purpose)
	e := p.Next(wire.T1, "the first event of the countdown's stream")
	p.End(wire.T2)
	last = resumeID(t, p, "the countdown's stream")
	if e.ID == "" {
		t.Fail(check.Failure{What: "the first event of the countdown's stream has no id", Got: describeEvents([]wire.Event{e}), Cause: causeEventIDs})
	}
	return e.ID, last
}

var sse41 = &check.Check{
	ID: "SSE-41", Step: 4, Severity: check.Must, Budget: 60 * time.Second,
	Needs: check.Needs{Flags: []string{"-debug", "-replay-buffer"}, Optional: []check.Feature{check.EventIDs}},
	Title: "a stream that has ended and whose events the log has all dropped is forgotten: 3000 short streams in one session (-replay-buffer 2) leave its heap where it was",
	Spec:  spec.NoLimit,
	Course: "A session may live for hours and answer thousands of requests with streams. The course requires the state of a stream to be let go of once " +
		"nothing of it can be resumed: it has ended, and the log keeps none of its events (sessionStreams.evicted and end delete it). The grader " +
		"runs 3000 countdowns from 0 in one session with -replay-buffer 2, and wants the heap (via -debug) to grow by under 256 KiB.",
	Hint: check.Hint{
		Report:   "Count each stream's events in the log (s.kept): up when one is logged, down when the log drops one. When an ended stream keeps none, delete it from set.streams, in evicted and in end.",
		Question: "When can a stream of a session be forgotten, and what in your code forgets it?",
		Pointer:  "sessionStreams.evicted and sessionStreams.end; a map entry and its stream stay alive until deleted.",
		Near:     "In evicted: s.dropped = e.n; s.kept--; if s.kept == 0 && s.isEnded() { delete(set.streams, s.num) }.",
	},
	Claims: []check.Claim{
		{Claim: "an ended stream whose events have all left the log is forgotten", Where: "step 4", How: "3000 short streams in one session, -replay-buffer 2: the heap grows by under 256 KiB"},
	},
	Run: checkEndedStreamsForgotten,
}

func checkEndedStreamsForgotten(t *check.T) {
	const streams = 3000
	h := wire.StartHTTP(t, "-debug", "-replay-buffer", "2")
	session, _ := h.Initialize(spec.Rev)
	streamIDs(t, h, session, `2`, 0, "countdown from 0, the session's first stream")
	before := h.VarInt("heap_live")
	started := time.Now()
	for i := 0; i < streams; i++ {
		resp := h.Do(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, spec.Rev), Body: probe.CountdownCall(fmt.Sprint(i+3), 0, 0, fmt.Sprint("p", i)),
			Purpose: fmt.Sprintf("countdown from 0 with a progress token, stream %d of %d", i+1, streams)})
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: "a countdown from 0 did not succeed", Got: resp.Summary(), Want: "HTTP 200"})
		}
	}
	// What a request leaves for a moment (its connection's buffers, its
	// goroutine's last allocations) is let go of soon: wait up to 1 s for
	// the heap to come back.
	var after int64
	probe.Settle(t, time.Second, func() bool {
		after = h.VarInt("heap_live")
		return after-before < 256<<10
	})
	t.Wire.Event("heap before %d short streams in one session: %d bytes; after: %d (%v)", streams, before, after, time.Since(started).Round(time.Millisecond))
	if grown := after - before; grown >= 256<<10 {
		t.Fail(check.Failure{What: fmt.Sprintf("after %d short streams in one session, with -replay-buffer 2, its heap grew by %d KiB", streams, grown>>10),
			Want: "under 256 KiB: a stream that has ended, and whose events the log has all dropped, is deleted from the session's streams"})
	}
}
