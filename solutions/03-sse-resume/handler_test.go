package resume

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	streamable "mcpcourse/solutions/02-streamable-http"

	"mcpcourse/internal/mcp"
)

// testServer runs a Handler on a real loopback server: streams need real
// connections, which a client can drop.
type testServer struct {
	t   *testing.T
	h   *Handler
	url string
}

func newTestServer(t *testing.T, opts Options) *testServer {
	opts.Logger = log.New(io.Discard, "", 0)
	h := NewHandler(mcp.NewServer(), opts)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return &testServer{t: t, h: h, url: srv.URL}
}

// do sends a request and returns the response, whose body the caller reads
// or closes. Every request ends with the test's deadline.
func (s *testServer) do(method, session, version, lastEventID, body string) *http.Response {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	s.t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, method, s.url, strings.NewReader(body))
	require.NoError(s.t, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	}
	req.Header.Set("Content-Type", "application/json")
	for name, v := range map[string]string{streamable.SessionIDHeader: session, streamable.ProtocolVersionHeader: version, LastEventIDHeader: lastEventID} {
		if v != "" {
			req.Header.Set(name, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(s.t, err)
	s.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (s *testServer) initialize(version string) string {
	resp := s.do(http.MethodPost, "", "", "", fmt.Sprintf(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, version))
	io.Copy(io.Discard, resp.Body)
	require.Equal(s.t, http.StatusOK, resp.StatusCode)
	return resp.Header.Get(streamable.SessionIDHeader)
}

func countdown(id, from, intervalMS int, token string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"countdown","arguments":{"from":%d,"interval_ms":%d},"_meta":{"progressToken":%q}}}`,
		id, from, intervalMS, token)
}

func addNote(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add_note","arguments":{"text":%q}}}`, id, text)
}

// sseEvent is an event as a client parses it.
type sseEvent struct{ id, retry, data string }

// events reads SSE events from a response body, one at a time.
type events struct {
	t  *testing.T
	sc *bufio.Scanner
}

func readEvents(t *testing.T, resp *http.Response) *events {
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	return &events{t: t, sc: bufio.NewScanner(resp.Body)}
}

// next returns the next event, or false at the end of the stream.
func (r *events) next() (sseEvent, bool) {
	var e sseEvent
	started := false
	for r.sc.Scan() {
		line := r.sc.Text()
		if line == "" {
			if started {
				return e, true
			}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			continue // a comment
		case "id":
			e.id = value
		case "retry":
			e.retry = value
		case "data":
			e.data = value
		}
		started = true
	}
	return e, false
}

func (r *events) mustNext() sseEvent {
	e, ok := r.next()
	require.True(r.t, ok, "the stream ended early")
	return e
}

// rest reads the stream to its end.
func (r *events) rest() []sseEvent {
	var all []sseEvent
	for e, ok := r.next(); ok; e, ok = r.next() {
		all = append(all, e)
	}
	return all
}

func ids(evs []sseEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.id)
	}
	return out
}

func TestPOSTStreamIsPrimedAt20251125Only(t *testing.T) {
	s := newTestServer(t, Options{})
	session := s.initialize("2025-11-25")
	evs := readEvents(t, s.do(http.MethodPost, session, "2025-11-25", "", countdown(2, 2, 0, "p"))).rest()
	require.Len(t, evs, 4)
	assert.Equal(t, sseEvent{id: "1-1", retry: "1000"}, evs[0], "the priming event: an id, a retry field, empty data")
	assert.Equal(t, []string{"1-1", "1-2", "1-3", "1-4"}, ids(evs))
	assert.Contains(t, evs[3].data, `"id":2`)

	old := s.initialize("2025-06-18")
	evs = readEvents(t, s.do(http.MethodPost, old, "2025-06-18", "", countdown(2, 2, 0, "p"))).rest()
	require.Len(t, evs, 3, "no priming event before 2025-11-25")
	for _, e := range evs {
		assert.NotEmpty(t, e.data)
		assert.Empty(t, e.retry)
		assert.NotEmpty(t, e.id, "events still carry ids: the stream can be resumed")
	}
}

