package grader

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/proc"
	"mcpcourse/grader/internal/wire"
)

var (
	resumeRule    = func(q string) check.Spec { return httpRule("Resumability and Redelivery", q) }
	multipleRule  = func(q string) check.Spec { return httpRule("Multiple Connections", q) }
	resumeMayRule = resumeRule("The server MAY use this header to replay messages that would have been sent after the last event ID, on the stream that was disconnected, and to resume the stream from that point.")
	ownStreamRule = resumeRule("The server MUST NOT replay messages that would have been delivered on a different stream.")
)

// resumeCourse is the Course text of the checks that grade replay: the spec
// lets a server offer it (MAY); this course requires it.
const resumeCourse = "Resumability is a MAY in the spec; stage 03 of the course requires it: every event carries an id, and a GET with Last-Event-ID gets exactly what that stream missed."

// Causes of lesson 03's own (see Lesson.Causes): most checks open the
// session's standalone GET stream before they test anything else, and every
// resume needs the event ids a stream carries.
const (
	// causeGETStream: a GET with a live session did not get its stream.
	causeGETStream = "get-stream"
	// causeEventIDs: the events of a stream carry no id to resume from.
	causeEventIDs = "event-ids"
)

// Lesson03 grades stage 03: the standalone GET stream, event ids, and
// resuming a stream with Last-Event-ID.
var Lesson03 = &Lesson{
	Number: "03",
	Stage:  "03-sse-resume",
	Title:  "SSE streams and Last-Event-ID replay",
	Guide:  "lessons/03-sse-resume.md",
	// A server that does not start or fails initialize is stage 02's
	// trouble, which SSE-01 meets first; a GET that gets no stream (the
	// starter's 501) fails most checks of the lesson, and a stream without
	// event ids fails every check that resumes one.
	Causes: map[string]string{wire.CauseStart: "SSE-01", wire.CauseUnimplemented: "SSE-01", wire.CauseInitialize: "SSE-01",
		wire.CauseSession: "SSE-01", causeGETStream: "SSE-01", causeEventIDs: "SSE-14"},
	Underneath: "stage 03 answers POST, initialize included, with your stage 02: if lesson 02 does not pass yet (go test ./grader -run Lesson02), " +
		"finish it, or run go run ./cmd/course catch-up 03, which puts the reference in place of each earlier stage whose lesson does not pass; " +
		"once lessons 01 and 02 pass, the trouble is in stage 03 itself",
	Checks: []*check.Check{
		// Step 1: the standalone GET stream, and what a stream costs.
		{
			ID: "SSE-01", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "GET with a session opens an SSE stream at once, and keeps it open",
			Spec:  listeningRule("The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed"),
			Course: "Stage 03 offers the stream, so GET must get 200 text/event-stream, with the headers flushed at once (the grader opens it at 2025-06-18, " +
				"where no priming event follows to push them out), and the stream stays open for the server's messages.",
			Hint: "Write the headers with w.WriteHeader(http.StatusOK) and flush them (http.ResponseController.Flush) before you wait for anything; then block until the client, the session or the server goes away.",
			Run:  checkGETOpensStream,
		},
		{
			ID: "SSE-02", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "GET without a session id gets 400; with an unknown or deleted one, 404",
			Spec:  sessionRule("The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"),
			Course: "As for POST, the course requires 400 for a GET without MCP-Session-Id (the spec: SHOULD), and the answer must end at once: " +
				"no stream for a client that has no session.",
			Hint: "Look the session up with stage 02's Handler.Session(w, r): it writes the 400 or the 404 itself. Only then start the stream.",
			Run:  checkGETSessionErrors,
		},
		{
			ID: "SSE-03", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "DELETE ends the session's open GET stream",
			Spec:  sessionRule("The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"),
			Course: "A stream belongs to its session. When the session ends (DELETE, expiry, shutdown), the course requires its streams to end within 1 s, " +
				"and their state to be freed: a stream that outlives its session holds a connection for nothing.",
			Hint: "mcp.Session.Context() is cancelled when the session closes. Wait on it, beside the request's own context, in the loop that holds the GET open.",
			Run:  checkDeleteEndsStream,
		},
		{
			ID: "SSE-04", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "GET with an unsupported MCP-Protocol-Version gets 400",
			Spec:  httpRule("Protocol Version Header", "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"),
			Hint:  "The rule holds for every request, GET included: call stage 02's Handler.ProtocolVersion(w, r, nil) before you look at anything else.",
			Run:   checkGETVersion,
		},
		{
			ID: "SSE-05", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "GET whose Accept lacks text/event-stream gets 406 (a course rule)",
			Spec:  listeningRule("The client MUST include an Accept header, listing text/event-stream as a supported content type"),
			Course: "The spec puts this rule on the client and leaves the server's answer open. The course requires 406 Not Acceptable: " +
				"a GET can only be answered with a stream, and this client says it cannot read one.",
			Hint: "Check Accept with stage 02's Accepts(r.Header.Values(\"Accept\"), \"text/event-stream\") and answer 406 with a JSON-RPC error body when it is false.",
			Run:  checkGETAccept,
		},
		{
			ID: "SSE-06", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Title: "one standalone stream per session: a second GET gets 409 while the first is open",
			Spec:  multipleRule("The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams."),
			Course: "With two GET streams open, each message would have to pick one, and the client could not tell which connection to trust. " +
				"The course requires 409 Conflict for the second (as the official Go SDK answers), the first to stay open, and a new GET to be served once the first client has gone.",
			Hint: "Keep the session's standalone stream in one place, with the connection it is attached to. A GET that finds it attached gets 409; when the holder's request context ends, detach it.",
			Run:  checkOneStandaloneStream,
		},
		{
			ID: "SSE-07", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Flags: []string{"-keepalive"}},
			Title: "an idle GET stream sends a keep-alive comment every -keepalive",
			Spec:  listeningRule("The server MAY close the SSE stream at any time."),
			Course: "Proxies and load balancers close connections that stay silent (often after 60 s), and a client cannot tell a quiet stream from a dead one. " +
				"The course requires an SSE comment (a line starting with \":\") every -keepalive; the grader sets 150ms and wants at least 3 in a second.",
			Hint: "In the loop that holds the GET open, add a time.Ticker of KeepAlive and write \": keep-alive\\n\\n\" on each tick, under the stream's lock, and flush it.",
			Run:  checkKeepAlive,
		},
		{
			ID: "SSE-08", Step: 1, Severity: check.Must, Budget: 8 * time.Second,
			Needs: check.Needs{Flags: []string{"-debug"}},
			Title: "clients that drop their streams leave no goroutine and no socket behind (counted via -debug's /debug/vars and /proc/PID/fd)",
			Spec:  sendingRule("Disconnection MAY occur at any time (e.g., due to network conditions)."),
			Course: "The course requires every stream's goroutines and its connection to be freed when its client leaves. The grader drops 16 streams and " +
				"reads the server's goroutine count (the given cmd/server publishes it at /debug/vars with -debug) and, on Linux, its open file descriptors.",
			Hint: "A GET handler must return when r.Context() is done, and every goroutine you start for a stream must end with it. A loop that only waits for messages never notices the client left.",
			Run:  checkNoLeaks,
		},
		{
			ID: "SSE-09", Step: 1, Severity: check.Must, Budget: 8 * time.Second,
			Needs: check.Needs{Signal: true},
			Title: "SIGTERM ends the open GET streams at once, and the server exits",
			Spec:  check.Spec{Rev: rev, Section: "basic/lifecycle › Shutdown › HTTP", Quote: "For HTTP transports, shutdown is indicated by closing the associated HTTP connection(s)."},
			Course: "http.Server.Shutdown waits for every response to finish, and a GET stream never does. The course requires SIGTERM to end open GET streams " +
				"within 1.5 s and the process to exit, with status 0, within 3 s.",
			Hint: "The given serve.Run calls the handler's CloseStreams before Shutdown: make hold return when it closes h.closing, so that the GET streams end while the POSTs finish.",
			Run:  checkSIGTERMEndsStreams,
		},
		{
			ID: "SSE-10", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.Stateless},
			Title: "stateless: GET still gets 405 at once, Last-Event-ID or not",
			Spec:  listeningRule("or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint"),
			Course: "Adding the GET stream is where lesson 02's bug comes back: a stateless server that opened a stream on GET held every such request for " +
				"5 minutes. The course requires 405 with an Allow header and a body that ends within 2 s.",
			Hint:           "The GET plug is for stateful mode only: in stateless mode answer 405 before anything else, as stage 02 does.",
			StarterMayPass: "stage 02 already answers a stateless GET with 405; the check guards that adding the stream does not change it",
			Run:            checkStatelessGET405,
		},
		{
			ID: "SSE-30", Step: 1, Severity: check.Must, Budget: 6 * time.Second,
			Needs: check.Needs{Flags: []string{"-session-timeout"}},
			Title: "a session whose client listens on GET never expires; once the stream closes, it expires as any idle session",
			Spec:  sessionRule("The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"),
			Course: "Expiry is for sessions nobody uses, and a client listening on GET is using its session: it waits for the server's messages. The course " +
				"requires the stream and the session to live on past -session-timeout (the grader sets 500ms and listens for 1.5 s), and the session to " +
				"expire as usual once the stream has closed.",
			Hint: "The done function that stage 02's Handler.Session returns marks the session idle again: defer it in serveGET, so that it runs when the GET " +
				"returns, neither sooner (the session expires under a listening client) nor never (a session that once listened lives for ever).",
			Run: checkListeningKeepsSession,
		},

		// Step 2: event ids on every stream.
		{
			ID: "SSE-11", Step: 2, Severity: check.Must, Budget: 6 * time.Second,
			Title: "a POST stream flushes each event as it happens, then the response, then ends; no token still gets JSON",
			Spec:  sendingRule("After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream."),
			Course: "Progress is only useful live: the course requires each event to reach the client when it is produced (the grader runs a countdown " +
				"with 400 ms between steps and wants the first progress event long before the response), and a request without a progress token to keep getting application/json.",
			Hint:           "After writing each event, call http.ResponseController.Flush. Without it, net/http buffers the events and sends them all when the handler returns.",
			StarterMayPass: "the starter's Open returns stage 02's plain stream, which already flushes each event; the check guards that your resumable streams keep doing so",
			Run:            checkPOSTStreamFlushes,
		},
		{
			ID: "SSE-12", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "at 2025-11-25, a POST stream opens with a priming event (an id, empty data) and a retry field",
			Spec:  sendingRule("The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect (using that event ID as Last-Event-ID)."),
			Course: "The spec says SHOULD; the course requires it, with a retry field in it (the spec: SHOULD, before the server closes a connection): " +
				"without an id, a client whose connection breaks before the first message has nothing to resume from.",
			Hint: "When the session negotiated 2025-11-25 (mcp.ProtocolVersion.Priming), log and write an event with no data first: \"id: 1-1\\nretry: 1000\\ndata:\\n\\n\".",
			Run:  checkPriming,
		},
		{
			ID: "SSE-13", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title: "at 2025-06-18 and 2025-03-26, no priming event and no retry field",
			Spec:  check.Spec{Rev: rev, Section: "basic/transports › Streamable HTTP › Sending Messages to the Server (the priming event is new in 2025-11-25)", Quote: "The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field"},
			Course: "Events with empty data broke clients written for earlier revisions (go-sdk #768, typescript-sdk #1184, python-sdk #1719), so every SDK sends " +
				"the priming event only to sessions that negotiated 2025-11-25. The course requires the same: judge the session's version, not the server's.",
			Hint:           "Decide by the session's negotiated version (sess.Version()), from the version table: only 2025-11-25 has Priming set.",
			StarterMayPass: "stage 02's plain streams have no priming event at any version; the check guards that yours add one at 2025-11-25 only",
			Run:            checkNoPrimingBefore20251125,
		},
		{
			ID: "SSE-14", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Title:  "every event carries an id, unique across all the session's streams",
			Spec:   resumeRule("If present, the ID MUST be globally unique across all streams within that session"),
			Course: resumeCourse + " Ids that repeat across streams make a Last-Event-ID ambiguous.",
			Hint:   "Number each stream (0 for the standalone one) and each event within its stream, and write both: \"id: 2-7\" is event 7 of stream 2. A per-stream count alone repeats on every stream.",
			Run:    checkUniqueIDs,
		},
		{
			ID: "SSE-15", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Mode: check.Stateless},
			Title: "stateless: a POST stream has no priming event, since nothing can be resumed",
			Spec:  sendingRule("The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect (using that event ID as Last-Event-ID)."),
			Course: "A priming event promises a stream the client can resume, and a stateless server has no session to resume it in (its GET is 405). " +
				"The course requires no priming event and no retry field in stateless mode.",
			Hint:           "In stateless mode, Open returns a plain stream (sse.NewStream), as stage 02 did: no ids, no log, no priming.",
			StarterMayPass: "stage 02's plain streams have no priming event; the check guards that stateless streams stay that way",
			Run:            checkStatelessNoPriming,
		},
		{
			ID: "SSE-16", Step: 2, Severity: check.Must, Budget: 15 * time.Second,
			Needs: check.Needs{Flags: []string{"-debug", "-max-sessions"}},
			Title: "an idle session stays small, and a short stream costs what it holds, not the whole replay buffer (heap via -debug)",
			Spec:  noLimitRule,
			Course: "A server holds thousands of sessions, most of them idle. The course requires per-session stream state to be made on the first stream and to grow " +
				"with its events: the grader opens 200 sessions and wants under 8 KiB each while idle, and under 12 KiB more after a 3-event stream.",
			Hint:           "Make a session's stream state on its first stream, not before, and start its ring small (make it grow like append does, up to ReplayBuffer).",
			StarterMayPass: "the starter keeps no stream state at all; the check guards that yours stays small as you add it",
			Run:            checkSessionsStaySmall,
		},

		// Step 3: the session's outlet.
		{
			ID: "SSE-17", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Course: notesLog},
			Title: "add_note's log message arrives on the standalone stream; one from before the first GET is not kept",
			Spec:  listeningRule("The server MAY send JSON-RPC requests and notifications on the stream."),
			Course: "The course's server sends a notifications/message (level info, logger \"notes\") for each note, through the session's outlet. " +
				"The first GET must attach its stream as that outlet. Before it, nothing is kept: a session nobody listens to must not grow.",
			Hint: "When the first GET opens the standalone stream, call sess.Attach(stream): the stream is an mcp.Peer whose Send logs the event and writes it.",
			Run:  checkNoteOnStandalone,
		},
		{
			ID: "SSE-18", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Title: "no JSON-RPC response ever travels on the standalone stream",
			Spec:  listeningRule("The server MUST NOT send a JSON-RPC response on the stream unless resuming a stream associated with a previous client request."),
			Hint:  "A response belongs to the POST that carried its request (its JSON body, or its own SSE stream). Only messages the server starts itself go to the outlet.",
			Run:   checkNoResponseOnStandalone,
		},
		{
			ID: "SSE-19", Step: 3, Severity: check.Must, Budget: 6 * time.Second,
			Title: "each message travels on exactly one stream: progress on its POST, log messages on the GET",
			Spec:  multipleRule("The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams."),
			Course: "Which stream a message takes is a SHOULD in the spec: a request's messages on its POST stream, and on the GET stream only messages unrelated to " +
				"running requests. The course requires both, and that none is lost.",
			Hint: "A request's progress goes to the request's own stream (its Peer), and nowhere else; a message for the session goes to the outlet only. Never copy a message to \"every open stream\".",
			Run:  checkEachMessageOnce,
		},
		{
			ID: "SSE-20", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
			Needs: check.Needs{Flags: []string{"-tick"}},
			Title: "-tick sends {\"tick\": N} log messages on the standalone stream, N counting 1, 2, 3, …",
			Spec:  listeningRule("The server MAY send JSON-RPC requests and notifications on the stream."),
			Course: "The course's -tick DURATION flag (the grader sets 40ms) sends each session's standalone stream a notifications/message " +
				"(level info, logger \"ticker\", data {\"tick\": N}) every interval, from the first GET on.",
			Hint: "Start one goroutine per session when its standalone stream is first opened: a time.Ticker, and sess.Log(ctx, mcp.LevelInfo, \"ticker\", map[string]int{\"tick\": n}) on each tick, until sess.Context() is done.",
			Run:  checkTicks,
		},

		// Step 4: resuming with Last-Event-ID.
		{
			ID: "SSE-21", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
			Title: "GET with Last-Event-ID resumes a cut POST stream: exactly the missed events, then live, then the response and the end",
			Spec:  resumeMayRule, Course: resumeCourse,
			Hint: "Parse the id, find its stream, and under the stream's lock write the logged events that come after it, then attach the GET's connection so that new events go there. Holding the lock across both keeps an event from being lost or sent twice.",
			Run:  checkResumePOSTStream,
		},
		{
			ID: "SSE-22", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
			Title: "a resumed stream replays its own events only, never another stream's",
			Spec:  ownStreamRule,
			Course: "Beyond the spec's MUST NOT, the course requires the resumed stream to carry exactly the events its client missed, " +
				"then the response, and then to end.",
			Hint: "The log holds every stream's events, interleaved. Replay only the events whose stream is the one the Last-Event-ID names.",
			Run:  checkReplayStaysOnItsStream,
		},
		{
			ID: "SSE-23", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
			Title: "an event id of another session resumes nothing: 400, and none of that session's events",
			Spec:  resumeRule("The server MUST NOT replay messages that would have been delivered on a different stream."),
			Course: "Event ids are only meaningful within their session. A server that keeps one log for everyone, or looks ids up across sessions, " +
				"hands one client's messages to another (a real advisory, GHSA-84j6-jc92-77jm). The course requires 400 with a JSON-RPC error.",
			Hint: "Keep the event log per session, and look a Last-Event-ID up only in the log of the session the request's MCP-Session-Id names.",
			Run:  checkCrossSessionID,
		},
		{
			ID: "SSE-24", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
			Title: "a POST stream whose client went away runs to its end, and can be resumed afterwards",
			Spec:  sendingRule("Disconnection SHOULD NOT be interpreted as the client cancelling its request."),
			Course: "The course requires a request to finish after its client drops (the history tool shows it), and its stream to stay resumable: " +
				"a GET with Last-Event-ID then gets the rest of its events and its response, and the stream ends.",
			Hint: "Run requests under a context the connection does not cancel (stage 02 does), keep logging their events while no client is attached, and let a GET replay an ended stream before it ends the response.",
			Run:  checkResumeAfterTheEnd,
		},
		{
			ID: "SSE-25", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
			Needs:  check.Needs{Flags: []string{"-tick"}},
			Title:  "the standalone stream resumes too: messages sent while the client was away are replayed, then ticking goes on",
			Spec:   resumeRule("This mechanism applies regardless of how the original stream was initiated (via POST or GET). Resumption is always via HTTP GET with Last-Event-ID."),
			Course: resumeCourse + " Once a session's standalone stream exists, its messages are kept while the client is away (within -replay-buffer).",
			Hint:   "The outlet stays attached when the GET's client leaves: its Send keeps logging. The ticker belongs to the session, not to the connection.",
			Run:    checkResumeStandalone,
		},
		{
			ID: "SSE-26", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
			Title: "a malformed or unknown Last-Event-ID gets 400 with a JSON-RPC error, at once",
			Spec:  resumeMayRule,
			Course: "The course requires a clear refusal for an id the server cannot resume from: 400 with a JSON-RPC error body. Not a fresh stream that " +
				"pretends all is well, and not 404, which tells the client its session is gone.",
			Hint: "When the id does not parse, or names a stream or an event this session never had, answer with httpjson.Error and status 400 before starting any stream.",
			Run:  checkBadEventIDs,
		},
		{
			ID: "SSE-27", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
			Needs: check.Needs{Flags: []string{"-replay-buffer"}},
			Title: "the replay buffer is bounded per session (-replay-buffer); an id whose sequel was dropped gets 400, never a partial replay",
			Spec:  noLimitRule,
			Course: "Keeping every event for ever lets one client grow the server without bound. The course requires at most -replay-buffer events per session " +
				"(the grader sets 10), and a 400 with a JSON-RPC error when events after the client's id are gone: a replay with a hole in it looks complete and is not.",
			Hint: "Keep the events in a ring of at most ReplayBuffer; when one falls out, note on its stream the number of the newest event it lost. A Last-Event-ID below that number gets 400.",
			Run:  checkBoundedReplay,
		},
		{
			ID: "SSE-28", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
			Title: "a second GET resuming a stream that another GET holds gets 409",
			Spec:  multipleRule("The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams."),
			Course: "One stream, one connection. The course requires 409 Conflict for a GET that resumes a stream already attached to another " +
				"connection (the official Go SDK does the same), and the first to go on undisturbed.",
			Hint: "Under the stream's lock, a GET that finds another connection attached answers 409 and touches nothing.",
			Run:  checkResumeConflict,
		},
		{
			ID: "SSE-29", Step: 4, Severity: check.Must, Budget: 6 * time.Second,
			Title: "resuming a stream that has ended with nothing left (after a result, an error or a cancellation) gets a 4xx at once",
			Spec:  resumeMayRule,
			Course: "The spec does not say what such a GET gets; the course does. The official TypeScript SDK (1.32.2) resumes every POST stream that ends without a result, " +
				"and reconnects without limit to a GET stream that ends: an empty 200 stream makes it loop for ever, a stream held open makes it wait for ever. " +
				"So the course requires a 4xx with a body that ends (400 in the reference), not 404 (the session lives) and not 405 (GET is served).",
			Hint: "Before starting the stream, check: has the stream ended, and is there nothing to replay? Then answer 400 with a JSON-RPC error that says so.",
			Run:  checkResumeEndedStream,
		},
	},
}

