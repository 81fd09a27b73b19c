package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"mcpcourse/internal/jsonrpc"
)

// ErrNoOutlet is returned for a message the server starts on its own while
// no outlet is attached: the transport has no way to deliver it, so it is
// dropped.
var ErrNoOutlet = errors.New("mcp: no outlet attached: the message is dropped")

// Attach makes outlet the session's way to reach its client with messages
// that answer no request of the client's: log messages, notifications, and
// requests of the server's own. A stdio transport attaches its connection
// once; an HTTP transport attaches the standalone stream a GET opens.
// Attach(nil) detaches it again.
//
// Until an outlet is attached, such messages are dropped (ErrNoOutlet):
// the spec lets a server send them, and does not make it keep them.
func (s *Session) Attach(outlet Peer) {
	s.mu.Lock()
	s.outlet = outlet
	follow := outlet != nil && !s.following
	s.following = s.following || follow
	s.mu.Unlock()
	if follow {
		s.followChanges()
	}
}

// Notify sends a notification through the session's outlet.
func (s *Session) Notify(ctx context.Context, method string, params any) error {
	n, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		return err
	}
	return s.send(ctx, nil, n)
}

// send delivers msg through peer, or through the outlet when peer is nil.
func (s *Session) send(ctx context.Context, peer Peer, msg *jsonrpc.Message) error {
	if peer == nil {
		s.mu.Lock()
		peer = s.outlet
		s.mu.Unlock()
	}
	if peer == nil {
		return ErrNoOutlet
	}
	return peer.Send(ctx, msg)
}

// Level is the severity of a log message (basic/utilities/logging; the
// levels of RFC 5424, lowest first).
type Level int

// The log levels.
const (
	LevelDebug Level = iota
	LevelInfo
	LevelNotice
	LevelWarning
	LevelError
	LevelCritical
	LevelAlert
	LevelEmergency
)

var levelNames = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// parseLevel returns the level with a name, and whether there is one.
func parseLevel(name string) (Level, bool) {
	for i, n := range levelNames {
		if n == name {
			return Level(i), true
		}
	}
	return 0, false
}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "level(" + strconv.Itoa(int(l)) + ")"
	}
	return levelNames[l]
}

// MarshalJSON writes the level's name.
func (l Level) MarshalJSON() ([]byte, error) { return json.Marshal(l.String()) }

// defaultLogLevel is the level below which messages are not sent until the
// client calls logging/setLevel. The spec leaves the default to the server;
// info lets a client that never sets a level still see the notes log.
const defaultLogLevel = LevelInfo

// Log sends a notifications/message through the session's outlet, unless
// level is below the one the client chose with logging/setLevel.
func (s *Session) Log(ctx context.Context, level Level, logger string, data any) error {
	return s.log(ctx, nil, level, logger, data)
}

func (s *Session) log(ctx context.Context, peer Peer, level Level, logger string, data any) error {
	s.mu.Lock()
	min := s.logLevel
	s.mu.Unlock()
	if level < min {
		return nil
	}
	n, err := jsonrpc.NewNotification("notifications/message", map[string]any{
		"level": level, "logger": logger, "data": data,
	})
	if err != nil {
		return err
	}
	return s.send(ctx, peer, n)
}

func (s *Session) setLogLevel(params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Level string `json:"level"`
	}
	json.Unmarshal(params, &p)
	for i, name := range levelNames {
		if name == p.Level {
			s.mu.Lock()
			s.logLevel = Level(i)
			s.mu.Unlock()
			return struct{}{}, nil
		}
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "logging/setLevel: unknown level %q; one of %v", p.Level, levelNames)
}

