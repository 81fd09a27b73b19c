package grader

// hintsLesson03 are the levelled hints of lesson 03's checks: a question,
// a pointer into the standard library or the spec, a near-solution.
var hintsLesson03 = map[string]Hint{
	"SSE-01": {
		"When does a client see a response's headers: when you write them, or when they leave net/http's buffer?",
		"net/http: ResponseWriter.WriteHeader, then http.ResponseController.Flush; basic/transports › Listening for Messages from the Server.",
		"startEventStream: set Content-Type: text/event-stream and Cache-Control: no-cache, w.WriteHeader(200), ew.flush(). Then hold the GET open in a loop until the client, the session or the server goes away.",
	},
	"SSE-02": {
		"Which code already knows how to answer a request whose session is missing or gone?",
		"Stage 02's Handler.Session(w, r): it writes 400 without MCP-Session-Id and 404 for an id it does not know.",
		"sess, done, ok := h.Session(w, r); if !ok { return }; defer done(). Only then open the stream.",
	},
	"SSE-03": {
		"What tells a GET handler that its session has ended while it waits?",
		"mcp.Session.Context(): cancelled when the session closes (DELETE, expiry, shutdown).",
		"In hold's select, beside <-r.Context().Done(), add case <-sess.Context().Done(): and return.",
	},
	"SSE-30": {
		"When does a session count as idle, and is a client listening on GET idle?",
		"Stage 02's Handler.Session returns done, which marks the end of a use of the session: its idle time starts when the last use ends.",
		"sess, done, ok := h.Session(w, r); if !ok { return }; defer done(): the GET holds the session until it returns, and gives it back then.",
	},
	"SSE-04": {
		"Does the MCP-Protocol-Version rule apply to POST only?",
		"basic/transports › Protocol Version Header: every request with an unsupported version gets 400; stage 02's Handler.ProtocolVersion writes it.",
		"At the top of serveGET: if _, ok := h.ProtocolVersion(w, r, nil); !ok { return }.",
	},
	"SSE-05": {
		"What can a GET be answered with, and can this client read it?",
		"Stage 02's Accepts(r.Header.Values(\"Accept\"), \"text/event-stream\"); RFC 9110 §15.5.7 406 Not Acceptable.",
		"if !streamable.Accepts(r.Header.Values(\"Accept\"), \"text/event-stream\") { httpjson.Error(w, http.StatusNotAcceptable, codeServerError, \"...\"); return }",
	},
	"SSE-06": {
		"Where do you remember that a session's standalone stream already has a connection?",
		"basic/transports › Multiple Connections: each message on only one stream. The stream's w field is its connection, or nil.",
		"In listen, under s.mu: if s.w != nil { unlock; conflict(w, ...); return }. hold's deferred s.detach(ew) frees it when that client leaves.",
	},
	"SSE-07": {
		"How does a proxy tell a quiet stream from a dead one?",
		"The SSE standard: a line that starts with \":\" is a comment, which clients ignore; time.NewTicker.",
		"In hold: keepAlive := time.NewTicker(h.opts.KeepAlive); on <-keepAlive.C, under s.mu, if s.w == ew { ew.comment(\"keep-alive\") }, then continue the loop.",
	},
	"SSE-08": {
		"What makes a GET handler return when its client hangs up, and does every goroutine you start end too?",
		"http.Request.Context() is cancelled when the client's connection closes; a ticker's channel is never closed by Stop.",
		"hold must select on r.Context().Done() and return; keep the keep-alive in hold's own loop instead of a goroutine of its own.",
	},
	"SSE-09": {
		"What does http.Server.Shutdown wait for, and does a GET stream ever finish by itself?",
		"net/http: Server.Shutdown waits for active connections to go idle; the given serve.Run calls the handler's CloseStreams before it.",
		"CloseStreams closes h.closing, and serve.Run calls it before srv.Shutdown; make hold return on <-h.closing.",
	},
	"SSE-10": {
		"Which requests reach your GET handler in stateless mode?",
		"Stage 02's ServeHTTP passes GET to Options.GET only when not stateless; basic/transports › Listening: 405 when no stream is offered.",
		"Keep stage 02's !h.opts.Stateless guard: in stateless mode GET gets 405 with Allow: POST, at once.",
	},
	"SSE-11": {
		"When does an event you write reach the client?",
		"http.ResponseController.Flush; net/http buffers a response until it is flushed or the handler returns.",
		"ew.write: SetWriteDeadline, w.Write(b), then ew.flush(); every event goes through it.",
	},
	"SSE-12": {
		"What does a client resume from if its connection breaks before the first message?",
		"basic/transports › Sending Messages to the Server: the priming event (an id, empty data) and the retry field; mcp.ProtocolVersion.Priming.",
		"In Open, under s.mu after attaching: if v, _ := sess.Version(); v.Priming { s.sendLocked(nil, retryAfter) }, and ew.event writes \"id: …\\nretry: 1000\\ndata:\\n\\n\".",
	},
	"SSE-13": {
		"Whose protocol version decides: the server's newest, or the session's?",
		"The version table in internal/mcp/versions.go: only 2025-11-25 has Priming; sess.Version() is what the session negotiated.",
		"Gate the priming event on the session's version row, v.Priming, never on a constant.",
	},
	"SSE-14": {
		"If two streams both number their events 1, 2, 3, which stream does Last-Event-ID: 2 mean?",
		"basic/transports › Resumability and Redelivery: ids MUST be unique across all streams of a session, and SHOULD name their stream.",
		"event.id returns strconv.Itoa(e.stream) + \"-\" + strconv.FormatUint(e.n, 10); each stream counts its own events in s.last, and the standalone stream keeps counting across GETs.",
	},
	"SSE-15": {
		"Can a client of a stateless server ever resume a stream?",
		"Stateless GET is 405, so a priming event promises what the server cannot keep; internal/sse.NewStream is stage 02's plain stream.",
		"At the top of Open: if h.opts.Stateless { return sse.NewStream(w) }.",
	},
	"SSE-16": {
		"What does a session cost before its first stream, and after a stream of three events?",
		"make([]T, n) allocates all n at once; append-style growth doubles as needed. The eventLog ring grows from initialRing.",
		"Create a session's sessionStreams only in streamsOf(sess, true), on its first stream, and let the ring grow up to ReplayBuffer instead of making it full size.",
	},
	"SSE-17": {
		"Where do the messages the server starts on its own go, and when does that place exist?",
		"mcp.Session.Attach(outlet Peer): until one is attached, such messages are dropped (ErrNoOutlet).",
		"In listen, the first time (made), before the headers go out: sess.Attach(s). The stream's Send logs and writes.",
	},
	"SSE-18": {
		"Which stream does a response belong to?",
		"basic/transports › Listening: the server MUST NOT send a JSON-RPC response on the GET stream unless resuming a request's stream.",
		"Responses go only to the POST's own stream (stage 02 sends them through the Stream Open returned), never to the outlet.",
	},
	"SSE-19": {
		"Does any message of yours reach two streams?",
		"basic/transports › Multiple Connections: each message on only one stream, never broadcast.",
		"A request's progress goes to its Peer (its POST stream) only; log messages go to the outlet only. Do not copy messages between streams.",
	},
	"SSE-20": {
		"What sends the ticks, and how long does it live?",
		"time.NewTicker; mcp.Session.Log; mcp.Session.Context() ends with the session.",
		"In listen, the first time, after unlocking: if h.opts.Tick > 0 { go tick(sess, h.opts.Tick) }; tick logs {\"tick\": n} on every tick until sess.Context() is done.",
	},
	"SSE-21": {
		"Between collecting the missed events and attaching the new connection, can an event slip through, or come twice?",
		"basic/transports › Resumability and Redelivery: replay what came after the last event id, on that stream, then resume it.",
		"In resume, hold s.mu from the 409 check to the attach: replay s.set.replay(s, n), write each event, then s.attachLocked(ew). sendLocked holds the same lock, so every event lands before or after, once.",
	},
	"SSE-22": {
		"When your log holds every stream's events, how do you pick one stream's?",
		"basic/transports › Resumability and Redelivery: MUST NOT replay messages that would have been delivered on a different stream.",
		"eventLog.after(stream, n) keeps only events with e.stream == stream and e.n > n, and skips priming events.",
	},
	"SSE-23": {
		"Where do you look a Last-Event-ID up: in this session's streams, or everyone's?",
		"GHSA-84j6-jc92-77jm: one log for all sessions let an event id carry another session's messages.",
		"Keep a sessionStreams per session (h.sessions keyed by the session), and resolve the id only in h.streamsOf(sess, false). Unknown there: 400.",
	},
	"SSE-24": {
		"Does your request stop when its client hangs up, and does its stream keep logging?",
		"basic/transports: disconnection SHOULD NOT be taken as cancellation; context.WithoutCancel; context.AfterFunc.",
		"Stage 02 runs requests under a context the connection does not cancel. In Open, context.AfterFunc(r.Context(), ...) detaches the dead connection; Send keeps logging; a later GET replays, and ends since the stream has ended.",
	},
	"SSE-25": {
		"Who owns the ticker and the outlet: the connection, or the session?",
		"basic/transports › Resumability: resumption works for GET streams too; mcp.Session.Attach stays until detached.",
		"Attach the standalone stream as the outlet once and never detach it; hold only detaches the connection (s.w). Resume stream 0 like any other.",
	},
	"SSE-26": {
		"What should an id you never wrote get: a fresh stream, or a refusal?",
		"RFC 9110 §15.5.1 400 Bad Request; 404 would mean the session is gone.",
		"parseEventID rejects anything but \"<digits>-<digits>\"; an unknown stream or a number above s.last is refused too: badEventID(w, id, why) with 400.",
	},
	"SSE-27": {
		"When the buffer is full, what is dropped, and how does a stream know it lost something?",
		"A ring buffer of ReplayBuffer events per session; eventLog.add hands each dropped event to a callback.",
		"In evicted, set s.dropped = e.n and s.kept--. In replay, n < s.dropped means events after n are gone: refuse with 400, never replay what is left.",
	},
	"SSE-28": {
		"What does a GET find when another connection already holds the stream it resumes?",
		"basic/transports › Multiple Connections; the official Go SDK answers 409 Conflict.",
		"In resume, under s.mu: if s.w != nil { unlock; conflict(w, ...); return } before anything is replayed.",
	},
	"SSE-29": {
		"What will a client that resumes until it sees a result do with an empty 200 stream, or one that never ends?",
		"@modelcontextprotocol/sdk 1.32.2 StreamableHTTPClientTransport: it reconnects to a GET stream that ends, without limit, and gives up after 2 failed attempts.",
		"In resume: if len(missed) == 0 && s.isEnded() { unlock; badEventID(w, id, \"its stream has ended\"); return }.",
	},
}
