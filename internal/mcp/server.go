// Package mcp is the course's MCP "notes" server: what it answers, not how the
// answers travel. It is given code, shared by every stage. A transport decodes
// messages, hands each valid one to a Session, and delivers what comes back.
//
// The server speaks the lifecycle (initialize with version negotiation,
// notifications/initialized, ping), tools/list and tools/call with four tools
// (echo, add_note, list_notes, countdown), and notifications/cancelled.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"mcpcourse/internal/jsonrpc"
)

// Implementation names a server to its clients ("serverInfo").
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Server is the notes server. It holds what all sessions share: its name and
// its tools. Per-client state lives in a Session.
type Server struct {
	info  Implementation
	tools []*tool
}

// NewServer returns the notes server.
func NewServer() *Server {
	return &Server{
		info:  Implementation{Name: "mcp-course-notes", Title: "MCP course notes server", Version: "1.0.0"},
		tools: notesTools(),
	}
}

// Peer carries messages from the server to the client outside of a response,
// such as the progress notifications of a running tool call. Each transport
// provides its own: stdio writes a line to stdout; Streamable HTTP writes an
// event on the request's SSE stream.
type Peer interface {
	// Notify sends a notification to the client. It returns an error once
	// the client can no longer be reached, so a handler can stop early.
	Notify(ctx context.Context, notification *jsonrpc.Message) error
}

// Limits on what one session may store, so that no client can grow the
// server's memory without bound.
const (
	MaxNotes     = 100  // notes per session
	MaxNoteBytes = 4096 // bytes per note
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
	notes    []string
	inflight map[string]context.CancelFunc // by request id
	early    []string                      // ids cancelled before their request started; see handleNotification
	closed   bool
}

// maxEarlyCancels bounds how many early cancellations a session remembers.
const maxEarlyCancels = 64

// NewSession starts a conversation with one client.
func (s *Server) NewSession() *Session {
	return &Session{server: s, inflight: make(map[string]context.CancelFunc)}
}

// Version returns the protocol version negotiated by initialize, and false if
// initialize has not been answered yet.
func (s *Session) Version() (ProtocolVersion, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, s.version.Name != ""
}

// Close cancels every request still in flight. A transport calls it when the
// session ends: the client deleted it, it expired, or the process is leaving.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, cancel := range s.inflight {
		cancel()
	}
}

// Handle serves one valid message from the client.
//
// For a request it returns the response to send back. It returns nil when
// nothing is owed: for a notification, for a response (this server sends no
// requests, so it has none to match), and for a request that was cancelled
// while it ran (the cancellation utility says the receiver SHOULD NOT respond
// to a cancelled request).
//
// peer is how the request's handler reaches the client while it runs; it may
// be nil for a transport that cannot deliver notifications.
func (s *Session) Handle(ctx context.Context, msg *jsonrpc.Message, peer Peer) *jsonrpc.Message {
	switch {
	case msg.IsRequest():
		return s.handleRequest(ctx, msg, peer)
	case msg.IsNotification():
		s.handleNotification(msg)
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

	result, rpcErr := s.dispatch(ctx, msg, peer)
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
func (s *Session) dispatch(ctx context.Context, msg *jsonrpc.Message, peer Peer) (result any, rpcErr *jsonrpc.Error) {
	defer func() {
		if p := recover(); p != nil {
			result, rpcErr = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: %v", p)
		}
	}()
	switch msg.Method {
	case "initialize":
		return s.initialize(msg.Params)
	case "ping":
		return struct{}{}, nil // ping MUST be answered with an empty result
	case "tools/list":
		return s.server.listTools(), nil
	case "tools/call":
		return s.callTool(ctx, msg.Params, peer)
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %q", msg.Method)
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
		Capabilities:    map[string]any{"tools": map[string]any{}},
		ServerInfo:      s.server.info,
		Instructions:    "A small notes server from the MCP transports course. Tools: echo, add_note, list_notes, countdown.",
	}, nil
}

// progressReporter sends notifications/progress for one request, or nothing
// when the request carried no progress token.
type progressReporter struct {
	token *jsonrpc.ID
	peer  Peer
}

func (p progressReporter) report(ctx context.Context, progress, total int, message string) error {
	if p.token == nil || p.peer == nil {
		return nil
	}
	n, err := jsonrpc.NewNotification("notifications/progress", map[string]any{
		"progressToken": *p.token,
		"progress":      progress,
		"total":         total,
		"message":       message,
	})
	if err != nil {
		return err
	}
	return p.peer.Notify(ctx, n)
}

func (s *Session) callTool(ctx context.Context, params json.RawMessage, peer Peer) (any, *jsonrpc.Error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken *jsonrpc.ID `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "tools/call params: %v", err)
	}
	t := s.server.lookupTool(p.Name)
	if t == nil {
		// The tools page uses -32602 for an unknown tool (server/tools, "Error Handling").
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown tool: %q", p.Name)
	}
	text, err := t.run(ctx, s, p.Arguments, progressReporter{token: p.Meta.ProgressToken, peer: peer})
	if ctx.Err() != nil {
		return nil, nil // the caller drops the response of a cancelled request
	}
	if err != nil {
		// A tool that ran and failed reports it inside the result, so the
		// model can see the error (server/tools, "Tool Execution Errors").
		return toolResult{Content: []textContent{{Type: "text", Text: err.Error()}}, IsError: true}, nil
	}
	return toolResult{Content: []textContent{{Type: "text", Text: text}}}, nil
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolResult struct {
	Content []textContent `json:"content"`
	IsError bool          `json:"isError,omitempty"`
}

// addNote stores a note and returns how many the session now holds.
func (s *Session) addNote(text string) (int, error) {
	if text == "" {
		return 0, fmt.Errorf(`argument "text" must not be empty`)
	}
	if len(text) > MaxNoteBytes {
		return 0, fmt.Errorf("a note holds at most %d bytes; this one has %d", MaxNoteBytes, len(text))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.notes) >= MaxNotes {
		return 0, fmt.Errorf("this session already holds %d notes, the most it may", MaxNotes)
	}
	s.notes = append(s.notes, text)
	return len(s.notes), nil
}

func (s *Session) listNotes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notes...)
}
