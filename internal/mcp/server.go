package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"mcpcourse/internal/jsonrpc"
)

// Implementation names a server to its clients ("serverInfo").
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Options describes a server built with New.
type Options struct {
	Info         Implementation
	Instructions string

	// Capabilities are declared in the InitializeResult and by
	// server/discover as they are, beside "tools" and "logging", which every
	// server here declares.
	Capabilities map[string]any

	// StatelessInstructions are what server/discover says at 2026-07-28,
	// where the tools may differ from a session's. Empty: Instructions.
	StatelessInstructions string

	// Changes is the feed that carries changes to listeners; nil makes one
	// for this process (NewMemoryFeed). See ChangeFeed.
	Changes ChangeFeed

	// StateKey signs the requestState of multi round-trip requests, so that
	// a client cannot forge or alter it. Processes that serve one endpoint
	// together share a key; nil makes a random one, and a restarted server
	// then refuses the states it issued before.
	StateKey []byte
}

// Server holds what all sessions share: the server's name, its tools and
// the request methods it serves, and at 2026-07-28, where there are no
// sessions, the notebooks and the change feed. Per-client state of the 2025
// era lives in a Session. Configure a Server before its first request.
type Server struct {
	opts    Options
	tools   []*Tool // a session's tools/list (2025 era)
	methods map[string]MethodHandler

	statelessTools   []*Tool                  // tools/list at 2026-07-28
	statelessMethods map[string]MethodHandler // the core's own methods at 2026-07-28: the notes as resources
	notebooks        *notebookStore           // nil: a server with no notebooks
	changes          ChangeFeed
	serverInfo       json.RawMessage // opts.Info, for every result's _meta at 2026-07-28
	stateKey         []byte
	now              func() time.Time
	ending           chan struct{} // closed by EndListens
	endOnce          sync.Once
}

// MethodHandler serves one request method a Server does not know itself.
// It returns the result, or the error to answer with.
type MethodHandler func(ctx context.Context, req *Request) (result any, err *jsonrpc.Error)

// New returns a server with no tools.
func New(opts Options) *Server {
	s := &Server{opts: opts, changes: opts.Changes, stateKey: opts.StateKey, now: time.Now, ending: make(chan struct{})}
	if s.changes == nil {
		s.changes = NewMemoryFeed()
	}
	if s.stateKey == nil {
		s.stateKey = make([]byte, 32)
		if _, err := rand.Read(s.stateKey); err != nil {
			panic("crypto/rand failed: " + err.Error()) // cannot happen on supported systems
		}
	}
	s.serverInfo, _ = json.Marshal(opts.Info) // an Implementation always marshals
	return s
}

// NewServer returns the notes server, the one every stage of the course
// serves. A session of the 2025 era keeps its notes in a notebook of its
// own; at 2026-07-28 a client makes notebooks with new_notebook and names
// them by handle (doc.go tells the whole story).
func NewServer() *Server {
	s := New(Options{
		Info:                  Implementation{Name: "mcp-course-notes", Title: "MCP course notes server", Version: "1.0.0"},
		Instructions:          "A small notes server from the MCP transports course. Tools: echo, add_note, list_notes, countdown, history.",
		StatelessInstructions: "A small notes server from the MCP transports course. Make a notebook with new_notebook, then pass its handle to add_note, list_notes, clear_notes and history. Tools: echo, new_notebook, add_note, list_notes, clear_notes, countdown, history.",
	})
	for _, t := range notesTools() {
		s.AddSessionTool(t)
	}
	for _, t := range statelessNotesTools() {
		s.AddStatelessTool(t)
	}
	s.notebooks = newNotebookStore(func() time.Time { return s.now() })
	s.statelessMethods = map[string]MethodHandler{
		"resources/list":           s.listNotebookResources,
		"resources/templates/list": s.listNotebookTemplates,
		"resources/read":           s.readNotebook,
	}
	return s
}

// AddTool adds a tool to tools/list and tools/call in both eras.
func (s *Server) AddTool(t *Tool) {
	s.AddSessionTool(t)
	s.AddStatelessTool(t)
}

// AddSessionTool adds a tool to the tools/list and tools/call of sessions
// (the 2025 era) only.
func (s *Server) AddSessionTool(t *Tool) { s.tools = append(s.tools, t) }

// AddStatelessTool adds a tool to tools/list and tools/call at 2026-07-28
// only.
func (s *Server) AddStatelessTool(t *Tool) { s.statelessTools = append(s.statelessTools, t) }

// HandleMethod serves requests for method with h, in both eras. Methods the
// server knows itself (initialize, ping, tools/*, logging/setLevel, and at
// 2026-07-28 server/discover and subscriptions/listen) cannot be replaced,
// and the methods 2026-07-28 removed get -32601 there whatever h says. At
// 2026-07-28 h gets a Request with no Session (Request.Stateless), and its
// result gains the fields that era adds to every result.
func (s *Server) HandleMethod(method string, h MethodHandler) {
	if s.methods == nil {
		s.methods = map[string]MethodHandler{}
	}
	s.methods[method] = h
}

