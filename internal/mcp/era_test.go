package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/jsonrpc"
)

// handle serves one request in a session, as stage 01's loop does.
func handle(t *testing.T, s *Session, id int64, method string, params any, peer Peer) *jsonrpc.Message {
	t.Helper()
	return s.Handle(context.Background(), request(t, id, method, params), peer)
}

func TestTheFirstDecidingRequestChoosesTheEra(t *testing.T) {
	for _, c := range []struct {
		name      string
		first     string
		params    any
		stateless bool
	}{
		{"server/discover", "server/discover", with(nil), true},
		{"server/discover with no _meta", "server/discover", nil, true},
		{"a request with modern _meta", "tools/list", with(nil), true},
		{"a request whose _meta names an unknown version", "tools/list", map[string]any{"_meta": envelope(nil, map[string]any{MetaProtocolVersion: "v999.0.0"})}, true},
		{"initialize with modern _meta", "initialize", with(map[string]any{"protocolVersion": "2025-11-25"}), true},
		{"initialize", "initialize", map[string]any{"protocolVersion": "2025-11-25"}, false},
		{"initialize asking for 2026-07-28", "initialize", map[string]any{"protocolVersion": "2026-07-28"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer().NewSession()
			defer s.Close()
			handle(t, s, 1, c.first, c.params, nil)
			v, ok := s.Version()
			require.True(t, ok)
			if c.stateless {
				assert.Equal(t, "2026-07-28", v.Name)
				assert.Equal(t, EraStateless, v.Era)
				resp := handle(t, s, 2, "tools/list", with(nil), nil)
				assert.JSONEq(t, `"complete"`, string(fields(t, resp)["resultType"]))
				resp = handle(t, s, 3, "initialize", map[string]any{"protocolVersion": "2025-11-25"}, nil)
				require.NotNil(t, resp.Error, "the era is the process's: no initialize after it")
				assert.Equal(t, jsonrpc.CodeMethodNotFound, resp.Error.Code)
				assert.Contains(t, resp.Error.Message, "2026-07-28")
				resp = handle(t, s, 4, "tools/list", nil, nil)
				require.NotNil(t, resp.Error)
				assert.Equal(t, jsonrpc.CodeInvalidParams, resp.Error.Code, "every request needs its _meta")
				return
			}
			assert.Equal(t, "2025-11-25", v.Name, "initialize never negotiates 2026-07-28")
			assert.Equal(t, EraSessions, v.Era)
			resp := handle(t, s, 2, "server/discover", with(nil), nil)
			require.NotNil(t, resp.Error)
			assert.Equal(t, jsonrpc.CodeMethodNotFound, resp.Error.Code, "a 2025 session does not know server/discover")
			resp = handle(t, s, 3, "tools/list", with(nil), nil)
			assert.NotContains(t, string(resp.Result), "resultType", "a 2025 session's _meta is only _meta")
			assert.NotContains(t, string(resp.Result), "new_notebook")
		})
	}
}

func TestRequestsBeforeTheEraIsChosenAreServedAsIn2025(t *testing.T) {
	s := NewServer().NewSession()
	defer s.Close()
	assert.JSONEq(t, `{}`, string(handle(t, s, 1, "ping", nil, nil).Result), "a ping before initialize")
	assert.Equal(t, "Saved note 1.", callTool(t, s, 2, "add_note", map[string]any{"text": "milk"}))
	_, ok := s.Version()
	assert.False(t, ok, "they choose nothing")
	handle(t, s, 3, "server/discover", with(nil), nil)
	v, _ := s.Version()
	assert.Equal(t, "2026-07-28", v.Name)
}

func TestASessionListensOnStdio(t *testing.T) {
	srv := NewServer()
	s := srv.NewSession()
	defer s.Close()
	out := make(stream, 16) // stdout: every message of the session
	nb := newNotebook(t, srv)
	filter := map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{"notes://" + nb}}}

	assert.Nil(t, handle(t, s, 10, "subscriptions/listen", with(filter), out), "a listen is answered when it ends, not now")
	assert.Nil(t, handle(t, s, 11, "subscriptions/listen", with(filter), out))
	acks := map[string]bool{}
	for i := 0; i < 2; i++ {
		m := out.next(t, "an acknowledgment")
		assert.Equal(t, "notifications/subscriptions/acknowledged", m.Method)
		acks[tag(t, m)] = true
	}
	assert.Equal(t, map[string]bool{"10": true, "11": true}, acks)

	resp := handle(t, s, 10, "tools/list", with(nil), out)
	require.NotNil(t, resp.Error, "a listen in flight holds its id")

	toolText(t, srv, "add_note", map[string]any{"notebook": nb, "text": "milk"})
	heard := map[string]bool{}
	for i := 0; i < 2; i++ {
		m := out.next(t, "a change")
		assert.Equal(t, "notifications/resources/updated", m.Method)
		heard[tag(t, m)] = true
	}
	assert.Equal(t, map[string]bool{"10": true, "11": true}, heard, "each listen hears it, under its own id")

	// The client cancels listen 10: nothing more is sent for it, not even a
	// response; listen 11 goes on.
	s.Handle(context.Background(), notification(t, "notifications/cancelled", map[string]any{"requestId": 10}), nil)
	time.Sleep(50 * time.Millisecond)
	toolText(t, srv, "add_note", map[string]any{"notebook": nb, "text": "eggs"})
	m := out.next(t, "the change for listen 11")
	assert.Equal(t, "11", tag(t, m))
	out.quiet(t, "anything for the cancelled listen")

	srv.EndListens()
	end := out.next(t, "listen 11's completion result")
	assert.Equal(t, "11", end.ID.String())
	assert.Contains(t, string(end.Result), `"resultType":"complete"`)
}

func TestClosingASessionEndsItsListens(t *testing.T) {
	srv := NewServer()
	s := srv.NewSession()
	out := make(stream, 4)
	handle(t, s, 1, "subscriptions/listen", with(map[string]any{"notifications": map[string]any{}}), out)
	out.next(t, "the acknowledgment")
	s.Close()
	deadline := time.Now().Add(2 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.inflight)
		s.mu.Unlock()
		if n == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the listen outlived its session")
		time.Sleep(5 * time.Millisecond)
	}
	out.quiet(t, "a closed session's listen sends nothing")
}

func TestAListenNeedsTheStatelessEra(t *testing.T) {
	s := NewServer().NewSession()
	handle(t, s, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}, nil)
	resp := handle(t, s, 2, "subscriptions/listen", with(map[string]any{"notifications": map[string]any{}}), make(stream, 1))
	require.NotNil(t, resp)
	assert.Equal(t, jsonrpc.CodeMethodNotFound, resp.Error.Code)
}

func TestAListensErrorsTravelOnItsStream(t *testing.T) {
	s := NewServer().NewSession()
	defer s.Close()
	out := make(stream, 2)
	assert.Nil(t, handle(t, s, 1, "subscriptions/listen", with(nil), out))
	m := out.next(t, "the error")
	require.NotNil(t, m.Error)
	assert.Equal(t, jsonrpc.CodeInvalidParams, m.Error.Code)
	var id json.RawMessage = json.RawMessage(m.ID.String())
	assert.Equal(t, "1", string(id))
}
