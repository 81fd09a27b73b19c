package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/jsonrpc"
)

// envelope is a valid _meta of 2026-07-28 with the given client
// capabilities; extra keys are added or, with a nil value, removed.
func envelope(caps map[string]any, extra map[string]any) map[string]any {
	if caps == nil {
		caps = map[string]any{}
	}
	m := map[string]any{
		MetaProtocolVersion:    "2026-07-28",
		MetaClientCapabilities: caps,
		MetaClientInfo:         map[string]any{"name": "test", "version": "1"},
	}
	for k, v := range extra {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

// with returns params with a valid envelope in _meta.
func with(params map[string]any) map[string]any {
	out := map[string]any{"_meta": envelope(nil, nil)}
	for k, v := range params {
		out[k] = v
	}
	return out
}

// stateless serves one request through Server.HandleStateless, as an HTTP
// transport does.
func stateless(t *testing.T, s *Server, id int64, method string, params any, peer Peer) *jsonrpc.Message {
	t.Helper()
	return s.HandleStateless(context.Background(), request(t, id, method, params), peer)
}

// fields decodes a successful response's result into its top-level fields.
func fields(t *testing.T, resp *jsonrpc.Message) map[string]json.RawMessage {
	t.Helper()
	require.NotNil(t, resp)
	require.Nil(t, resp.Error, "error: %+v", resp.Error)
	var f map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(resp.Result, &f))
	return f
}

// text returns the text of a tool result's single text item.
func text(t *testing.T, resp *jsonrpc.Message) string {
	t.Helper()
	var r struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	require.NoError(t, json.Unmarshal(fields(t, resp)["content"], &r.Content))
	require.Len(t, r.Content, 1)
	return r.Content[0].Text
}

// newNotebook makes a notebook and returns its handle.
func newNotebook(t *testing.T, s *Server) string {
	t.Helper()
	var sc struct{ Notebook string }
	require.NoError(t, json.Unmarshal(fields(t, stateless(t, s, 1, "tools/call", with(map[string]any{"name": "new_notebook", "arguments": map[string]any{}}), nil))["structuredContent"], &sc))
	require.Regexp(t, `^nb_[a-z2-7]{26}$`, sc.Notebook)
	return sc.Notebook
}

func call(name string, args map[string]any) map[string]any {
	return with(map[string]any{"name": name, "arguments": args})
}

func TestTheEnvelopeIsCheckedOnEveryRequest(t *testing.T) {
	for _, c := range []struct {
		name   string
		params any
		code   int
		status int
	}{
		{"no params", nil, jsonrpc.CodeInvalidParams, 400},
		{"params an array", []any{}, jsonrpc.CodeInvalidParams, 400},
		{"no _meta", map[string]any{}, jsonrpc.CodeInvalidParams, 400},
		{"_meta null", map[string]any{"_meta": nil}, jsonrpc.CodeInvalidParams, 400},
		{"_meta a string", map[string]any{"_meta": "x"}, jsonrpc.CodeInvalidParams, 400},
		{"no protocolVersion", map[string]any{"_meta": envelope(nil, map[string]any{MetaProtocolVersion: nil})}, jsonrpc.CodeInvalidParams, 400},
		{"protocolVersion a number", map[string]any{"_meta": envelope(nil, map[string]any{MetaProtocolVersion: 2026})}, jsonrpc.CodeInvalidParams, 400},
		{"protocolVersion empty", map[string]any{"_meta": envelope(nil, map[string]any{MetaProtocolVersion: ""})}, jsonrpc.CodeInvalidParams, 400},
		{"no clientCapabilities", map[string]any{"_meta": envelope(nil, map[string]any{MetaClientCapabilities: nil})}, jsonrpc.CodeInvalidParams, 400},
		{"clientCapabilities an array", map[string]any{"_meta": envelope(nil, map[string]any{MetaClientCapabilities: []any{}})}, jsonrpc.CodeInvalidParams, 400},
		{"clientInfo a string", map[string]any{"_meta": envelope(nil, map[string]any{MetaClientInfo: "me"})}, jsonrpc.CodeInvalidParams, 400},
		{"clientInfo without a version", map[string]any{"_meta": envelope(nil, map[string]any{MetaClientInfo: map[string]any{"name": "me"}})}, jsonrpc.CodeInvalidParams, 400},
		{"an unknown logLevel", map[string]any{"_meta": envelope(nil, map[string]any{MetaLogLevel: "loud"})}, jsonrpc.CodeInvalidParams, 400},
		{"an unknown version", map[string]any{"_meta": envelope(nil, map[string]any{MetaProtocolVersion: "v999.0.0"})}, CodeUnsupportedVersion, 400},
		{"a version from the past", map[string]any{"_meta": envelope(nil, map[string]any{MetaProtocolVersion: "1900-01-01"})}, CodeUnsupportedVersion, 400},
		{"a session-era version", map[string]any{"_meta": envelope(nil, map[string]any{MetaProtocolVersion: "2025-11-25"})}, CodeUnsupportedVersion, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, method := range []string{"server/discover", "tools/list", "tools/call", "resources/read", "subscriptions/listen"} {
				resp := stateless(t, NewServer(), 7, method, c.params, &recorder{})
				require.NotNil(t, resp, method)
				require.NotNil(t, resp.Error, method)
				assert.Equal(t, c.code, resp.Error.Code, method)
				assert.Equal(t, c.status, resp.Error.HTTPStatus, method)
				assert.Equal(t, `7`, resp.ID.String(), "the error carries the request's id")
			}
		})
	}
}

