// @step 4: the package doc of the finished stage

// Package resume is stage 03 of the MCP transports course: Server-Sent Event
// streams a client can resume. It adds to stage 02's Streamable HTTP
// transport the standalone GET stream, for messages the server starts on its
// own, and event ids on every stream, so that a client whose connection
// broke can come back with Last-Event-ID and be given exactly what it missed
// (MCP 2025-11-25, basic/transports, "Listening for Messages from the
// Server" and "Resumability and Redelivery").
//
// It does not copy stage 02: it plugs into it. Stage 02 still serves POST,
// DELETE and the sessions; it hands this package the SSE answers to requests
// (streamable.Options.Streams) and every GET (streamable.Options.GET).
package resume

// @starter
// | // Package resume is stage 03 of the MCP transports course: Server-Sent Event
// | // streams a client can resume. It adds to stage 02's Streamable HTTP
// | // transport the standalone GET stream, for messages the server starts on its
// | // own, and event ids on every stream, so that a client whose connection
// | // broke can come back with Last-Event-ID and be given exactly what it missed
// | // (MCP 2025-11-25, basic/transports, "Listening for Messages from the
// | // Server" and "Resumability and Redelivery").
// | //
// | // You write this package. lessons/03-sse-resume.md explains each step, and
// | // `go test ./grader -run Lesson03` grades it. Every place to write is marked
// | // TODO(step N). It plugs into your stage 02 package, without copying it:
// | // stage 02 still serves POST, DELETE and the sessions, and hands this
// | // package the SSE answers to requests (streamable.Options.Streams) and every
// | // GET (streamable.Options.GET). NewHandler below shows the whole seam.
// | package resume
// @end

import (
	"context"
	"net/http"
	"sync"
	"time"

	streamable "mcpcourse/solutions/02-streamable-http"

	"mcpcourse/internal/mcp"
)

// Defaults for Options.
const (
	DefaultKeepAlive    = 15 * time.Second
	DefaultReplayBuffer = 1000    // events per session
	DefaultReplayBytes  = 4 << 20 // bytes of events per session
)

// Options configures a Handler. The zero value gives stage 02's defaults and
// the ones above.
type Options struct {
	streamable.Options // sessions, limits, stateless mode

	// KeepAlive is how often a GET stream with nothing to say sends an SSE
	// comment, so that proxies and clients see the connection is alive.
	KeepAlive time.Duration

	// ReplayBuffer bounds how many events a session keeps for replay, and
	// ReplayBytes how many bytes they may hold. Past either bound the oldest
	// events are dropped, and a client that missed them can no longer
	// resume: it gets 400, never a replay with holes.
	ReplayBuffer int
	ReplayBytes  int

	// Tick, when positive, sends each session's standalone stream a log
	// message every Tick: notifications/message, logger "ticker", data
	// {"tick": N}.
	Tick time.Duration
}

// Handler serves the MCP endpoint with resumable streams. Mount it at one
// path, such as /mcp.
type Handler struct {
	*streamable.Handler // POST, DELETE, sessions; GET and streams come back here

	opts Options

	mu       sync.Mutex
	sessions map[*streamable.Session]*sessionStreams // only sessions that have streamed
	closing  chan struct{}                           // closed by CloseStreams
}

// NewHandler returns a Handler that serves server. It is stage 02's handler,
// with two of its plugs filled in.
func NewHandler(server *mcp.Server, opts Options) *Handler {
	opts.KeepAlive = positive(opts.KeepAlive, DefaultKeepAlive)
	opts.ReplayBuffer = positive(opts.ReplayBuffer, DefaultReplayBuffer)
	opts.ReplayBytes = positive(opts.ReplayBytes, DefaultReplayBytes)
	h := &Handler{opts: opts, sessions: map[*streamable.Session]*sessionStreams{}, closing: make(chan struct{})}
	base := opts.Options
	base.Streams = h                        // the answers to requests: streams with event ids
	base.GET = http.HandlerFunc(h.serveGET) // the standalone stream, and every resumption
	h.Handler = streamable.NewHandler(server, base)
	return h
}

// positive returns v, or def when v is not positive.
func positive[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// CloseStreams ends every GET stream and refuses new ones, for a graceful
// shutdown (serve.Run calls it before http.Server.Shutdown): a GET stream
// never ends by itself, so a server waiting for its requests to finish
// would wait for ever. POST streams end with their requests, as in stage
// 02, whose CloseStreams it calls too.
func (h *Handler) CloseStreams() {
	h.Handler.CloseStreams()
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.closing:
	default:
		close(h.closing)
	}
}

// Close ends every stream and every session.
func (h *Handler) Close() {
	h.CloseStreams()
	h.Handler.Close()
}

// sessionStreams holds one session's streams and the log of their events.
// It is made on the session's first stream, so a session that never streams
// costs nothing here, and it is dropped when the session ends.
type sessionStreams struct {
	sess      *streamable.Session
	keepAlive time.Duration

	mu         sync.Mutex
	events     *eventLog
	streams    map[int]*stream // streams that are running, or have events kept
	lastStream int             // the number of the newest POST stream
	standalone *stream         // stream 0, once a GET has opened it
}

