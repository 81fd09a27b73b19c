package resume

import (
	"errors"
	"net/http"
	"strconv"
	"time"
)

// eventWriter writes Server-Sent Events to one HTTP response, and flushes
// each one: an event that sits in a buffer has not been sent. It is owned by
// the handler whose response it writes, and used under its stream's lock.
type eventWriter struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	broken chan struct{} // closed once a write has failed
	err    error
}

// writeTimeout bounds one write. A client that stops reading would otherwise
// block every sender on its stream for as long as TCP keeps trying; past
// this, the client counts as gone and what follows is kept for its return.
const writeTimeout = 10 * time.Second

// startEventStream answers with 200 and Content-Type: text/event-stream, and
// flushes the headers at once, so that the client sees the stream open
// before its first event.
func startEventStream(w http.ResponseWriter) *eventWriter {
	// @step 1: the headers of an event stream, flushed at once
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // ask proxies such as nginx not to hold events back
	w.WriteHeader(http.StatusOK)
	ew := &eventWriter{w: w, rc: http.NewResponseController(w), broken: make(chan struct{})}
	ew.flush()
	return ew
	// @starter
	// | // TODO(step 1): set Content-Type: text/event-stream and
	// | // Cache-Control: no-cache, write the status 200, and flush: until then
	// | // net/http holds the headers back, and the client sees nothing.
	// | return &eventWriter{w: w, rc: http.NewResponseController(w), broken: make(chan struct{})}
	// @end
}

// event writes one event: its id, a retry field when retry is positive, and
// the message as its data. A priming event has an id and empty data.
//
//	id: 2-7
//	event: message
//	data: {"jsonrpc":"2.0",...}
//
// JSON from encoding/json holds no raw newline, so one data line carries the
// whole message.
func (ew *eventWriter) event(e event, retry time.Duration) error {
	// @step 2: one event, in one write
	return ew.write(appendEvent(make([]byte, 0, len(e.data)+64), e, retry))
	// @starter
	// | // TODO(step 2): build the event's lines as above, ending with a blank
	// | // line: "id: " and e.id(); "retry: " and the milliseconds, when retry
	// | // is positive; for a priming event (e.data == nil) just "data:";
	// | // otherwise "event: message" and "data: " with e.data. Write them with
	// | // ew.write, in one call.
	// | _ = strconv.AppendInt
	// | return errors.New("events are not written yet: step 2 of lessons/03-sse-resume.md")
	// @end
}

// @step 4: missed events back to back, in few writes

// replayChunk is how many bytes of replayed events go out in one write.
const replayChunk = 64 << 10

// replay writes the events a resuming client missed back to back, in few
// writes, each flushed once, rather than in a write and a flush per event:
// 10,000 missed events go out in about twenty system calls, not 10,000.
func (ew *eventWriter) replay(events []event) error {
	var b []byte
	for i, e := range events {
		b = appendEvent(b, e, 0)
		if len(b) >= replayChunk || i == len(events)-1 {
			if err := ew.write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	return nil
}

// @end

// @step 2: the text of one event

// appendEvent appends the text of one event to b.
func appendEvent(b []byte, e event, retry time.Duration) []byte {
	b = append(b, "id: "...)
	b = append(b, e.id()...)
	b = append(b, '\n')
	if retry > 0 {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, retry.Milliseconds(), 10)
		b = append(b, '\n')
	}
	if e.data == nil {
		return append(b, "data:\n\n"...) // a priming event: nothing to dispatch
	}
	b = append(b, "event: message\ndata: "...)
	b = append(b, e.data...)
	return append(b, '\n', '\n')
}

// @end

// comment writes an SSE comment, which clients ignore: a keep-alive that
// tells proxies and clients the connection is still in use.
func (ew *eventWriter) comment(text string) error {
	// @step 1: a comment line, then a blank line
	return ew.write([]byte(": " + text + "\n\n"))
	// @starter
	// | // TODO(step 1): a line that starts with ":", then a blank line.
	// | return nil
	// @end
}

var errBroken = errors.New("the stream's connection is broken")

// write writes b and flushes it. Once a write has failed, every later one
// fails too.
func (ew *eventWriter) write(b []byte) error {
	if ew.err != nil {
		return errBroken
	}
	// @step 1: a write with a deadline, flushed; a failure remembered
	ew.rc.SetWriteDeadline(time.Now().Add(writeTimeout)) // not every ResponseWriter can; then there is none
	if _, err := ew.w.Write(b); err != nil {
		ew.fail(err)
		return err
	}
	return ew.flush()
	// @starter
	// | // TODO(step 1): give the write a deadline,
	// | // ew.rc.SetWriteDeadline(time.Now().Add(writeTimeout)) (ignore its
	// | // error: not every ResponseWriter can), write b, and flush
	// | // (ew.flush). When the write fails, ew.fail(err) and return err.
	// | return errBroken
	// @end
}

func (ew *eventWriter) flush() error {
	if err := ew.rc.Flush(); err != nil {
		ew.fail(err)
		return err
	}
	return nil
}

func (ew *eventWriter) fail(err error) {
	if ew.err == nil {
		ew.err = err
		close(ew.broken)
	}
}

// finish clears the write deadline, which would otherwise outlive the
// response on a connection that serves the client's next request. Only the
// handler that owns the response calls it, before it returns.
func (ew *eventWriter) finish() {
	ew.rc.SetWriteDeadline(time.Time{})
}