func TestStatelessStreamsHaveNoIDs(t *testing.T) {
	s := newTestServer(t, Options{Options: streamable.Options{Stateless: true}})
	s.initialize("2025-11-25")
	for _, e := range readEvents(t, s.do(http.MethodPost, "", "2025-11-25", "", countdown(2, 2, 0, "p"))).rest() {
		assert.Empty(t, e.id)
		assert.NotEmpty(t, e.data)
	}
	resp := s.do(http.MethodGet, "", "2025-11-25", "", "")
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

func TestResumeReplaysExactlyWhatWasMissed(t *testing.T) {
	s := newTestServer(t, Options{})
	session := s.initialize("2025-11-25")
	post := s.do(http.MethodPost, session, "2025-11-25", "", countdown(2, 5, 40, "p"))
	r := readEvents(t, post)
	r.mustNext() // priming
	last := r.mustNext()
	require.Equal(t, "1-2", last.id)
	post.Body.Close() // the client goes away; the countdown goes on

	// Until the server sees the client gone, the stream is still attached
	// to its connection, and a GET that resumes it gets 409.
	var resumed *http.Response
	require.Eventually(t, func() bool {
		resumed = s.do(http.MethodGet, session, "2025-11-25", last.id, "")
		if resumed.StatusCode == http.StatusConflict {
			resumed.Body.Close()
			return false
		}
		return true
	}, 2*time.Second, 5*time.Millisecond)
	require.Equal(t, http.StatusOK, resumed.StatusCode)
	evs := readEvents(t, resumed).rest()
	assert.Equal(t, []string{"1-3", "1-4", "1-5", "1-6", "1-7"}, ids(evs), "the rest of stream 1, once each, then the end")
	assert.Contains(t, evs[4].data, `"result"`)
}

func TestResumeRefusals(t *testing.T) {
	s := newTestServer(t, Options{ReplayBuffer: 4})
	session := s.initialize("2025-11-25")
	readEvents(t, s.do(http.MethodPost, session, "2025-11-25", "", countdown(2, 8, 0, "p"))).rest()
	evs := readEvents(t, s.do(http.MethodPost, session, "2025-11-25", "", countdown(3, 1, 0, "q"))).rest()
	require.Len(t, evs, 3)

	for id, why := range map[string]string{
		"garbage":     "not an event id this server wrote",
		"9-1":         "not an id of this session's events",
		"2-99":        "not an id of this session's events",
		"1-2":         "dropped from the replay buffer",
		evs[2].id:     "has ended",
		"1-2, 1-3":    "not an event id",
		"0-1":         "not an id of this session's events",
		"2-0":         "not an event id",
		"18446744-1x": "not an event id",
	} {
		resp := s.do(http.MethodGet, session, "2025-11-25", id, "")
		body, _ := io.ReadAll(resp.Body)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "Last-Event-ID %q", id)
		var msg struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal(body, &msg), "a JSON-RPC error body for %q", id)
		assert.Equal(t, -32600, msg.Error.Code)
		assert.Contains(t, msg.Error.Message, why, "Last-Event-ID %q", id)
	}

	other := s.initialize("2025-11-25")
	resp := s.do(http.MethodGet, other, "2025-11-25", evs[1].id, "")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "another session's id is unknown here")
}

