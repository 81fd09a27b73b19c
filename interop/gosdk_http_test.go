package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// httpCloseTimeout bounds ClientSession.Close over HTTP, which is one
// DELETE to a server on the same machine.
const httpCloseTimeout = 3 * time.Second

// TestGoSDKClientHTTP drives each HTTP stage's server, stateful and
// stateless, with the official Go SDK client.
func TestGoSDKClientHTTP(t *testing.T) {
	eachStage(t, httpStages, func(t *testing.T, s stage) {
		t.Run("stateful", func(t *testing.T) { testGoSDKClientStateful(t, s) })
		t.Run("stateless", func(t *testing.T) { testGoSDKClientStateless(t, s) })
		t.Run("session-gone-after-delete", func(t *testing.T) { testSessionGoneAfterDelete(t, s) })
	})
}

// testGoSDKClientStateful drives the server, in its default stateful mode:
// the handshake, the tools, progress over an SSE response, and the DELETE
// that ends the session.
func testGoSDKClientStateful(t *testing.T, s stage) {
	endpoint := startStage(t, s, false)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	rec := newRecorder(t)
	progress := make(chan *mcp.ProgressNotificationParams, 16)
	cs := connectHTTP(ctx, t, endpoint, rec, progress)

	assert.Equal(t, "2025-11-25", cs.InitializeResult().ProtocolVersion)
	sessionID := cs.ID()
	require.NotEmpty(t, sessionID, "a stateful server issues an Mcp-Session-Id on initialize")
	checkHandshake(t, s, rec, sessionID)

	checkTools(ctx, t, cs)
	checkEcho(ctx, t, cs)

	// The session keeps the notes between requests.
	checkNotesKept(ctx, t, cs)

	checkCountdown(ctx, t, cs, progress)

	closeSession(t, cs)
	assertNoMoreProgress(t, progress)

	// Every message after initialize named the session and the version it
	// negotiated: the server relies on both headers.
	for _, ex := range rec.exchanges() {
		if ex.Method != http.MethodPost || ex.RPCMethod == "server/discover" || ex.RPCMethod == "initialize" {
			continue
		}
		assert.Equal(t, sessionID, ex.SessionID, "Mcp-Session-Id of %s", ex)
		assert.Equal(t, "2025-11-25", ex.Version, "MCP-Protocol-Version of %s", ex)
	}

	// Close ends the session on the server with a DELETE (basic/transports,
	// "Session Management": clients SHOULD send it when they are done). The
	// SDK ignores the status it gets, so check it here.
	deletes := rec.withMethod(http.MethodDelete)
	require.Len(t, deletes, 1, "Close must send one DELETE; exchanges:\n%s", rec)
	assert.Equal(t, sessionID, deletes[0].SessionID, "the DELETE must name the session")
	assert.Equal(t, http.StatusNoContent, deletes[0].Status, "DELETE of a live session: %s", deletes[0])

	t.Logf("HTTP exchanges:\n%s", rec)
}

// testGoSDKClientStateless drives the server in stateless mode, where no
// session id is issued and every request stands alone.
func testGoSDKClientStateless(t *testing.T, s stage) {
	endpoint := startStage(t, s, true)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	rec := newRecorder(t)
	progress := make(chan *mcp.ProgressNotificationParams, 16)
	cs := connectHTTP(ctx, t, endpoint, rec, progress)

	assert.Equal(t, "2025-11-25", cs.InitializeResult().ProtocolVersion)
	assert.Empty(t, cs.ID(), "a stateless server issues no Mcp-Session-Id, so the session has no id")
	checkHandshake(t, s, rec, "")

	checkTools(ctx, t, cs)
	checkEcho(ctx, t, cs)

	// Each request is served by a fresh session of its own, so the note is
	// gone by the next request: the second add_note saves note 1 again.
	for range 2 {
		got := callTool(ctx, t, cs, &mcp.CallToolParams{
			Name:      "add_note",
			Arguments: map[string]any{"text": "forgotten at once"},
		})
		assert.Equal(t, "Saved note 1.", got, "add_note")
	}
	got := callTool(ctx, t, cs, &mcp.CallToolParams{Name: "list_notes"})
	assert.Equal(t, "No notes yet.", got, "list_notes in stateless mode")

	checkCountdown(ctx, t, cs, progress)

	closeSession(t, cs)
	assertNoMoreProgress(t, progress)

	// With no session there is nothing to name or to delete.
	for _, ex := range rec.exchanges() {
		assert.Empty(t, ex.SessionID, "no request may carry an Mcp-Session-Id: %s", ex)
	}
	assert.Empty(t, rec.withMethod(http.MethodDelete), "Close must not send DELETE without a session")

	t.Logf("HTTP exchanges:\n%s", rec)
}

