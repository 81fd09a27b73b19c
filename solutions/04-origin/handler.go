// @step 6: the package doc of the finished stage

// Package origin is stage 04 of the MCP transports course: it decides which
// web pages may talk to the server. A browser lets any page send requests to
// any address, localhost included; the server is what must refuse a page it
// does not trust. The spec says servers MUST validate the Origin header on
// all incoming connections, and answer 403 Forbidden to an Origin that is
// present and invalid (MCP 2025-11-25, basic/transports, "Security
// Warning").
//
// It wraps stage 03's handler, without copying it:
//
//	/mcp  Host check → Origin check (403) → CORS (rs/cors) → stage 03
//	/ws   Host check → WebSocket handshake, Origin checked by Upgrader.CheckOrigin
//	      → stage 01's message loop, one JSON-RPC message per text frame
//
// One Allowlist decides for every entry point a browser can reach.
package origin

// @starter
// | // Package origin is stage 04 of the MCP transports course: it decides which
// | // web pages may talk to the server. A browser lets any page send requests to
// | // any address, localhost included; the server is what must refuse a page it
// | // does not trust. The spec says servers MUST validate the Origin header on
// | // all incoming connections, and answer 403 Forbidden to an Origin that is
// | // present and invalid (MCP 2025-11-25, basic/transports, "Security
// | // Warning").
// | //
// | // You write this package. lessons/04-origin.md explains each step, and
// | // `go test ./grader -run Lesson04` grades it. Every place to write is marked
// | // TODO(step N). It wraps your stage 03 handler, without copying it:
// | //
// | //	/mcp  Host check → Origin check (403) → CORS (rs/cors) → stage 03
// | //	/ws   Host check → WebSocket handshake, Origin checked by Upgrader.CheckOrigin
// | //	      → stage 01's message loop, one JSON-RPC message per text frame
// | //
// | // One Allowlist decides for every entry point a browser can reach.
// | package origin
// @end

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/cors"

	streamable "mcpcourse/solutions/02-streamable-http"
	resume "mcpcourse/solutions/03-sse-resume"

	"mcpcourse/internal/httpjson"
	"mcpcourse/internal/mcp"
)

// codeServerError is the JSON-RPC error code in the bodies of this stage's
// HTTP errors, 403 among them: a server error (JSON-RPC 2.0 keeps -32000 to
// -32099 for them), as in stage 02's.
const codeServerError = -32000

// Options configures a Handler.
type Options struct {
	resume.Options // stage 03: sessions, streams, replay

	// AllowOrigins lists the web origins that may use the server, as
	// patterns (see Allowlist). Empty means LoopbackOrigins.
	AllowOrigins []string

	// AllowHosts lists the DNS names, beyond localhost, that a request's
	// Host may carry: mcp.example.com, or *.example.com for the names below
	// a domain. IP addresses are always allowed. A server that clients reach
	// by a name of its own needs it; every other name gets 403, since DNS
	// rebinding could have produced it.
	AllowHosts []string

	// WebSocketPing is how often the WebSocket entry point pings a client;
	// one that answers no ping and sends no frame for three of them is let
	// go. Zero means DefaultWebSocketPing.
	WebSocketPing time.Duration
}

// Handler serves the MCP endpoint (ServeHTTP) and the WebSocket entry point
// (WebSocket) of one server, behind one allowlist.
type Handler struct {
	server   *mcp.Server
	allow    *Allowlist
	hosts    hostList // the names Host may carry beyond localhost and IP addresses
	mcp      *resume.Handler
	endpoint http.Handler // mcp behind the guard and CORS
	upgrader websocket.Upgrader
	sockets  sockets
	ping     time.Duration // how often a socket is pinged
}

// NewHandler returns a Handler that serves server. It fails if an allowed
// origin or host is malformed.
func NewHandler(server *mcp.Server, opts Options) (*Handler, error) {
	allow, err := NewAllowlist(opts.AllowOrigins...)
	if err != nil {
		return nil, err
	}
	hosts, err := newHostList(opts.AllowHosts)
	if err != nil {
		return nil, err
	}
	h := &Handler{server: server, allow: allow, hosts: hosts, mcp: resume.NewHandler(server, opts.Options)}
	h.sockets.max = opts.MaxSessions
	if h.sockets.max <= 0 {
		h.sockets.max = streamable.DefaultMaxSessions
	}
	h.ping = opts.WebSocketPing
	if h.ping <= 0 {
		h.ping = DefaultWebSocketPing
	}

	// @step 4: CORS with rs/cors, inside the guard
	// CORS lets a page the allowlist trusts read the answers, and send the
	// headers MCP needs. It runs inside the guard: rs/cors answers every
	// preflight with 204, a refused origin's included (it only leaves out
	// the Access-Control-Allow-* headers), so a preflight must meet the 403
	// before it reaches rs/cors.
	grant := cors.New(cors.Options{
		AllowOriginFunc: allow.Allows, // the same allowlist; the answer echoes the origin, never "*"
		AllowedMethods:  []string{http.MethodGet, http.MethodPost, http.MethodDelete},
		AllowedHeaders: []string{"Accept", "Content-Type", "Authorization",
			streamable.SessionIDHeader, streamable.ProtocolVersionHeader, resume.LastEventIDHeader},
		ExposedHeaders: []string{streamable.SessionIDHeader}, // so that a page can read its session id
		MaxAge:         600,                                  // seconds a browser may reuse the grant, so not every request costs a preflight
	})
	h.endpoint = h.guard(grant.Handler(h.mcp))
	// @starter
	// | // TODO(step 4): CORS, with github.com/rs/cors, between the guard and
	// | // stage 03: cors.New(cors.Options{...}).Handler(h.mcp), where
	// | //   - AllowOriginFunc is allow.Allows (the same allowlist; rs/cors
	// | //     then echoes the origin, never "*"),
	// | //   - AllowedMethods are GET, POST and DELETE,
	// | //   - AllowedHeaders are Accept, Content-Type, Authorization and
	// | //     MCP's own: streamable.SessionIDHeader,
	// | //     streamable.ProtocolVersionHeader, resume.LastEventIDHeader,
	// | //   - ExposedHeaders is streamable.SessionIDHeader, so that a page
	// | //     can read its session id,
	// | //   - MaxAge is 600: a browser may reuse the grant for ten minutes
	// | //     rather than send a preflight before every request.
	// | // rs/cors answers every preflight with 204, a refused origin's
	// | // included: it must sit inside the guard, never around it.
	// | h.endpoint = h.guard(h.mcp)
	// @end

	h.upgrader = websocket.Upgrader{
		// @step 5: the WebSocket handshake asks the allowlist
		CheckOrigin: h.originAllowed,
		// @starter
		// | // TODO(step 5): CheckOrigin: h.originAllowed. Left nil, gorilla
		// | // compares the Origin's host with Host, which refuses every
		// | // allowed page served from another host.
		// @end
		HandshakeTimeout: handshakeTimeout,
		Subprotocols:     []string{subprotocol}, // chosen when the client offers it
		Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
			if status == http.StatusForbidden {
				forbidden(w, "Origin %q may not open a WebSocket to this server", r.Header.Get("Origin"))
				return
			}
			w.Header().Set("Sec-Websocket-Version", "13") // what gorilla's own answer says
			httpjson.Error(w, status, codeServerError, "%v", reason)
		},
	}
	return h, nil
}