// Call sends a request of the server's own to the client and waits for the
// client's response, which arrives later as a message of its own (on HTTP,
// in a POST) and reaches Handle. The request goes through peer, or through
// the outlet when peer is nil.
//
// Call returns the result, the client's error as a *jsonrpc.Error, or an
// error when ctx ends or the session closes first.
func (s *Session) Call(ctx context.Context, peer Peer, method string, params any) (json.RawMessage, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrSessionClosed
	}
	s.lastCall++
	id := jsonrpc.StringID(fmt.Sprintf("server-%d", s.lastCall))
	waiter := make(chan *jsonrpc.Message, 1)
	if s.calls == nil {
		s.calls = map[string]chan *jsonrpc.Message{}
	}
	s.calls[id.String()] = waiter
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.calls, id.String())
		s.mu.Unlock()
	}()

	req := &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: &id, Method: method}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		req.Params = b
	}
	if err := s.send(ctx, peer, req); err != nil {
		return nil, fmt.Errorf("sending %s to the client: %w", method, err)
	}
	select {
	case resp, ok := <-waiter:
		switch {
		case !ok:
			return nil, ErrSessionClosed
		case resp.Error != nil:
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// deliver hands a response from the client to the Call that awaits it. A
// response nobody awaits (a late one, or one to a request never sent) is
// dropped.
func (s *Session) deliver(msg *jsonrpc.Message) {
	s.mu.Lock()
	waiter := s.calls[msg.ID.String()]
	delete(s.calls, msg.ID.String())
	s.mu.Unlock()
	if waiter != nil {
		waiter <- msg // buffered: never blocks
	}
}

// Request is one request of the client's while it is served: what a tool
// or a method handler sees, and how it reaches the client before its
// response.
//
// At 2026-07-28 (Stateless) there may be no Session: everything the request
// needs is in it, and Meta says what its _meta declared.
type Request struct {
	Session *Session
	ID      jsonrpc.ID
	Params  json.RawMessage
	peer    Peer // the request's own stream, or nil

	server         *Server                    // set at 2026-07-28, where Session may be nil
	meta           *RequestMeta               // the request's _meta at 2026-07-28; nil in a session of the 2025 era
	inputResponses map[string]json.RawMessage // a retried multi round-trip request's answers
	state          json.RawMessage            // its verified requestState; see Request.State
}

// ProgressToken returns the request's _meta.progressToken, or nil.
func (r *Request) ProgressToken() *jsonrpc.ID {
	var p struct {
		Meta struct {
			ProgressToken *jsonrpc.ID `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(r.Params, &p)
	return p.Meta.ProgressToken
}

// Progress sends a notifications/progress for the request, or nothing when
// the request carried no progress token. The notification travels with the
// request (on HTTP, on its own SSE stream).
func (r *Request) Progress(ctx context.Context, progress, total float64, message string) error {
	token := r.ProgressToken()
	if token == nil || r.peer == nil {
		return nil
	}
	params := map[string]any{"progressToken": *token, "progress": progress}
	if total > 0 {
		params["total"] = total
	}
	if message != "" {
		params["message"] = message
	}
	n, err := jsonrpc.NewNotification("notifications/progress", params)
	if err != nil {
		return err
	}
	return r.peer.Send(ctx, n)
}

// Log sends a log message that belongs to this request: on the request's
// own stream when it has one, else through the session's outlet.
//
// At 2026-07-28 it is sent only when the request's _meta set a log level
// ("The server MUST NOT emit notifications/message for a request that does
// not include this field"), at or above it, and only on the request's own
// stream: "the server MUST NOT deliver it ... on any stream other than the
// one carrying the response to the request that set the log level"
// (server/utilities/logging).
func (r *Request) Log(ctx context.Context, level Level, logger string, data any) error {
	if r.meta != nil {
		if !r.meta.HasLogLevel || level < r.meta.LogLevel || r.peer == nil {
			return nil
		}
		n, err := jsonrpc.NewNotification("notifications/message", map[string]any{
			"level": level, "logger": logger, "data": data,
		})
		if err != nil {
			return err
		}
		return r.peer.Send(ctx, n)
	}
	return r.Session.log(ctx, r.peer, level, logger, data)
}

// Call sends a request of the server's own to the client while this request
// runs (sampling, elicitation, roots), on this request's stream when it has
// one, else through the outlet; see Session.Call.
//
// At 2026-07-28 it fails with ErrStateless: a tool returns an InputRequired
// instead.
func (r *Request) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if r.meta != nil {
		return nil, ErrStateless
	}
	return r.Session.Call(ctx, r.peer, method, params)
}