// testSessionGoneAfterDelete checks, from outside the SDK, that the DELETE
// sent by Close really ends the session: a request that names the old id
// gets 404 Not Found, which tells a client to start again.
func testSessionGoneAfterDelete(t *testing.T, s stage) {
	endpoint := startStage(t, s, false)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	cs := connectHTTP(ctx, t, endpoint, newRecorder(t), nil)
	sessionID := cs.ID()
	require.NotEmpty(t, sessionID)

	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(client.CloseIdleConnections)
	const listTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

	// First the same raw request while the session lives, so that the 404
	// below can only come from the DELETE, not from a malformed request.
	status, body := rawPOST(ctx, t, client, endpoint, sessionID, listTools)
	require.Equal(t, http.StatusOK, status, "tools/list in a live session: %s", body)
	var live struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(body, &live), "tools/list response: %s", body)
	assert.Len(t, live.Result.Tools, len(notesTools), "tools/list in a live session")

	closeSession(t, cs)

	status, body = rawPOST(ctx, t, client, endpoint, sessionID, listTools)
	assert.Equal(t, http.StatusNotFound, status, "a request in a deleted session: %s", body)
	// The server explains the 404 with a JSON-RPC error, as the spec allows.
	var gone struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &gone), "404 body: %s", body)
	require.NotNil(t, gone.Error, "404 body: %s", body)
	assert.NotEmpty(t, gone.Error.Message, "the error should say why")
}

// connectHTTP connects the Go SDK client to endpoint through rec. If progress
// is not nil, every notifications/progress is sent to it.
func connectHTTP(ctx context.Context, t *testing.T, endpoint string, rec *recorder, progress chan<- *mcp.ProgressNotificationParams) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if progress != nil {
		// The send never blocks: a handler that blocked would hold up
		// Close, and any surplus is caught by assertNoMoreProgress.
		opts.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default:
			}
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpcourse-interop", Version: "1.0.0"}, opts)

	transport := &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: rec},
		// No reconnection attempts: against this server a dropped stream
		// is a bug to report, not something to paper over with retries.
		MaxRetries: -1,
	}
	cs, err := client.Connect(ctx, transport, nil)
	require.NoError(t, err, "connect and initialize; exchanges:\n%s", rec)
	// If the test stops early, still end the session. Close is idempotent,
	// so this is harmless after the Close the test checks.
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// checkHandshake checks the HTTP requests Connect made. The SDK's newest
// revision is 2026-07-28, which it offers first through server/discover.
// This server does not speak it and answers 400 Bad Request; the SDK then
// falls back to initialize with 2025-11-25. Once initialized it opens the
// optional GET stream for server-initiated messages. Before stage 03, and in
// stateless mode, the server does not offer one: it answers 405, which the
// SDK takes as "no stream". From stage 03 on, a session gets its stream.
func checkHandshake(t *testing.T, s stage, rec *recorder, sessionID string) {
	t.Helper()
	exs := rec.exchanges()
	require.GreaterOrEqual(t, len(exs), 2, "exchanges:\n%s", rec)

	discover, initialize := exs[0], exs[1]
	assert.Equal(t, "server/discover", discover.RPCMethod, "first request: %s", discover)
	assert.Equal(t, "2026-07-28", discover.Version, "first request: %s", discover)
	assert.Equal(t, http.StatusBadRequest, discover.Status, "server/discover: %s", discover)

	assert.Equal(t, "initialize", initialize.RPCMethod, "second request: %s", initialize)
	assert.Equal(t, http.StatusOK, initialize.Status, "initialize: %s", initialize)
	assert.Equal(t, sessionID, initialize.IssuedSessionID, "Mcp-Session-Id of the initialize response")

	// The GET is sent synchronously inside Connect, so it has been recorded.
	gets := rec.withMethod(http.MethodGet)
	assert.NotEmpty(t, gets, "the SDK should try the standalone GET stream; exchanges:\n%s", rec)
	for _, g := range gets {
		if s.resumable && sessionID != "" {
			assert.Equal(t, http.StatusOK, g.Status, "standalone GET: %s", g)
			assert.Equal(t, "text/event-stream", g.ContentType, "standalone GET: %s", g)
		} else {
			assert.Equal(t, http.StatusMethodNotAllowed, g.Status, "standalone GET: %s", g)
		}
		assert.Equal(t, sessionID, g.SessionID, "standalone GET: %s", g)
	}
}

// checkTools checks that tools/list names the tools of the notes server.
func checkTools(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err, "tools/list")
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, notesTools, names)
}

// checkEcho checks that non-ASCII text and a newline inside a string come
// back untouched, through a JSON body over HTTP or a line over stdio.
func checkEcho(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	const text = "héllo ✓ 😀\nsecond line"
	got := callTool(ctx, t, cs, &mcp.CallToolParams{
		Name:      "echo",
		Arguments: map[string]any{"text": text},
	})
	assert.Equal(t, text, got, "echo")
}