// ---- helpers ----

// getHeaders are the headers of a client's GET: Accept, the session, the
// version, and the id to resume from, each when given.
func getHeaders(session, version, lastEventID string) http.Header {
	h := http.Header{}
	h.Set("Accept", "text/event-stream")
	if session != "" {
		h.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		h.Set("Mcp-Protocol-Version", version)
	}
	if lastEventID != "" {
		h.Set("Last-Event-ID", lastEventID)
	}
	return h
}

// openGET opens a GET stream and fails the check unless it is 200
// text/event-stream. A GET that opens the standalone stream and fails is
// what SSE-01 tests (causeGETStream).
func openGET(t *check.T, h *wire.HTTP, session, version, lastEventID, purpose string) *wire.Stream {
	s := h.Open(wire.Req{Method: http.MethodGet, Header: getHeaders(session, version, lastEventID), Purpose: purpose})
	cause := ""
	if lastEventID == "" {
		cause = causeGETStream
		skipWithoutGETStream(t, s.Status)
		if t.Target.External() && s.Status != http.StatusMethodNotAllowed && (s.Status != http.StatusOK || s.ContentType != "text/event-stream") {
			// A GET in a live session, which asks for a stream: the spec
			// allows a stream or 405, nothing else.
			t.Fail(check.Failure{What: purpose + " got neither an SSE stream nor 405", Got: streamSummary(s),
				Want: "HTTP 200, Content-Type: text/event-stream (or 405, for a server that offers no stream)", Cites: &getRule})
		}
	}
	expectEventStream(t, s, purpose, cause)
	return s
}

