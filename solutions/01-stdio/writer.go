package stdio

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// lineWriter writes messages to the client, one compact JSON text per line.
// It is safe for concurrent use: requests finish on their own goroutines, and
// two of them writing at once must never mix their bytes within a line.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	err    error         // the first write error; every later write returns it
	failed chan struct{} // closed when err is set
}

func newLineWriter(w io.Writer) *lineWriter {
	return &lineWriter{w: w, failed: make(chan struct{})}
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

	// One Write per message, made under the lock, is what keeps lines whole.
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(buf.Bytes()); err != nil {
		lw.err = err
		close(lw.failed)
	}
	return lw.err
}
