package variants

// Files of the reference that lesson 03's variants edit.
const (
	resumeHandler  = "solutions/03-sse-resume/handler.go"
	resumeGET      = "solutions/03-sse-resume/get.go"
	resumeStream   = "solutions/03-sse-resume/stream.go"
	resumeEventLog = "solutions/03-sse-resume/eventlog.go"
	resumeWriter   = "solutions/03-sse-resume/writer.go"
	serveLoop      = "internal/serve/serve.go" // the given server loop of every HTTP stage's cmd/server
)

// lesson03 are mistakes in a server with resumable SSE streams (stage 03).
var lesson03 = []*Variant{
	// Step 1: the standalone GET stream, and what a stream costs.
	{
		Name: "stream-headers-not-flushed", Lesson: "03", Kills: []string{"SSE-01"},
		Mistake: "writes a stream's status and headers without flushing them, so a client sees nothing until the first event",
		Edits: []Edit{{File: resumeWriter,
			Old: `	ew.flush()
	return ew`,
			New: `	return ew`,
		}},
	},
	{
		Name: "every-session-problem-is-400", Lesson: "03", Kills: []string{"SSE-02"},
		Mistake: "answers every session problem on GET with 400, so a client whose session is gone never learns it must start a new one (404)",
		Edits: []Edit{
			{File: resumeGET,
				Old: "\t\"net/http\"\n",
				New: "\t\"net/http\"\n\t\"net/http/httptest\"\n"},
			{File: resumeGET,
				Old: `	sess, done, ok := h.Session(w, r) // 400 without the header, 404 for a session that is gone
	if !ok {
		return
	}`,
				New: `	sess, done, ok := h.Session(httptest.NewRecorder(), r)
	if !ok {
		httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest, "no such session")
		return
	}`},
		},
	},
	{
		Name: "streams-outlive-their-session", Lesson: "03", Kills: []string{"SSE-03"},
		Mistake: "holds a GET stream open until its client leaves, even after its session has ended",
		Edits: []Edit{{File: resumeGET,
			Old: `		case <-sess.Context().Done():
`,
			New: ``,
		}},
	},
	{
		Name: "get-ignores-protocol-version", Lesson: "03", Kills: []string{"SSE-04"},
		Mistake: "checks MCP-Protocol-Version on POST only, not on GET",
		Edits: []Edit{{File: resumeGET,
			Old: `	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
`,
			New: ``,
		}},
	},
	{
		Name: "get-ignores-accept", Lesson: "03", Kills: []string{"SSE-05"},
		Mistake: "opens a stream whatever the GET's Accept header says",
		Edits: []Edit{{File: resumeGET,
			Old: `	if !streamable.Accepts(r.Header.Values("Accept"), "text/event-stream") {`,
			New: `	if false {`,
		}},
	},
	{
		Name: "conflict-answered-200", Lesson: "03", Kills: []string{"SSE-06", "SSE-28"},
		Mistake: "refuses a second connection to a stream with status 200 and an error body, instead of 409 Conflict",
		Edits: []Edit{{File: resumeGET,
			Old: `	httpjson.Error(w, http.StatusConflict, codeServerError, "%s", why)`,
			New: `	httpjson.Error(w, http.StatusOK, codeServerError, "%s", why)`,
		}},
	},
	{
		Name: "no-keepalive", Lesson: "03", Kills: []string{"SSE-07"},
		Mistake: "sends nothing on an idle GET stream, which proxies then close as dead",
		Edits: []Edit{{File: resumeGET,
			Old: `				ew.comment("keep-alive")`,
			New: `				// nothing to say`,
		}},
	},
	{
		Name: "get-ignores-client-gone", Lesson: "03", Kills: []string{"SSE-06", "SSE-08", "SSE-14", "SSE-30"},
		Mistake: "holds a GET until its stream, session or server ends, but not when its client leaves: a goroutine and a socket leak per dropped client",
		Edits: []Edit{{File: resumeGET,
			Old: `		case <-r.Context().Done():
`,
			New: ``,
		}},
	},
	{
		Name: "keepalive-goroutine-leak", Lesson: "03", Kills: []string{"SSE-08"},
		Mistake: "sends keep-alives from a goroutine of its own, which waits on its ticker for ever after the stream ends",
		Edits: []Edit{{File: resumeGET,
			Old: `	keepAlive := time.NewTicker(h.opts.KeepAlive)
	defer keepAlive.Stop()
`,
			New: `	keepAlive := time.NewTicker(h.opts.KeepAlive)
	defer keepAlive.Stop()
	go func() { // keep the connection warm
		for range keepAlive.C {
			s.mu.Lock()
			if s.w == ew {
				ew.comment("keep-alive")
			}
			s.mu.Unlock()
		}
	}()
`,
		}},
	},
	{
		Name: "shutdown-waits-for-get-streams", Lesson: "03", Kills: []string{"SSE-09"},
		Mistake: "shuts down with http.Server.Shutdown alone, which waits for GET streams that never end",
		Edits: []Edit{{File: serveLoop,
			Old: `	streams.CloseStreams()
`,
			New: ``,
		}},
	},
	{
		Name: "stateless-get-opens-a-stream", Lesson: "03", Kills: []string{"SSE-10"},
		Mistake: "passes GET to the stream handler in stateless mode too, which opens a stream on a throwaway session (lesson 02's seed bug)",
		Edits: []Edit{{File: httpHandler,
			Old: `	case r.Method == http.MethodGet && h.opts.GET != nil && !h.opts.Stateless:`,
			New: `	case r.Method == http.MethodGet && h.opts.GET != nil:`,
		}},
	},

	// Step 2: event ids on every stream.
	{
		Name: "events-not-flushed", Lesson: "03", Kills: []string{"SSE-07", "SSE-11", "SSE-17", "SSE-19", "SSE-20", "SSE-22", "SSE-25", "SSE-28", "SSE-29"},
		Mistake: "writes each event but never flushes it, so net/http holds the events in its buffer until the response ends",
		Edits: []Edit{{File: resumeWriter,
			Old: `		ew.fail(err)
		return err
	}
	return ew.flush()`,
			New: `		ew.fail(err)
		return err
	}
	return nil`,
		}},
	},
	{
		Name: "no-priming", Lesson: "03", Kills: []string{"SSE-12"},
		Mistake: "starts a POST stream with its first message, so a client cut off before it has no id to resume from",
		Edits: []Edit{{File: resumeStream,
			Old: `	if v, _ := sess.Version(); v.Priming {
		s.sendLocked(nil, retryAfter)
	}`,
			New: ``,
		}},
	},
	{
		Name: "priming-at-every-version", Lesson: "03", Kills: []string{"SSE-13"},
		Mistake: "primes every POST stream, whatever protocol version the session negotiated",
		Edits: []Edit{{File: resumeStream,
			Old: `	if v, _ := sess.Version(); v.Priming {`,
			New: `	if true {`,
		}},
	},
	{
		Name: "ids-without-the-stream", Lesson: "03", Kills: []string{"SSE-14", "SSE-21", "SSE-22", "SSE-23", "SSE-24", "SSE-25", "SSE-26", "SSE-27", "SSE-28", "SSE-29"},
		Mistake: "numbers the events of each stream 1, 2, 3, … and leaves the stream out of the id, so ids repeat across streams",
		Edits: []Edit{{File: resumeEventLog,
			Old: `	return strconv.Itoa(e.stream) + "-" + strconv.FormatUint(e.n, 10)`,
			New: `	return strconv.FormatUint(e.n, 10)`,
		}},
	},
	{
		Name: "stateless-streams-are-primed", Lesson: "03", Kills: []string{"SSE-15"},
		Mistake: "decides on priming by the request's MCP-Protocol-Version header, and gives every stream event ids, in stateless mode too, where no GET can resume it",
		Edits: []Edit{
			{File: resumeStream,
				Old: `	if h.opts.Stateless {
		return sse.NewStream(w)
	}`,
				New: `	_ = sse.NewStream // stage 02's plain streams are not needed any more`},
			{File: resumeStream,
				Old: `	if v, _ := sess.Version(); v.Priming {`,
				New: `	if v, _ := mcp.LookupVersion(r.Header.Get(streamable.ProtocolVersionHeader)); v.Priming {`},
			{File: resumeStream,
				Old: "\t\"mcpcourse/internal/jsonrpc\"\n",
				New: "\t\"mcpcourse/internal/jsonrpc\"\n\t\"mcpcourse/internal/mcp\"\n"},
		},
	},
	{
		Name: "preallocated-replay-buffer", Lesson: "03", Kills: []string{"SSE-16"},
		Mistake: "makes room for the whole replay buffer on a session's first event",
		Edits: []Edit{{File: resumeEventLog,
			Old: `	size := min(max(2*len(l.ring), initialRing), l.maxEvents)`,
			New: `	size := l.maxEvents // room for everything, once`,
		}},
	},

	// Step 3: the session's outlet.
	{
		Name: "no-outlet", Lesson: "03", Kills: []string{"SSE-17", "SSE-19", "SSE-20", "SSE-22", "SSE-25"},
		Mistake: "opens the standalone stream but never attaches it as the session's outlet, so the server's own messages are dropped",
		Edits: []Edit{{File: resumeGET,
			Old: `		sess.Attach(s)`,
			New: `		_ = s // the stream is open; the session will find it`,
		}},
	},
	{
		Name: "responses-copied-to-the-standalone-stream", Lesson: "03", Kills: []string{"SSE-18", "SSE-19"},
		Mistake: "copies every response to the standalone stream too, so that a listening client surely sees it",
		Edits:   editCopyToStandalone(`msg.Method == ""`),
	},
	{
		Name: "progress-copied-to-the-standalone-stream", Lesson: "03", Kills: []string{"SSE-19"},
		Mistake: "copies every notification of a request to the standalone stream too, so that a listening client surely sees it",
		Edits:   editCopyToStandalone(`msg.Method != ""`),
	},
	{
		Name: "ignores-tick", Lesson: "03", Kills: []string{"SSE-20", "SSE-25"},
		Mistake: "accepts -tick but never starts the ticker",
		Edits: []Edit{{File: resumeGET,
			Old: `		go tick(sess, h.opts.Tick)`,
			New: `		_ = tick // TODO`,
		}},
	},

	// Step 4: resuming with Last-Event-ID.
	{
		Name: "replay-repeats-the-last-seen-event", Lesson: "03", Kills: []string{"SSE-21", "SSE-22", "SSE-24", "SSE-25", "SSE-28", "SSE-29"},
		Mistake: "replays from the Last-Event-ID itself (>= instead of >), so the client gets its last event twice",
		Edits: []Edit{{File: resumeEventLog,
			Old: `e.n > n && e.data != nil`,
			New: `e.n >= n && e.data != nil`,
		}},
	},
	{
		Name: "replay-ignores-the-stream", Lesson: "03", Kills: []string{"SSE-21", "SSE-22", "SSE-29"},
		Mistake: "replays every event logged after the Last-Event-ID's number, whichever stream it was sent on",
		Edits: []Edit{{File: resumeEventLog,
			Old: `e.stream == stream && e.n > n`,
			New: `e.n > n`,
		}},
	},
	{
		Name: "one-log-for-all-sessions", Lesson: "03", Kills: []string{"SSE-08", "SSE-23", "SSE-27"},
		Mistake: "keeps one set of streams and one event log for all sessions, so an event id of one session resumes in another",
		Edits: []Edit{
			{File: resumeHandler,
				Old: `	set := h.sessions[sess]`,
				New: `	set := h.sessions[nil] // one log is simpler`},
			{File: resumeHandler,
				Old: `		h.sessions[sess] = set`,
				New: `		h.sessions[nil] = set`},
		},
	},
	{
		Name: "dropped-post-cancels-its-request", Lesson: "03", Kills: []string{"SSE-21", "SSE-22", "SSE-24", "SSE-27", "SSE-28"},
		Mistake: "runs each request under the POST's own context, so a client whose connection drops cancels its request",
		Edits: []Edit{{File: httpHandler,
			Old: `	return context.WithoutCancel(r.Context())`,
			New: `	return r.Context()`,
		}},
	},
	{
		Name: "malformed-id-opens-a-fresh-stream", Lesson: "03", Kills: []string{"SSE-26"},
		Mistake: "treats a Last-Event-ID it cannot parse as no Last-Event-ID, and opens the standalone stream",
		Edits: []Edit{{File: resumeGET,
			Old: `	if !ok || len(ids) > 1 {
		badEventID(w, ids[0], "it is not an event id this server wrote")
		return
	}`,
			New: `	if !ok || len(ids) > 1 {
		h.listen(w, r, sess) // not one of ours: start afresh
		return
	}`,
		}},
	},
	{
		Name: "unbounded-replay-buffer", Lesson: "03", Kills: []string{"SSE-27"},
		Mistake: "keeps every event of a session for replay, however many there are",
		Edits: []Edit{{File: resumeHandler,
			Old: `	opts.ReplayBuffer = positive(opts.ReplayBuffer, DefaultReplayBuffer)`,
			New: `	opts.ReplayBuffer = 1 << 30 // never lose an event`,
		}},
	},
	{
		Name: "partial-replay-after-eviction", Lesson: "03", Kills: []string{"SSE-27"},
		Mistake: "replays whatever is left of a stream after its oldest events were dropped, so the client gets a replay with a hole in it",
		Edits: []Edit{{File: resumeHandler,
			Old: `	case n < s.dropped:
		return nil, "events after it have been dropped from the replay buffer, so the stream cannot be resumed without a gap"
`,
			New: ``,
		}},
	},
	{
		Name: "get-does-not-hold-session", Lesson: "03", Kills: []string{"SSE-30"},
		Mistake: "gives the session back as soon as the GET has found it, so a session whose client listens expires under it",
		Edits: []Edit{{File: resumeGET,
			Old: `	defer done() // a session with a client listening is in use, and does not expire`,
			New: `	done() // the session exists; that is all a GET needs to know`,
		}},
	},
	{
		Name: "get-never-gives-session-back", Lesson: "03", Kills: []string{"SSE-30"},
		Mistake: "never marks the session idle again after a GET, so a session that once listened never expires",
		Edits: []Edit{{File: resumeGET,
			Old: `	defer done() // a session with a client listening is in use, and does not expire`,
			New: `	_ = done // the stream holds the session`,
		}},
	},
	{
		Name: "ended-stream-resumes-empty", Lesson: "03", Kills: []string{"SSE-29"},
		Mistake: "answers a GET resuming a stream that has ended, with nothing left, with a 200 stream that ends at once (the TypeScript SDK reconnects to it for ever)",
		Edits: []Edit{{File: resumeGET,
			Old: `	case len(missed) == 0 && s.isEnded():`,
			New: `	case false:`,
		}},
	},
	{
		Name: "ended-stream-held-open", Lesson: "03", Kills: []string{"SSE-29"},
		Mistake: "answers a GET resuming a stream that has ended, with nothing left, with a 200 stream that waits for events that will never come",
		Edits: []Edit{{File: resumeGET,
			Old: `		s.mu.Unlock()
		badEventID(w, ids[0], "its stream has ended, and the client has had every event of it")
		return`,
			New: `		s.mu.Unlock()
		startEventStream(w)
		<-r.Context().Done() // nothing to send yet
		return`,
		}},
	},
}

// editCopyToStandalone makes a POST stream copy the messages for which cond
// holds to the session's standalone stream as well.
func editCopyToStandalone(cond string) []Edit {
	return []Edit{{File: resumeStream,
		Old: `func (s *stream) Send(_ context.Context, msg *jsonrpc.Message) error {`,
		New: `func (s *stream) Send(ctx context.Context, msg *jsonrpc.Message) error {
	if ` + cond + ` && s.num != 0 {
		s.set.mu.Lock()
		g := s.set.standalone
		s.set.mu.Unlock()
		if g != nil {
			g.Send(ctx, msg)
		}
	}`,
	}}
}