func TestAnUnsupportedVersionNamesWhatIsSupported(t *testing.T) {
	resp := stateless(t, NewServer(), 1, "server/discover", map[string]any{"_meta": envelope(nil, map[string]any{MetaProtocolVersion: "v999.0.0"})}, nil)
	require.NotNil(t, resp.Error)
	assert.JSONEq(t, `{"supported":["2026-07-28"],"requested":"v999.0.0"}`, string(resp.Error.Data))
	b, _ := json.Marshal(resp)
	assert.NotContains(t, string(b), "HTTPStatus", "the status is never sent")
}

func TestWhatTheEnvelopeMayLeaveOut(t *testing.T) {
	s := NewServer()
	resp := stateless(t, s, 1, "server/discover", map[string]any{"_meta": envelope(nil, map[string]any{MetaClientInfo: nil})}, nil)
	assert.Nil(t, resp.Error, "clientInfo is only a SHOULD")
	for _, level := range levelNames {
		resp := stateless(t, s, 1, "tools/list", map[string]any{"_meta": envelope(nil, map[string]any{MetaLogLevel: level})}, nil)
		assert.Nil(t, resp.Error, level)
	}
}

func TestDiscover(t *testing.T) {
	f := fields(t, stateless(t, NewServer(), 1, "server/discover", with(nil), nil))
	assert.JSONEq(t, `["2026-07-28"]`, string(f["supportedVersions"]))
	assert.JSONEq(t, `{"tools":{},"logging":{},"resources":{"subscribe":true}}`, string(f["capabilities"]))
	assert.JSONEq(t, `"complete"`, string(f["resultType"]))
	assert.JSONEq(t, `{"`+MetaServerInfo+`":{"name":"mcp-course-notes","title":"MCP course notes server","version":"1.0.0"}}`, string(f["_meta"]))
	assert.JSONEq(t, `300000`, string(f["ttlMs"]))
	assert.JSONEq(t, `"public"`, string(f["cacheScope"]))
	assert.Contains(t, string(f["instructions"]), "new_notebook")
	assert.NotContains(t, f, "serverInfo", "serverInfo travels in _meta only")
}

