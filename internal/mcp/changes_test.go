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

// stream is a Peer that hands each message to a channel, as a listen's
// stream would carry it to the client.
type stream chan *jsonrpc.Message

func (s stream) Send(ctx context.Context, m *jsonrpc.Message) error {
	select {
	case s <- m:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// next returns the stream's next message, or fails after a while.
func (s stream) next(t *testing.T, what string) *jsonrpc.Message {
	t.Helper()
	select {
	case m := <-s:
		return m
	case <-time.After(2 * time.Second):
		t.Fatalf("no %s within 2s", what)
		return nil
	}
}

// quiet checks that nothing arrives on the stream for a while.
func (s stream) quiet(t *testing.T, what string) {
	t.Helper()
	select {
	case m := <-s:
		b, _ := json.Marshal(m)
		t.Fatalf("%s: got %s", what, b)
	case <-time.After(100 * time.Millisecond):
	}
}

// listening opens a subscriptions/listen through HandleStateless, as an HTTP
// transport would, and returns its stream, and a function that closes it
// and returns the listen's response.
func listening(t *testing.T, s *Server, id jsonrpc.ID, filter map[string]any) (stream, func() *jsonrpc.Message) {
	t.Helper()
	return listen(t, s, id, filter, true)
}

// listen is listening; with closeFirst false, its function waits for the
// listen to end by itself before it closes the stream.
func listen(t *testing.T, s *Server, id jsonrpc.ID, filter map[string]any, closeFirst bool) (stream, func() *jsonrpc.Message) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st := make(stream, 16)
	done := make(chan *jsonrpc.Message, 1)
	msg := request(t, 0, "subscriptions/listen", with(map[string]any{"notifications": filter}))
	msg.ID = &id
	go func() { done <- s.HandleStateless(ctx, msg, st) }()
	return st, func() *jsonrpc.Message {
		if closeFirst {
			cancel()
		}
		defer cancel()
		select {
		case resp := <-done:
			return resp
		case <-time.After(2 * time.Second):
			t.Fatal("the listen did not end")
			return nil
		}
	}
}

// tag returns the subscriptionId in a notification's _meta, as raw JSON.
func tag(t *testing.T, m *jsonrpc.Message) string {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(m.Params, &p))
	return string(p.Meta[MetaSubscriptionID])
}

func TestAListenIsAcknowledgedFirst(t *testing.T) {
	s := NewServer()
	nb := newNotebook(t, s)
	st, end := listening(t, s, jsonrpc.StringID("listen-1"), map[string]any{
		"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true,
		"resourceSubscriptions": []string{"notes://" + nb},
	})
	ack := st.next(t, "the acknowledgment")
	assert.Equal(t, "notifications/subscriptions/acknowledged", ack.Method)
	assert.JSONEq(t, `{"_meta":{"`+MetaSubscriptionID+`":"listen-1"},"notifications":{"resourceSubscriptions":["notes://`+nb+`"]}}`, string(ack.Params),
		"only what the server honours: its tools, prompts and resource list never change")
	assert.Nil(t, end(), "a listen the client closed gets no response")
}

func TestAListenHearsOfItsNotebooks(t *testing.T) {
	s := NewServer()
	mine, other := newNotebook(t, s), newNotebook(t, s)
	st, end := listening(t, s, jsonrpc.IntID(7), map[string]any{"resourceSubscriptions": []string{"notes://" + mine}})
	defer end()
	st.next(t, "the acknowledgment")

	toolText(t, s, "add_note", map[string]any{"notebook": other, "text": "not mine"})
	st.quiet(t, "a change to a notebook the listen did not name")

	toolText(t, s, "add_note", map[string]any{"notebook": mine, "text": "milk"})
	n := st.next(t, "the change")
	assert.Equal(t, "notifications/resources/updated", n.Method)
	assert.Equal(t, `7`, tag(t, n), "an integer id tags as an integer")
	assert.Contains(t, string(n.Params), `"uri":"notes://`+mine+`"`)

	state := inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(mine, elicits, nil, nil), nil))
	st.quiet(t, "asking to clear changes nothing")
	stateless(t, s, 2, "tools/call", clearCall(mine, elicits, accept, state), nil)
	assert.Equal(t, "notifications/resources/updated", st.next(t, "the clearing").Method)
}

func TestEndListensEndsEachWithItsResult(t *testing.T) {
	s := NewServer()
	st, end := listen(t, s, jsonrpc.StringID("l"), map[string]any{}, false)
	st.next(t, "the acknowledgment")
	s.EndListens()
	resp := end()
	f := fields(t, resp)
	assert.Equal(t, `"l"`, resp.ID.String())
	assert.JSONEq(t, `"complete"`, string(f["resultType"]))
	var meta map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(f["_meta"], &meta))
	assert.JSONEq(t, `"l"`, string(meta[MetaSubscriptionID]), "the result names the subscription it closes")
	assert.Contains(t, meta, MetaServerInfo)
}

