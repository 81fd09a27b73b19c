// Package jsonrpc holds the JSON-RPC 2.0 message types that every stage of the
// course shares. It is given code: the stages decide how messages travel (a
// line on stdin, an HTTP body, an SSE event); this package only says what a
// message is.
//
// The rules come from the JSON-RPC 2.0 specification (§4 Request, §4.1
// Notification, §5 Response, §5.1 Error object) as tightened by MCP 2025-11-25
// (basic/index, "Messages"): request ids are strings or integers and never null.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Version is the only value the "jsonrpc" member may hold.
const Version = "2.0"

// The error codes JSON-RPC 2.0 reserves (§5.1), which MCP uses as they are.
const (
	CodeParseError     = -32700 // the text is not JSON
	CodeInvalidRequest = -32600 // JSON, but not a valid message
	CodeMethodNotFound = -32601 // no such method
	CodeInvalidParams  = -32602 // the method exists; its params are wrong
	CodeInternalError  = -32603 // the server failed while handling the request
)

// Error is the "error" member of an error response.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`

	// HTTPStatus is the HTTP status a Streamable HTTP transport answers
	// this error with, when the protocol fixes one: MCP 2026-07-28 asks 404
	// for an unknown method and 400 for a malformed _meta, a header that
	// does not match the body, a missing client capability or an
	// unsupported version (basic/transports/streamable-http, "Protocol
	// Version Header" and "Server Validation"). Zero means the protocol
	// fixes none, and a transport answers 200 as for any response. It is
	// never sent: it belongs to the transport, not to the message.
	HTTPStatus int `json:"-"`
}

// NewError returns an Error with the given code and a formatted message.
func NewError(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// ID identifies a request. It is a JSON string or a JSON integer, kept as its
// exact JSON text so that the string "7" and the number 7 stay different ids,
// as the spec requires: a response must carry the id of its request unchanged.
//
// The zero ID means "no id"; on its own it is written as null.
type ID struct{ raw string }

// StringID returns the id "s".
func StringID(s string) ID {
	b, _ := json.Marshal(s) // a Go string always marshals
	return ID{raw: string(b)}
}

// IntID returns the integer id n.
func IntID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// IsZero reports whether id is the zero ID (no id).
func (id ID) IsZero() bool { return id.raw == "" }

// String returns the id's JSON text, such as 7 or "abc"; "null" for the zero ID.
func (id ID) String() string {
	if id.raw == "" {
		return "null"
	}
	return id.raw
}

// MarshalJSON writes the id as it arrived; the zero ID becomes null.
func (id ID) MarshalJSON() ([]byte, error) { return []byte(id.String()), nil }

// ErrBadID is returned for an id that is neither a string nor an integer.
var ErrBadID = errors.New("id must be a string or an integer")

// UnmarshalJSON accepts a JSON string or integer. It rejects null, fractions,
// exponents, booleans, arrays and objects: none is a valid MCP request id.
func (id *ID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ErrBadID
	}
	switch {
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return ErrBadID
		}
		id.raw = string(data)
		return nil
	case data[0] == '-' || (data[0] >= '0' && data[0] <= '9'):
		if bytes.ContainsAny(data, ".eE") {
			return ErrBadID
		}
		if _, err := strconv.ParseInt(string(data), 10, 64); err != nil {
			return ErrBadID
		}
		id.raw = string(data)
		return nil
	}
	return ErrBadID
}

// Message is one JSON-RPC 2.0 message. Which members are set tells its kind:
//
//	request:      jsonrpc, id, method, params (optional)
//	notification: jsonrpc, method, params (optional), and no id
//	response:     jsonrpc, id, and exactly one of result or error
//
// Decoding untrusted input straight into a Message cannot tell an absent id
// from "id": null (both leave ID nil), so transports validate the raw JSON
// first; see the stage 01 lesson.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *ID             `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// IsRequest reports whether m is a request: it has a method and an id.
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a notification: a method and no id.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports whether m is a response: no method, but a result or an error.
func (m *Message) IsResponse() bool { return m.Method == "" && (m.Result != nil || m.Error != nil) }

// NewResult returns the success response to the request with the given id.
// The result is marshalled to JSON; a nil result becomes {}, never null,
// because MCP results are always objects.
func NewResult(id ID, result any) (*Message, error) {
	raw := json.RawMessage(`{}`)
	if result != nil {
		b, err := json.Marshal(result)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	return &Message{JSONRPC: Version, ID: &id, Result: raw}, nil
}

// NewErrorResponse returns the error response to the request with the given
// id. Pass the zero ID when the request's id could not be read: the response
// then has no id at all. MCP 2025-11-25 allows exactly that ("Error
// Responses": the id may be left out when it could not be read), and MCP
// request ids may not be null, so "id": null would not be valid MCP.
func NewErrorResponse(id ID, err *Error) *Message {
	m := &Message{JSONRPC: Version, Error: err}
	if !id.IsZero() {
		m.ID = &id
	}
	return m
}

// NewNotification returns a notification with the given method and params.
func NewNotification(method string, params any) (*Message, error) {
	m := &Message{JSONRPC: Version, Method: method}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		m.Params = b
	}
	return m, nil
}
