// Package streamable is stage 02 of the MCP transports course: the
// Streamable HTTP transport. One HTTP endpoint, /mcp, takes JSON-RPC messages
// as POST bodies, keeps a session per client behind the MCP-Session-Id
// header, and can run without sessions at all (MCP 2025-11-25,
// basic/transports, "Streamable HTTP").
//
// You write this package. lessons/02-streamable-http.md explains each step,
// and `go test ./grader -run Lesson02` grades it. Every place to write is
// marked TODO(step N). It builds on your stage 01 package: an HTTP body holds
// the same JSON-RPC a stdin line does, so read it with stdio.Decode.
package streamable

import (
	"context"
	"log"
	"net/http"
	"time"

	"mcpcourse/internal/httpjson"
	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// The headers of the transport. Go writes header names in canonical form
// (Mcp-Session-Id); HTTP header names are case-insensitive, so this is the
// same header the spec spells MCP-Session-Id.
const (
	SessionIDHeader       = "Mcp-Session-Id"
	ProtocolVersionHeader = "Mcp-Protocol-Version"
)

// Error codes for failures of the transport itself, sent in the JSON-RPC
// error bodies of HTTP errors. JSON-RPC 2.0 keeps -32000 to -32099 for
// implementation-defined server errors.
const (
	codeInvalidRequest  = jsonrpc.CodeInvalidRequest
	codeServerError     = -32000
	codeSessionNotFound = -32001
)

// Defaults for Options.
const (
	DefaultMaxBodyBytes   = 4 << 20
	DefaultSessionTimeout = 30 * time.Minute
	DefaultMaxSessions    = 1000
)

// Options configures a Handler. The zero value gives a stateful handler with
// the defaults above.
type Options struct {
	// Stateless turns sessions off. No MCP-Session-Id is issued or needed,
	// every request is served by a fresh session of its own, and GET and
	// DELETE are refused with 405.
	Stateless bool

	// SessionTimeout ends a session that has seen no request for this long.
	SessionTimeout time.Duration

	// MaxSessions caps how many sessions may live at once. An initialize
	// beyond it gets 503 Service Unavailable.
	MaxSessions int

	// MaxBodyBytes caps the size of a POST body. A larger one gets 413.
	MaxBodyBytes int64

	// Logger receives a line per session started or ended. Nil means the
	// standard logger (stderr).
	Logger *log.Logger

	// The two plugs through which a later stage extends this handler
	// without copying it (see streams.go). Stage 02 leaves both nil.

	// Streams opens the SSE stream that answers a request. Nil means plain
	// streams without event ids.
	Streams Streams

	// GET serves GET requests in stateful mode: the client's standalone
	// stream. Nil means GET gets 405, as it always does when stateless.
	GET http.Handler
}

// Handler serves the MCP endpoint. Mount it at one path, such as /mcp.
type Handler struct {
	server   *mcp.Server
	opts     Options
	sessions *sessionStore // nil in stateless mode
	streams  Streams
	log      *log.Logger
}

// NewHandler returns a Handler that serves server.
func NewHandler(server *mcp.Server, opts Options) *Handler {
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	h := &Handler{server: server, opts: opts, streams: opts.Streams, log: opts.Logger}
	if h.log == nil {
		h.log = log.Default()
	}
	if h.streams == nil {
		h.streams = plainStreams{}
	}
	if !opts.Stateless {
		h.sessions = newSessionStore(opts.SessionTimeout, opts.MaxSessions)
	}
	return h
}

// Close ends every session and cancels the requests still running in them.
func (h *Handler) Close() {
	if h.sessions != nil {
		h.sessions.close()
	}
}

// CloseStreams is the first step of a graceful shutdown (serve.Run calls it
// before http.Server.Shutdown): it ends the streams that never end by
// themselves. This stage has none: each of its streams answers one POST and
// ends with that request, so Shutdown's grace period is all it needs, and
// Close cancels what is still running after it. A later stage that adds a
// stream of its own (stage 03's GET stream) ends it in its CloseStreams,
// which calls this one too.
func (h *Handler) CloseStreams() {}

// ServeHTTP dispatches on the method. The spec names POST and GET for the MCP
// endpoint, and DELETE for ending a session; everything else is 405.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A later stage serves GET itself, through Options.GET; this stage
	// never does.
	if r.Method == http.MethodGet && h.opts.GET != nil && !h.opts.Stateless {
		h.opts.GET.ServeHTTP(w, r)
		return
	}
	// TODO(step 1): POST goes to h.servePOST.
	// TODO(step 2): DELETE goes to h.serveDELETE, unless stateless.
	// TODO(step 4): everything else, GET included, goes to
	// h.methodNotAllowed, at once.
	httpjson.Error(w, http.StatusNotImplemented, codeServerError,
		"the Streamable HTTP handler is not written yet: start at step 1 of lessons/02-streamable-http.md")
}

// methodNotAllowed answers 405 Method Not Allowed.
func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	// TODO(step 4): set the Allow header to h.allowed(), the methods this
	// server does serve, then answer with httpjson.Error and status 405.
}

// allowed lists the methods this handler serves, for the Allow header.
func (h *Handler) allowed() string {
	switch {
	case h.opts.Stateless:
		return "POST"
	case h.opts.GET != nil:
		return "GET, POST, DELETE"
	}
	return "POST, DELETE"
}

// serveDELETE ends a session at the client's request (basic/transports,
// "Session Management": clients SHOULD send DELETE when they are done).
func (h *Handler) serveDELETE(w http.ResponseWriter, r *http.Request) {
	// TODO(step 2): without MCP-Session-Id, answer 400; for an id that is
	// not a live session, 404; otherwise end the session and answer 204.
	//
	// TODO(step 3): first of all, refuse a bad MCP-Protocol-Version with
	// h.ProtocolVersion(w, r, nil), as servePOST does.
}

// requestContext is the context a request runs under. In stateful mode a
// dropped connection does not cancel the request: the spec says a
// disconnection SHOULD NOT be taken for cancellation, and a client cancels
// with notifications/cancelled. The request still ends when its session
// ends. A stateless request has no session to be cancelled through, so
// there the connection is all that ties it to its client.
func (h *Handler) requestContext(r *http.Request) context.Context {
	if h.opts.Stateless {
		return r.Context()
	}
	return context.WithoutCancel(r.Context())
}