// getRule is the spec's rule for what a GET gets.
var getRule = listeningRule("The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed")

// openResume opens a GET that resumes a stream whose client the grader has
// just dropped. The server may not have seen that client go yet, and then
// answers 409, as it should: like a real client, which waits for the retry
// field, the grader tries again, for up to 1 s.
func openResume(t *check.T, h *wire.HTTP, session, lastEventID, purpose string) *wire.Stream {
	deadline := time.Now().Add(time.Second)
	for {
		s := h.Open(wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, lastEventID), Purpose: purpose})
		if s.Status != http.StatusConflict || time.Now().After(deadline) {
			expectEventStream(t, s, purpose, "")
			return s
		}
		s.End(wire.T1)
		pause(t, 100*time.Millisecond)
	}
}

// openPOST sends a request whose answer must be an SSE stream (it carries a
// progress token), and returns the stream once its headers have come.
func openPOST(t *check.T, h *wire.HTTP, session, version, body, purpose string) *wire.Stream {
	s := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, version), Body: body, Purpose: purpose})
	expectEventStream(t, s, purpose, "")
	return s
}

// expectEventStream fails the check, naming cause, unless s is 200
// text/event-stream.
func expectEventStream(t *check.T, s *wire.Stream, purpose, cause string) {
	if s.Status == http.StatusOK && s.ContentType == "text/event-stream" {
		return
	}
	t.Fail(check.Failure{What: purpose + " did not start an SSE stream", Got: streamSummary(s), Want: "HTTP 200, Content-Type: text/event-stream", Cause: cause})
}

