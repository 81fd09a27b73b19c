// Package probe holds what the checks of more than one lesson share: ways
// to send a request and expectations of its answer. Each expectation fails
// the check with a report that says what was wrong, so that a check reads as
// a list of expectations. What one lesson alone needs stays in its package.
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

// MustResult fails the check unless resp is a valid success response, and
// returns its result.
func MustResult(t *check.T, resp *wire.Msg, what string) json.RawMessage {
	if p := resp.Problem(); p != "" {
		t.Fail(check.Failure{What: fmt.Sprintf("the response to %s is not a valid JSON-RPC 2.0 response: %s", what, p), Got: check.Quote(string(resp.Raw))})
	}
	if resp.Error != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("%s returned an error", what), Got: check.Quote(string(resp.Raw)), Want: "a result"})
	}
	if _, err := resp.ResultObject(); err != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("the result of %s is not a JSON object", what), Got: check.Quote(string(resp.Raw))})
	}
	return resp.Result
}

// ExpectError fails the check unless resp is a valid error response with code.
func ExpectError(t *check.T, resp *wire.Msg, code int, what string) {
	want := fmt.Sprintf(`an error response with "code": %d`, code)
	if p := resp.Problem(); p != "" {
		t.Fail(check.Failure{What: fmt.Sprintf("the answer to %s is not a valid JSON-RPC 2.0 message: %s", what, p), Got: check.Quote(string(resp.Raw)), Want: want})
	}
	got, ok := resp.ErrorCode()
	switch {
	case resp.Error == nil:
		t.Fail(check.Failure{What: fmt.Sprintf("%s got a result instead of an error", what), Got: check.Quote(string(resp.Raw)), Want: want})
	case !ok || got != code:
		t.Fail(check.Failure{What: fmt.Sprintf("%s got the wrong error code", what), Got: check.Quote(string(resp.Raw)), Want: want})
	}
}

// CheckInitializeResult fails the check unless resp is a valid response to
// an initialize that asked for rev (lifecycle, "Initialization").
func CheckInitializeResult(t *check.T, resp *wire.Msg) { CheckInitializeResultAt(t, resp, spec.Rev) }

// CheckInitializeResultAt is CheckInitializeResult for an initialize that
// asked for version, which the server supports.
func CheckInitializeResultAt(t *check.T, resp *wire.Msg, version string) {
	result := MustResult(t, resp, "initialize")
	var r struct {
		ProtocolVersion *string          `json:"protocolVersion"`
		Capabilities    *json.RawMessage `json:"capabilities"`
		ServerInfo      *struct {
			Name    *string `json:"name"`
			Version *string `json:"version"`
		} `json:"serverInfo"`
	}
	json.Unmarshal(result, &r)
	want := `{"protocolVersion":"` + version + `","capabilities":{...},"serverInfo":{"name":"...","version":"..."}}`
	switch {
	case r.ProtocolVersion == nil:
		t.Fail(check.Failure{What: `the InitializeResult has no string "protocolVersion"`, Got: check.Quote(string(resp.Raw)), Want: want})
	case *r.ProtocolVersion != version:
		t.Fail(check.Failure{What: "the server did not echo the requested version, which it supports", Got: check.Quote(*r.ProtocolVersion), Want: check.Quote(version)})
	case r.Capabilities == nil || !strings.HasPrefix(strings.TrimSpace(string(*r.Capabilities)), "{"):
		t.Fail(check.Failure{What: `the InitializeResult has no "capabilities" object`, Got: check.Quote(string(resp.Raw)), Want: want})
	case r.ServerInfo == nil || r.ServerInfo.Name == nil || r.ServerInfo.Version == nil:
		t.Fail(check.Failure{What: `the InitializeResult has no "serverInfo" with a string "name" and "version"`, Got: check.Quote(string(resp.Raw)), Want: want})
	}
}