// TestEveryResultHasTheFieldsOfTheEra calls every method the notes server
// has at 2026-07-28, each tool among them, and checks the fields every
// result carries, and the caching hints where they are required.
func TestEveryResultHasTheFieldsOfTheEra(t *testing.T) {
	s := NewServer()
	nb := newNotebook(t, s)
	stateless(t, s, 2, "tools/call", call("add_note", map[string]any{"notebook": nb, "text": "milk"}), nil)
	for _, c := range []struct {
		method    string
		params    map[string]any
		cacheable bool
	}{
		{"server/discover", with(nil), true},
		{"tools/list", with(nil), true},
		{"resources/list", with(nil), true},
		{"resources/templates/list", with(nil), true},
		{"resources/read", with(map[string]any{"uri": "notes://" + nb}), true},
		{"tools/call", call("echo", map[string]any{"text": "x"}), false},
		{"tools/call", call("echo", map[string]any{}), false}, // a tool's error is a result too
		{"tools/call", call("new_notebook", map[string]any{}), false},
		{"tools/call", call("add_note", map[string]any{"notebook": nb, "text": "eggs"}), false},
		{"tools/call", call("list_notes", map[string]any{"notebook": nb}), false},
		{"tools/call", call("countdown", map[string]any{"from": 1, "interval_ms": 0, "notebook": nb}), false},
		{"tools/call", call("history", map[string]any{"notebook": nb}), false},
		{"tools/call", call("clear_notes", map[string]any{"notebook": newNotebook(t, s)}), false},
	} {
		f := fields(t, stateless(t, s, 3, c.method, c.params, &recorder{}))
		what := c.method + " " + string(mustJSON(c.params["name"]))
		assert.JSONEq(t, `"complete"`, string(f["resultType"]), what)
		var meta map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(f["_meta"], &meta), what)
		assert.JSONEq(t, `{"name":"mcp-course-notes","title":"MCP course notes server","version":"1.0.0"}`, string(meta[MetaServerInfo]), what)
		if c.cacheable {
			var ttl int
			require.NoError(t, json.Unmarshal(f["ttlMs"], &ttl), what)
			assert.GreaterOrEqual(t, ttl, 0, what)
			assert.Contains(t, []string{`"public"`, `"private"`}, string(f["cacheScope"]), what)
		} else {
			assert.NotContains(t, f, "ttlMs", what)
			assert.NotContains(t, f, "cacheScope", what)
		}
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestAMethodHandlersResultGetsTheFieldsToo(t *testing.T) {
	s := New(Options{Info: Implementation{Name: "x", Version: "1"}, Capabilities: map[string]any{"prompts": map[string]any{}}})
	s.HandleMethod("prompts/list", func(context.Context, *Request) (any, *jsonrpc.Error) {
		return map[string]any{"prompts": []any{}, "_meta": map[string]any{"com.example/x": 1}}, nil
	})
	s.HandleMethod("prompts/get", func(_ context.Context, req *Request) (any, *jsonrpc.Error) {
		assert.True(t, req.Stateless())
		assert.Nil(t, req.Session, "no session at 2026-07-28")
		return nil, nil
	})
	f := fields(t, stateless(t, s, 1, "prompts/list", with(nil), nil))
	assert.JSONEq(t, `"complete"`, string(f["resultType"]))
	assert.JSONEq(t, `{"com.example/x":1,"`+MetaServerInfo+`":{"name":"x","version":"1"}}`, string(f["_meta"]), "the handler's _meta is kept")
	assert.JSONEq(t, `0`, string(f["ttlMs"]), "no hint of its own: stale at once")
	assert.JSONEq(t, `"private"`, string(f["cacheScope"]))

	f = fields(t, stateless(t, s, 2, "prompts/get", with(map[string]any{"name": "p"}), nil))
	assert.JSONEq(t, `"complete"`, string(f["resultType"]), "a nil result is an empty one")
}

func TestTheRemovedMethodsAreNotFound(t *testing.T) {
	s := NewServer()
	s.HandleMethod("resources/subscribe", func(context.Context, *Request) (any, *jsonrpc.Error) { return struct{}{}, nil })
	for _, method := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "grader/no-such-method", "prompts/list", "completion/complete"} {
		resp := stateless(t, s, 1, method, with(nil), nil)
		require.NotNil(t, resp.Error, method)
		assert.Equal(t, jsonrpc.CodeMethodNotFound, resp.Error.Code, method)
		assert.Equal(t, http.StatusNotFound, resp.Error.HTTPStatus, method)
	}
	resp := stateless(t, s, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}, nil)
	assert.Contains(t, resp.Error.Message, "2026-07-28", "an error to initialize names the versions served")
}