// Peer carries messages from the server to the client outside of a
// response: the progress notifications of a running tool call, a log
// message, a request of the server's own. Each transport provides its own:
// stdio writes a line to stdout; Streamable HTTP writes an event on an SSE
// stream.
type Peer interface {
	// Send sends msg to the client. It returns an error once the client
	// can no longer be reached this way.
	Send(ctx context.Context, msg *jsonrpc.Message) error
}

// Limits on what one session may store, so that no client can grow the
// server's memory without bound.
const (
	MaxNotes     = 100  // notes per session
	MaxNoteBytes = 4096 // bytes per note
	MaxHistory   = 20   // tool calls the history tool remembers
)

// Session is one client's conversation with the server: the negotiated
// protocol version, the client's notes, and its requests still in flight.
// A stdio server has one Session for the life of the process; an HTTP server
// has one per MCP-Session-Id (or one per request in stateless mode).
//
// Handle may be called from many goroutines at once.
type Session struct {
	server   *Server
	notebook Notebook // the session's notes, and the history of its calls

	mu        sync.Mutex
	version   ProtocolVersion               // zero until initialize has been answered
	stateless bool                          // the session's first request chose 2026-07-28 (stdio); see servesStateless
	following bool                          // the session follows the change feed; see followChanges
	inflight  map[string]context.CancelFunc // by request id; a subscriptions/listen is in flight until it ends
	early     []string                      // ids cancelled before their request started; see handleNotification
	closed    bool

	// The outlet, and what travels through it (outlet.go). Each field
	// stays zero until it is used, so an idle session stays small.
	outlet   Peer
	logLevel Level
	calls    map[string]chan *jsonrpc.Message // our requests awaiting the client's response, by id
	lastCall int64
	ctx      context.Context
	cancel   context.CancelFunc
}

// maxEarlyCancels bounds how many early cancellations a session remembers.
const maxEarlyCancels = 64

// NewSession starts a conversation with one client.
func (s *Server) NewSession() *Session {
	return &Session{server: s, notebook: Notebook{owner: "session"}, inflight: make(map[string]context.CancelFunc), logLevel: defaultLogLevel}
}

// Version returns the protocol version the session speaks: the one
// initialize negotiated, or 2026-07-28 once the session's first request
// chose the stateless era. It returns false while neither has happened.
func (s *Session) Version() (ProtocolVersion, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stateless {
		return StatelessVersions[0], true
	}
	return s.version, s.version.Name != ""
}

// Close ends the session: it cancels every request still in flight, fails
// the requests the server is waiting on, and cancels the session's Context.
// A transport calls it when the session ends: the client deleted it, it
// expired, or the process is leaving.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	for _, cancel := range s.inflight {
		cancel()
	}
	for id, waiter := range s.calls {
		close(waiter)
		delete(s.calls, id)
	}
	if s.cancel != nil {
		s.cancel()
	}
}

// Context returns a context that is cancelled when the session is closed.
// Transports use it to end what belongs to the session, such as its
// streams, when it ends.
func (s *Session) Context() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		s.ctx, s.cancel = context.WithCancel(context.Background())
		if s.closed {
			s.cancel()
		}
	}
	return s.ctx
}

// Handle serves one valid message from the client.
//
// For a request it returns the response to send back. It returns nil when
// nothing is owed: for a notification, for a response (which goes to the
// server's request that awaits it), and for a request that was cancelled
// while it ran (the cancellation utility says the receiver SHOULD NOT
// respond to a cancelled request).
//
// peer is how the request's handler reaches the client while it runs: its
// progress notifications go there. It may be nil for a transport that cannot
// deliver them.
//
// A session serves both eras, one per session: its first request that
// decides chooses (see servesStateless). That is how a stdio server serves
// 2026-07-28 with no change to its loop. A subscriptions/listen of that era
// is answered later, when it ends: Handle returns nil for it at once, and
// the listen runs on, sending through peer, until it is cancelled.
func (s *Session) Handle(ctx context.Context, msg *jsonrpc.Message, peer Peer) *jsonrpc.Message {
	switch {
	case msg.IsRequest() && msg.Method == "subscriptions/listen" && s.servesStateless(msg.Method, msg.Params):
		return s.startListen(ctx, msg, peer)
	case msg.IsRequest():
		return s.handleRequest(ctx, msg, peer)
	case msg.IsNotification():
		s.handleNotification(msg)
	case msg.ID != nil:
		s.deliver(msg)
	}
	return nil
}

