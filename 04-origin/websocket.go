package origin

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	stdio "mcpcourse/01-stdio"
)

// Timings of the WebSocket entry point.
const (
	handshakeTimeout = 10 * time.Second
	writeTimeout     = 10 * time.Second // one frame to the client

	// DefaultWebSocketPing is how often a socket's client is pinged, to
	// find clients that vanished without closing (Options.WebSocketPing).
	DefaultWebSocketPing = 30 * time.Second
)

// pongWait is how long a socket may stay silent, answering no ping and
// sending no frame, before the server lets it go: three pings, so that a
// client that answers late, or a ping that waits behind a long frame, is
// not taken for one that vanished.
func pongWait(ping time.Duration) time.Duration { return 3 * ping }

// subprotocol is the WebSocket subprotocol the MCP SDKs that ship a
// WebSocket client ask for (TypeScript's WebSocketClientTransport, Python's
// websocket_client): "mcp", one JSON-RPC message per text frame, which is
// what this entry point speaks. A client that offers it must get it back in
// the handshake's answer, or it closes the connection (browsers and Node.js
// do: RFC 6455 §4.1 lets a server pick none, the WHATWG WebSocket standard
// does not). A client that offers none, such as a page calling
// new WebSocket(url), is served all the same.
const subprotocol = "mcp"

// WebSocket returns the handler of the WebSocket entry point. Mount it at
// its own path, such as /ws, beside the MCP endpoint and outside its guard:
// the handshake's Origin is judged by Upgrader.CheckOrigin, against the same
// allowlist, and a refused handshake gets 403.
//
// WebSocket is not one of MCP's standard transports (basic/transports,
// "Custom Transports" allows others). It is here because a browser can open
// one to any address without asking first, carrying the page's Origin: a
// server that does not check it can be driven by any web site its user
// visits (cross-site WebSocket hijacking).
//
// Each connection is a session of its own, served by stage 01's message
// loop: one JSON-RPC message per text frame, each way, under the
// subprotocol "mcp" when the client asks for it. That is all there is to
// set up: the spec asks a custom transport to document how connections are
// made and messages exchanged (basic/transports, "Custom Transports").
func (h *Handler) WebSocket() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// TODO(step 5), in this order:
		//   - !h.hostAllowed(r): forbiddenHost(w, r), as the guard does;
		//   - h.sockets.full(): 503 Service Unavailable;
		//   - ws, err := h.upgrader.Upgrade(w, r, nil): on an error,
		//     Upgrade has answered already (403 when CheckOrigin said
		//     no), so just return;
		//   - h.serveSocket(ws).
		http.Error(w, "the WebSocket entry point is not written yet: step 5 of lessons/04-origin.md", http.StatusNotImplemented)
	})
}

// serveSocket runs the message loop over one connection until the client
// goes, the loop stops, or the server shuts down.
func (h *Handler) serveSocket(ws *websocket.Conn) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if !h.sockets.add(ws, cancel) {
		closeSocket(ws, websocket.CloseGoingAway, "the server is shutting down")
		return
	}
	defer h.sockets.remove(ws)

	// Every frame the client sends, and every pong, shows it is still
	// there: each pushes the read deadline on, and a read past it fails,
	// which ends the loop.
	wait := pongWait(h.ping)
	ws.SetReadLimit(stdio.MaxMessageBytes)
	ws.SetReadDeadline(time.Now().Add(wait))
	ws.SetPongHandler(func(string) error { return ws.SetReadDeadline(time.Now().Add(wait)) })
	go ping(ctx, ws, h.ping)

	in := &frameReader{ws: ws, gone: cancel, wait: wait}
	// TODO(step 5): run stage 01's loop over the socket:
	// stdio.Serve(ctx, in, &frameWriter{ws: ws}, h.server). It returns
	// when the client goes (in cancels ctx), when writing fails, or when
	// the server shuts down (CloseStreams cancels ctx).

	code, reason := in.refused()
	switch {
	case code != 0:
		closeSocket(ws, code, reason)
	case h.sockets.isClosing():
		closeSocket(ws, websocket.CloseGoingAway, "the server is shutting down")
	default:
		closeSocket(ws, websocket.CloseNormalClosure, "")
	}
}

// ping sends a ping every interval until ctx ends. A client that answers
// none, and sends nothing, within pongWait fails its next read.
func ping(ctx context.Context, ws *websocket.Conn, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout))
		}
	}
}

// closeSocket says goodbye with a close frame, if the client is still
// there to read it, and closes the connection.
func closeSocket(ws *websocket.Conn, code int, reason string) {
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	ws.Close()
}

// sockets are the open WebSocket connections, so that a shutdown can end
// them and a crowd of clients cannot open them without bound.
type sockets struct {
	max int

	mu      sync.Mutex
	closing bool
	live    map[*websocket.Conn]context.CancelFunc
	done    sync.WaitGroup // one per connection being served
}

func (s *sockets) full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing || len(s.live) >= s.max
}

func (s *sockets) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// add notes a new connection and how to end it; it reports false once the
// server is shutting down.
func (s *sockets) add(ws *websocket.Conn, end context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	if s.live == nil {
		s.live = map[*websocket.Conn]context.CancelFunc{}
	}
	s.live[ws] = end
	s.done.Add(1)
	return true
}

// remove forgets a connection that has been closed.
func (s *sockets) remove(ws *websocket.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, ws)
	s.done.Done()
}

// closeAll ends every connection and refuses new ones.
func (s *sockets) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for _, end := range s.live {
		end()
	}
}

// wait waits up to d for every connection to have said goodbye, so that a
// process about to exit does not cut them off before their close frames.
func (s *sockets) wait(d time.Duration) {
	closed := make(chan struct{})
	go func() {
		s.done.Wait()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(d):
	}
}