func TestAnUnknownToolIsInvalidParamsOn200(t *testing.T) {
	resp := stateless(t, NewServer(), 1, "tools/call", call("history_of_everything", nil), nil)
	require.NotNil(t, resp.Error)
	assert.Equal(t, jsonrpc.CodeInvalidParams, resp.Error.Code)
	assert.Zero(t, resp.Error.HTTPStatus)
}

func TestToolsListIsTheSameEveryTime(t *testing.T) {
	s := NewServer()
	first := fields(t, stateless(t, s, 1, "tools/list", with(nil), nil))["tools"]
	var tools []struct{ Name string }
	require.NoError(t, json.Unmarshal(first, &tools))
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	assert.Equal(t, []string{"echo", "new_notebook", "add_note", "list_notes", "clear_notes", "countdown", "history"}, names)
	newNotebook(t, s) // state changes; the list does not
	for i := 0; i < 3; i++ {
		assert.Equal(t, string(first), string(fields(t, stateless(t, NewServer(), 2, "tools/list", with(nil), nil))["tools"]), "another server")
		assert.Equal(t, string(first), string(fields(t, stateless(t, s, 3, "tools/list", with(nil), nil))["tools"]))
	}
}

func TestLogMessagesNeedALogLevel(t *testing.T) {
	s := NewServer()
	nb := newNotebook(t, s)
	outlet := &recorder{}
	for _, c := range []struct {
		level any
		want  int
	}{{nil, 0}, {"debug", 1}, {"info", 1}, {"warning", 0}} {
		peer := &recorder{}
		params := call("add_note", map[string]any{"notebook": nb, "text": "milk"})
		params["_meta"] = envelope(nil, map[string]any{MetaLogLevel: c.level})
		assert.Equal(t, "Saved note", text(t, stateless(t, s, 1, "tools/call", params, peer))[:10])
		var logs []*jsonrpc.Message
		for _, m := range peer.messages() {
			if m.Method == "notifications/message" {
				logs = append(logs, m)
			}
		}
		require.Len(t, logs, c.want, "logLevel %v", c.level)
		if c.want == 1 {
			assert.Contains(t, string(logs[0].Params), `"logger":"notes"`)
		}
	}
	assert.Empty(t, outlet.messages())
}

