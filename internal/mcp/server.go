// Package mcp is the course's MCP "notes" server: what it answers, not how the
// answers travel. It is given code, shared by every stage. A transport decodes
// messages, hands each valid one to a Session, and delivers what comes back.
//
// The notes server speaks the lifecycle (initialize with version
// negotiation, notifications/initialized, ping), tools/list and tools/call
// with six tools (echo, add_note, list_notes, clear_notes, countdown,
// history),
// logging/setLevel, and notifications/cancelled.
//
// Messages the server starts on its own, outside any response, leave a
// session through its outlet: whatever stream the transport has attached
// (stdout on stdio, the standalone GET stream over HTTP). See Session.Attach.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

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

	// Capabilities are declared in the InitializeResult as they are, beside
	// "tools" and "logging", which every server here declares.
	Capabilities map[string]any
}

// Server holds what all sessions share: the server's name, its tools and
// the request methods it serves. Per-client state lives in a Session.
// Configure a Server before its first session starts.
type Server struct {
	opts    Options
	tools   []*Tool
	methods map[string]MethodHandler
}

// MethodHandler serves one request method a Server does not know itself.
// It returns the result, or the error to answer with.
type MethodHandler func(ctx context.Context, req *Request) (result any, err *jsonrpc.Error)

// New returns a server with no tools.
func New(opts Options) *Server { return &Server{opts: opts} }

// NewServer returns the notes server, the one every stage of the course
// serves.
func NewServer() *Server {
	s := New(Options{
		Info:         Implementation{Name: "mcp-course-notes", Title: "MCP course notes server", Version: "1.0.0"},
		Instructions: "A small notes server from the MCP transports course. Tools: echo, add_note, list_notes, clear_notes, countdown, history.",
	})
	for _, t := range notesTools() {
		s.AddTool(t)
	}
	return s
}

// AddTool adds a tool to tools/list and tools/call.
func (s *Server) AddTool(t *Tool) { s.tools = append(s.tools, t) }

// HandleMethod serves requests for method with h. Methods the server knows
// itself (initialize, ping, tools/*, logging/setLevel) cannot be replaced.
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
	server *Server

	mu       sync.Mutex
	version  ProtocolVersion // zero until initialize has been answered
	client   map[string]any  // the capabilities the client declared in initialize
	notes    []string
	history  []string
	inflight map[string]context.CancelFunc // by request id
	early    []string                      // ids cancelled before their request started; see handleNotification
	closed   bool

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
	return &Session{server: s, inflight: make(map[string]context.CancelFunc), logLevel: defaultLogLevel}
}

// Version returns the protocol version negotiated by initialize, and false if
// initialize has not been answered yet.
func (s *Session) Version() (ProtocolVersion, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
func (s *Session) Handle(ctx context.Context, msg *jsonrpc.Message, peer Peer) *jsonrpc.Message {
	switch {
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
	key := id.String()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return nil
	case s.inflight[key] != nil:
		s.mu.Unlock()
		// Two requests in flight with one id could never be told apart,
		// nor could a cancellation name one of them.
		return jsonrpc.NewErrorResponse(id, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"request id %s is already in use by a request still in flight", key))
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
	defer func() {
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
	}()

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

// dispatch runs one request's method. A panic in a handler becomes an
// internal error for that request alone, so one bad call cannot take the
// whole server down.
func (s *Session) dispatch(ctx context.Context, method string, req *Request) (result any, rpcErr *jsonrpc.Error) {
	defer func() {
		if p := recover(); p != nil {
			result, rpcErr = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: %v", p)
		}
	}()
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
	s.client = p.Capabilities
	return initializeResult{
		ProtocolVersion: v.Name,
		Capabilities:    s.server.capabilities(),
		ServerInfo:      s.server.opts.Info,
		Instructions:    s.server.opts.Instructions,
	}, nil
}

// clientCan reports whether the client declared capability name in
// initialize, such as "elicitation": a server sends the client only the
// requests it said it serves.
func (s *Session) clientCan(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.client[name]
	return ok
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
