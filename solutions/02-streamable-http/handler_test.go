package streamable

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/mcp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends body to h and returns the recorded response.
func post(h http.Handler, session, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if session != "" {
		req.Header.Set(SessionIDHeader, session)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func newHandler(t *testing.T, opts Options) *Handler {
	opts.Logger = log.New(io.Discard, "", 0)
	h := NewHandler(mcp.NewServer(), opts)
	t.Cleanup(h.Close)
	return h
}

func TestSessionLifecycle(t *testing.T) {
	h := newHandler(t, Options{})
	rec := post(h, "", initBody)
	require.Equal(t, http.StatusOK, rec.Code)
	id := rec.Header().Get(SessionIDHeader)
	assert.Regexp(t, `^[0-9a-f]{32}$`, id, "128 bits as hex")

	assert.Equal(t, http.StatusAccepted, post(h, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Code)
	assert.Equal(t, http.StatusBadRequest, post(h, "", `{"jsonrpc":"2.0","id":2,"method":"ping"}`).Code)
	assert.Equal(t, http.StatusNotFound, post(h, "made-up", `{"jsonrpc":"2.0","id":2,"method":"ping"}`).Code)
	assert.Equal(t, http.StatusOK, post(h, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`).Code)

	del := httptest.NewRequest(http.MethodDelete, "/mcp", nil)
	del.Header.Set(SessionIDHeader, id)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, del)
	assert.Equal(t, http.StatusNoContent, rec.Code)
	assert.Equal(t, http.StatusNotFound, post(h, id, `{"jsonrpc":"2.0","id":3,"method":"ping"}`).Code)
}

func TestGetIsRefusedAtOnce(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		h := newHandler(t, Options{Stateless: stateless})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/mcp", nil))
		assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
		assert.Contains(t, rec.Header().Get("Allow"), "POST")
	}
}

// recordingStreams is a Streams that counts what it opens, as a later stage
// plugging into Options.Streams would.
type recordingStreams struct {
	mu     sync.Mutex
	opened []string // session ids
}

func (rs *recordingStreams) Open(w http.ResponseWriter, r *http.Request, sess *Session) Stream {
	rs.mu.Lock()
	rs.opened = append(rs.opened, sess.ID())
	rs.mu.Unlock()
	return plainStreams{}.Open(w, r, sess)
}

func TestLaterStagesPlugIn(t *testing.T) {
	streams := &recordingStreams{}
	opts := Options{Streams: streams}
	var handler *Handler
	opts.GET = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sess, done, ok := handler.Session(w, r); ok {
			defer done()
			w.Header().Set("X-Session", sess.ID())
			w.WriteHeader(http.StatusOK)
		}
	})
	handler = newHandler(t, opts)
	id := post(handler, "", initBody).Header().Get(SessionIDHeader)

	rec := post(handler, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"countdown","arguments":{"from":1,"interval_ms":1},"_meta":{"progressToken":1}}}`)
	assert.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
	assert.Equal(t, []string{id}, streams.opened, "the request's stream came from Options.Streams")

	get := httptest.NewRequest(http.MethodGet, "/mcp", nil)
	get.Header.Set(SessionIDHeader, id)
	rec = httptest.NewRecorder()
	handler.ServeHTTP(rec, get)
	assert.Equal(t, id, rec.Header().Get("X-Session"), "GET went to Options.GET")

	put := httptest.NewRecorder()
	handler.ServeHTTP(put, httptest.NewRequest(http.MethodPut, "/mcp", nil))
	assert.Equal(t, "GET, POST, DELETE", put.Header().Get("Allow"))
}

func TestACancelledRequestGetsAStreamWithNoResponse(t *testing.T) {
	h := newHandler(t, Options{})
	id := post(h, "", initBody).Header().Get(SessionIDHeader)
	done := make(chan *httptest.ResponseRecorder)
	go func() {
		done <- post(h, id, `{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"countdown","arguments":{"from":100,"interval_ms":20}}}`)
	}()
	// The cancellation may land before the request starts; the session
	// remembers it, so the request is cancelled either way.
	require.Equal(t, http.StatusAccepted, post(h, id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}}`).Code)
	rec := <-done
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"), "a request is answered with JSON or SSE, never 204")
	assert.Empty(t, rec.Body.String())
}

func TestSessionCapAndExpiry(t *testing.T) {
	h := newHandler(t, Options{MaxSessions: 2, SessionTimeout: 50 * time.Millisecond})
	a := post(h, "", initBody).Header().Get(SessionIDHeader)
	require.NotEmpty(t, a)
	require.Equal(t, http.StatusOK, post(h, "", initBody).Code)
	assert.Equal(t, http.StatusServiceUnavailable, post(h, "", initBody).Code, "the cap is 2")

	require.Eventually(t, func() bool {
		return post(h, a, `{"jsonrpc":"2.0","id":2,"method":"ping"}`).Code == http.StatusNotFound
	}, 2*time.Second, 100*time.Millisecond, "an idle session expires (each probe is a use, so probe less often than the timeout)")
	assert.Equal(t, http.StatusOK, post(h, "", initBody).Code, "expired sessions free their place")
}

func TestBodyLimit(t *testing.T) {
	h := newHandler(t, Options{MaxBodyBytes: 1024})
	rec := post(h, "", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 2048)+`"}}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
}

func TestProgressTravelsOnTheRequestStream(t *testing.T) {
	srv := httptest.NewServer(newHandler(t, Options{Stateless: true}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"countdown","arguments":{"from":2,"interval_ms":1},"_meta":{"progressToken":"t"}}}`))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := strings.Split(strings.TrimSpace(string(body)), "\n\n")
	require.Len(t, events, 3, "two progress events, then the response")
	assert.Contains(t, events[0], `"progress":1`)
	assert.Contains(t, events[2], `"id":7`)
}

func TestARequestThatSpeaksIsAnsweredAsAStream(t *testing.T) {
	late := make(chan error, 1)
	server := mcp.New(mcp.Options{Info: mcp.Implementation{Name: "t", Version: "1"}})
	server.AddTool(&mcp.Tool{Name: "speaks", InputSchema: json.RawMessage(`{"type":"object"}`),
		Run: func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.ToolResult, error) {
			req.Log(ctx, mcp.LevelInfo, "t", "first")
			req.Log(ctx, mcp.LevelInfo, "t", "second")
			go func() {
				time.Sleep(50 * time.Millisecond) // the call has been answered by then
				late <- req.Log(context.Background(), mcp.LevelInfo, "t", "too late")
			}()
			return mcp.Text("done"), nil
		}})
	server.AddTool(&mcp.Tool{Name: "quiet", InputSchema: json.RawMessage(`{"type":"object"}`),
		Run: func(context.Context, *mcp.Request, json.RawMessage) (*mcp.ToolResult, error) {
			return mcp.Text("done"), nil
		}})
	h := NewHandler(server, Options{Logger: log.New(io.Discard, "", 0)})
	t.Cleanup(h.Close)
	id := post(h, "", initBody).Header().Get(SessionIDHeader)

	rec := post(h, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quiet"}}`)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"), "a request that says nothing first is plain JSON")

	rec = post(h, id, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"speaks"}}`)
	assert.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
	events := strings.Split(strings.TrimSpace(rec.Body.String()), "\n\n")
	require.Len(t, events, 3, "two log messages, then the response, on the request's own stream")
	assert.Contains(t, events[0], `"first"`)
	assert.Contains(t, events[1], `"second"`)
	assert.Contains(t, events[2], `"id":3`)
	assert.Error(t, <-late, "a message sent after the response is dropped")
	assert.NotContains(t, rec.Body.String(), "too late")

	// At 2025-03-26 a batch whose request speaks is answered as a stream too.
	old := post(h, "", strings.Replace(initBody, "2025-11-25", "2025-03-26", 1)).Header().Get(SessionIDHeader)
	rec = post(h, old, `[{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"speaks"}},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
	assert.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
	events = strings.Split(strings.TrimSpace(rec.Body.String()), "\n\n")
	require.Len(t, events, 4, "two log messages, then the two responses")
	<-late
}

func TestManySessionsAtOnce(t *testing.T) {
	h := newHandler(t, Options{})
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := post(h, "", initBody).Header().Get(SessionIDHeader)
			assert.Equal(t, http.StatusOK, post(h, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_note","arguments":{"text":"mine"}}}`).Code)
			rec := post(h, id, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_notes"}}`)
			assert.Contains(t, rec.Body.String(), `"1. mine"`)
		}()
	}
	wg.Wait()
}

func BenchmarkPing(b *testing.B) {
	h := NewHandler(mcp.NewServer(), Options{Logger: log.New(io.Discard, "", 0)})
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := srv.Client()
	do := func(session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if session != "" {
			req.Header.Set(SessionIDHeader, session)
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	session := do("", initBody).Header.Get(SessionIDHeader)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if resp := do(session, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); resp.StatusCode != http.StatusOK {
				b.Fatalf("ping: HTTP %d", resp.StatusCode)
			}
		}
	})
}