func TestAServerSendsNoRequestOfItsOwn(t *testing.T) {
	s := New(Options{Info: Implementation{Name: "x", Version: "1"}})
	s.AddTool(&Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`), Run: func(ctx context.Context, req *Request, _ json.RawMessage) (*ToolResult, error) {
		_, err := req.Call(ctx, "sampling/createMessage", nil)
		return Text(err.Error()), nil
	}})
	assert.Equal(t, ErrStateless.Error(), text(t, stateless(t, s, 1, "tools/call", call("ask", nil), &recorder{})))
}

func TestClosingTheStreamCancelsTheCall(t *testing.T) {
	s := NewServer()
	nb := newNotebook(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *jsonrpc.Message, 1)
	peer := &recorder{}
	go func() {
		done <- s.HandleStateless(ctx, request(t, 5, "tools/call", call("countdown", map[string]any{"from": 100, "interval_ms": 20, "notebook": nb})), peer)
	}()
	time.Sleep(50 * time.Millisecond)
	cancel() // what an HTTP transport does when the client closes the response stream
	select {
	case resp := <-done:
		assert.Nil(t, resp, "nothing more is sent for a cancelled request")
	case <-time.After(2 * time.Second):
		t.Fatal("the countdown kept running")
	}
	assert.Equal(t, "1. countdown (id 5): cancelled", text(t, stateless(t, s, 6, "tools/call", call("history", map[string]any{"notebook": nb}), nil)))
}

func TestHeaderParams(t *testing.T) {
	s := NewServer()
	params := s.HeaderParams("countdown")
	require.Equal(t, []HeaderParam{{Header: "Mcp-Param-Countdown-From", Path: []string{"from"}, Type: "integer"}}, params)
	v, ok := params[0].Value(json.RawMessage(`{"from":42,"interval_ms":0}`))
	assert.True(t, ok)
	assert.Equal(t, "42", v)
	_, ok = params[0].Value(json.RawMessage(`{"from":null}`))
	assert.False(t, ok, "null: no header")
	_, ok = params[0].Value(json.RawMessage(`{}`))
	assert.False(t, ok, "absent: no header")
	assert.Empty(t, s.HeaderParams("echo"))
	assert.Empty(t, s.HeaderParams("no-such-tool"))

	nested := HeaderParam{Path: []string{"a", "b"}}
	v, ok = nested.Value(json.RawMessage(`{"a":{"b":"us-west1"}}`))
	assert.Equal(t, "us-west1", v)
	assert.True(t, ok)
	v, _ = nested.Value(json.RawMessage(`{"a":{"b":true}}`))
	assert.Equal(t, "true", v)
}

func TestRequestNameAndTheClaim(t *testing.T) {
	for _, c := range []struct {
		method, params, name string
		ok                   bool
	}{
		{"tools/call", `{"name":"echo"}`, "echo", true},
		{"prompts/get", `{"name":"p"}`, "p", true},
		{"resources/read", `{"uri":"notes://x"}`, "notes://x", true},
		{"resources/read", `{}`, "", true},
		{"tools/list", `{"name":"echo"}`, "", false},
	} {
		name, ok := RequestName(&jsonrpc.Message{Method: c.method, Params: json.RawMessage(c.params)})
		assert.Equal(t, c.name, name, c.method)
		assert.Equal(t, c.ok, ok, c.method)
	}
	assert.True(t, ClaimsStateless(request(t, 1, "x", with(nil))))
	assert.True(t, ClaimsStateless(request(t, 1, "x", map[string]any{"_meta": map[string]any{MetaProtocolVersion: 7}})), "any value claims the era")
	assert.False(t, ClaimsStateless(request(t, 1, "x", map[string]any{"text": MetaProtocolVersion})), "the key in a string is no claim")
	assert.False(t, ClaimsStateless(request(t, 1, "x", nil)))
}

func TestNotificationsGetNoAnswer(t *testing.T) {
	assert.Nil(t, NewServer().HandleStateless(context.Background(), notification(t, "notifications/cancelled", map[string]any{"requestId": 1}), nil))
}

func TestStatelessRequestsRunConcurrently(t *testing.T) {
	s := NewServer()
	nb := newNotebook(t, s)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stateless(t, s, int64(i), "tools/call", call("add_note", map[string]any{"notebook": nb, "text": "n"}), nil)
			stateless(t, s, int64(i), "tools/call", call("list_notes", map[string]any{"notebook": nb}), nil)
		}()
	}
	wg.Wait()
	var list struct {
		Contents []struct{ Text string } `json:"contents"`
	}
	require.NoError(t, json.Unmarshal(stateless(t, s, 1, "resources/read", with(map[string]any{"uri": "notes://" + nb}), nil).Result, &list))
	assert.Contains(t, list.Contents[0].Text, "20. n")
}
