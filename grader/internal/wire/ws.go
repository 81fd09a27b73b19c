package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"mcpcourse/grader/check"
)

// WS is a conversation with the target's WebSocket entry point, /ws beside
// the MCP endpoint: one JSON-RPC message per text frame, each way. Frames
// are read on a goroutine of their own, under the check's deadline, and
// every wait for one has a deadline too.
type WS struct {
	t    *check.T
	conn *websocket.Conn

	frames  chan Frame // closed when the connection ends
	pending []Frame
	ended   bool
	endErr  error // why the connection ended: a *websocket.CloseError when the server said goodbye

	pings atomic.Int64 // pings the server has sent
	deaf  atomic.Bool  // set by IgnorePings: pings go unanswered
}

// Frame is one message the target sent.
type Frame struct {
	Text   string
	Binary bool
	Msg    *Msg  // nil when the frame is not one JSON object
	Err    error // why Msg is nil
}

// WSURL is the address of the target's WebSocket entry point.
func (h *HTTP) WSURL() string {
	return "ws" + strings.TrimPrefix(strings.TrimSuffix(h.URL, "/mcp"), "http") + "/ws"
}

// DialWS opens a WebSocket to /ws with the given extra headers (Origin;
// Host sets the Host). The handshake must be answered within T1. When the
// server refuses it, DialWS returns a nil *WS and the HTTP answer; when it
// upgrades, the answer's status is 101. The connection is closed when the
// check ends.
func (h *HTTP) DialWS(header http.Header, purpose string) (*WS, *Response) {
	if header == nil {
		header = http.Header{}
	}
	h.recordWS(header, purpose)
	ctx, cancel := context.WithTimeout(h.t.Context(), T1)
	defer cancel()
	d := websocket.Dialer{HandshakeTimeout: T1, NetDialContext: h.dial}
	conn, resp, err := d.DialContext(ctx, h.WSURL(), header)
	if resp == nil {
		h.t.Fail(check.Failure{What: fmt.Sprintf("opening a WebSocket to /ws (%s): %v", purpose, err),
			Hint: "The grader opens ws://ADDR/ws beside /mcp. Mount your handler's WebSocket() at /ws in cmd/server, and answer the handshake at once."})
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	h.t.Wire.Received(fmt.Sprintf("HTTP %d %s", resp.StatusCode, headerSummary(resp.Header)))
	if len(body) > 0 {
		h.t.Wire.Received(string(body))
	}
	answer := &Response{Status: resp.StatusCode, Header: resp.Header, Body: body, ContentType: mediaType(resp.Header.Get("Content-Type"))}
	if err != nil {
		return nil, answer
	}
	ws := &WS{t: h.t, conn: conn, frames: make(chan Frame, 256)}
	conn.SetPingHandler(ws.onPing)
	h.t.Cleanup(func() { conn.Close() })
	go ws.read()
	return ws, answer
}

// recordWS logs a handshake on the wire, and keeps it for the repro as the
// curl command that shows whether the server upgrades (101) or refuses.
func (h *HTTP) recordWS(header http.Header, purpose string) {
	var hdrs []string
	cmd := []string{"curl -sS -i --max-time 2 -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='"}
	for name, values := range header {
		for _, v := range values {
			hdrs = append(hdrs, name+": "+v)
			cmd = append(cmd, shellQuote("-H", name+": "+v))
		}
	}
	h.t.Wire.Sent(fmt.Sprintf("GET /ws, a WebSocket handshake (%s) %s", purpose, strings.Join(hdrs, "; ")))
	cmd = append(cmd, "http://"+h.reproAddr()+"/ws")
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests = append(h.requests, curl{cmd: strings.Join(cmd, " ")})
}

func (ws *WS) read() {
	defer close(ws.frames)
	if deadline, ok := ws.t.Context().Deadline(); ok {
		ws.conn.SetReadDeadline(deadline)
	}
	for {
		kind, data, err := ws.conn.ReadMessage()
		if err != nil {
			ws.endErr = err
			return
		}
		f := Frame{Text: string(data), Binary: kind == websocket.BinaryMessage}
		if f.Binary {
			f.Err = errors.New("a binary frame")
		} else {
			f.Msg, f.Err = Parse(data)
		}
		ws.t.Wire.Received("frame: " + f.Text)
		select {
		case ws.frames <- f:
		case <-ws.t.Context().Done():
			return
		}
	}
}

// onPing counts a ping from the server and, unless the client plays deaf,
// answers it with a pong, as gorilla's own handler does. It runs on the
// reading goroutine, so a client answers pings only while it reads, as
// every real one does.
func (ws *WS) onPing(data string) error {
	ws.pings.Add(1)
	if ws.deaf.Load() {
		ws.t.Wire.Received("ping frame, left unanswered")
		return nil
	}
	ws.t.Wire.Received("ping frame, answered with a pong")
	err := ws.conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(write))
	if err != nil && !errors.Is(err, websocket.ErrCloseSent) {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil // a pong that cannot leave in time is a pong the server misses
		}
		return err
	}
	return nil
}

