package wire

import (
	"strings"
)

// Event is one Server-Sent Event.
type Event struct {
	ID    string // the last id set, as the WHATWG spec keeps it across events
	Event string // the event type; "" means "message"
	Data  string // data lines joined with "\n"
	Retry string // a retry field, if this event had one
}

// ParseSSE reads a complete text/event-stream body, following the WHATWG
// rules: LF, CRLF or CR end a line; "field: value" with one optional space;
// lines starting with ":" are comments; several data lines join with "\n";
// a blank line dispatches the event. Events with no data still appear, so
// that checks can see priming events and retry fields.
func ParseSSE(body []byte) []Event {
	text := strings.ReplaceAll(string(body), "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	var (
		events  []Event
		cur     Event
		data    []string
		lastID  string
		started bool // some field of cur has been set
	)
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			if started {
				cur.ID = lastID
				cur.Data = strings.Join(data, "\n")
				events = append(events, cur)
			}
			cur, data, started = Event{}, nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
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
				lastID = value
			}
		case "retry":
			cur.Retry = value
		default:
			continue
		}
		started = true
	}
	return events
}