// ServeHTTP serves the MCP endpoint: Streamable HTTP, as stage 03 does, for
// the requests the guard lets through.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.endpoint.ServeHTTP(w, r)
}

// guard refuses a request before anything else looks at it: before CORS,
// before the session is looked up, on every method. A present Origin the
// allowlist does not name gets 403; so does a Host that DNS rebinding could
// have produced.
//
// A request with no Origin is served: CLI and desktop clients send none.
// A browser sends one on every request a page could use against this
// server: a cross-origin fetch, any POST or DELETE, a WebSocket handshake.
// What a page can send without one (a navigation, an <img>, a no-cors
// fetch) is a GET or HEAD that carries no header of the page's choosing:
// without Mcp-Session-Id it reaches no session (stage 02 answers 400, or
// 404 for a made-up id, or 405), and without a body it runs nothing. The
// one Origin-less request that matters, a rebound page's same-origin GET,
// is the Host check's.
func (h *Handler) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// @step 1: a foreign Origin gets 403, on every method
		switch {
		// @step 3: the Host check comes first
		case !h.hostAllowed(r):
			forbiddenHost(w, r)
		// @was 1
		// | // TODO(step 3): before the Origin check, forbiddenHost(w, r) when
		// | // !h.hostAllowed(r).
		// @end
		case !h.originAllowed(r):
			forbidden(w, "Origin %q is not allowed to use this server", r.Header.Get("Origin"))
		default:
			next.ServeHTTP(w, r)
		}
		// @starter
		// | // TODO(step 1): when h.originAllowed(r) is false, answer with
		// | // forbidden(w, ...) and return, whatever the method.
		// | //
		// | // TODO(step 3): before that, forbiddenHost(w, r) when
		// | // !h.hostAllowed(r).
		// | next.ServeHTTP(w, r)
		// @end
	})
}

// originAllowed reports whether r's Origin, if it has one, is on the
// allowlist. Two Origin headers are one too many.
func (h *Handler) originAllowed(r *http.Request) bool {
	// @step 1: no Origin, or exactly one the allowlist allows
	origins := r.Header.Values("Origin")
	return len(origins) == 0 || (len(origins) == 1 && h.allow.Allows(origins[0]))
	// @starter
	// | // TODO(step 1): no Origin header at all (r.Header.Values) is
	// | // allowed; exactly one is allowed when h.allow.Allows it; anything
	// | // else is not.
	// | return true
	// @end
}

// forbidden answers 403 with a JSON-RPC error body, as the spec allows for
// an invalid Origin.
func forbidden(w http.ResponseWriter, format string, args ...any) {
	httpjson.Error(w, http.StatusForbidden, codeServerError, "%s", fmt.Sprintf(format, args...))
}

// forbiddenHost answers 403 to a request whose Host hostAllowed refused,
// saying how to allow the name if it is the server's own.
func forbiddenHost(w http.ResponseWriter, r *http.Request) {
	forbidden(w, "Host %q is neither localhost, an IP address nor a name this server allows: "+
		"DNS rebinding could have produced it (if clients reach the server by that name, allow it with -allow-host)", r.Host)
}

// CloseStreams ends the GET streams and the WebSockets, and refuses new
// ones, for a graceful shutdown (serve.Run calls it before
// http.Server.Shutdown): neither ever ends by itself, and Shutdown does not
// wait for a WebSocket, whose connection it no longer owns.
func (h *Handler) CloseStreams() {
	h.mcp.CloseStreams()
	h.sockets.closeAll()
}

// Close ends every stream, socket and session. It waits up to a second
// for the sockets to send their close frames.
func (h *Handler) Close() {
	h.CloseStreams()
	h.sockets.wait(time.Second)
	h.mcp.Close()
}
