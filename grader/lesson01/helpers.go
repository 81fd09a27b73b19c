package lesson01

import (
	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/wire"
)

// awaitVerdict waits for the answer to a message that may be invalid: a
// response with the message's id (its JSON text; "" when it has none), or an
// error response whose id is null or absent.
func awaitVerdict(s *wire.Stdio, id, what string) *wire.Msg {
	return s.Await(wire.T1, what, func(m *wire.Msg) bool {
		if m.Method != nil {
			return false
		}
		if m.HasNoID() {
			return m.Error != nil
		}
		return id != "" && m.IsResponseTo(id)
	})
}

// stillServing proves the server still answers after bad input.
func stillServing(t *check.T, s *wire.Stdio, id string) {
	resp := s.Call(id, "ping", nil)
	if resp.Error != nil {
		t.Fail(check.Failure{What: "after the bad input, ping got an error", Got: check.Quote(string(resp.Raw)), Want: "an empty result"})
	}
}

// strayAfter fails the check if a message arrived that no Await took, now or
// within the quiet window. Lines that are not JSON are left to STDIO-06.
func strayAfter(t *check.T, s *wire.Stdio, what string) {
	for _, l := range s.Pending() {
		if l.Msg != nil {
			t.Fail(check.Failure{What: what + " arrived", Got: check.Quote(l.Text), Want: "nothing"})
		}
	}
	s.Quiet(wire.Q, what)
}

// specRule runs f in a section of the check where every failure breaks the
// spec's own rule (check.T.SpecRule), in a check whose Course text asks
// more than the spec elsewhere.
func specRule(t *check.T, f func()) {
	defer t.SpecRule()()
	f()
}