// ToolText returns the text of the first content item of a tools/call result.
func ToolText(t *check.T, resp *wire.Msg, tool string) string {
	result := MustResult(t, resp, "tools/call "+tool)
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(result, &r) != nil || len(r.Content) == 0 || r.Content[0].Type != "text" || r.IsError {
		t.Fail(check.Failure{What: fmt.Sprintf("tools/call %s did not return a text result", tool), Got: check.Quote(string(resp.Raw)),
			Want: `{"content":[{"type":"text","text":"..."}]}`})
	}
	return r.Content[0].Text
}

// ProgressValues checks the notifications/progress among msgs that carry
// the progress token tokenJSON: each carries it exactly (same value, same
// JSON type), and its "progress" increases with each one. It returns the
// progress values in order. Messages that are not progress notifications
// are skipped.
func ProgressValues(t *check.T, msgs []*wire.Msg, tokenJSON json.RawMessage) []float64 {
	var values []float64
	for _, m := range msgs {
		if m == nil || m.MethodName() != "notifications/progress" {
			continue
		}
		var p struct {
			Token    json.RawMessage `json:"progressToken"`
			Progress *float64        `json:"progress"`
		}
		json.Unmarshal(m.Params, &p)
		if !wire.SameJSON(p.Token, tokenJSON) {
			t.Fail(check.Failure{What: "a progress notification does not carry the request's progress token exactly (same value, same JSON type)",
				Got: check.Quote(string(m.Raw)), Want: fmt.Sprintf(`"progressToken": %s`, tokenJSON), Cites: &spec.ProgressTokens})
		}
		if p.Progress == nil {
			t.Fail(check.Failure{What: `a progress notification has no number "progress"`, Got: check.Quote(string(m.Raw)), Cites: &spec.ProgressIncreases})
		}
		if len(values) > 0 && *p.Progress <= values[len(values)-1] {
			t.Fail(check.Failure{What: fmt.Sprintf("progress went from %v to %v: it MUST increase with each notification", values[len(values)-1], *p.Progress),
				Got: check.Quote(string(m.Raw)), Cites: &spec.ProgressIncreases})
		}
		values = append(values, *p.Progress)
	}
	return values
}

// Pause lets d pass, or less if the check runs out of time.
func Pause(t *check.T, d time.Duration) {
	select {
	case <-time.After(d):
	case <-t.Context().Done():
	}
}

// ExpectStatus fails the check unless resp has the status want.
func ExpectStatus(t *check.T, resp *wire.Response, want int, what string) {
	if resp.Status != want {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", what, resp.Status), Got: resp.Summary(), Want: fmt.Sprintf("HTTP %d", want)})
	}
}

// ExpectResponse returns the response with id in resp's body, or fails.
func ExpectResponse(t *check.T, resp *wire.Response, id, what string) *wire.Msg {
	if resp.ContentType != "application/json" && resp.ContentType != "text/event-stream" {
		t.Fail(check.Failure{What: fmt.Sprintf("the answer to %s is neither application/json nor text/event-stream", what), Got: resp.Summary(), Spec: true})
	}
	m := resp.Find(id)
	if m == nil {
		t.Fail(check.Failure{What: fmt.Sprintf("the answer to %s holds no JSON-RPC response with id %s", what, id), Got: resp.Summary(), Spec: true})
	}
	return m
}

// CallTool calls a tool in a session (or without one, when session is "")
// and returns the text of its result.
func CallTool(t *check.T, h *wire.HTTP, session, id, tool string, args map[string]any) string {
	if args == nil {
		args = map[string]any{}
	}
	resp := h.Post(session, spec.Rev, wire.Request(id, "tools/call", wire.ToolCall(tool, args, nil)), "tools/call "+tool)
	ExpectStatus(t, resp, http.StatusOK, "tools/call "+tool)
	return ToolText(t, ExpectResponse(t, resp, id, "tools/call "+tool), tool)
}
