package origin

import (
	"io"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// The seam between a WebSocket and stage 01's message loop. The loop,
// stdio.Serve(ctx, in, out, server), reads one JSON-RPC message per line
// from in and writes one per line to out. It runs unchanged over a socket:
//
//	frameReader  each text frame the client sends becomes one line of in
//	frameWriter  each line the loop writes becomes one text frame
//
// so that concurrency, cancellation, batches, error codes and the session's
// outlet (log messages, server requests) all come from stage 01 as they are.

// frameReader gives the loop one line per text frame.
type frameReader struct {
	ws   *websocket.Conn
	gone func()        // called when the client has gone: it stops the loop
	wait time.Duration // how far each frame pushes the read deadline on (pongWait)
	line []byte        // what is left of the current frame's line

	mu     sync.Mutex
	code   int // set when the client broke the rules: the close code to send
	reason string
}

func (r *frameReader) Read(p []byte) (int, error) {
	// TODO(step 5): while r.line is empty, read a frame
	// (r.ws.ReadMessage):
	//   - on an error the client has gone or the connection broke: call
	//     r.gone() (nobody is left to read an answer, so the requests
	//     still running must be cancelled, not waited for as at the end
	//     of stdin) and return io.EOF;
	//   - a binary frame: r.refuse(websocket.CloseUnsupportedData, ...)
	//     and return io.EOF;
	//   - a text frame: extend the read deadline
	//     (r.ws.SetReadDeadline(time.Now().Add(r.wait))), and make it
	//     r.line with asLine.
	// Then copy what fits of r.line into p, keep the rest for the next
	// Read, and return how much you copied.
	r.gone()
	return 0, io.EOF
}

func (r *frameReader) refuse(code int, reason string) {
	r.mu.Lock()
	r.code, r.reason = code, reason
	r.mu.Unlock()
	r.gone()
}

// refused returns the close code and reason the client earned, if any.
func (r *frameReader) refused() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.code, r.reason
}

// asLine makes one frame one line of the loop's input.
func asLine(frame []byte) []byte {
	// TODO(step 5): a frame's JSON may span lines, which on stdin would be
	// several messages. When json.Compact accepts the frame, its output
	// is one line (it drops the whitespace between tokens, and a JSON
	// string never holds a raw newline). When it does not, the frame is
	// not valid JSON and must stay so: turn each '\n' and '\r' into a
	// NUL byte (never into a space, which could make it valid), so that
	// the loop answers -32700 for the whole frame. A blank frame becomes
	// a blank line. End the line with '\n'.
	return append(frame, '\n')
}

// frameWriter sends each line the loop writes as one text frame, without
// its newline.
type frameWriter struct {
	ws *websocket.Conn

	mu      sync.Mutex // one frame at a time: gorilla allows one writer
	partial []byte     // a line begun by an earlier Write
}

func (w *frameWriter) Write(p []byte) (int, error) {
	// TODO(step 5): under w.mu, cut p at each '\n'. Each complete line
	// (with w.partial before it, if an earlier Write began it) goes out
	// as one text frame (w.ws.WriteMessage(websocket.TextMessage, ...)),
	// after w.ws.SetWriteDeadline(time.Now().Add(writeTimeout)); keep a
	// piece with no '\n' yet in w.partial. Return len(p), or the write
	// error.
	return len(p), nil
}
