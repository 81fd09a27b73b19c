package lesson03

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/wire"
)

// rawConn is one TCP connection to the server that the grader writes
// HTTP/1.1 on by hand, for what a client library hides: a request sent in
// two parts, which connection a request travels on, a client that stops
// reading. Every read and write has a deadline.
type rawConn struct {
	t    *check.T
	host string // host:port
	path string // the MCP endpoint's path
	conn net.Conn
	r    *bufio.Reader
}

// dialRaw connects to the server of h. With rcvbuf positive the socket's
// receive buffer is made that small before connecting, so that a client
// that stops reading fills it with little.
func dialRaw(t *check.T, h *wire.HTTP, rcvbuf int) *rawConn {
	u, err := url.Parse(h.URL)
	if err != nil {
		t.Failf("grader bug: the endpoint %q is no URL: %v", h.URL, err)
	}
	d := net.Dialer{Timeout: wire.T1}
	conn, err := d.Dial("tcp", u.Host)
	if err != nil {
		t.Failf("connecting to %s: %v", u.Host, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok && rcvbuf > 0 {
		tc.SetReadBuffer(rcvbuf)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawConn{t: t, host: u.Host, path: u.Path, conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}
}

// head is the start of a request to the endpoint: its request line and
// Host header, without the blank line that ends the header.
func (c *rawConn) head(method string) string {
	return method + " " + c.path + " HTTP/1.1\r\nHost: " + c.host + "\r\n"
}

// headerLines renders hdr as header lines.
func headerLines(hdr http.Header) string {
	var b strings.Builder
	hdr.Write(&b)
	return b.String()
}

// send writes text within 1 s.
func (c *rawConn) send(text string) {
	c.t.Wire.Sent(strings.ReplaceAll(text, "\r\n", "\n"))
	c.conn.SetWriteDeadline(time.Now().Add(wire.T1))
	if _, err := io.WriteString(c.conn, text); err != nil {
		c.t.Fail(check.Failure{What: "sending on a connection of the grader's own: " + err.Error(), Want: "the server reads the request"})
	}
}

// response reads the next response on the connection, head and whole body,
// within d. ok is false, and err says why, when none came whole.
func (c *rawConn) response(d time.Duration) (resp *http.Response, body []byte, err error) {
	c.conn.SetReadDeadline(time.Now().Add(d))
	resp, err = http.ReadResponse(c.r, nil)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	c.t.Wire.Received(fmt.Sprintf("HTTP %d, %d bytes", resp.StatusCode, len(body)))
	return resp, body, err
}

// request writes a whole request: method, headers and body.
func (c *rawConn) request(method string, hdr http.Header, body string) {
	text := c.head(method) + headerLines(hdr)
	if body != "" {
		text += fmt.Sprintf("Content-Length: %d\r\n", len(body))
	}
	c.send(text + "\r\n" + body)
}

// exchange sends a request and reads its whole answer within d.
func (c *rawConn) exchange(method string, hdr http.Header, body string, d time.Duration) (*http.Response, []byte, error) {
	c.request(method, hdr, body)
	return c.response(d)
}

// openRaw reads the head of a stream's response on c, which must be 200
// text/event-stream, and returns its body.
func openRaw(t *check.T, c *rawConn, what string) io.Reader {
	c.conn.SetReadDeadline(time.Now().Add(wire.T2))
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil || resp.StatusCode != http.StatusOK || mediaTypeOf(resp.Header.Get("Content-Type")) != "text/event-stream" {
		t.Fail(check.Failure{What: what + " did not open", Got: fmt.Sprintf("%v %v", err, statusOf(resp)), Want: "HTTP 200 text/event-stream"})
	}
	t.Wire.Received("HTTP 200 text/event-stream (" + what + ")")
	return resp.Body
}

// awaitQuestion reads body until an event carries elicitation/create, within 1 s.
func awaitQuestion(body io.Reader) bool {
	r := wire.NewSSEReader(body)
	for {
		e, err := r.Next()
		if err != nil {
			return false
		}
		if m, err := wire.Parse([]byte(e.Data)); err == nil && m.MethodName() == "elicitation/create" {
			return true
		}
	}
}

// expectWholeEnd reads the rest of a stream's body on c, within 1 s, and
// fails unless it ends whole: a chunked body cut short is a response whose
// end could not be written.
func expectWholeEnd(t *check.T, c *rawConn, body io.Reader, what string) {
	c.conn.SetReadDeadline(time.Now().Add(wire.T1))
	if _, err := io.Copy(io.Discard, body); err != nil {
		t.Fail(check.Failure{What: what + " did not end whole: " + err.Error(),
			Want: "the end of the response: clear the write deadline when the stream ends (eventWriter.finish), or net/http cannot write the end under the deadline that has passed"})
	}
	t.Wire.Event("%s ended whole", what)
}

// mediaTypeOf is a Content-Type without its parameters.
func mediaTypeOf(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.TrimSpace(mt)
}

// statusOf describes resp's status, or its absence.
func statusOf(resp *http.Response) string {
	if resp == nil {
		return "(no response)"
	}
	return resp.Status
}