// IgnorePings makes the client answer no ping from now on: a client whose
// machine vanished, or a broken one that keeps its connection open.
func (ws *WS) IgnorePings() {
	ws.deaf.Store(true)
	ws.t.Wire.Event("from now on the client answers no ping")
}

// Subprotocol returns the subprotocol the server chose in its 101, or ""
// for none.
func (ws *WS) Subprotocol() string {
	return ws.conn.Subprotocol()
}

// Pings returns how many pings the server has sent so far.
func (ws *WS) Pings() int {
	return int(ws.pings.Load())
}

// Send writes text as one text frame.
func (ws *WS) Send(text string) {
	ws.SendFrame(websocket.TextMessage, text)
}

// SendFrame writes one frame of the given kind (websocket.TextMessage or
// BinaryMessage).
func (ws *WS) SendFrame(kind int, text string) {
	ws.t.Wire.Sent("frame: " + text)
	ws.conn.SetWriteDeadline(time.Now().Add(write))
	if err := ws.conn.WriteMessage(kind, []byte(text)); err != nil {
		ws.t.Failf("sending a frame on the WebSocket: %v", err)
	}
}

// next returns the next frame, or false when the connection has ended or
// timeout fires.
func (ws *WS) next(timeout <-chan time.Time) (Frame, bool) {
	if ws.ended {
		return Frame{}, false
	}
	select {
	case f, ok := <-ws.frames:
		if !ok {
			ws.ended = true
		}
		return f, ok
	case <-timeout:
		return Frame{}, false
	}
}

// Await waits up to within for a frame holding a message for which match
// returns true. Other frames are kept for later calls. If none comes in
// time, or the connection ends first, the check fails; what names the
// awaited message, such as "response to ping (id 2)".
func (ws *WS) Await(within time.Duration, what string, match func(*Msg) bool) *Msg {
	for i, f := range ws.pending {
		if f.Msg != nil && match(f.Msg) {
			ws.pending = append(ws.pending[:i], ws.pending[i+1:]...)
			return f.Msg
		}
	}
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		f, ok := ws.next(timer.C)
		switch {
		case !ok && ws.ended:
			ws.t.Fail(check.Failure{What: fmt.Sprintf("the WebSocket closed (%s) before the %s arrived", describeEnd(ws.endErr), what), Got: ws.stray()})
		case !ok:
			ws.t.Fail(check.Failure{What: fmt.Sprintf("no %s on the WebSocket within %v", what, within), Got: ws.stray()})
		case f.Msg != nil && match(f.Msg):
			return f.Msg
		default:
			ws.pending = append(ws.pending, f)
		}
	}
}

// AwaitResponse waits up to T1 for the response to the request with id.
func (ws *WS) AwaitResponse(id, method string) *Msg {
	return ws.Await(T1, fmt.Sprintf("response to %s (id %s)", method, id), func(m *Msg) bool { return m.IsResponseTo(id) })
}

// Call sends a request and waits up to T1 for its response.
func (ws *WS) Call(id, method string, params any) *Msg {
	ws.Send(Request(id, method, params))
	return ws.AwaitResponse(id, method)
}