func (s *Session) handleNotification(msg *jsonrpc.Message) {
	switch msg.Method {
	case "notifications/cancelled":
		// Invalid cancellations SHOULD be ignored (cancellation, "Error
		// Handling"), so a malformed one is dropped without a word.
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if json.Unmarshal(msg.Params, &p) != nil || p.RequestID.IsZero() {
			return
		}
		key := p.RequestID.String()
		s.mu.Lock()
		cancel := s.inflight[key]
		if cancel == nil {
			// A transport that runs each request on its own goroutine
			// may see the cancellation before that goroutine has started
			// the request. Remember the id for a while, so the request
			// is cancelled the moment it starts.
			s.early = append(s.early, key)
			if len(s.early) > maxEarlyCancels {
				s.early = s.early[1:]
			}
		}
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
	// Any other notification, notifications/initialized included, asks
	// nothing of this server: it serves requests whether or not the client
	// has said it is ready. Receivers never answer notifications, so there
	// is nothing to do.
}

func (s *Session) handleRequest(ctx context.Context, msg *jsonrpc.Message, peer Peer) *jsonrpc.Message {
	id := *msg.ID
	ctx, end, refused, ok := s.begin(ctx, id)
	if !ok {
		return refused
	}
	defer end()

	req := &Request{Session: s, ID: id, Params: msg.Params, peer: peer}
	result, rpcErr := s.dispatch(ctx, msg.Method, req)
	if ctx.Err() != nil {
		return nil // cancelled by the client, or the transport is gone
	}
	if rpcErr != nil {
		return jsonrpc.NewErrorResponse(id, rpcErr)
	}
	resp, err := jsonrpc.NewResult(id, result)
	if err != nil {
		return jsonrpc.NewErrorResponse(id, jsonrpc.NewError(jsonrpc.CodeInternalError, "encoding the result: %v", err))
	}
	return resp
}

// begin puts a request in flight under its id, so that a cancellation can
// find it, and returns its context and the function that ends it. A session
// that has closed serves nothing (ok false, nothing to answer); an id
// already in flight is refused.
func (s *Session) begin(ctx context.Context, id jsonrpc.ID) (_ context.Context, end func(), refused *jsonrpc.Message, ok bool) {
	key := id.String()
	ctx, cancel := context.WithCancel(ctx)

	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		cancel()
		return nil, nil, nil, false
	case s.inflight[key] != nil:
		s.mu.Unlock()
		cancel()
		// Two requests in flight with one id could never be told apart,
		// nor could a cancellation name one of them.
		return nil, nil, jsonrpc.NewErrorResponse(id, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"request id %s is already in use by a request still in flight", key)), false
	}
	s.inflight[key] = cancel
	for i, early := range s.early {
		if early == key {
			s.early = append(s.early[:i], s.early[i+1:]...)
			cancel()
			break
		}
	}
	s.mu.Unlock()
	return ctx, func() {
		cancel()
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
	}, nil, true
}

// dispatch runs one request's method. A panic in a handler becomes an
// internal error for that request alone, so one bad call cannot take the
// whole server down.
func (s *Session) dispatch(ctx context.Context, method string, req *Request) (result any, rpcErr *jsonrpc.Error) {
	defer func() {
		if p := recover(); p != nil {
			result, rpcErr = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: %v", p)
		}
	}()
	if s.servesStateless(method, req.Params) {
		return s.dispatchStateless(ctx, method, req)
	}
	switch method {
	case "initialize":
		return s.initialize(req.Params)
	case "ping":
		return struct{}{}, nil // ping MUST be answered with an empty result
	case "tools/list":
		return s.server.listTools(), nil
	case "tools/call":
		return s.callTool(ctx, req)
	case "logging/setLevel":
		return s.setLogLevel(req.Params)
	}
	if h := s.server.methods[method]; h != nil {
		return h(ctx, req)
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %q", method)
}

type initializeParams struct {
	ProtocolVersion *string        `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ClientInfo      *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      Implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

func (s *Session) initialize(params json.RawMessage) (any, *jsonrpc.Error) {
	var p initializeParams
	if err := json.Unmarshal(params, &p); err != nil || p.ProtocolVersion == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams,
			`initialize needs params with a string "protocolVersion"`)
	}
	v := negotiate(*p.ProtocolVersion)

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version.Name != "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "this session is already initialized")
	}
	s.version = v
	return initializeResult{
		ProtocolVersion: v.Name,
		Capabilities:    s.server.capabilities(),
		ServerInfo:      s.server.opts.Info,
		Instructions:    s.server.opts.Instructions,
	}, nil
}

// capabilities lists what the server offers: its tools, log messages (the
// logging utility requires the capability for notifications/message), and
// whatever New was told.
func (s *Server) capabilities() map[string]any {
	caps := map[string]any{"tools": map[string]any{}, "logging": map[string]any{}}
	for name, v := range s.opts.Capabilities {
		caps[name] = v
	}
	return caps
}

// ErrSessionClosed is returned for work asked of a session that has ended.
var ErrSessionClosed = errors.New("mcp: the session has ended")
