// @step 1: lineWriter: one message, one line, one Write

package stdio

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// @step 4: safe for concurrent use

// lineWriter writes messages to the client, one compact JSON text per line.
// It is safe for concurrent use: requests finish on their own goroutines, and
// two of them writing at once must never mix their bytes within a line.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
	// @step 6: the first write error, which stops Serve
	err    error         // the first write error; every later write returns it
	failed chan struct{} // closed when err is set
	// @end
}

// @was 1: one goroutine writes
// | // lineWriter writes messages to the client, one compact JSON text per line.
// | type lineWriter struct {
// | 	w io.Writer
// | 	// TODO(step 4): many goroutines write at once now: a sync.Mutex, held
// | 	// for each Write, so that lines never mix.
// | }
// @end

func newLineWriter(w io.Writer) *lineWriter {
	// @step 6: a channel that says when a write has failed
	return &lineWriter{w: w, failed: make(chan struct{})}
	// @was 1
	// | return &lineWriter{w: w}
	// @end
}

// send writes v as one line. encoding/json never writes a raw newline inside
// a value (a newline in a string becomes \n), so the only newline on the line
// is the one Encode appends at its end.
func (lw *lineWriter) send(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<" as "<": valid either way, but easier to read
	if err := enc.Encode(v); err != nil {
		return err
	}

	// @step 4: one Write at a time
	// One Write per message, made under the lock, is what keeps lines whole.
	lw.mu.Lock()
	defer lw.mu.Unlock()
	// @end
	// @step 6: the first write error stops Serve
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(buf.Bytes()); err != nil {
		lw.err = err
		close(lw.failed)
	}
	return lw.err
	// @was 1
	// | _, err := lw.w.Write(buf.Bytes())
	// | return err
	// @end
}

// @end
