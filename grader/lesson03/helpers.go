package lesson03

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/wire"
)

// openPOST sends a request whose answer must be an SSE stream (it carries a
// progress token), and returns the stream once its headers have come.
func openPOST(t *check.T, h *wire.HTTP, session, version, body, purpose string) *wire.Stream {
	s := h.Open(wire.Req{Method: http.MethodPost, Header: wire.Headers(session, version), Body: body, Purpose: purpose})
	probe.ExpectEventStream(t, s, purpose, "")
	return s
}

// nonce makes a value no earlier run of the check could have left behind.
func nonce(prefix string) string { return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1e9) }

// messagesOf parses the JSON-RPC messages among events; events without
// data (priming events) are left out.
func messagesOf(events []wire.Event) []*wire.Msg {
	var out []*wire.Msg
	for _, e := range events {
		if e.Data == "" {
			continue
		}
		if m, err := wire.Parse([]byte(e.Data)); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// describeEvents lists events for a failure report, one per line.
func describeEvents(events []wire.Event) string {
	if len(events) == 0 {
		return "no events"
	}
	var lines []string
	for _, e := range events {
		line := "id: " + e.ID
		if !e.SetID {
			line = "(no id)"
		}
		if e.Retry != "" {
			line += " | retry: " + e.Retry
		}
		lines = append(lines, line+" | data: "+e.Data)
	}
	return strings.Join(lines, "\n")
}

func describeBody(events []wire.Event) string {
	var parts []string
	for _, e := range events {
		parts = append(parts, e.Data)
	}
	return strings.Join(parts, "\n")
}

// tickOf reads a ticker log message's tick number.
func tickOf(t *check.T, m *wire.Msg) int {
	level, _, data, _ := probe.LogOf(m)
	var d struct {
		Tick *int `json:"tick"`
	}
	if json.Unmarshal(data, &d) != nil || d.Tick == nil || level != "info" {
		t.Fail(check.Failure{What: "a ticker log message is not level info with data {\"tick\": N}", Got: check.Quote(string(m.Raw)),
			Want: `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"ticker","data":{"tick":1}}}`})
	}
	return *d.Tick
}

// readTicks reads n ticker messages from s, each within d, and checks that
// they count up by one from first (or from wherever they start, when first
// is 0).
func readTicks(t *check.T, s *wire.Stream, n, first int, d time.Duration, what string) []int {
	var ticks []int
	for len(ticks) < n {
		m, _ := s.Await(d, fmt.Sprintf("tick %d of %d %s", len(ticks)+1, n, what), probe.IsLogFrom("ticker"), nil)
		tick := tickOf(t, m)
		switch {
		case len(ticks) == 0 && first != 0 && tick != first:
			t.Fail(check.Failure{What: fmt.Sprintf("the first tick %s is %d", what, tick), Got: check.Quote(string(m.Raw)),
				Want: fmt.Sprintf(`{"tick": %d}: the ticks are counted 1, 2, 3, …, with none lost or repeated`, first)})
		case len(ticks) > 0 && tick != ticks[len(ticks)-1]+1:
			t.Fail(check.Failure{What: fmt.Sprintf("the ticks %s went from %d to %d", what, ticks[len(ticks)-1], tick), Got: check.Quote(string(m.Raw)),
				Want: fmt.Sprintf(`{"tick": %d}: none lost or repeated`, ticks[len(ticks)-1]+1)})
		}
		ticks = append(ticks, tick)
	}
	return ticks
}

// skipWithoutEventIDs skips the check when the events of an external
// server's stream carry no ids: it does not offer resumption, which the
// spec leaves to servers (MAY), so checks of resumption do not apply.
func skipWithoutEventIDs(t *check.T, what string) {
	t.Relies(check.EventIDs)
	if t.Target.External() {
		t.Wire.Event("the events of %s carry no id", what)
		t.Skip("the server's SSE events carry no id: it does not offer resumption with Last-Event-ID, which the spec leaves to it (MAY), so this check does not apply")
	}
}

// courseServer reports whether the target is one of the course's own
// servers, which have every behaviour the lessons build, beyond the tool
// contract (the notes log, the history tool, the ticker).
func courseServer(t *check.T) bool { return !t.Target.External() }
