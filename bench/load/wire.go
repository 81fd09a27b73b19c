// Package load is the benchmark's load generator: closed-loop clients for
// Streamable HTTP and stdio, SSE stream readers, and samples of a server's
// CPU time and memory from /proc.
package load

import (
	"bytes"
	"strconv"
)

// EchoText is the text every echo call sends, and every answer must carry
// back. The canned server answers with it without reading the request.
const EchoText = "hello, bench"

// ProtocolVersion is the version the clients ask for.
const ProtocolVersion = "2025-11-25"

// The requests the clients send, with %d for the id where there is one.
const (
	initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + ProtocolVersion +
		`","capabilities":{},"clientInfo":{"name":"mcp-course-bench","version":"1"}}}`
	initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// echoRequest appends a tools/call of echo with id to b.
func echoRequest(b []byte, id int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+EchoText+`"}}}`...)
	return b
}

var echoAnswer = []byte(`"text":"` + EchoText + `"`)

// answers reports whether body holds the response to request id: the id,
// and the echoed text. It looks for the bytes rather than decoding JSON, so
// that checking costs the client little; a JSON or SSE body both pass.
func answers(body []byte, id int64) bool {
	if !bytes.Contains(body, echoAnswer) {
		return false
	}
	var key [32]byte
	k := strconv.AppendInt(append(key[:0], `"id":`...), id, 10)
	for rest := body; ; {
		i := bytes.Index(rest, k)
		if i < 0 {
			return false
		}
		rest = rest[i+len(k):]
		if len(rest) == 0 || rest[0] < '0' || rest[0] > '9' {
			return true
		}
	}
}

// responseID returns the integer id of a JSON-RPC response line, or -1 for
// a line that is not a response with an integer id (a notification).
func responseID(line []byte) int64 {
	if bytes.Contains(line, []byte(`"method":`)) {
		return -1
	}
	i := bytes.Index(line, []byte(`"id":`))
	if i < 0 {
		return -1
	}
	var n int64
	digits := 0
	for _, c := range line[i+5:] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
		digits++
	}
	if digits == 0 {
		return -1
	}
	return n
}
