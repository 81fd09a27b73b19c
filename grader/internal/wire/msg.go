// Package wire is the grader's side of the conversation: it writes JSON-RPC
// messages to the program under test and reads its answers, over stdio pipes
// or HTTP, with a deadline on every wait.
//
// The grader parses messages with its own code, not the course's: a check
// must not share a bug with the server it grades.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Msg is one JSON-RPC message as the target sent it. Each member is kept as
// raw JSON (nil when absent), so checks can see exactly what was written.
type Msg struct {
	Raw     []byte
	JSONRPC json.RawMessage
	ID      json.RawMessage
	Method  json.RawMessage
	Params  json.RawMessage
	Result  json.RawMessage
	Error   json.RawMessage
}

// Parse reads data as exactly one JSON object, with nothing after it.
func Parse(data []byte) (*Msg, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var members map[string]json.RawMessage
	if err := dec.Decode(&members); err != nil || members == nil {
		if !json.Valid(data) {
			return nil, errors.New("not JSON")
		}
		return nil, errors.New("JSON, but not an object")
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("unexpected %s after the JSON object", strconv.Quote(string(rest[:min(len(rest), 20)])))
	}
	return &Msg{
		Raw:     data,
		JSONRPC: members["jsonrpc"],
		ID:      members["id"],
		Method:  members["method"],
		Params:  members["params"],
		Result:  members["result"],
		Error:   members["error"],
	}, nil
}

// MethodName returns the method, or "" when there is none or it is not a string.
func (m *Msg) MethodName() string {
	var s string
	json.Unmarshal(m.Method, &s)
	return s
}

// IsResponse reports whether m has an id and no method.
func (m *Msg) IsResponse() bool { return m.ID != nil && m.Method == nil }

// IsResponseTo reports whether m is a response whose id has exactly the JSON
// text id (such as `7` or `"abc"`): the same value and the same JSON type.
func (m *Msg) IsResponseTo(id string) bool {
	return m.IsResponse() && SameJSON(m.ID, json.RawMessage(id))
}

// HasNoID reports whether m carries no id: the member is absent, or null.
// An error for a message whose id could not be read carries none, and
// both forms are right: MCP lets the id be left out ("except in error
// cases where the ID could not be read"), and JSON-RPC 2.0 §5 makes it
// null ("If there was an error in detecting the id in the Request object
// (e.g. Parse error/Invalid Request), it MUST be Null"). Every check that
// wants an error without an id asks this, so that all accept the same.
func (m *Msg) HasNoID() bool { return m.ID == nil || SameJSON(m.ID, json.RawMessage(`null`)) }

// ErrorCode returns the error code of an error response.
func (m *Msg) ErrorCode() (int, bool) {
	var e struct {
		Code *int `json:"code"`
	}
	if json.Unmarshal(m.Error, &e) != nil || e.Code == nil {
		return 0, false
	}
	return *e.Code, true
}

// ResultObject decodes the result into a map, failing if it is not an object.
func (m *Msg) ResultObject() (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(m.Result, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("result is %s, not a JSON object", strconv.Quote(string(m.Result)))
	}
	return obj, nil
}

// Problem returns what makes m an invalid JSON-RPC 2.0 message, or "" if it
// is valid (JSON-RPC 2.0 §4-5; MCP basic/index, "Messages").
func (m *Msg) Problem() string {
	var version string
	if json.Unmarshal(m.JSONRPC, &version) != nil || version != "2.0" {
		return `"jsonrpc" is missing or is not "2.0"`
	}
	if m.Method != nil {
		var method string
		if json.Unmarshal(m.Method, &method) != nil || method == "" {
			return `"method" is not a non-empty string`
		}
		if m.ID != nil && !isValidID(m.ID) {
			return `a request id must be a string or an integer`
		}
		if m.Result != nil || m.Error != nil {
			return `a request or notification must not have "result" or "error"`
		}
		return ""
	}
	if m.ID == nil && m.Error == nil {
		return `neither "method" nor "id": not a request, notification or response`
	}
	if (m.Result == nil) == (m.Error == nil) {
		return `a response has exactly one of "result" and "error"`
	}
	if m.Result != nil && !isValidID(m.ID) {
		return `a result response must carry its request's id (a string or an integer)`
	}
	if m.Error != nil {
		if !m.HasNoID() && !isValidID(m.ID) {
			return `an error response's id must be its request's id, or absent (or null) when it could not be read`
		}
		var e struct {
			Code    *json.Number `json:"code"`
			Message *string      `json:"message"`
		}
		if json.Unmarshal(m.Error, &e) != nil || e.Code == nil || e.Message == nil {
			return `"error" must be an object with "code" and "message"`
		}
		if _, err := strconv.Atoi(e.Code.String()); err != nil {
			return `"error.code" must be an integer`
		}
	}
	return ""
}

func isValidID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// SameJSON reports whether a and b are the same JSON text once insignificant
// white space is removed.
func SameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// Request returns a request as one compact JSON line (without the newline).
// id is the id's JSON text, such as `7` or `"abc"`.
func Request(id, method string, params any) string {
	return encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  any             `json:"params,omitempty"`
	}{"2.0", json.RawMessage(id), method, params})
}

// Notification returns a notification as one compact JSON line.
func Notification(method string, params any) string {
	return encode(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", method, params})
}

func encode(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // the grader's own values always encode
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// InitializeParams returns initialize params asking for the given version.
func InitializeParams(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcp-course-grader", "version": "1.0.0"},
	}
}

// ToolCall returns tools/call params. A nil progressToken sends none.
func ToolCall(name string, args map[string]any, progressToken any) map[string]any {
	p := map[string]any{"name": name, "arguments": args}
	if progressToken != nil {
		p["_meta"] = map[string]any{"progressToken": progressToken}
	}
	return p
}