// streamsOf returns the stream state of sess, making it if create is set.
func (h *Handler) streamsOf(sess *streamable.Session, create bool) *sessionStreams {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.sessions[sess]
	if set == nil && create {
		set = &sessionStreams{
			sess:      sess,
			keepAlive: h.opts.KeepAlive,
			events:    newEventLog(h.opts.ReplayBuffer, h.opts.ReplayBytes),
			streams:   map[int]*stream{},
		}
		h.sessions[sess] = set
		// The session's end (DELETE, expiry, shutdown) cancels its context:
		// every stream of the session ends then, and its log is let go.
		context.AfterFunc(sess.Context(), func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			delete(h.sessions, sess)
		})
	}
	return set
}

// newStream starts the session's next POST stream.
func (set *sessionStreams) newStream() *stream {
	set.mu.Lock()
	defer set.mu.Unlock()
	set.lastStream++
	s := &stream{set: set, num: set.lastStream, ended: make(chan struct{})}
	set.streams[s.num] = s
	return s
}

// standaloneStream returns stream 0, and reports whether this call made it.
func (set *sessionStreams) standaloneStream() (s *stream, made bool) {
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.standalone == nil {
		set.standalone = &stream{set: set, num: 0, ended: make(chan struct{})} // ended is never closed
		set.streams[0] = set.standalone
		made = true
	}
	return set.standalone, made
}

// stream returns the stream numbered num, or nil.
func (set *sessionStreams) stream(num int) *stream {
	set.mu.Lock()
	defer set.mu.Unlock()
	return set.streams[num]
}

// log adds the next event of s to the session's log, and returns it. For
// each stream the log drops events of to make room, it notes what was lost.
func (set *sessionStreams) log(s *stream, data []byte) event {
	set.mu.Lock()
	defer set.mu.Unlock()
	// @step 2: number the event, and keep it
	s.last++
	s.kept++
	e := event{stream: s.num, n: s.last, data: data}
	set.events.add(e, set.evicted)
	return e
	// @starter
	// | // TODO(step 2): count the stream's events: s.last is the number of its
	// | // newest one, and s.kept how many of its events the log holds. Make the
	// | // event (stream s.num, number s.last, data), keep it in set.events with
	// | // set.events.add(e, set.evicted), and return it.
	// | return event{stream: s.num, data: data}
	// @end
}

// evicted notes that e left the log. A stream that has ended with nothing
// left to replay is forgotten: a GET naming it gets 400, like any unknown id.
func (set *sessionStreams) evicted(e event) {
	// @step 4: note what the log no longer keeps
	s := set.streams[e.stream]
	if s == nil {
		return
	}
	s.dropped = e.n
	s.kept--
	if s.kept == 0 && s.isEnded() {
		delete(set.streams, s.num)
	}
	// @starter
	// | // TODO(step 4): find e's stream in set.streams (it may be gone). Note
	// | // that its events up to e.n are no longer kept (s.dropped), and that
	// | // it keeps one event fewer (s.kept). Once an ended stream keeps none,
	// | // delete it from set.streams.
	// @end
}

// end notes that s has sent its last event.
func (set *sessionStreams) end(s *stream) {
	set.mu.Lock()
	defer set.mu.Unlock()
	if s.kept == 0 {
		delete(set.streams, s.num)
	}
}

// replay returns the events of s after its event n, which a client whose
// Last-Event-ID names n has not seen, or why it cannot have them all.
func (set *sessionStreams) replay(s *stream, n uint64) ([]event, string) {
	set.mu.Lock()
	defer set.mu.Unlock()
	// @step 4: the events after n, or why there are none
	switch {
	case n > s.last:
		return nil, "it is not an id of this session's events"
	case n < s.dropped:
		return nil, "events after it have been dropped from the replay buffer, so the stream cannot be resumed without a gap"
	}
	return set.events.after(s.num, n), ""
	// @starter
	// | // TODO(step 4): an n the stream never reached (above s.last) is not
	// | // one of its ids; an n below s.dropped means events after it are gone,
	// | // and a replay would have a gap. Say why in either case. Otherwise
	// | // return set.events.after(s.num, n).
	// | return nil, "resuming is not written yet: step 4 of lessons/03-sse-resume.md"
	// @end
}

// tick sends the session's standalone stream a log message every interval,
// until the session ends.
func tick(sess *streamable.Session, interval time.Duration) {
	// @step 3: a log message every interval, until the session ends
	ctx := sess.Context()
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		sess.Log(ctx, mcp.LevelInfo, "ticker", map[string]int{"tick": n})
	}
	// @starter
	// | // TODO(step 3): a time.Ticker of interval; on each tick n (1, 2, 3, …)
	// | // call sess.Log(ctx, mcp.LevelInfo, "ticker", map[string]int{"tick": n}),
	// | // with ctx := sess.Context(). Stop the ticker and return once ctx is done.
	// | _ = mcp.LevelInfo
	// @end
}
