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
// of a stream of frames too long for the kernels to buffer: the server's
// write of a frame waits for it. The grader's own WebSocket client (wire.WS)
// reads every frame at once, so this one is a raw gorilla connection with a
// fixed receive buffer.
type stalledSocket struct {
	t     *check.T
	conn  *websocket.Conn
	rest  io.Reader // the rest of the frame being read when the client stopped
	began time.Time // when the stream began to arrive
}

// clientBuffer is the receive buffer of a stalledSocket: fixed, where the
// kernel would grow it to tens of megabytes, yet above loopback's segment
// size (64 KiB), so that a client that reads again is sent the rest at once.
const clientBuffer = 256 << 10

// stallSteps is how many progress notifications the countdown of a
// stalledSocket sends: its most (MaxCountdownSteps).
const stallSteps = 1000

// stallBytes is more than the kernels on this machine buffer between the
// server and a stalledSocket: a TCP send buffer at its largest (tcp_wmem's
// maximum), the client's receive buffer, and a megabyte more.
func stallBytes() int {
	most := 4 << 20 // Linux's default maximum; other systems' are smaller
	if b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_wmem"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 3 {
			if n, err := strconv.Atoi(f[2]); err == nil && n > most {
				most = n
			}
		}
	}
	return most + clientBuffer + 1<<20
}

// A stall is what a stalledSocket asks for before it stops reading.
type stall int

const (
	// A stream of stallSteps progress notifications (countdown, no
	// interval, a long progress token), stallBytes in all: cheap, as the
	// server writes only what the kernels take before its write waits,
	// but when that write begins to wait the client cannot tell.
	stream stall = iota
	// One frame of more than stallBytes (the echo of a long text): dear,
	// as the server reads and writes all of it, but the write waits from
	// the moment the frame begins to arrive.
	oneFrame
)

// openStalled opens a socket, initializes it, asks for what s says, reads
// the first bytes of the first frame of it, and stops reading.
func openStalled(t *check.T, h *wire.HTTP, how stall, purpose string) *stalledSocket {
	d := websocket.Dialer{HandshakeTimeout: wire.T1, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(clientBuffer) // before any data: the kernel cannot take in the server's stream whole
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
	s := &stalledSocket{t: t, conn: conn}

	s.send(wire.Request(`"init"`, "initialize", wire.InitializeParams(spec.Rev)), "initialize")
	conn.SetReadDeadline(time.Now().Add(2 * wire.T2)) // the handshake is the check's business; the load of a busy machine is not
	if _, _, err := conn.ReadMessage(); err != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("no answer to initialize on the socket within %v (%s): %v", 2*wire.T2, purpose, err), Want: "the InitializeResult"})
	}
	s.send(wire.Notification("notifications/initialized", nil), "notifications/initialized")
	within := 2 * wire.T2 // the first notification, on a loaded machine
	if how == stream {
		token := strings.Repeat("s", stallBytes()/stallSteps)
		s.send(wire.Request(`"long"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": stallSteps, "interval_ms": 0}, token)),
			fmt.Sprintf("tools/call countdown from %d, no interval, with a progress token of %d bytes", stallSteps, len(token)))
	} else {
		text := strings.Repeat("s", stallBytes())
		s.send(wire.Request(`"long"`, "tools/call", wire.ToolCall("echo", map[string]any{"text": text}, nil)),
			fmt.Sprintf("tools/call echo of a %d-byte text", len(text)))
		within = 20 * time.Second // megabytes through json.Compact and back, on a loaded machine or under the race detector
	}
	conn.SetReadDeadline(time.Now().Add(within))
	kind, r, err := conn.NextReader()
	if err != nil || kind != websocket.TextMessage {
		t.Fail(check.Failure{What: fmt.Sprintf("no answer began to arrive within %v (%s): %v", within, purpose, err), Want: "a text frame"})
	}
	s.began = time.Now()
	var head [64]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("the first frame (%s) broke off after its first bytes: %v", purpose, err), Want: "a whole frame"})
	}
	if want := map[stall]string{stream: `"notifications/progress"`, oneFrame: `"result"`}[how]; !strings.Contains(string(head[:]), want) {
		t.Fail(check.Failure{What: fmt.Sprintf("the first frame (%s) was not what was asked for", purpose), Got: check.Quote(string(head[:]) + "…"),
			Want: map[stall]string{stream: "notifications/progress, the countdown's first", oneFrame: "the echo's result"}[how]})
	}
	s.rest = r
	t.Wire.Event("read the first 64 bytes of the first frame (%s), then stopped reading: %s", purpose, head[:])
	return s
}

// send writes one text frame, and fails the check if it cannot within T1.
func (s *stalledSocket) send(text, what string) {
	s.t.Wire.Sent(fmt.Sprintf("frame of %d bytes: %s", len(text), what))
	d := wire.T1
	if len(text) > 1<<20 {
		d = 10 * time.Second // megabytes, to a server on a loaded machine
	}
	s.conn.SetWriteDeadline(time.Now().Add(d))
	if err := s.conn.WriteMessage(websocket.TextMessage, []byte(text)); err != nil {
		s.t.Failf("sending %s on the socket: %v", what, err)
	}
}

// queue sends pings behind the streams of stalled, a few at a time, until
// the moment until: so that, whenever in that time the server's write
// begins to wait, many more than stage 01 runs at once (MaxInFlight, 256)
// arrive after it, and the loop, then its reader, are left holding one.
// Those that came before are answered between the stream's frames.
func queue(t *check.T, stalled []*stalledSocket, until time.Time) {
	t.Wire.Sent(fmt.Sprintf("pings on each of the %d sockets, 5 every 5 ms, for %v", len(stalled), time.Until(until).Round(time.Millisecond)))
	id := 100
	for time.Now().Before(until) {
		for _, s := range stalled {
			s.conn.SetWriteDeadline(time.Now().Add(wire.T1))
			for i := 0; i < 5; i++ {
				if err := s.conn.WriteMessage(websocket.TextMessage, []byte(wire.Request(strconv.Itoa(id+i), "ping", nil))); err != nil {
					t.Failf("sending a ping behind the stream: %v", err)
				}
			}
		}
		id += 5
		probe.Pause(t, 5*time.Millisecond)
	}
}

// finish reads what is left of the stream within d, and returns how many
// frames came and why the connection ended after them (a
// *websocket.CloseError for a close frame), or nil if it had not ended by
// then.
func (s *stalledSocket) finish(d time.Duration) (frames int, end error) {
	s.conn.SetReadDeadline(time.Now().Add(d))
	if _, err := io.Copy(io.Discard, s.rest); err != nil {
		return 0, err
	}
	for frames = 1; ; frames++ {
		if _, _, err := s.conn.ReadMessage(); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return frames, nil
			}
			return frames, err
		}
	}
}
