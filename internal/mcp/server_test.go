package mcp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/jsonrpc"
)

func request(t *testing.T, id int64, method string, params any) *jsonrpc.Message {
	t.Helper()
	m := &jsonrpc.Message{JSONRPC: jsonrpc.Version, Method: method}
	rid := jsonrpc.IntID(id)
	m.ID = &rid
	if params != nil {
		b, err := json.Marshal(params)
		require.NoError(t, err)
		m.Params = b
	}
	return m
}

func notification(t *testing.T, method string, params any) *jsonrpc.Message {
	t.Helper()
	n, err := jsonrpc.NewNotification(method, params)
	require.NoError(t, err)
	return n
}

// recorder is a Peer that keeps what it is sent.
type recorder struct {
	mu   sync.Mutex
	sent []*jsonrpc.Message
}

func (r *recorder) Send(_ context.Context, n *jsonrpc.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, n)
	return nil
}

func TestNegotiation(t *testing.T) {
	for requested, want := range map[string]string{
		"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26",
		"2099-01-01": LatestVersion.Name, "2024-11-05": LatestVersion.Name,
	} {
		s := NewServer().NewSession()
		resp := s.Handle(context.Background(), request(t, 1, "initialize", map[string]any{"protocolVersion": requested}), nil)
		require.Nil(t, resp.Error)
		assert.Contains(t, string(resp.Result), `"protocolVersion":"`+want+`"`, requested)
		v, ok := s.Version()
		assert.True(t, ok)
		assert.Equal(t, want, v.Name)
	}
}

func TestInitializeTwiceIsRefused(t *testing.T) {
	s := NewServer().NewSession()
	s.Handle(context.Background(), request(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}), nil)
	resp := s.Handle(context.Background(), request(t, 2, "initialize", map[string]any{"protocolVersion": "2025-11-25"}), nil)
	require.NotNil(t, resp.Error)
	assert.Equal(t, jsonrpc.CodeInvalidRequest, resp.Error.Code)
}

func TestCountdownReportsProgressThatIncreases(t *testing.T) {
	s := NewServer().NewSession()
	peer := &recorder{}
	resp := s.Handle(context.Background(), request(t, 1, "tools/call", map[string]any{
		"name": "countdown", "arguments": map[string]any{"from": 3, "interval_ms": 1},
		"_meta": map[string]any{"progressToken": "tok"},
	}), peer)
	require.Nil(t, resp.Error)
	require.Len(t, peer.sent, 3)
	for i, n := range peer.sent {
		assert.Equal(t, "notifications/progress", n.Method)
		assert.Contains(t, string(n.Params), `"progressToken":"tok"`)
		assert.Contains(t, string(n.Params), `"progress":`+strconv.Itoa(i+1))
	}
}

func (r *recorder) messages() []*jsonrpc.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*jsonrpc.Message(nil), r.sent...)
}

func callTool(t *testing.T, s *Session, id int64, name string, args map[string]any) string {
	t.Helper()
	resp := s.Handle(context.Background(), request(t, id, "tools/call", map[string]any{"name": name, "arguments": args}), nil)
	require.NotNil(t, resp)
	require.Nil(t, resp.Error)
	var r struct {
		Content []struct{ Text string } `json:"content"`
	}
	require.NoError(t, json.Unmarshal(resp.Result, &r))
	require.Len(t, r.Content, 1)
	return r.Content[0].Text
}

func TestNotesAreLoggedThroughTheOutlet(t *testing.T) {
	s := NewServer().NewSession()
	callTool(t, s, 1, "add_note", map[string]any{"text": "before"}) // no outlet yet: dropped
	outlet := &recorder{}
	s.Attach(outlet)
	callTool(t, s, 2, "add_note", map[string]any{"text": "milk"})
	sent := outlet.messages()
	require.Len(t, sent, 1)
	assert.Equal(t, "notifications/message", sent[0].Method)
	assert.JSONEq(t, `{"level":"info","logger":"notes","data":{"note":2,"text":"milk"}}`, string(sent[0].Params))

	resp := s.Handle(context.Background(), request(t, 3, "logging/setLevel", map[string]any{"level": "warning"}), nil)
	require.Nil(t, resp.Error)
	callTool(t, s, 4, "add_note", map[string]any{"text": "quiet"})
	assert.Len(t, outlet.messages(), 1, "info is below warning")

	resp = s.Handle(context.Background(), request(t, 5, "logging/setLevel", map[string]any{"level": "loud"}), nil)
	assert.Equal(t, jsonrpc.CodeInvalidParams, resp.Error.Code)
}

