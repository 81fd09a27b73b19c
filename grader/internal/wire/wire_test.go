package wire

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader/check"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, err string
	}{
		{in: `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{in: ` {"a":1} `},
		{in: `{"a":1} x`, err: `unexpected "x" after the JSON object`},
		{in: `{"a":1}{"b":2}`, err: `unexpected "{\"b\":2}" after the JSON object`},
		{in: `[1]`, err: "JSON, but not an object"},
		{in: `null`, err: "JSON, but not an object"},
		{in: `{"a":`, err: "not JSON"},
		{in: ``, err: "not JSON"},
	} {
		m, err := Parse([]byte(tt.in))
		if tt.err == "" {
			require.NoError(t, err, tt.in)
			assert.NotNil(t, m)
			continue
		}
		assert.EqualError(t, err, tt.err, tt.in)
	}
}

func TestProblem(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                              "",
		`{"jsonrpc":"2.0","id":"a","method":"ping"}`:                        "",
		`{"jsonrpc":"2.0","method":"notifications/x"}`:                      "",
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`:           "",
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`: "",
		`{"jsonrpc":"1.0","id":1,"result":{}}`:                              `"jsonrpc" is missing or is not "2.0"`,
		`{"id":1,"result":{}}`:                                              `"jsonrpc" is missing or is not "2.0"`,
		`{"jsonrpc":"2.0","id":1,"method":""}`:                              `"method" is not a non-empty string`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`:                        `a request id must be a string or an integer`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`:              `a request or notification must not have "result" or "error"`,
		`{"jsonrpc":"2.0"}`:                                                 `neither "method" nor "id": not a request, notification or response`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`:                   `a response has exactly one of "result" and "error"`,
		`{"jsonrpc":"2.0","id":1}`:                                          `a response has exactly one of "result" and "error"`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`:                           `a result response must carry its request's id (a string or an integer)`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`:       `"error" must be an object with "code" and "message"`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`:       `"error.code" must be an integer`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1}}`:                       `"error" must be an object with "code" and "message"`,
	} {
		m, err := Parse([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, m.Problem(), in)
	}
}

// TestHasNoIDTakesAbsentAndNull: an error for a message whose id could
// not be read carries none, absent (MCP) or null (JSON-RPC 2.0 §5), and
// every check accepts both.
func TestHasNoIDTakesAbsentAndNull(t *testing.T) {
	for text, want := range map[string]bool{
		`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"}}`:             true,
		`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"},"id":null}`:   true,
		`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"},"id": null }`: true,
		`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"},"id":0}`:      false,
		`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"},"id":"x"}`:    false,
	} {
		m, err := Parse([]byte(text))
		require.NoError(t, err)
		assert.Equal(t, want, m.HasNoID(), text)
		assert.Empty(t, m.Problem(), text)
	}
}

func TestIsResponseToKeepsJSONTypes(t *testing.T) {
	m, err := Parse([]byte(`{"jsonrpc":"2.0","id":"7","result":{}}`))
	require.NoError(t, err)
	assert.True(t, m.IsResponseTo(`"7"`))
	assert.False(t, m.IsResponseTo(`7`), "the string \"7\" is not the number 7")
}

func TestParseSSE(t *testing.T) {
	body := ": a comment\n" +
		"id: 1\nevent: prime\ndata:\n\n" + // a priming event: an id and empty data
		"data: {\"a\":1}\n\n" + // no id: it keeps the last one
		"id: 2\r\ndata: line one\r\ndata:line two\r\nretry: 500\r\n\r\n" + // CRLF, no space after the colon
		"id: 3\rdata: cr only\r\r" + // CR alone
		"unknown: field\n\n" + // only an unknown field: no event
		"id: 4\ndata: never dispatched" // no blank line at the end
	events := ParseSSE([]byte(body))
	require.Len(t, events, 4)
	assert.Equal(t, Event{ID: "1", SetID: true, Event: "prime"}, events[0])
	assert.Equal(t, Event{ID: "1", Data: `{"a":1}`}, events[1])
	assert.Equal(t, Event{ID: "2", SetID: true, Data: "line one\nline two", Retry: "500"}, events[2])
	assert.Equal(t, Event{ID: "3", SetID: true, Data: "cr only"}, events[3])
}

func TestSSEReaderCountsComments(t *testing.T) {
	r := NewSSEReader(strings.NewReader(": keep-alive\n\n: keep-alive\ndata: x\n\n"))
	e, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "x", e.Data)
	assert.Equal(t, 2, r.Comments())
	_, err = r.Next()
	assert.Equal(t, io.EOF, err)
}

func TestSSEReaderReportsATruncatedEvent(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: x"))
	_, err := r.Next()
	assert.Equal(t, io.ErrUnexpectedEOF, err)
}

func TestMediaType(t *testing.T) {
	assert.Equal(t, "text/event-stream", mediaType("Text/Event-Stream; charset=utf-8"))
	assert.Equal(t, "application/json", mediaType("application/json"))
	assert.Equal(t, "", mediaType(""))
}

func TestHeaderSummary(t *testing.T) {
	h := http.Header{}
	h.Set("Mcp-Session-Id", "abc")
	h.Set("Content-Type", "application/json")
	h.Set("X-Other", "ignored")
	assert.Equal(t, "Content-Type: application/json; Mcp-Session-Id: abc", headerSummary(h))
}

// runCheck runs f as a grader check against nothing but the given URL, and
// returns the result.
func runCheck(t *testing.T, url string, f func(t *check.T, h *HTTP)) check.Result {
	t.Helper()
	c := &check.Check{ID: "TEST-01", Title: "test", Budget: 5 * time.Second, Run: func(ct *check.T) {
		transport := &http.Transport{}
		ct.Cleanup(transport.CloseIdleConnections)
		f(ct, &HTTP{t: ct, URL: url, client: &http.Client{Transport: transport}})
	}}
	return check.Run(context.Background(), c, check.Target{Name: "test"})
}

func TestStreamReadsEventsAsTheyCome(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		io.WriteString(w, ": open\n\nid: a-1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n")
		rc.Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "id: a-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	}))
	defer srv.Close()

	r := runCheck(t, srv.URL, func(ct *check.T, h *HTTP) {
		s := h.Open(Req{Purpose: "a stream"})
		assert.Equal(t, http.StatusOK, s.Status)
		assert.Equal(t, "text/event-stream", s.ContentType)
		e := s.Next(time.Second, "first event")
		assert.Equal(t, "a-1", e.ID)
		assert.Equal(t, 1, s.Comments())
		_, err := s.NextWithin(50 * time.Millisecond)
		assert.Equal(t, ErrTimeout, err, "the second event is held back")
		close(release)
		m, _ := s.Await(time.Second, "the response", func(m *Msg) bool { return m.IsResponseTo(`1`) }, nil)
		assert.NotNil(t, m)
		assert.Equal(t, "a-2", s.LastEventID())
		_, ended := s.End(time.Second)
		assert.True(t, ended)
	})
	assert.Equal(t, check.Pass, r.Status, r.Report)
}

func TestStreamFailsFastOnSilence(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		<-r.Context().Done() // never says anything
	}))
	defer srv.Close()
	r := runCheck(t, srv.URL, func(ct *check.T, h *HTTP) {
		h.Open(Req{Purpose: "a silent stream"}).Next(200*time.Millisecond, "event")
	})
	assert.Equal(t, check.Fail, r.Status)
	assert.Contains(t, r.Report, "no event within 200ms")
}