// Initialize runs the handshake at version: initialize, then
// notifications/initialized. It fails the check unless initialize succeeds.
func (ws *WS) Initialize(version string) *Msg {
	resp := ws.Call(`"init"`, "initialize", InitializeParams(version))
	if resp.Error != nil {
		ws.t.Fail(check.Failure{What: "initialize over the WebSocket failed", Got: check.Quote(string(resp.Raw)), Want: "a result"})
	}
	ws.Send(Notification("notifications/initialized", nil))
	return resp
}

// Quiet fails the check if any frame arrives within window; what says what
// would have been wrong with it.
func (ws *WS) Quiet(window time.Duration, what string) {
	timer := time.NewTimer(window)
	defer timer.Stop()
	if f, ok := ws.next(timer.C); ok {
		ws.t.Fail(check.Failure{What: fmt.Sprintf("%s arrived", what), Got: check.Quote(f.Text), Want: "nothing"})
	}
}

// Pending returns the frames received but not yet taken by Await.
func (ws *WS) Pending() []Frame {
	return append([]Frame(nil), ws.pending...)
}

// CloseCode returns the code of the close frame that ended a connection,
// from AwaitEnd's error; ok is false when no close frame came.
func CloseCode(err error) (code int, ok bool) {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code, true
	}
	return 0, false
}

// AwaitEnd waits up to within for the connection to end, and returns why
// (a *websocket.CloseError when the server sent a close frame). Frames
// that arrive meanwhile are kept. It reports false if the connection is
// still open.
func (ws *WS) AwaitEnd(within time.Duration) (error, bool) {
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		f, ok := ws.next(timer.C)
		switch {
		case ok:
			ws.pending = append(ws.pending, f)
		case ws.ended:
			return ws.endErr, true
		default:
			return nil, false
		}
	}
}

// Drop closes the connection abruptly, without a close frame: a client
// that vanished.
func (ws *WS) Drop() {
	ws.t.Wire.Event("dropped the WebSocket connection")
	ws.conn.NetConn().Close()
}

func describeEnd(err error) string {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return fmt.Sprintf("close code %d %q", ce.Code, ce.Text)
	}
	if err == nil {
		return "no reason"
	}
	return err.Error()
}

// stray lists the frames received but not taken, for failure reports.
func (ws *WS) stray() string {
	if len(ws.pending) == 0 {
		return "no frame"
	}
	var b bytes.Buffer
	for i, f := range ws.pending {
		if i == 5 {
			fmt.Fprintf(&b, "… and %d more frames", len(ws.pending)-i)
			break
		}
		fmt.Fprintf(&b, "frame %s\n", check.Quote(f.Text))
	}
	return strings.TrimSpace(b.String())
}

// Close ends the connection as a client that is done does: a close frame
// with code 1000, and once the server has answered it, a wait of up to T1
// for the server to close the TCP connection, which RFC 6455 §7.1.1 asks
// the server to do first. It reports whether the server answered with a
// close frame, and whether it then closed the connection.
func (ws *WS) Close() (answered, closed bool) {
	ws.t.Wire.Event("closed the WebSocket (close frame 1000)")
	err := ws.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(write))
	why, ended := ws.AwaitEnd(T1)
	_, answered = CloseCode(why)
	answered = answered && ended && err == nil
	if answered {
		raw := ws.conn.NetConn()
		raw.SetReadDeadline(time.Now().Add(T1))
		var b [64]byte
		for {
			_, err := raw.Read(b[:])
			if err != nil {
				var ne net.Error
				closed = !(errors.As(err, &ne) && ne.Timeout())
				break
			}
		}
	}
	ws.conn.Close()
	return answered, closed
}

// TrySend writes text as one text frame within d, and returns the error
// instead of failing the check: for a frame so long it needs more time
// than Send gives, or that the server may refuse, and close the connection
// on, before it has all been written.
func (ws *WS) TrySend(text string, d time.Duration) error {
	ws.t.Wire.Sent(fmt.Sprintf("frame of %d bytes: %s", len(text), text))
	ws.conn.SetWriteDeadline(time.Now().Add(d))
	return ws.conn.WriteMessage(websocket.TextMessage, []byte(text))
}
