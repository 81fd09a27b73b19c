package wire

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"sync/atomic"
	"time"
)

// Event is one Server-Sent Event.
type Event struct {
	ID    string // the last id set, as the WHATWG spec keeps it across events
	SetID bool   // whether this event carried an id field itself
	Event string // the event type; "" means "message"
	Data  string // data lines joined with "\n"
	Retry string // a retry field, if this event had one

	At time.Time // when the grader read it, on a stream read as it arrives
}

// SSEReader reads Server-Sent Events one at a time from a stream, following
// the WHATWG rules: LF, CRLF or CR end a line; "field: value" with one
// optional space; lines starting with ":" are comments; several data lines
// join with "\n"; a blank line dispatches the event; an id persists across
// events. Events with no data still come out, so that checks can see priming
// events and retry fields.
type SSEReader struct {
	r        *bufio.Reader
	lastID   string
	comments atomic.Int64 // read by other goroutines while Next blocks
	pendingR bool         // the last line ended with a CR, so a leading LF belongs to it
}

// maxSSELine caps one line of an event stream; a longer line is cut.
const maxSSELine = 32 << 20

// NewSSEReader reads events from r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Comments returns how many comment lines (such as keep-alives) have been
// read so far.
func (s *SSEReader) Comments() int { return int(s.comments.Load()) }

// Next returns the next event. At the end of the stream it returns io.EOF,
// or io.ErrUnexpectedEOF when the stream ended in the middle of an event.
func (s *SSEReader) Next() (Event, error) {
	var (
		cur     Event
		data    []string
		started bool
	)
	for {
		line, err := s.line()
		if err != nil {
			if started && err == io.EOF {
				return Event{}, io.ErrUnexpectedEOF
			}
			return Event{}, err
		}
		if line == "" {
			if started {
				cur.ID = s.lastID
				cur.Data = strings.Join(data, "\n")
				return cur, nil
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			s.comments.Add(1)
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "data":
			data = append(data, value)
		case "event":
			cur.Event = value
		case "id":
			if !strings.Contains(value, "\x00") {
				s.lastID = value
				cur.SetID = true
			}
		case "retry":
			cur.Retry = value
		default:
			continue // unknown fields are ignored
		}
		started = true
	}
}

// line reads one line, without its ending (LF, CRLF or CR).
func (s *SSEReader) line() (string, error) {
	var buf []byte
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			if len(buf) > 0 {
				return string(buf), nil
			}
			return "", err
		}
		if s.pendingR {
			s.pendingR = false
			if b == '\n' {
				continue // the LF of a CRLF
			}
		}
		switch b {
		case '\n':
			return string(buf), nil
		case '\r':
			s.pendingR = true
			return string(buf), nil
		}
		if len(buf) < maxSSELine {
			buf = append(buf, b)
		}
	}
}

// ParseSSE reads a complete text/event-stream body into its events.
func ParseSSE(body []byte) []Event {
	r := NewSSEReader(bytes.NewReader(body))
	var events []Event
	for {
		e, err := r.Next()
		if err != nil {
			return events
		}
		events = append(events, e)
	}
}