// streamSummary describes a response read with Open, reading up to 500 ms
// of its body.
func streamSummary(s *wire.Stream) string {
	events, ended := s.End(500 * time.Millisecond)
	got := fmt.Sprintf("HTTP %d, Content-Type: %q", s.Status, s.Header.Get("Content-Type"))
	var body []string
	for _, e := range events {
		body = append(body, e.Data)
	}
	if len(body) > 0 {
		got += ", body " + check.Quote(strings.Join(body, "\n"))
	}
	if !ended {
		got += " (the body had not ended after 500ms)"
	}
	return got
}

// countdownCall is tools/call countdown with a progress token.
func countdownCall(id string, from, intervalMS int, token string) string {
	return wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": from, "interval_ms": intervalMS}, token))
}

// nonce makes a value no earlier run of the check could have left behind.
func nonce(prefix string) string { return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1e9) }

// progressOf reads a notifications/progress: its token (as JSON text) and
// its progress value.
func progressOf(m *wire.Msg) (token string, progress float64, ok bool) {
	if m == nil || m.MethodName() != "notifications/progress" {
		return "", 0, false
	}
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress *float64        `json:"progress"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Progress == nil {
		return "", 0, false
	}
	return string(p.Token), *p.Progress, true
}

// logOf reads a notifications/message: its level, its logger and its data.
func logOf(m *wire.Msg) (level, logger string, data json.RawMessage, ok bool) {
	if m == nil || m.MethodName() != "notifications/message" {
		return "", "", nil, false
	}
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	json.Unmarshal(m.Params, &p)
	return p.Level, p.Logger, p.Data, true
}

func isLogFrom(logger string) func(*wire.Msg) bool {
	return func(m *wire.Msg) bool {
		_, l, _, ok := logOf(m)
		return ok && l == logger
	}
}

// messagesOf parses the JSON-RPC messages among events; events without
// data (priming events) are left out.
func messagesOf(events []wire.Event) []*wire.Msg {
	var out []*wire.Msg
	for _, e := range events {
		if e.Data == "" {
			continue
		}
		if m, err := wire.Parse([]byte(e.Data)); err == nil {
			out = append(out, m)
		}
	}
	return out
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

// describeEvents lists events for a failure report, one per line.
func describeEvents(events []wire.Event) string {
	if len(events) == 0 {
		return "no events"
	}
	var lines []string
	for _, e := range events {
		line := "id: " + e.ID
		if !e.SetID {
			line = "(no id)"
		}
		if e.Retry != "" {
			line += " | retry: " + e.Retry
		}
		lines = append(lines, line+" | data: "+e.Data)
	}
	return strings.Join(lines, "\n")
}

// readProgress reads a POST stream until n progress notifications have come,
// and returns their values. The stream's LastEventID is then the id to
// resume from.
func readProgress(t *check.T, s *wire.Stream, n int) []float64 {
	var values []float64
	for len(values) < n {
		m, _ := s.Await(wire.T1, fmt.Sprintf("progress notification %d", len(values)+1), func(m *wire.Msg) bool {
			_, _, ok := progressOf(m)
			return ok
		}, nil)
		_, v, _ := progressOf(m)
		values = append(values, v)
	}
	return values
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

// resumeID returns the stream's last event id, or fails: a stream whose
// events carry no id cannot be resumed.
func resumeID(t *check.T, s *wire.Stream, what string) string {
	id := s.LastEventID()
	if id == "" {
		skipWithoutEventIDs(t, what)
		t.Fail(check.Failure{What: "the events of " + what + " carry no id, so there is nothing to resume from",
			Want: "an id: line in every event, such as \"id: 1-3\"", Cause: causeEventIDs})
	}
	return id
}

// settle polls f every 50 ms until it returns true or d has passed, and
// reports whether it did.
func settle(t *check.T, d time.Duration, f func() bool) bool {
	deadline := time.Now().Add(d)
	for !f() {
		if time.Now().After(deadline) {
			return false
		}
		pause(t, 50*time.Millisecond)
	}
	return true
}

// expectRefusal opens a GET that must be refused with status (0: any 4xx
// but 404 and 405) and a body that ends at once, holding a JSON-RPC error
// when wantError is set. A 200 stream is read for up to 1 s, so that the
// report shows what it carried.
func expectRefusal(t *check.T, h *wire.HTTP, session, lastEventID string, status int, wantError bool, purpose, why string) {
	s := h.Open(wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, lastEventID), Purpose: purpose})
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
	s := openGET(t, h, session, rev, lastEventID, purpose)
	s.Await(wire.T2, "the replayed response with id "+respID, func(m *wire.Msg) bool { return m.IsResponseTo(respID) }, nil)
	if events, ended := s.End(time.Second); !ended {
		t.Fail(check.Failure{What: purpose + ": the replay of a stream that has ended did not end after its response", Got: describeEvents(events),
			Want: "the missed events, the response, then the end of the stream"})
	}
}

func describeBody(events []wire.Event) string {
	var parts []string
	for _, e := range events {
		parts = append(parts, e.Data)
	}
	return strings.Join(parts, "\n")
}

// ---- the standalone GET stream ----

func checkGETOpensStream(t *check.T) {
	h := wire.StartHTTP(t)
	for _, v := range []string{"2025-06-18", rev} {
		session, _ := h.Initialize(v)
		s := openGET(t, h, session, v, "", "GET with the session (initialized at "+v+")")
		if events, ended := s.End(400 * time.Millisecond); ended {
			t.Fail(check.Failure{What: "the GET stream (" + v + ") ended at once; it must stay open for the messages the server sends later",
				Got: describeEvents(events), Want: "a stream that stays open until the client, the session or the server goes away"})
		}
		s.HangUp()
	}
}

func checkGETSessionErrors(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	requireGETStream(t, h, session)
	resp := h.Do(wire.Req{Method: http.MethodGet, Header: getHeaders("", rev, ""), Purpose: "GET without MCP-Session-Id"})
	expectStatus(t, resp, http.StatusBadRequest, "a GET without MCP-Session-Id")
	end := t.SpecRule() // the spec's MUST: 404 for a session that is gone
	resp = h.Do(wire.Req{Method: http.MethodGet, Header: getHeaders("grader-made-up-session", rev, ""), Purpose: "GET with a session id the server never issued"})
	expectStatus(t, resp, http.StatusNotFound, "a GET with a session id the server never issued")
	end()
	resp = h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, rev), Purpose: "DELETE the session"})
	if resp.Status < 200 || resp.Status > 299 {
		t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status"})
	}
	resp = h.Do(wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, ""), Purpose: "GET with the deleted session's id"})
	defer t.SpecRule()()
	expectStatus(t, resp, http.StatusNotFound, "a GET with a deleted session's id")
}

func checkDeleteEndsStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	s := openGET(t, h, session, rev, "", "GET with the session")
	resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, rev), Purpose: "DELETE the session while its GET stream is open"})
	if resp.Status < 200 || resp.Status > 299 {
		t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status"})
	}
	if _, ended := s.End(time.Second); !ended {
		t.Fail(check.Failure{What: "the session's GET stream was still open 1 s after DELETE ended the session",
			Want: "the stream ends with its session"})
	}
}

func checkListeningKeepsSession(t *check.T) {
	h := wire.StartHTTP(t, "-session-timeout", "500ms")
	session, _ := h.Initialize(rev)
	s := openGET(t, h, session, rev, "", "GET with the session, whose timeout is 500 ms")
	if events, ended := s.End(1500 * time.Millisecond); ended {
		t.Fail(check.Failure{What: "with -session-timeout 500ms, the session's GET stream ended while its client was listening",
			Got: describeEvents(events), Want: "the stream stays open: a session with a client listening is in use, and does not expire"})
	}
	resp := h.Post(session, rev, wire.Request(`2`, "ping", nil), "ping after listening on GET for 1.5 s, with -session-timeout 500ms")
	if resp.Status != http.StatusOK {
		t.Fail(check.Failure{What: "the session expired while its client was listening on GET", Got: resp.Summary(),
			Want: "HTTP 200: a session with a client listening does not expire"})
	}
	s.Close()
	t.Wire.Event("closed the GET stream; the session is idle from now on")
	pause(t, 1500*time.Millisecond)
	resp = h.Post(session, rev, wire.Request(`3`, "ping", nil), "ping 1.5 s after the GET stream closed, with -session-timeout 500ms")
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: fmt.Sprintf("1.5 s after its GET stream closed, a session with a 500 ms timeout was still alive (HTTP %d)", resp.Status),
			Got: resp.Summary(), Want: "HTTP 404: once nobody listens, the session is idle, and expires like any other"})
	}
}

func checkGETVersion(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	requireGETStream(t, h, session)
	resp := h.Do(wire.Req{Method: http.MethodGet, Header: getHeaders(session, "1999-01-01", ""), Purpose: "GET with MCP-Protocol-Version: 1999-01-01"})
	expectStatus(t, resp, http.StatusBadRequest, "a GET with MCP-Protocol-Version: 1999-01-01")
}

func checkGETAccept(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	requireGETStream(t, h, session)
	hdr := getHeaders(session, rev, "")
	hdr.Set("Accept", "application/json")
	resp := h.Do(wire.Req{Method: http.MethodGet, Header: hdr, Purpose: "GET with Accept: application/json"})
	expectStatus(t, resp, http.StatusNotAcceptable, "a GET whose Accept lists only application/json")
}

func checkOneStandaloneStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	first := openGET(t, h, session, rev, "", "the first GET")
	resp := h.Do(wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, ""), Purpose: "a second GET while the first is open"})
	if resp.Status != http.StatusConflict {
		t.Fail(check.Failure{What: fmt.Sprintf("a second GET stream of the same session got HTTP %d", resp.Status), Got: resp.Summary(),
			Want: "HTTP 409 Conflict, with a body that ends at once"})
	}
	if events, ended := first.End(200 * time.Millisecond); ended {
		t.Fail(check.Failure{What: "the first GET stream ended when a second GET was refused", Got: describeEvents(events), Want: "the first stream stays open"})
	}
	first.HangUp()
	t.Wire.Event("waiting up to 1 s for the server to see the first client leave")
	var last *wire.Response
	if !settle(t, time.Second, func() bool {
		s := h.Open(wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, ""), Purpose: "a GET after the first client hung up"})
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

func checkKeepAlive(t *check.T) {
	h := wire.StartHTTP(t, "-keepalive", "150ms")
	session, _ := h.Initialize("2025-06-18")
	s := openGET(t, h, session, "2025-06-18", "", "GET with the session")
	events, ended := s.End(time.Second)
	if ended {
		t.Fail(check.Failure{What: "the idle GET stream ended", Got: describeEvents(events), Want: "a stream that stays open"})
	}
	if n := s.Comments(); n < 3 {
		t.Fail(check.Failure{What: fmt.Sprintf("an idle GET stream sent %d comments in 1 s, with -keepalive 150ms", n),
			Got: describeEvents(events), Want: "a comment line such as \": keep-alive\" about every 150 ms"})
	}
}

// ---- the session's outlet ----

func checkNoteOnStandalone(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	before, after := nonce("before"), nonce("after")
	callTool(t, h, session, `2`, "add_note", map[string]any{"text": before})
	s := openGET(t, h, session, rev, "", "GET with the session")
	callTool(t, h, session, `3`, "add_note", map[string]any{"text": after})
	m, _ := s.Await(wire.T1, "notifications/message for the note added while the GET stream was open", func(m *wire.Msg) bool {
		_, logger, data, ok := logOf(m)
		return ok && logger == "notes" && strings.Contains(string(data), after)
	}, func(e wire.Event, m *wire.Msg) {
		if m != nil && strings.Contains(string(m.Raw), before) {
			t.Fail(check.Failure{What: "the GET stream delivered the log message of a note added before any GET: nothing should be kept for a session nobody listens to",
				Got: check.Quote(e.Data), Want: "only messages sent once the stream exists"})
		}
	})
	if level, _, _, _ := logOf(m); level != "info" {
		t.Fail(check.Failure{What: "the note's log message does not have level info", Got: check.Quote(string(m.Raw)), Want: `"level":"info","logger":"notes"`})
	}
}

func checkNoResponseOnStandalone(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	g := openGET(t, h, session, rev, "", "GET with the session")
	for _, c := range []struct{ id, body string }{
		{`2`, wire.Request(`2`, "ping", nil)},
		{`3`, wire.Request(`3`, "tools/list", nil)},
		{`4`, wire.Request(`4`, "tools/call", wire.ToolCall("add_note", map[string]any{"text": nonce("note")}, nil))},
		{`5`, countdownCall(`5`, 2, 0, nonce("p"))},
	} {
		resp := h.Do(wire.Req{Header: wire.Headers(session, rev), Body: c.body, Within: wire.T2, Purpose: "request " + c.id})
		expectStatus(t, resp, http.StatusOK, "request "+c.id)
		expectResponse(t, resp, c.id, "request "+c.id)
	}
	events, _ := g.End(400 * time.Millisecond)
	for _, m := range messagesOf(events) {
		if m.IsResponse() {
			t.Fail(check.Failure{What: "a JSON-RPC response arrived on the standalone GET stream", Got: check.Quote(string(m.Raw)),
				Want: "responses only on the POST that carried the request"})
		}
	}
}

func checkEachMessageOnce(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	g := openGET(t, h, session, rev, "", "GET with the session")
	ta, tb, note := nonce("a"), nonce("b"), nonce("once")
	a := openPOST(t, h, session, rev, countdownCall(`"a"`, 4, 50, ta), "countdown A")
	b := openPOST(t, h, session, rev, countdownCall(`"b"`, 4, 50, tb), "countdown B")
	if courseServer(t) {
		// The course's server logs each note through the session's outlet,
		// the GET stream. An external server need not log notes at all.
		callTool(t, h, session, `3`, "add_note", map[string]any{"text": note})
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
			if tok, v, ok := progressOf(m); ok {
				key = fmt.Sprintf("progress %v of token %s", v, tok)
			} else if _, _, data, ok := logOf(m); ok && strings.Contains(string(data), note) {
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

// tickOf reads a ticker log message's tick number.
func tickOf(t *check.T, m *wire.Msg) int {
	level, _, data, _ := logOf(m)
	var d struct {
		Tick *int `json:"tick"`
	}
	if json.Unmarshal(data, &d) != nil || d.Tick == nil || level != "info" {
		t.Fail(check.Failure{What: "a ticker log message is not level info with data {\"tick\": N}", Got: check.Quote(string(m.Raw)),
			Want: `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"ticker","data":{"tick":1}}}`})
	}
	return *d.Tick
}

// readTicks reads n ticker messages from s, each within d, and checks that
// they count up by one from first (or from wherever they start, when first
// is 0).
func readTicks(t *check.T, s *wire.Stream, n, first int, d time.Duration, what string) []int {
	var ticks []int
	for len(ticks) < n {
		m, _ := s.Await(d, fmt.Sprintf("tick %d of %d %s", len(ticks)+1, n, what), isLogFrom("ticker"), nil)
		tick := tickOf(t, m)
		switch {
		case len(ticks) == 0 && first != 0 && tick != first:
			t.Fail(check.Failure{What: fmt.Sprintf("the first tick %s is %d", what, tick), Got: check.Quote(string(m.Raw)),
				Want: fmt.Sprintf(`{"tick": %d}: the ticks are counted 1, 2, 3, …, with none lost or repeated`, first)})
		case len(ticks) > 0 && tick != ticks[len(ticks)-1]+1:
			t.Fail(check.Failure{What: fmt.Sprintf("the ticks %s went from %d to %d", what, ticks[len(ticks)-1], tick), Got: check.Quote(string(m.Raw)),
				Want: fmt.Sprintf(`{"tick": %d}: none lost or repeated`, ticks[len(ticks)-1]+1)})
		}
		ticks = append(ticks, tick)
	}
	return ticks
}

func checkTicks(t *check.T) {
	h := wire.StartHTTP(t, "-tick", "40ms")
	session, _ := h.Initialize(rev)
	s := openGET(t, h, session, rev, "", "GET with the session, with -tick 40ms")
	readTicks(t, s, 5, 0, 500*time.Millisecond, "on the GET stream")
}

// ---- event ids on every stream ----

func checkPOSTStreamFlushes(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	token := nonce("p")
	s := openPOST(t, h, session, rev, countdownCall(`2`, 3, 400, token), "countdown from 3, 400 ms per step, with a progress token")
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
	if values := progressValues(t, msgs, json.RawMessage(`"`+token+`"`)); len(values) != 3 {
		t.Fail(check.Failure{What: fmt.Sprintf("the stream carried %d progress notifications before the response", len(values)), Want: "3: one per step"})
	}
	if gap := response.Sub(firstProgress); gap < 400*time.Millisecond {
		t.Fail(check.Failure{What: fmt.Sprintf("the first progress event arrived only %v before the response, which came 800 ms after it was sent: the events were not flushed as they were written", gap.Round(time.Millisecond)),
			Want: "each event on the wire when it is produced: the first progress about 800 ms before the response"})
	}
	if events, ended := s.End(time.Second); !ended {
		t.Fail(check.Failure{What: "the POST stream was still open 1 s after its response", Got: describeEvents(events), Want: "the stream ends after the response"})
	}
	resp := h.Post(session, rev, wire.Request(`3`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "plain"}, nil)), "echo without a progress token")
	if resp.ContentType != "application/json" {
		t.Fail(check.Failure{What: "a request without a progress token was not answered with application/json", Got: resp.Summary(),
			Want: "Content-Type: application/json, as in lesson 02"})
	}
}

func checkPriming(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	s := openPOST(t, h, session, rev, countdownCall(`2`, 1, 0, nonce("p")), "countdown with a progress token, at 2025-11-25")
	events, _ := s.End(wire.T2)
	if !anyID(events) {
		// A priming event invites the client to resume: a server that
		// offers no resumption has no reason to send one.
		skipWithoutEventIDs(t, "the countdown's stream")
	}
	if len(events) == 0 || !events[0].SetID || events[0].ID == "" || events[0].Data != "" {
		t.Fail(check.Failure{What: "the POST stream does not open with a priming event", Got: describeEvents(events),
			Want: "a first event with an id and empty data, such as\nid: 1-1\nretry: 1000\ndata:", Cause: withoutIDs(events)})
	}
	retried := false
	for _, e := range events {
		if e.Data != "" {
			break
		}
		if n, err := fmt.Sscanf(e.Retry, "%d", new(int)); n == 1 && err == nil && !strings.HasPrefix(e.Retry, "-") {
			retried = true
		}
	}
	if !retried {
		t.Fail(check.Failure{What: "no retry field came before the first message", Got: describeEvents(events),
			Want: "a retry: line with a number of milliseconds, in the priming event"})
	}
}

func checkNoPrimingBefore20251125(t *check.T) {
	h := wire.StartHTTP(t)
	for _, v := range []string{"2025-06-18", "2025-03-26"} {
		session, _ := h.Initialize(v)
		s := openPOST(t, h, session, v, countdownCall(`2`, 2, 0, nonce("p")), "countdown with a progress token, at "+v)
		events, _ := s.End(wire.T2)
		for _, e := range events {
			if e.Data == "" || e.Retry != "" {
				t.Fail(check.Failure{What: "a session that negotiated " + v + " got an event with empty data or a retry field, which clients of that revision may not expect",
					Got: describeEvents(events), Want: "only events that carry a message"})
			}
		}
	}
}

func checkUniqueIDs(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	g := openGET(t, h, session, rev, "", "GET with the session")
	a := openPOST(t, h, session, rev, countdownCall(`"a"`, 3, 0, nonce("a")), "countdown A")
	evA, _ := a.End(wire.T2)
	b := openPOST(t, h, session, rev, countdownCall(`"b"`, 3, 0, nonce("b")), "countdown B")
	evB, _ := b.End(wire.T2)
	evG, _ := g.End(300 * time.Millisecond)
	g.HangUp()
	var evG2 []wire.Event
	if !settle(t, time.Second, func() bool {
		g2 := h.Open(wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, ""), Purpose: "a new GET, after the first hung up"})
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
	where := map[string]string{}
	for name, events := range map[string][]wire.Event{"POST A": evA, "POST B": evB, "the first GET": evG, "the second GET": evG2} {
		for _, e := range events {
			if !e.SetID || e.ID == "" {
				t.Fail(check.Failure{What: "an event on " + name + " has no id, so a client cannot resume from it", Got: describeEvents(events),
					Want: "an id: line in every event"})
			}
			if prev, dup := where[e.ID]; dup {
				t.Fail(check.Failure{What: fmt.Sprintf("the event id %q is used twice: on %s and on %s", e.ID, prev, name),
					Got:  "POST A: " + describeEvents(evA) + "\nPOST B: " + describeEvents(evB) + "\nGET: " + describeEvents(evG),
					Want: "ids unique across all the session's streams", Spec: true})
			}
			where[e.ID] = name
		}
	}
}

func checkStatelessNoPriming(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	h.Initialize(rev)
	s := openPOST(t, h, "", rev, countdownCall(`2`, 2, 0, nonce("p")), "countdown with a progress token, stateless")
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

// ---- resuming with Last-Event-ID ----

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
		m, _ := s.Await(wire.T2, "the rest of the countdown and its response", func(*wire.Msg) bool { return true }, nil)
		switch tok, v, ok := progressOf(m); {
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
	if events, ended := s.End(time.Second); !ended {
		t.Fail(check.Failure{What: "the resumed POST stream was still open 1 s after its response", Got: describeEvents(events), Want: "the stream ends after the response"})
	}
}

func checkResumePOSTStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	token := nonce("p")
	p := openPOST(t, h, session, rev, countdownCall(`2`, 8, 100, token), "countdown from 8, 100 ms per step")
	seen := readProgress(t, p, 2)
	id := resumeID(t, p, "the countdown's stream")
	p.HangUp()
	pause(t, afterHangUp)
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id)
	expectRest(t, r, token, `2`, seen[len(seen)-1], 8)

	// A fast one, resumed while it is still running: events logged during
	// the replay must come after it, none lost, none twice.
	token = nonce("q")
	p = openPOST(t, h, session, rev, countdownCall(`3`, 100, 5, token), "countdown from 100, 5 ms per step")
	seen = readProgress(t, p, 1)
	id = resumeID(t, p, "the fast countdown's stream")
	p.HangUp()
	pause(t, afterHangUp)
	r = openResume(t, h, session, id, "GET with Last-Event-ID: "+id+", while the countdown runs on")
	expectRest(t, r, token, `3`, seen[0], 100)
}

func checkReplayStaysOnItsStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	ta, tb := nonce("a"), nonce("b")
	a := openPOST(t, h, session, rev, countdownCall(`"a"`, 6, 80, ta), "countdown A")
	seen := readProgress(t, a, 1)
	id := resumeID(t, a, "countdown A's stream")
	a.HangUp()
	b := openPOST(t, h, session, rev, countdownCall(`"b"`, 3, 0, tb), "countdown B, while A's client is away")
	b.End(wire.T2)
	g := openGET(t, h, session, rev, "", "GET with the session")
	if courseServer(t) {
		// Events of the standalone stream too, in the session's log.
		callTool(t, h, session, `4`, "add_note", map[string]any{"text": nonce("note")})
		g.Await(wire.T1, "the note's log message on the GET stream", isLogFrom("notes"), nil)
	}
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id+", from A")
	expectRest(t, r, ta, `"a"`, seen[0], 6)
}

func checkCrossSessionID(t *check.T) {
	h := wire.StartHTTP(t)
	x, _ := h.Initialize(rev)
	secret := nonce("x-secret")
	p := openPOST(t, h, x, rev, countdownCall(`2`, 2, 0, secret), "countdown in session X")
	events, _ := p.End(wire.T2)
	if len(events) == 0 || events[0].ID == "" {
		if len(events) > 0 {
			skipWithoutEventIDs(t, "session X's stream")
		}
		t.Fail(check.Failure{What: "the events of session X carry no id, so there is nothing to resume from", Got: describeEvents(events), Cause: causeEventIDs})
	}
	first := events[0].ID
	expectReplay(t, h, x, first, `2`, "GET in session X with Last-Event-ID "+first+", its own")
	y, _ := h.Initialize(rev)
	expectRefusal(t, h, y, first, http.StatusBadRequest, true, "GET in session Y with Last-Event-ID "+first+" of session X",
		"it carried session X's events to session Y")
}

func checkResumeAfterTheEnd(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	token := nonce("p")
	p := openPOST(t, h, session, rev, countdownCall(`2`, 4, 100, token), "countdown from 4, 100 ms per step")
	seen := readProgress(t, p, 1)
	id := resumeID(t, p, "the countdown's stream")
	p.HangUp()
	t.Wire.Event("waiting 700 ms: the countdown ends while its client is away")
	pause(t, 700*time.Millisecond)
	requireTool(t, h, session, "history")
	if history := callTool(t, h, session, `3`, "history", nil); !strings.Contains(history, "countdown (id 2): finished") {
		t.Fail(check.Failure{What: "the countdown did not run to its end after its client went away", Got: check.Quote(history),
			Want: "history lists \"countdown (id 2): finished\""})
	}
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id+", after the countdown ended")
	expectRest(t, r, token, `2`, seen[0], 4)
}

func checkResumeStandalone(t *check.T) {
	h := wire.StartHTTP(t, "-tick", "40ms")
	session, _ := h.Initialize(rev)
	g := openGET(t, h, session, rev, "", "GET with the session, with -tick 40ms")
	ticks := readTicks(t, g, 3, 0, 500*time.Millisecond, "on the GET stream")
	id := resumeID(t, g, "the GET stream")
	g.HangUp()
	t.Wire.Event("away for 300 ms: about 7 ticks to catch up on")
	pause(t, 300*time.Millisecond)
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id)
	readTicks(t, r, 12, ticks[len(ticks)-1]+1, 500*time.Millisecond, "after resuming")
}

func checkBadEventIDs(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	p := openPOST(t, h, session, rev, countdownCall(`2`, 1, 0, nonce("p")), "countdown, for a real event id")
	first := p.Next(wire.T1, "the first event of the countdown's stream")
	p.End(wire.T2)
	real := resumeID(t, p, "the countdown's stream")
	if first.ID == "" {
		t.Fail(check.Failure{What: "the first event of the countdown's stream has no id", Got: describeEvents([]wire.Event{first}), Cause: causeEventIDs})
	}
	expectReplay(t, h, session, first.ID, `2`, "GET with Last-Event-ID: "+first.ID+", a real id")
	for _, id := range []string{"not-an-event-id", real + "9999", "%%%"} {
		expectRefusal(t, h, session, id, http.StatusBadRequest, true, "GET with Last-Event-ID: "+id,
			"an id the server never wrote must be refused, not answered with a stream")
	}
}

func checkBoundedReplay(t *check.T) {
	h := wire.StartHTTP(t, "-replay-buffer", "10")

	// Session A loses most of a 30-step countdown while its client is away.
	a, _ := h.Initialize(rev)
	pa := openPOST(t, h, a, rev, countdownCall(`2`, 30, 5, nonce("a")), "session A: countdown from 30")
	readProgress(t, pa, 1)
	idA := resumeID(t, pa, "session A's stream")
	pa.HangUp()

	// Session B's short countdown fits, whatever session C does meanwhile.
	b, _ := h.Initialize(rev)
	tokenB := nonce("b")
	pb := openPOST(t, h, b, rev, countdownCall(`2`, 5, 5, tokenB), "session B: countdown from 5")
	first := pb.Next(wire.T1, "the first event of B's stream")
	seenB := 0.0
	if m, err := wire.Parse([]byte(first.Data)); err == nil {
		_, seenB, _ = progressOf(m)
	}
	idB := resumeID(t, pb, "session B's stream")
	pb.HangUp()
	c, _ := h.Initialize(rev)
	openPOST(t, h, c, rev, countdownCall(`2`, 40, 0, nonce("c")), "session C: 40 steps at once").End(wire.T2)
	pause(t, 300*time.Millisecond)

	rb := openResume(t, h, b, idB, "session B: GET with Last-Event-ID: "+idB)
	expectRest(t, rb, tokenB, `2`, seenB, 5)

	// Session D's first stream is short, but the session's later streams
	// push it out: the bound is per session, not per stream.
	d, _ := h.Initialize(rev)
	pd := openPOST(t, h, d, rev, countdownCall(`2`, 2, 0, nonce("d")), "session D: countdown from 2")
	pd.Next(wire.T1, "the first event of D's first stream")
	idD := resumeID(t, pd, "session D's first stream")
	pd.End(wire.T1)
	for i := 3; i <= 5; i++ {
		openPOST(t, h, d, rev, countdownCall(fmt.Sprint(i), 3, 0, nonce("d")), fmt.Sprintf("session D: stream %d, countdown from 3", i-1)).End(wire.T2)
	}
	expectRefusal(t, h, d, idD, http.StatusBadRequest, true, "session D: GET with Last-Event-ID: "+idD+", of a stream whose events 15 later ones pushed out",
		"the session's buffer holds 10 events in all, whatever stream they belong to, so that stream's events are gone")
	expectRefusal(t, h, a, idA, http.StatusBadRequest, true, "session A: GET with Last-Event-ID: "+idA+", 30 events ago, with -replay-buffer 10",
		"events after it no longer fit in the buffer, so a replay would have a gap")
}

func checkResumeConflict(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	token := nonce("p")
	p := openPOST(t, h, session, rev, countdownCall(`2`, 10, 80, token), "countdown from 10, 80 ms per step")
	seen := readProgress(t, p, 1)
	id := resumeID(t, p, "the countdown's stream")
	p.HangUp()
	pause(t, afterHangUp)
	r := openResume(t, h, session, id, "GET with Last-Event-ID: "+id)
	resp := h.Do(wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, id), Purpose: "a second GET with Last-Event-ID: " + id})
	if resp.Status != http.StatusConflict {
		t.Fail(check.Failure{What: fmt.Sprintf("a second GET resuming a stream another GET holds got HTTP %d", resp.Status), Got: resp.Summary(),
			Want: "HTTP 409 Conflict, with a body that ends at once"})
	}
	expectRest(t, r, token, `2`, seen[0], 10)
}

func checkResumeEndedStream(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	const why = "a client that resumes until it sees a result reconnects for ever to an empty stream, and waits for ever on one held open"

	done := openPOST(t, h, session, rev, countdownCall(`2`, 2, 0, nonce("p")), "countdown from 2")
	first := done.Next(wire.T1, "the first event of the countdown's stream")
	done.End(wire.T2)
	if first.ID == "" {
		skipWithoutEventIDs(t, "the countdown's stream")
		t.Fail(check.Failure{What: "the first event of the countdown's stream has no id", Got: describeEvents([]wire.Event{first}), Cause: causeEventIDs})
	}
	expectReplay(t, h, session, first.ID, `2`, "GET resuming the ended stream from its first event, "+first.ID)
	expectRefusal(t, h, session, resumeID(t, done, "the countdown's stream"), 0, false,
		"GET resuming a stream after its result", why)

	failed := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, rev), Purpose: "an unknown tool, with a progress token",
		Body: wire.Request(`3`, "tools/call", wire.ToolCall("grader-no-such-tool", map[string]any{}, nonce("p")))})
	if failed.ContentType == "text/event-stream" {
		failed.End(wire.T2)
		expectRefusal(t, h, session, resumeID(t, failed, "the failed call's stream"), 0, false,
			"GET resuming a stream after its error response", why)
	}

	cancelled := openPOST(t, h, session, rev, countdownCall(`4`, 40, 50, nonce("p")), "countdown from 40, to be cancelled")
	readProgress(t, cancelled, 1)
	resp := h.Post(session, rev, wire.Notification("notifications/cancelled", map[string]any{"requestId": 4}), "notifications/cancelled")
	expectStatus(t, resp, http.StatusAccepted, "notifications/cancelled")
	if events, ended := cancelled.End(wire.T1); !ended {
		t.Fail(check.Failure{What: "the cancelled countdown's stream did not end", Got: describeEvents(events), Want: "the stream ends without a response"})
	}
	expectRefusal(t, h, session, resumeID(t, cancelled, "the cancelled countdown's stream"), 0, false,
		"GET resuming the stream of a cancelled request", why)
}

// ---- what a stream costs ----

func checkNoLeaks(t *check.T) {
	h := wire.StartHTTP(t, "-debug")
	var sessions []string
	for i := 0; i < 8; i++ {
		s, _ := h.Initialize(rev)
		sessions = append(sessions, s)
	}
	base := takeBaseline(t, h)

	var streams []*wire.Stream
	for i, s := range sessions {
		streams = append(streams, openGET(t, h, s, rev, "", fmt.Sprintf("GET stream %d", i+1)))
		p := openPOST(t, h, s, rev, countdownCall(`2`, 2, 30, nonce("p")), fmt.Sprintf("POST stream %d", i+1))
		p.Next(wire.T1, "the first event")
		streams = append(streams, p)
	}
	for _, s := range streams {
		s.Close()
	}
	t.Wire.Event("hung up on 16 streams; waiting up to 2 s for the server to free them")
	base.expectFreed(t, h, "16 clients dropped their streams", "every goroutine and socket of a stream freed once its client leaves")
}

func checkSIGTERMEndsStreams(t *check.T) {
	if !proc.CanTerminate {
		return // no SIGTERM on this system; the check has nothing to test
	}
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(rev)
	g := openGET(t, h, session, rev, "", "GET with the session")
	p := openPOST(t, h, session, rev, countdownCall(`2`, 3, 100, nonce("p")), "countdown from 3, 100 ms per step")
	p.Next(wire.T1, "the first event")
	t.Wire.Event("sent SIGTERM")
	sent := time.Now()
	if err := h.Proc.Terminate(); err != nil {
		t.Failf("could not send SIGTERM: %v", err)
	}
	if _, ended := g.End(1500 * time.Millisecond); !ended {
		t.Fail(check.Failure{What: "the GET stream was still open 1.5 s after SIGTERM", Want: "SIGTERM ends the open GET streams at once"})
	}
	p.End(time.Until(sent.Add(3 * time.Second)))
	if !h.Proc.WaitExit(time.Until(sent.Add(3 * time.Second))) {
		t.Fail(check.Failure{What: "the server was still running 3 s after SIGTERM", Want: "the server exits"})
	}
	if code := h.Proc.ExitCode(); code != 0 {
		t.Fail(check.Failure{What: "after SIGTERM the server exited with " + h.Proc.Status(), Want: "exit status 0: a requested stop is not a failure"})
	}
}

func checkSessionsStaySmall(t *check.T) {
	const n = 200
	h := wire.StartHTTP(t, "-debug", "-max-sessions", "1000")
	h.Initialize(rev)
	before := h.VarInt("heap_live")
	var sessions []string
	for i := 0; i < n; i++ {
		s, _ := h.Initialize(rev)
		sessions = append(sessions, s)
	}
	idle := h.VarInt("heap_live")
	for i, s := range sessions {
		openPOST(t, h, s, rev, countdownCall(`2`, 1, 0, "p"), fmt.Sprintf("countdown in session %d", i+1)).End(wire.T1)
	}
	streamed := h.VarInt("heap_live")
	t.Wire.Event("heap after a GC: %d bytes; with %d idle sessions %d; after a stream in each %d", before, n, idle, streamed)
	if per := (idle - before) / n; per > 8<<10 {
		t.Fail(check.Failure{What: fmt.Sprintf("each idle session holds about %d KiB of heap", per>>10), Want: "under 8 KiB: nothing is made for streams before the first one"})
	}
	if per := (streamed - idle) / n; per > 12<<10 {
		t.Fail(check.Failure{What: fmt.Sprintf("a session's first stream, of 3 events, added about %d KiB to it", per>>10),
			Want: "under 12 KiB: the replay buffer grows with the events it holds, up to -replay-buffer"})
	}
}

// ---- stateless mode ----

func checkStatelessGET405(t *check.T) {
	h := wire.StartHTTP(t, "-stateless")
	h.Initialize(rev)
	expect405(t, h, wire.Req{Method: http.MethodGet, Header: getHeaders("", rev, ""), Purpose: "GET on a stateless server"})
	expect405(t, h, wire.Req{Method: http.MethodGet, Header: getHeaders("grader-made-up-session", rev, "1-1"), Purpose: "GET with Last-Event-ID on a stateless server"})
}
