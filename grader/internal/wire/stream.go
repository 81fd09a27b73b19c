package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"mcpcourse/grader/check"
)

// Stream is an HTTP response whose body is read as it arrives, such as an
// SSE stream that stays open: a check reads its events one at a time, each
// under a deadline of its own, and may hang up at any moment. Open returns
// one; the check's end closes it.
type Stream struct {
	h      *HTTP
	req    Req
	cancel context.CancelFunc

	Status      int
	Header      http.Header
	ContentType string // media type without parameters

	items chan streamItem // events, then one final item with err set
	done  bool            // the final item has been taken
	err   error           // why the stream ended (io.EOF for a clean end)

	mu      sync.Mutex
	sse     *SSEReader // counts comments as they arrive, between events too
	lastID  string
	retries []string // every valid retry field read, in order
}

type streamItem struct {
	event Event
	err   error
}

// Open sends req and waits up to req.Within (T1 when zero) for the response
// headers only. The body is then read on a goroutine of its own until it
// ends, the check ends, or Close is called. A status code is no promise that
// the body will end: read it with Next, Await and Quiet, which all have
// deadlines.
func (h *HTTP) Open(req Req) *Stream {
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	if req.Within == 0 {
		req.Within = T1
	}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	n := h.record(req)
	ctx, cancel := context.WithCancel(h.t.Context())
	hr := h.newRequest(ctx, req)

	type answer struct {
		resp *http.Response
		err  error
	}
	answered := make(chan answer, 1)
	started := time.Now()
	go func() {
		resp, err := h.client.Do(hr)
		answered <- answer{resp, err}
	}()
	timer := time.NewTimer(req.Within)
	defer timer.Stop()
	var a answer
	select {
	case a = <-answered:
	case <-timer.C:
		cancel()
		h.t.Fail(check.Failure{What: fmt.Sprintf("%s %s: no response headers within %v", req.Method, purposeOf(req), req.Within),
			Hint: "A stream must begin at once: write the status and headers, then flush them (http.ResponseController.Flush), before waiting for anything to send. Without the flush, the client sees nothing until the first event."})
	}
	if a.err != nil {
		cancel()
		h.fail(req, a.err, nil, started)
	}
	resp := a.resp
	h.t.Wire.Received(fmt.Sprintf("HTTP %d %s (the body is read as it arrives)", resp.StatusCode, headerSummary(resp.Header)))
	h.noteStatus(resp.StatusCode)
	s := &Stream{h: h, req: req, cancel: cancel, Status: resp.StatusCode, Header: resp.Header,
		ContentType: mediaType(resp.Header.Get("Content-Type")), items: make(chan streamItem, 64)}
	h.noteIssued(n, resp.Header.Get("Mcp-Session-Id"))
	h.t.Cleanup(s.Close)
	go s.read(resp.Body)
	return s
}

func (s *Stream) read(body io.ReadCloser) {
	defer body.Close()
	if s.ContentType != "text/event-stream" {
		// Not a stream: deliver the whole body as one event's data.
		b, err := io.ReadAll(io.LimitReader(body, maxBody))
		if len(b) > 0 {
			s.h.t.Wire.Received(string(b))
			s.items <- streamItem{event: Event{Data: string(b), At: time.Now()}}
		}
		if err == nil {
			err = io.EOF
		}
		s.items <- streamItem{err: err}
		return
	}
	r := NewSSEReader(body)
	s.mu.Lock()
	s.sse = r
	s.mu.Unlock()
	for {
		e, err := r.Next()
		if err != nil {
			s.items <- streamItem{err: err}
			return
		}
		e.At = time.Now()
		if e.Retry != "" {
			s.mu.Lock()
			s.retries = append(s.retries, e.Retry)
			s.mu.Unlock()
		}
		s.h.t.Wire.Received(describeEvent(e))
		select {
		case s.items <- streamItem{event: e}:
		case <-s.h.t.Context().Done():
			return
		}
	}
}

// describeEvent shows an event on the wire log the way it was sent.
func describeEvent(e Event) string {
	var parts []string
	if e.SetID {
		parts = append(parts, "id: "+e.ID)
	}
	if e.Event != "" {
		parts = append(parts, "event: "+e.Event)
	}
	if e.Retry != "" {
		parts = append(parts, "retry: "+e.Retry)
	}
	if e.NoData {
		parts = append(parts, "(no data field)")
	} else {
		parts = append(parts, "data: "+e.Data)
	}
	for _, p := range e.Problems {
		parts = append(parts, "MALFORMED: "+p)
	}
	return "[SSE] " + strings.Join(parts, " | ")
}

// ErrTimeout is what NextWithin reports when no event came in time.
var ErrTimeout = errors.New("no event in time")

