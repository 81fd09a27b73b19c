package resume

import (
	"strconv"
	"strings"
)

// event is one SSE event of a session, kept so that a client that missed it
// can have it again.
type event struct {
	stream int    // the stream it was sent on: 0 for the standalone GET stream
	n      uint64 // its place on that stream: 1, 2, 3, …
	data   []byte // the JSON-RPC message, or nil for a priming event
}

// id is the event's SSE id, "<stream>-<n>": the stream number makes it
// unique across every stream of the session (basic/transports,
// "Resumability and Redelivery": MUST), and says which stream a
// Last-Event-ID belongs to (SHOULD); n is the client's cursor within that
// stream.
func (e event) id() string {
	// @step 2: the stream and the number, in decimal
	return strconv.Itoa(e.stream) + "-" + strconv.FormatUint(e.n, 10)
	// @starter
	// | // TODO(step 2): e.stream and e.n in decimal, joined by "-".
	// | return ""
	// @end
}

// parseEventID reads an id that event.id wrote. Anything else, signs and
// spaces included, is malformed.
func parseEventID(id string) (stream int, n uint64, ok bool) {
	// @step 4: read back what id wrote, nothing else
	s, c, found := strings.Cut(id, "-")
	if !found || !digits(s) || !digits(c) {
		return 0, 0, false
	}
	stream, err1 := strconv.Atoi(s)
	n, err2 := strconv.ParseUint(c, 10, 64)
	if err1 != nil || err2 != nil || n == 0 {
		return 0, 0, false
	}
	return stream, n, true
	// @starter
	// | // TODO(step 4): split id at the "-" (strings.Cut); both halves must be
	// | // digits only (see digits), and n at least 1. Then strconv.Atoi and
	// | // strconv.ParseUint, which can still fail on a number too large.
	// | _, _ = strings.Cut, strconv.Atoi
	// | return 0, 0, false
	// @end
}

func digits(s string) bool {
	if s == "" || len(s) > 18 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// eventLog keeps a session's latest events, from all its streams, oldest
// first, in a ring that is bounded twice: by a number of events and by their
// bytes. A client can only be given back what is still here.
//
// The ring starts small and grows as it fills, up to its bound, so that a
// session that has sent three events holds three events, not a thousand
// empty slots. eventLog is not safe for concurrent use; its owner locks.
type eventLog struct {
	maxEvents int
	maxBytes  int

	ring  []event // ring[head] is the oldest of n events
	head  int
	n     int
	bytes int // the data bytes of the events kept
}

// initialRing is how many events a new log makes room for before growing.
const initialRing = 8

func newEventLog(maxEvents, maxBytes int) *eventLog {
	return &eventLog{maxEvents: max(maxEvents, 1), maxBytes: maxBytes}
}

// add keeps e. Events that no longer fit are dropped, oldest first, and
// handed to evicted, so that their streams can note what they lost. An event
// larger than the byte bound is dropped at once.
func (l *eventLog) add(e event, evicted func(event)) {
	if l.n == len(l.ring) && l.n < l.maxEvents {
		l.grow()
	}
	if l.n == len(l.ring) {
		evicted(l.dropOldest())
	}
	l.ring[(l.head+l.n)%len(l.ring)] = e
	l.n++
	l.bytes += len(e.data)
	for l.bytes > l.maxBytes && l.n > 0 {
		evicted(l.dropOldest())
	}
}

func (l *eventLog) grow() {
	size := min(max(2*len(l.ring), initialRing), l.maxEvents)
	ring := make([]event, size)
	for i := 0; i < l.n; i++ {
		ring[i] = l.ring[(l.head+i)%len(l.ring)]
	}
	l.ring, l.head = ring, 0
}

func (l *eventLog) dropOldest() event {
	e := l.ring[l.head]
	l.ring[l.head] = event{} // let its data go
	l.head = (l.head + 1) % len(l.ring)
	l.n--
	l.bytes -= len(e.data)
	return e
}

// after returns the events of stream that came after its event n and carry a
// message, oldest first: what a client whose last event was n has missed on
// that stream, and nothing from any other stream.
func (l *eventLog) after(stream int, n uint64) []event {
	var out []event
	for i := 0; i < l.n; i++ {
		e := l.ring[(l.head+i)%len(l.ring)]
		if e.stream == stream && e.n > n && e.data != nil {
			out = append(out, e)
		}
	}
	return out
}