// checkNotesKept checks that a session keeps its notes between requests:
// list_notes sees what add_note saved a request earlier.
func checkNotesKept(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	got := callTool(ctx, t, cs, &mcp.CallToolParams{
		Name:      "add_note",
		Arguments: map[string]any{"text": "interop works"},
	})
	assert.Equal(t, "Saved note 1.", got, "add_note")
	got = callTool(ctx, t, cs, &mcp.CallToolParams{Name: "list_notes"})
	assert.Equal(t, "1. interop works", got, "list_notes")
}

// closeSession closes cs and fails the test if that takes too long. Close
// runs on its own goroutine so that the test, not the SDK, decides how long
// is too long.
func closeSession(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- cs.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err, "close")
	case <-time.After(httpCloseTimeout):
		t.Fatalf("Close did not return within %v", httpCloseTimeout)
	}
}

// rawPOST sends one JSON-RPC message with net/http, with the headers a
// Streamable HTTP client must send, and returns the status and the body.
func rawPOST(ctx context.Context, t *testing.T, client *http.Client, endpoint, sessionID, message string) (int, []byte) {
	t.Helper()
	// The deadline covers reading the body as well as the headers.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(message))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := client.Do(req)
	require.NoError(t, err, "POST %s", message)
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	require.NoError(t, err, "reading the response to %s", message)
	return resp.StatusCode, body
}

// exchange is one HTTP request the SDK client sent, and what came back.
type exchange struct {
	Method          string // HTTP method
	RPCMethod       string // JSON-RPC method in a POST body, if any
	SessionID       string // Mcp-Session-Id sent
	Version         string // MCP-Protocol-Version sent
	Status          int    // 0 if the request failed
	ContentType     string // of the response
	IssuedSessionID string // Mcp-Session-Id in the response
	ErrorBody       string // the start of a non-2xx response's body
	Err             error  // a failure to get any response
}

func (ex exchange) String() string {
	s := fmt.Sprintf("%s %s session=%q version=%q -> %d %s", ex.Method, ex.RPCMethod, ex.SessionID, ex.Version, ex.Status, ex.ContentType)
	if ex.IssuedSessionID != "" {
		s += fmt.Sprintf(" issued-session=%q", ex.IssuedSessionID)
	}
	if ex.ErrorBody != "" {
		s += " body=" + ex.ErrorBody
	}
	if ex.Err != nil {
		s += fmt.Sprintf(" error=%v", ex.Err)
	}
	return s
}

// recorder is an http.RoundTripper that notes every exchange the SDK makes,
// so a test can check what went over the wire, not only what the SDK chose
// to report.
type recorder struct {
	next *http.Transport

	mu  sync.Mutex
	log []exchange
}

// newRecorder returns a recorder with its own connection pool, closed when
// the test ends, so no test inherits another's keep-alive connections.
func newRecorder(t *testing.T) *recorder {
	rec := &recorder{next: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(rec.next.CloseIdleConnections)
	return rec
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	ex := exchange{
		Method:    req.Method,
		SessionID: req.Header.Get("Mcp-Session-Id"),
		Version:   req.Header.Get("Mcp-Protocol-Version"),
	}
	// GetBody gives a fresh copy of the body, leaving the one to be sent
	// untouched. The SDK's POST bodies are byte slices, which have one.
	if req.Body != nil && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			var msg struct {
				Method string `json:"method"`
			}
			if json.NewDecoder(body).Decode(&msg) == nil {
				ex.RPCMethod = msg.Method
			}
			body.Close()
		}
	}

	resp, err := r.next.RoundTrip(req)
	if err != nil {
		ex.Err = err
	} else {
		ex.Status = resp.StatusCode
		ex.ContentType = resp.Header.Get("Content-Type")
		ex.IssuedSessionID = resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode >= 300 {
			// Keep the start of an error body for the log, and hand
			// the SDK the whole body still. This server's error bodies
			// are small and written at once, so reading here cannot
			// stall a stream.
			head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			ex.ErrorBody = strings.TrimSpace(string(head))
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		}
	}

	r.mu.Lock()
	r.log = append(r.log, ex)
	r.mu.Unlock()
	return resp, err
}

// exchanges returns a copy of the exchanges so far, in the order the
// responses (or failures) came back.
func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.log...)
}

// withMethod returns the exchanges that used the HTTP method.
func (r *recorder) withMethod(method string) []exchange {
	var out []exchange
	for _, ex := range r.exchanges() {
		if ex.Method == method {
			out = append(out, ex)
		}
	}
	return out
}

// String lists the exchanges, one a line, for test logs.
func (r *recorder) String() string {
	var b strings.Builder
	for _, ex := range r.exchanges() {
		b.WriteString("  " + ex.String() + "\n")
	}
	return b.String()
}
