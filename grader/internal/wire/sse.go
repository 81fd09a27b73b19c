package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Event is one Server-Sent Event.
type Event struct {
	ID    string // the last id set, as the WHATWG spec keeps it across events
	SetID bool   // whether this event carried an id field itself
	Event string // the event type; "" means "message"
	Data  string // data lines joined with "\n"
	Retry string // a valid retry field of this event (ASCII digits only), if it had one

	// NoData is set when the event had no data field at all. An EventSource
	// does not dispatch such an event (its id and retry still take effect);
	// the reader hands it out anyway, so that checks can see it.
	NoData bool
	// Problems lists what a strict reading of the event's lines found
	// wrong: fields that the WHATWG rules make a client ignore (an unknown
	// or wrongly cased name, a retry that is not all digits, an id with a
	// NUL). Such a field has no effect on the event.
	Problems []string

	At time.Time // when the grader read it, on a stream read as it arrives
}

// SSEReader reads Server-Sent Events one at a time from a stream, following
// the WHATWG "interpreting an event stream" rules: one leading BOM is
// skipped; LF, CRLF or CR end a line; "field: value" with one optional space
// after the colon (a line without a colon is a field with an empty value);
// field names are case-sensitive and unknown ones are ignored; lines
// starting with ":" are comments; several data lines join with "\n"; retry
// counts only when it is all ASCII digits; an id containing NUL is ignored;
// a blank line dispatches the event; an id persists across events; an event
// not ended by a blank line when the stream ends is thrown away. Events with
// no data still come out (with NoData set), so that checks can see priming
// events and retry fields.
//
// The reader is strict as well: every field a client would ignore is noted
// on its event (Event.Problems) and on the reader (Malformed), so that a
// check can report a server whose fields are not what it meant them to be.
type SSEReader struct {
	r        *bufio.Reader
	lastID   string
	comments atomic.Int64 // read by other goroutines while Next blocks
	pendingR bool         // the last line ended with a CR, so a leading LF belongs to it
	started  bool         // the first byte has been read (a BOM is skipped only there)

	mu        sync.Mutex // guards malformed, read by other goroutines while Next blocks
	malformed []string
}

// maxSSELine caps one line of an event stream; a longer line is cut.
const maxSSELine = 32 << 20

// maxProblems caps how many malformed lines a reader keeps.
const maxProblems = 20

// NewSSEReader reads events from r.
func NewSSEReader(r io.Reader) *SSEReader {
	return &SSEReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Comments returns how many comment lines (such as keep-alives) have been
// read so far.
func (s *SSEReader) Comments() int { return int(s.comments.Load()) }

// Malformed returns every malformed line read so far, whether or not its
// event was dispatched, and, once the stream has ended, whether it ended in
// the middle of an event: the strict reading's findings, oldest first.
func (s *SSEReader) Malformed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.malformed...)
}

func (s *SSEReader) note(problem string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.malformed) < maxProblems {
		s.malformed = append(s.malformed, problem)
	}
}

// knownFields are the field names the WHATWG rules act on.
var knownFields = map[string]bool{"data": true, "event": true, "id": true, "retry": true}

// Next returns the next event. At the end of the stream it returns io.EOF,
// or io.ErrUnexpectedEOF when the stream ended in the middle of an event.
func (s *SSEReader) Next() (Event, error) {
	var (
		cur     Event
		data    []string
		started bool // a line other than a comment or blank has been read
	)
	for {
		line, err := s.line()
		if err != nil {
			if started && err == io.EOF {
				s.note("the stream ended in the middle of an event (no blank line after its last field), which a client throws away")
				return Event{}, io.ErrUnexpectedEOF
			}
			return Event{}, err
		}
		if line == "" {
			if started && (len(data) > 0 || cur.SetID || cur.Retry != "" || cur.Event != "") {
				cur.ID = s.lastID
				cur.Data = strings.Join(data, "\n")
				cur.NoData = len(data) == 0
				return cur, nil
			}
			// Only ignored fields: nothing to dispatch, nothing to keep.
			cur, data, started = Event{}, nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			s.comments.Add(1)
			continue
		}
		started = true
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		problem := ""
		switch field {
		case "data":
			data = append(data, value)
		case "event":
			cur.Event = value
		case "id":
			if strings.Contains(value, "\x00") {
				problem = fmt.Sprintf("an id field with a NUL in it, which a client ignores: %q", line)
			} else {
				s.lastID = value
				cur.SetID = true
			}
		case "retry":
			if allDigits(value) {
				cur.Retry = value
			} else {
				problem = fmt.Sprintf("a retry field that is not all ASCII digits (milliseconds), which a client ignores: %q", line)
			}
		default:
			if knownFields[strings.ToLower(field)] {
				problem = fmt.Sprintf("the field name %q: names are case-sensitive, so a client ignores it as unknown: %q", field, line)
			} else {
				problem = fmt.Sprintf("an unknown field %q, which a client ignores: %q", field, line)
			}
		}
		if problem != "" {
			cur.Problems = append(cur.Problems, problem)
			s.note(problem)
		}
	}
}

func allDigits(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
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
		if !s.started {
			s.started = true
			if b == 0xEF { // a UTF-8 BOM, which the WHATWG rules skip once, at the start
				if next, err := s.r.Peek(2); err == nil && next[0] == 0xBB && next[1] == 0xBF {
					s.r.Discard(2)
					continue
				}
			}
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
	events, _ := ParseSSEStrict(body)
	return events
}

// ParseSSEStrict reads a complete text/event-stream body into its events,
// and returns the malformed lines a strict reading found (SSEReader.Malformed).
func ParseSSEStrict(body []byte) ([]Event, []string) {
	r := NewSSEReader(bytes.NewReader(body))
	var events []Event
	for {
		e, err := r.Next()
		if err != nil {
			return events, r.Malformed()
		}
		events = append(events, e)
	}
}