func TestOneConnectionPerStream(t *testing.T) {
	s := newTestServer(t, Options{})
	session := s.initialize("2025-11-25")
	first := s.do(http.MethodGet, session, "2025-11-25", "", "")
	require.Equal(t, http.StatusOK, first.StatusCode)
	second := s.do(http.MethodGet, session, "2025-11-25", "", "")
	assert.Equal(t, http.StatusConflict, second.StatusCode)
	priming := readEvents(t, first).mustNext()
	assert.Equal(t, http.StatusConflict, s.do(http.MethodGet, session, "2025-11-25", priming.id, "").StatusCode,
		"resuming a stream that is attached")

	first.Body.Close()
	assert.Eventually(t, func() bool {
		resp := s.do(http.MethodGet, session, "2025-11-25", "", "")
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 2*time.Second, 20*time.Millisecond, "once the first client hangs up, a GET is served again")
}

func TestStandaloneStreamIsTheSessionsOutlet(t *testing.T) {
	s := newTestServer(t, Options{})
	session := s.initialize("2025-11-25")
	s.do(http.MethodPost, session, "2025-11-25", "", addNote(2, "before")).Body.Close()

	get := s.do(http.MethodGet, session, "2025-11-25", "", "")
	r := readEvents(t, get)
	priming := r.mustNext()
	assert.Equal(t, "0-1", priming.id)
	s.do(http.MethodPost, session, "2025-11-25", "", addNote(3, "during")).Body.Close()
	during := r.mustNext()
	assert.Equal(t, "0-2", during.id, `the note "before" was dropped: there was no stream to keep it for`)
	assert.Contains(t, during.data, `"logger":"notes"`)
	assert.Contains(t, during.data, "during")
	get.Body.Close()

	// While the client is away, log messages are kept for its return.
	s.do(http.MethodPost, session, "2025-11-25", "", addNote(4, "away")).Body.Close()
	var resumed *http.Response
	require.Eventually(t, func() bool {
		resumed = s.do(http.MethodGet, session, "2025-11-25", during.id, "")
		return resumed.StatusCode == http.StatusOK // 409 until the server sees the first client gone
	}, 2*time.Second, 20*time.Millisecond)
	r = readEvents(t, resumed)
	away := r.mustNext()
	assert.Equal(t, "0-3", away.id)
	assert.Contains(t, away.data, "away")
}

func TestStreamStateIsLazyAndFreed(t *testing.T) {
	s := newTestServer(t, Options{})
	session := s.initialize("2025-11-25")
	s.do(http.MethodPost, session, "2025-11-25", "", `{"jsonrpc":"2.0","id":2,"method":"ping"}`).Body.Close()
	s.do(http.MethodPost, session, "2025-11-25", "", addNote(3, "no one listens")).Body.Close()
	assert.Nil(t, s.h.streamsOf(s.sessionOf(session), false), "a session that never streamed has no stream state")

	readEvents(t, s.do(http.MethodPost, session, "2025-11-25", "", countdown(4, 1, 0, "p"))).rest()
	set := s.h.streamsOf(s.sessionOf(session), false)
	require.NotNil(t, set)
	assert.Equal(t, initialRing, len(set.events.ring), "three events take the initial ring, not the whole buffer")

	del := s.do(http.MethodDelete, session, "2025-11-25", "", "")
	require.Equal(t, http.StatusNoContent, del.StatusCode)
	assert.Eventually(t, func() bool {
		s.h.mu.Lock()
		defer s.h.mu.Unlock()
		return len(s.h.sessions) == 0
	}, time.Second, 10*time.Millisecond, "the session's end frees its stream state")
}

// sessionOf finds the live session with id, the way a request does.
func (s *testServer) sessionOf(id string) *streamable.Session {
	req := httptest.NewRequest(http.MethodGet, "/mcp", nil)
	req.Header.Set(streamable.SessionIDHeader, id)
	sess, done, ok := s.h.Session(httptest.NewRecorder(), req)
	require.True(s.t, ok)
	done()
	return sess
}

func TestSessionEndAndShutdownEndGETStreams(t *testing.T) {
	s := newTestServer(t, Options{})
	a, b := s.initialize("2025-11-25"), s.initialize("2025-11-25")
	getA := s.do(http.MethodGet, a, "2025-11-25", "", "")
	getB := s.do(http.MethodGet, b, "2025-11-25", "", "")
	readEvents(t, getA).mustNext()
	readEvents(t, getB).mustNext()

	s.do(http.MethodDelete, a, "2025-11-25", "", "").Body.Close()
	_, err := io.ReadAll(getA.Body)
	assert.NoError(t, err, "DELETE ends the session's stream")

	s.h.CloseStreams()
	_, err = io.ReadAll(getB.Body)
	assert.NoError(t, err, "CloseStreams ends every GET stream")
	assert.Equal(t, http.StatusServiceUnavailable, s.do(http.MethodGet, b, "2025-11-25", "", "").StatusCode)
}
