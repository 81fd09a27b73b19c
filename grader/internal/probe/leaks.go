package probe

import (
	"fmt"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/wire"
)

// Baseline is what a server started with -debug holds before a check lets
// clients come and go: its goroutines (from /debug/vars) and, on Linux, its
// open files, sockets included.
type Baseline struct {
	goroutines int64
	files      int
	haveFiles  bool
}

// TakeBaseline counts what the server holds now, having closed the
// grader's idle connections to it.
func TakeBaseline(t *check.T, h *wire.HTTP) Baseline {
	h.CloseIdleConnections()
	b := Baseline{goroutines: h.VarInt("goroutines")}
	b.files, b.haveFiles = h.OpenFiles()
	t.Wire.Event("baseline: %d goroutines, %d open files", b.goroutines, b.files)
	return b
}

// ExpectFreed waits up to 2 s for the server to hold no more than a few
// goroutines and files beyond b, and fails the check otherwise. after says
// what happened, such as "8 clients dropped their sockets"; want, what the
// server should have done.
func (b Baseline) ExpectFreed(t *check.T, h *wire.HTTP, after, want string) {
	// A stream that ended before its client hung up leaves its connection
	// in the grader's pool, alive on the server: close those first, so
	// that only what the server holds on its own is counted.
	h.CloseIdleConnections()
	var goroutines int64
	var files int
	if Settle(t, 2*time.Second, func() bool {
		goroutines = h.VarInt("goroutines")
		files, _ = h.OpenFiles()
		return goroutines <= b.goroutines+3 && (!b.haveFiles || files <= b.files+3)
	}) {
		return
	}
	what := fmt.Sprintf("2 s after %s, the server still has %d goroutines (%d before)", after, goroutines, b.goroutines)
	if b.haveFiles {
		what += fmt.Sprintf(" and %d open files (%d before)", files, b.files)
	}
	t.Fail(check.Failure{What: what, Want: want})
}

// ExpectFreedBy is ExpectFreed for a server that may rightly take longer:
// it waits until deadline (polling every 250 ms, as each look at
// /debug/vars makes the server collect its garbage), and allows slack
// goroutines and files beyond b.
func (b Baseline) ExpectFreedBy(t *check.T, h *wire.HTTP, deadline time.Time, slack int, after, want string) {
	h.CloseIdleConnections()
	var goroutines int64
	var files int
	for {
		goroutines = h.VarInt("goroutines")
		files, _ = h.OpenFiles()
		if goroutines <= b.goroutines+int64(slack) && (!b.haveFiles || files <= b.files+slack) {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		Pause(t, 250*time.Millisecond)
	}
	what := fmt.Sprintf("%s, the server still has %d goroutines (%d before)", after, goroutines, b.goroutines)
	if b.haveFiles {
		what += fmt.Sprintf(" and %d open files (%d before)", files, b.files)
	}
	t.Fail(check.Failure{What: what, Want: want})
}
