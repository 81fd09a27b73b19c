package lesson04

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// A stalledSocket is a client of /ws that has stopped reading in the middle
// of an answer too long for the kernel to buffer: the server's write of
// that frame waits for it. The grader's own WebSocket client (wire.WS)
// reads every frame at once, so this one is a raw gorilla connection with
// a small receive buffer.
type stalledSocket struct {
	t     *check.T
	conn  *websocket.Conn
	rest  io.Reader // the rest of the long answer, once its start was read
	began time.Time // when the long answer began to arrive
	size  int       // the length of the text echoed back
}

// clientBuffer is the receive buffer of a stalledSocket: fixed, where the
// kernel would grow it to tens of megabytes, yet above loopback's segment
// size (64 KiB), so that a client that reads again is sent the rest at once.
const clientBuffer = 256 << 10

// stallBytes is the length of a text whose echo no kernel on this machine
// buffers whole: more than a TCP send buffer may grow to (tcp_wmem's
// maximum) and the client's receive buffer together. It ends the check
// unrun where a frame could not be that long.
func stallBytes(t *check.T) int {
	most := 4 << 20 // Linux's default maximum; other systems' are smaller
	if b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_wmem"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 3 {
			if n, err := strconv.Atoi(f[2]); err == nil && n > most {
				most = n
			}
		}
	}
	size := most + 1<<20
	if size > maxFrame-1<<20 {
		t.CannotRun(fmt.Sprintf("this machine's TCP send buffers may grow to %d bytes (net.ipv4.tcp_wmem), more than a frame may hold: no answer the grader can ask for is long enough to make a write wait", most))
	}
	return size
}

// openStalled opens a socket, initializes it, asks for the echo of a text
// of size bytes, reads the first bytes of the answer, and stops reading.
func openStalled(t *check.T, h *wire.HTTP, size int, purpose string) *stalledSocket {
	d := websocket.Dialer{HandshakeTimeout: wire.T1, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(clientBuffer) // before any data: the kernel cannot take in the server's frame whole
		}
		return c, err
	}}
	t.Wire.Sent(fmt.Sprintf("GET /ws, a WebSocket handshake (%s), from a client with a 256 KiB receive buffer", purpose))
	ctx, cancel := context.WithTimeout(t.Context(), wire.T1)
	defer cancel()
	conn, resp, err := d.DialContext(ctx, h.WSURL(), nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
			resp.Body.Close()
		}
		t.Fail(check.Failure{What: fmt.Sprintf("the WebSocket handshake (%s) failed: HTTP %d, %v", purpose, status, err), Want: "HTTP 101 Switching Protocols", Cause: causeWebSocket})
	}
	t.Cleanup(func() { conn.Close() })
	s := &stalledSocket{t: t, conn: conn, size: size}

	within := 2 * wire.T2 // megabytes through json.Compact, on a loaded machine
	if probe.RaceBuilt(t) {
		within = 15 * time.Second // and under the race detector
	}
	s.send(wire.Request(`"init"`, "initialize", wire.InitializeParams(spec.Rev)), "initialize")
	conn.SetReadDeadline(time.Now().Add(wire.T1))
	if _, _, err := conn.ReadMessage(); err != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("no answer to initialize on the socket (%s): %v", purpose, err), Want: "the InitializeResult"})
	}
	s.send(wire.Notification("notifications/initialized", nil), "notifications/initialized")
	s.send(wire.Request(`"long"`, "tools/call", wire.ToolCall("echo", map[string]any{"text": strings.Repeat("s", size)}, nil)),
		fmt.Sprintf("tools/call echo of a %d-byte text", size))
	conn.SetReadDeadline(time.Now().Add(within))
	kind, r, err := conn.NextReader()
	if err != nil || kind != websocket.TextMessage {
		t.Fail(check.Failure{What: fmt.Sprintf("no answer began to arrive within %v for an echo of %d bytes (%s): %v", within, size, purpose, err), Want: "a text frame: the echo's result"})
	}
	s.began = time.Now()
	var head [64]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("the echo's answer (%s) broke off after its first bytes: %v", purpose, err), Want: "the echo's result"})
	}
	s.rest = r
	t.Wire.Event("read the first 64 bytes of the echo's answer (%s), then stopped reading: %s", purpose, head[:])
	return s
}

// send writes one text frame, and fails the check if it cannot within T1.
func (s *stalledSocket) send(text, what string) {
	s.t.Wire.Sent(fmt.Sprintf("frame of %d bytes: %s", len(text), what))
	s.conn.SetWriteDeadline(time.Now().Add(wire.T1))
	if err := s.conn.WriteMessage(websocket.TextMessage, []byte(text)); err != nil {
		s.t.Failf("sending %s on the socket: %v", what, err)
	}
}

// queue sends n pings behind the long answer, none of which can be answered
// before it: more than stage 01 runs at once (MaxInFlight, 256), so that
// the loop, and then its reader, are left holding one too.
func (s *stalledSocket) queue(n int) {
	s.t.Wire.Sent(fmt.Sprintf("%d pings, one frame each", n))
	s.conn.SetWriteDeadline(time.Now().Add(wire.T1))
	for i := 0; i < n; i++ {
		if err := s.conn.WriteMessage(websocket.TextMessage, []byte(wire.Request(strconv.Itoa(100+i), "ping", nil))); err != nil {
			s.t.Failf("sending ping %d of %d behind the long answer: %v", i+1, n, err)
		}
	}
}

// finish reads the rest of the long answer and what follows it, within d,
// and returns how many bytes the answer had, and why the connection ended
// after it (a *websocket.CloseError for a close frame), or nil if it had
// not ended by then.
func (s *stalledSocket) finish(d time.Duration) (answer int, end error) {
	s.conn.SetReadDeadline(time.Now().Add(d))
	n, err := io.Copy(io.Discard, s.rest)
	answer = 64 + int(n)
	if err != nil {
		return answer, err
	}
	for {
		if _, _, err := s.conn.ReadMessage(); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return answer, nil
			}
			return answer, err
		}
	}
}