func TestHistoryTellsHowCallsEnded(t *testing.T) {
	s := NewServer().NewSession()
	callTool(t, s, 1, "echo", map[string]any{"text": "x"})
	callTool(t, s, 2, "countdown", map[string]any{"from": 1, "interval_ms": 1000000})
	assert.Equal(t, "1. echo (id 1): finished\n2. countdown (id 2): failed: argument \"interval_ms\" must be from 0 to 10000", callTool(t, s, 3, "history", nil))
}

// clientPeer answers every request it is sent, as a client would, by handing
// a response back to the session.
type clientPeer struct{ s *Session }

func (c clientPeer) Send(_ context.Context, m *jsonrpc.Message) error {
	if m.IsRequest() {
		resp, _ := jsonrpc.NewResult(*m.ID, map[string]string{"answer": m.Method})
		go c.s.Handle(context.Background(), resp, nil)
	}
	return nil
}

func TestServerRequestsGetTheClientsResponse(t *testing.T) {
	s := NewServer().NewSession()
	_, err := s.Call(context.Background(), nil, "roots/list", nil)
	assert.ErrorIs(t, err, ErrNoOutlet)

	s.Attach(clientPeer{s})
	result, err := s.Call(context.Background(), nil, "roots/list", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"answer":"roots/list"}`, string(result))

	s.Attach(&recorder{}) // a client that never answers
	done := make(chan error, 1)
	go func() { _, err := s.Call(context.Background(), nil, "sampling/createMessage", nil); done <- err }()
	s.Close() // before or after the call is sent: either way it must end
	select {
	case err := <-done:
		assert.ErrorIs(t, err, ErrSessionClosed)
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not end a call awaiting the client")
	}
	assert.Error(t, s.Context().Err(), "the session's context ends with it")
}

func TestCancellationStopsARequestAndSilencesIt(t *testing.T) {
	s := NewServer().NewSession()
	done := make(chan *jsonrpc.Message, 1)
	go func() {
		done <- s.Handle(context.Background(), request(t, 9, "tools/call", map[string]any{
			"name": "countdown", "arguments": map[string]any{"from": 100, "interval_ms": 50},
		}), nil)
	}()
	// The cancellation may land before or after the request starts: both
	// must stop it.
	s.Handle(context.Background(), notification(t, "notifications/cancelled", map[string]any{"requestId": 9}), nil)
	select {
	case resp := <-done:
		assert.Nil(t, resp, "a cancelled request gets no response")
	case <-time.After(2 * time.Second):
		t.Fatal("the cancelled countdown kept running")
	}
}

func TestNotesAreBounded(t *testing.T) {
	s := NewServer().NewSession()
	call := func(id int64, text string) string {
		resp := s.Handle(context.Background(), request(t, id, "tools/call", map[string]any{
			"name": "add_note", "arguments": map[string]any{"text": text},
		}), nil)
		require.Nil(t, resp.Error)
		return string(resp.Result)
	}
	assert.Contains(t, call(1, strings.Repeat("x", MaxNoteBytes+1)), `"isError":true`)
	for i := 0; i < MaxNotes; i++ {
		assert.NotContains(t, call(int64(10+i), "n"), `"isError"`)
	}
	assert.Contains(t, call(999, "one too many"), `"isError":true`)
}

func TestUnknownThings(t *testing.T) {
	s := NewServer().NewSession()
	resp := s.Handle(context.Background(), request(t, 1, "no/such", nil), nil)
	assert.Equal(t, jsonrpc.CodeMethodNotFound, resp.Error.Code)
	resp = s.Handle(context.Background(), request(t, 2, "tools/call", map[string]any{"name": "nope"}), nil)
	assert.Equal(t, jsonrpc.CodeInvalidParams, resp.Error.Code)
	assert.Nil(t, s.Handle(context.Background(), notification(t, "notifications/whatever", nil), nil))
}
