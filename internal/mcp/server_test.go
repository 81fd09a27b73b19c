package mcp

import (
	"context"
	"encoding/json"
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

func (r *recorder) Notify(_ context.Context, n *jsonrpc.Message) error {
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
		assert.Contains(t, string(n.Params), `"progress":`+string(rune('1'+i)))
	}
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