func TestAListenNeedsItsFilter(t *testing.T) {
	for _, params := range []map[string]any{with(nil), with(map[string]any{"notifications": "all"})} {
		resp := stateless(t, NewServer(), 1, "subscriptions/listen", params, make(stream, 1))
		require.NotNil(t, resp.Error)
		assert.Equal(t, jsonrpc.CodeInvalidParams, resp.Error.Code)
	}
}

func TestAListenHonoursAtMostMaxListenURIs(t *testing.T) {
	uris := make([]string, MaxListenURIs+5)
	for i := range uris {
		uris[i] = "notes://x" + string(rune('a'+i%26))
	}
	got := NewServer().Honour(ListenFilter{ResourceSubscriptions: uris})
	assert.Len(t, got.ResourceSubscriptions, MaxListenURIs)
	assert.Empty(t, New(Options{}).Honour(ListenFilter{ResourceSubscriptions: uris, ToolsListChanged: true}), "a server that declares nothing honours nothing")
}

// dualServer declares list changes of its tools in both eras, as a server
// whose tools change would.
func dualServer() *Server {
	return New(Options{Info: Implementation{Name: "dual", Version: "1"},
		Capabilities: map[string]any{"tools": map[string]any{"listChanged": true}}})
}

// TestBothErasHearOneChange publishes one change and checks that each
// listener hears it once, in its own era's form, and never the other's: a
// 2025 session through its outlet (its GET stream), untagged; a listen that
// opted in, tagged with its id; a listen that did not, nothing.
func TestBothErasHearOneChange(t *testing.T) {
	s := dualServer()
	session := s.NewSession()
	defer session.Close()
	resp := session.Handle(context.Background(), request(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}), nil)
	assert.Contains(t, string(resp.Result), `"listChanged":true`)
	getStream := make(stream, 16)
	session.Attach(getStream)

	opted, endOpted := listening(t, s, jsonrpc.StringID("a"), map[string]any{"toolsListChanged": true})
	defer endOpted()
	other, endOther := listening(t, s, jsonrpc.StringID("b"), map[string]any{"promptsListChanged": true})
	defer endOther()
	assert.Contains(t, string(opted.next(t, "a's acknowledgment").Params), `"toolsListChanged":true`)
	assert.JSONEq(t, `{"_meta":{"`+MetaSubscriptionID+`":"b"},"notifications":{}}`, string(other.next(t, "b's acknowledgment").Params))

	s.Publish(Change{Kind: ToolsListChanged})

	untagged := getStream.next(t, "the 2025 session's notification")
	assert.Equal(t, "notifications/tools/list_changed", untagged.Method)
	assert.Nil(t, untagged.Params, "no tag on a session's stream")
	tagged := opted.next(t, "the listen's notification")
	assert.Equal(t, "notifications/tools/list_changed", tagged.Method)
	assert.Equal(t, `"a"`, tag(t, tagged))

	getStream.quiet(t, "the 2025 session heard it twice")
	opted.quiet(t, "the listen heard it twice, or heard the untagged copy")
	other.quiet(t, "a listen that did not opt in")
}

func TestTheNotesServersSessionsHearNoListChanges(t *testing.T) {
	s := NewServer()
	session := s.NewSession()
	defer session.Close()
	getStream := make(stream, 4)
	session.Attach(getStream)
	s.Publish(Change{Kind: ToolsListChanged})
	s.Publish(Change{Kind: ResourceUpdated, URI: "notes://x"})
	getStream.quiet(t, "the notes server declares no list changes in the 2025 era")
}

func TestASlowListenerCoalesces(t *testing.T) {
	q := newPending(func(Change) bool { return true })
	for i := 0; i < 1000; i++ {
		q.deliver(Change{Kind: ToolsListChanged})
		q.deliver(Change{Kind: ResourceUpdated, URI: "a"})
		q.deliver(Change{Kind: ResourceUpdated, URI: "b"})
	}
	assert.Equal(t, []Change{{Kind: ToolsListChanged}, {Kind: ResourceUpdated, URI: "a"}, {Kind: ResourceUpdated, URI: "b"}}, q.take())
	assert.Empty(t, q.take())
}

func TestAFeedStopsDeliveringWhenCancelled(t *testing.T) {
	f := NewMemoryFeed()
	var got []Change
	cancel := f.Subscribe(func(c Change) { got = append(got, c) })
	f.Publish(context.Background(), Change{Kind: ToolsListChanged})
	cancel()
	f.Publish(context.Background(), Change{Kind: PromptsListChanged})
	assert.Equal(t, []Change{{Kind: ToolsListChanged}}, got)
}
