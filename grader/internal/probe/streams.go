package probe

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// Expect405 fails the check unless req gets a complete 405 with an Allow
// header that lists POST.
func Expect405(t *check.T, h *wire.HTTP, req wire.Req) *wire.Response {
	resp := h.Do(req)
	if resp.Status != http.StatusMethodNotAllowed {
		t.Fail(check.Failure{What: fmt.Sprintf("%s %s did not get 405", req.Method, "/mcp ("+req.Purpose+")"), Got: resp.Summary(),
			Want: "HTTP 405 Method Not Allowed, at once"})
	}
	if allow := resp.Header.Get("Allow"); !strings.Contains(strings.ToUpper(allow), "POST") {
		t.Fail(check.Failure{What: "a 405 must say what is allowed: its Allow header does not list POST", Got: check.Quote(allow), Want: `Allow: POST (and DELETE, where sessions exist)`})
	}
	return resp
}

// CauseGETStream is the cause (check.Failure.Cause) of a failure that
// comes from a GET with a live session that did not get its stream. The
// lessons that open the standalone stream map it to the check that tests
// it (check.Lesson.Causes).
const CauseGETStream = "get-stream"

// GETHeaders are the headers of a client's GET: Accept, the session, the
// version, and the id to resume from, each when given.
func GETHeaders(session, version, lastEventID string) http.Header {
	h := http.Header{}
	h.Set("Accept", "text/event-stream")
	if session != "" {
		h.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		h.Set("Mcp-Protocol-Version", version)
	}
	if lastEventID != "" {
		h.Set("Last-Event-ID", lastEventID)
	}
	return h
}

// OpenGET opens a GET stream and fails the check unless it is 200
// text/event-stream. A GET that opens the standalone stream and fails is
// what SSE-01 tests (CauseGETStream).
func OpenGET(t *check.T, h *wire.HTTP, session, version, lastEventID, purpose string) *wire.Stream {
	s := h.Open(wire.Req{Method: http.MethodGet, Header: GETHeaders(session, version, lastEventID), Purpose: purpose})
	cause := ""
	if lastEventID == "" {
		cause = CauseGETStream
		SkipWithoutGETStream(t, s.Status)
		if t.Target.External() && s.Status != http.StatusMethodNotAllowed && (s.Status != http.StatusOK || s.ContentType != "text/event-stream") {
			// A GET in a live session, which asks for a stream: the spec
			// allows a stream or 405, nothing else.
			t.Fail(check.Failure{What: purpose + " got neither an SSE stream nor 405", Got: StreamSummary(s),
				Want: "HTTP 200, Content-Type: text/event-stream (or 405, for a server that offers no stream)", Cites: &spec.GET})
		}
	}
	ExpectEventStream(t, s, purpose, cause)
	return s
}

// ExpectEventStream fails the check, naming cause, unless s is 200
// text/event-stream.
func ExpectEventStream(t *check.T, s *wire.Stream, purpose, cause string) {
	if s.Status == http.StatusOK && s.ContentType == "text/event-stream" {
		return
	}
	t.Fail(check.Failure{What: purpose + " did not start an SSE stream", Got: StreamSummary(s), Want: "HTTP 200, Content-Type: text/event-stream", Cause: cause})
}

// StreamSummary describes a response read with Open, reading up to 500 ms
// of its body.
func StreamSummary(s *wire.Stream) string {
	events, ended := s.End(500 * time.Millisecond)
	got := fmt.Sprintf("HTTP %d, Content-Type: %q", s.Status, s.Header.Get("Content-Type"))
	var body []string
	for _, e := range events {
		body = append(body, e.Data)
	}
	if len(body) > 0 {
		got += ", body " + check.Quote(strings.Join(body, "\n"))
	}
	if !ended {
		got += " (the body had not ended after 500ms)"
	}
	return got
}

// CountdownCall is tools/call countdown with a progress token.
func CountdownCall(id string, from, intervalMS int, token string) string {
	return wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": from, "interval_ms": intervalMS}, token))
}

// ProgressOf reads a notifications/progress: its token (as JSON text) and
// its progress value.
func ProgressOf(m *wire.Msg) (token string, progress float64, ok bool) {
	if m == nil || m.MethodName() != "notifications/progress" {
		return "", 0, false
	}
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress *float64        `json:"progress"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Progress == nil {
		return "", 0, false
	}
	return string(p.Token), *p.Progress, true
}

// LogOf reads a notifications/message: its level, its logger and its data.
func LogOf(m *wire.Msg) (level, logger string, data json.RawMessage, ok bool) {
	if m == nil || m.MethodName() != "notifications/message" {
		return "", "", nil, false
	}
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	json.Unmarshal(m.Params, &p)
	return p.Level, p.Logger, p.Data, true
}

// IsLogFrom matches the log messages of logger.
func IsLogFrom(logger string) func(*wire.Msg) bool {
	return func(m *wire.Msg) bool {
		_, l, _, ok := LogOf(m)
		return ok && l == logger
	}
}

// Settle polls f every 50 ms until it returns true or d has passed, and
// reports whether it did.
func Settle(t *check.T, d time.Duration, f func() bool) bool {
	deadline := time.Now().Add(d)
	for !f() {
		if time.Now().After(deadline) {
			return false
		}
		Pause(t, 50*time.Millisecond)
	}
	return true
}