func TestStreamFailsWhenHeadersNeverCome(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		<-r.Context().Done() // never flushes its headers
	}))
	defer srv.Close()
	r := runCheck(t, srv.URL, func(ct *check.T, h *HTTP) {
		h.Open(Req{Purpose: "a stream that never starts", Within: 200 * time.Millisecond})
	})
	assert.Equal(t, check.Fail, r.Status)
	assert.Contains(t, r.Report, "no response headers within 200ms")
}

// countingReader yields n bytes of 'x' and counts what has been read.
type countingReader struct{ read, n int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read >= c.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), c.n-c.read)
	for i := range p[:k] {
		p[i] = 'x'
	}
	c.read += k
	return int(k), nil
}

func TestSendStreamingReturnsTheEarlyAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20)); err != nil {
			http.Error(w, "too large", http.StatusRequestEntityTooLarge)
		}
	}))
	defer srv.Close()
	body := &countingReader{n: 64 << 20}
	r := runCheck(t, srv.URL+"/mcp", func(ct *check.T, h *HTTP) {
		resp := h.SendStreaming(Req{Header: http.Header{}, BodyReader: body, Within: 5 * time.Second, Purpose: "a big body"})
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.Status)
		assert.Equal(t, "too large\n", string(resp.Body))
	})
	assert.Equal(t, check.Pass, r.Status, r.Report)
	assert.Less(t, body.read, int64(32<<20), "the answer came long before the body's end")
}

func TestAbandonHangsUp(t *testing.T) {
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answers only once the client has gone
		close(gone)
	}))
	defer srv.Close()
	r := runCheck(t, srv.URL, func(ct *check.T, h *HTTP) {
		h.Abandon(Req{Purpose: "a request to leave"}, 50*time.Millisecond)
		select {
		case <-gone:
		case <-time.After(2 * time.Second):
			ct.Failf("the server never saw the client go")
		}
	})
	assert.Equal(t, check.Pass, r.Status, r.Report)
}