// NextWithin waits up to d for the next event. It returns ErrTimeout when
// none came, and the reason the stream ended (io.EOF when it ended cleanly)
// once it has. It never fails the check.
func (s *Stream) NextWithin(d time.Duration) (Event, error) {
	if s.done {
		return Event{}, s.err
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case it := <-s.items:
		if it.err != nil {
			s.done, s.err = true, it.err
			return Event{}, it.err
		}
		if it.event.SetID {
			s.mu.Lock()
			s.lastID = it.event.ID
			s.mu.Unlock()
		}
		return it.event, nil
	case <-timer.C:
		return Event{}, ErrTimeout
	case <-s.h.t.Context().Done():
		s.h.t.Failf("the check ran out of time")
		return Event{}, ErrTimeout
	}
}

// Next waits up to d for the next event, and fails the check if none comes
// or the stream ends first. what names the awaited event in that report.
func (s *Stream) Next(d time.Duration, what string) Event {
	e, err := s.NextWithin(d)
	if err != nil {
		s.failWaiting(d, what, err)
	}
	return e
}

// Await reads events for up to d until one carries a JSON-RPC message for
// which match returns true, and returns that message. Events before it are
// passed to skipped, if it is not nil, which may fail the check.
func (s *Stream) Await(d time.Duration, what string, match func(*Msg) bool, skipped func(Event, *Msg)) (*Msg, Event) {
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			s.failWaiting(d, what, ErrTimeout)
		}
		e, err := s.NextWithin(left)
		if err != nil {
			s.failWaiting(d, what, err)
		}
		m, _ := Parse([]byte(e.Data))
		if m != nil && match(m) {
			return m, e
		}
		if skipped != nil {
			skipped(e, m)
		}
	}
}

// Quiet reads for d and fails the check if an event carrying data arrives;
// what says what would have been wrong with it. The stream ending is fine.
func (s *Stream) Quiet(d time.Duration, what string) {
	deadline := time.Now().Add(d)
	for left := d; left > 0; left = time.Until(deadline) {
		e, err := s.NextWithin(left)
		if err != nil {
			return
		}
		if e.Data != "" {
			s.h.t.Fail(check.Failure{What: what + " arrived", Got: check.Quote(e.Data), Want: "nothing"})
		}
	}
}

// End waits up to d for the stream to end, skipping any events, and
// reports whether it ended cleanly. Events that arrive are returned.
func (s *Stream) End(d time.Duration) (events []Event, ended bool) {
	deadline := time.Now().Add(d)
	for left := d; left > 0; left = time.Until(deadline) {
		e, err := s.NextWithin(left)
		switch {
		case errors.Is(err, ErrTimeout):
			return events, false
		case err != nil:
			return events, true
		}
		events = append(events, e)
	}
	return events, s.done
}

// Comments returns how many comment lines (keep-alives) have arrived.
func (s *Stream) Comments() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sse == nil {
		return 0
	}
	return s.sse.Comments()
}

// Malformed returns what a strict reading of the stream found wrong so far
// (SSEReader.Malformed): fields a client ignores, and an event cut off by
// the stream's end. It is empty for a body that is not an event stream.
func (s *Stream) Malformed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sse == nil {
		return nil
	}
	return s.sse.Malformed()
}

// Retries returns the value of every valid retry field the stream has
// carried so far, in order, whether or not its event was taken yet.
func (s *Stream) Retries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.retries...)
}

// LastEventID returns the id of the last event taken that set one: what a
// client would send as Last-Event-ID to resume.
func (s *Stream) LastEventID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastID
}

// Close hangs up: the connection is closed, as a client that goes away
// would close it.
func (s *Stream) Close() {
	s.cancel()
}

// HangUp closes the stream and records it on the wire log.
func (s *Stream) HangUp() {
	s.h.t.Wire.Event("hung up on the stream (%s %s)", s.req.Method, purposeOf(s.req))
	s.Close()
}

func (s *Stream) failWaiting(d time.Duration, what string, err error) {
	switch {
	case errors.Is(err, ErrTimeout):
		s.h.t.Fail(check.Failure{What: fmt.Sprintf("no %s within %v on the stream (%s %s)", what, d, s.req.Method, purposeOf(s.req)),
			Hint: "Flush each event as soon as it is written (http.ResponseController.Flush): an event that sits in a buffer has not been sent."})
	case errors.Is(err, io.EOF):
		s.h.t.Fail(check.Failure{What: fmt.Sprintf("the stream (%s %s) ended before the %s", s.req.Method, purposeOf(s.req), what)})
	default:
		s.h.t.Fail(check.Failure{What: fmt.Sprintf("reading the stream (%s %s) before the %s: %v", s.req.Method, purposeOf(s.req), what, err)})
	}
}
