package probe

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/wire"
)

// The probes of the rule that a request's own messages travel on that
// request's own answer (lessons 02 and 03): a log message, or a request of
// the server's own, that a tool sends before its result.

// NotesLog is the Needs.Course text of the checks that rely on add_note's
// log message.
const NotesLog = `add_note's log message (notifications/message, logger "notes"), which the course's server sends as part of the call, before its result`

// ClearNotes is the Needs.Course text of the checks that rely on the
// clear_notes tool.
const ClearNotes = `the clear_notes tool, which asks the client to confirm (elicitation/create) before its result`

// InitializeEliciting runs the handshake at version as a client that
// declares the elicitation capability, and returns the session id.
func InitializeEliciting(t *check.T, h *wire.HTTP, version string) string {
	params := wire.InitializeParams(version)
	params["capabilities"] = map[string]any{"elicitation": map[string]any{}}
	resp := h.Post("", "", wire.Request(`1`, "initialize", params), "initialize, declaring the elicitation capability")
	if m := resp.Find(`1`); resp.Status != http.StatusOK || m == nil || m.Error != nil {
		t.Fail(check.Failure{What: "initialize did not succeed", Got: resp.Summary(), Want: `HTTP 200 and a response with "id":1 and a "result"`,
			Cause: check.CauseInitialize})
	}
	session := resp.Header.Get("Mcp-Session-Id")
	h.Post(session, version, wire.Notification("notifications/initialized", nil), "notifications/initialized")
	return session
}

// NoteOnItsStream calls add_note with text, as id, and expects its answer to
// be an SSE stream that carries the note's log message, then the result,
// then ends. It returns the stream's events.
func NoteOnItsStream(t *check.T, h *wire.HTTP, session, version, id, text string) []wire.Event {
	s := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, version), Within: wire.T2, Purpose: "add_note, which logs the note before its result",
		Body: wire.Request(id, "tools/call", wire.ToolCall("add_note", map[string]any{"text": text}, nil))})
	if s.Status != http.StatusOK || s.ContentType != "text/event-stream" {
		got := fmt.Sprintf("HTTP %d, Content-Type: %s", s.Status, s.Header.Get("Content-Type"))
		if events, _ := s.End(wire.T1); len(events) > 0 {
			got += ", body " + check.Quote(events[0].Data)
		}
		t.Fail(check.Failure{What: "add_note logs its note before it answers, and its answer is not an SSE stream, so the log message had nowhere to travel with it",
			Got: got, Want: "HTTP 200, Content-Type: text/event-stream: the note's notifications/message, then the result"})
	}
	var events []wire.Event
	logged := false
	_, last := s.Await(wire.T2, "response to add_note (id "+id+")", func(m *wire.Msg) bool { return m.IsResponseTo(id) }, func(e wire.Event, m *wire.Msg) {
		events = append(events, e)
		if _, logger, data, ok := LogOf(m); ok && logger == "notes" && strings.Contains(string(data), text) {
			logged = true
		}
	})
	events = append(events, last)
	if !logged {
		t.Fail(check.Failure{What: "add_note's stream carried no log message for the note before its result",
			Got: describe(events), Want: `a notifications/message with "logger":"notes" and the note's text, then the response`})
	}
	rest, ended := s.End(time.Second)
	for _, e := range rest {
		if e.Data != "" {
			t.Fail(check.Failure{What: "a message came after the response on add_note's stream", Got: check.Quote(e.Data), Want: "the stream ends after the response"})
		}
	}
	if !ended {
		t.Fail(check.Failure{What: "add_note's stream was still open 1 s after its response", Want: "the stream ends after the response"})
	}
	return events
}

// AwaitQuestion reads s, the answer to a clear_notes call, until the
// tool's elicitation/create request arrives, within d, and returns it.
// Nothing else may come first but events without data (priming events).
func AwaitQuestion(t *check.T, s *wire.Stream, d time.Duration) *wire.Msg {
	if s.Status != http.StatusOK || s.ContentType != "text/event-stream" {
		t.Fail(check.Failure{What: "clear_notes asks the client a question before it answers, and its answer is not an SSE stream, so the question had nowhere to travel",
			Got: fmt.Sprintf("HTTP %d, Content-Type: %s", s.Status, s.Header.Get("Content-Type")), Want: "HTTP 200, Content-Type: text/event-stream, carrying elicitation/create at once"})
	}
	m, _ := s.Await(d, "elicitation/create from clear_notes, while the call waits for the answer (it cannot finish before it, so a message held back until the response never comes)",
		func(m *wire.Msg) bool { return m.MethodName() == "elicitation/create" }, func(e wire.Event, m *wire.Msg) {
			if m != nil {
				t.Fail(check.Failure{What: "something other than the question came first on clear_notes's stream", Got: check.Quote(e.Data), Want: "elicitation/create"})
			}
		})
	if m.ID == nil {
		t.Fail(check.Failure{What: "clear_notes's elicitation/create has no id, so it cannot be answered", Got: check.Quote(string(m.Raw)), Want: "a JSON-RPC request"})
	}
	return m
}

// Answer POSTs the client's answer to the server's request q, confirming,
// and expects 202 Accepted.
func Answer(t *check.T, h *wire.HTTP, session, version string, q *wire.Msg) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"confirm":true}}}`, q.ID)
	resp := h.Post(session, version, body, "the answer to elicitation/create, confirming")
	if resp.Status != http.StatusAccepted {
		t.Fail(check.Failure{What: "the client's answer to the server's question did not get 202 Accepted", Got: resp.Summary(), Want: "HTTP 202, empty body", Spec: resp.Status < 300})
	}
}

// ExpectCleared reads the rest of s: the response to id, saying the notes
// were deleted, then the end of the stream.
func ExpectCleared(t *check.T, s *wire.Stream, id string, notes int) {
	m, _ := s.Await(wire.T2, "the result of clear_notes (id "+id+"), once the client's answer reached the waiting tool", func(m *wire.Msg) bool { return m.IsResponseTo(id) }, func(e wire.Event, m *wire.Msg) {
		if m != nil {
			t.Fail(check.Failure{What: "something other than the result came on clear_notes's stream after the answer", Got: check.Quote(e.Data), Want: "the response with id " + id})
		}
	})
	want := fmt.Sprintf("Deleted %d notes.", notes)
	if notes == 1 {
		want = "Deleted 1 note."
	}
	if text := ToolText(t, m, "clear_notes"); text != want {
		t.Fail(check.Failure{What: "clear_notes did not act on the client's answer", Got: check.Quote(text), Want: fmt.Sprintf("%q: the answer, POSTed back, reached the waiting tool", want)})
	}
	if _, ended := s.End(time.Second); !ended {
		t.Fail(check.Failure{What: "clear_notes's stream was still open 1 s after its response", Want: "the stream ends after the response"})
	}
}

// ClearNotesCall is the body of a clear_notes call.
func ClearNotesCall(id string) string {
	return wire.Request(id, "tools/call", wire.ToolCall("clear_notes", map[string]any{}, nil))
}

// describe lists events for a failure report.
func describe(events []wire.Event) string {
	var parts []string
	for _, e := range events {
		parts = append(parts, "data: "+e.Data)
	}
	if len(parts) == 0 {
		return "no events"
	}
	return strings.Join(parts, "\n")
}
