package lesson01

import (
	"fmt"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/proc"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step6 holds the checks of step 6: shutting down.
var step6 = check.Step{
	Checks: []*check.Check{stdio22, stdio23, stdio24, stdio30},
}

var stdio22 = &check.Check{
	ID: "STDIO-22", Step: 6, Severity: check.Must, Budget: 8 * time.Second,
	Title: "at end of stdin, requests in flight finish, then the server exits 0",
	Spec: lifecycleRule("Shutdown › stdio",
		"the client SHOULD initiate shutdown by: First, closing the input stream to the child process"),
	Course: "The client closes stdin and waits for the server to exit. The course requires the server to finish " +
		"the requests it already has, write their responses, and exit with status 0 within 2 s.",
	Hint: check.Hint{
		Report:   "When reading returns io.EOF, wait for the requests still running (a sync.WaitGroup), then return nil from Serve. Returning at once drops their responses; never returning leaves the client waiting to send SIGTERM.",
		Question: "When stdin ends while a request is still running, does its response still get written, and does Serve return nil afterwards?",
		Pointer:  "basic/lifecycle › Shutdown › stdio: the client closes stdin first, then waits for the server to exit. io.EOF from ReadBytes says input has ended; sync.WaitGroup.Wait waits for the running requests.",
		Near: `At end of input, wait for the running requests, but not forever:

	case err := <-readErr:
		done := make(chan struct{})
		go func() { c.wg.Wait(); close(done) }()
		select {
		case <-done:
			if err == io.EOF {
				return nil
			}
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-c.failed:
			return c.err
		}`,
	},
	Early: 1, EarlyEnds: 4,
	Claims: []check.Claim{
		{Claim: "at end of stdin, running requests finish and are answered, then exit 0", Where: "step 6"},
	},
	Checklist: []string{"B7", "D8"},
	Run:       checkEOFShutdown,
}

func checkEOFShutdown(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 4, "interval_ms": 100}, nil)))
	s.CloseStdin()
	s.AwaitResponse(wire.T2, `2`, "tools/call countdown that was running when stdin closed")
	if !s.Proc.WaitExit(wire.EXIT) {
		t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after stdin closed and its last response was written", wire.EXIT),
			Want: "exit with status 0"})
	}
	if code := s.Proc.ExitCode(); code != 0 {
		t.Fail(check.Failure{What: "the server exited with " + s.Proc.Status() + " after stdin closed", Want: "exit status 0"})
	}
}

var stdio23 = &check.Check{
	ID: "STDIO-23", Step: 6, Severity: check.Must, Budget: 8 * time.Second,
	Title: "when the client closes stdout, the server exits",
	Spec: lifecycleRule("Shutdown › stdio",
		"The server MAY initiate shutdown by closing its output stream to the client and exiting"),
	Course: "A client that has gone away cannot read anything more. The course requires the server to notice the failed write and exit within 2 s, " +
		"instead of running on unseen, even while a long request is running, and to exit with status 0: its client leaving is an orderly end, not a crash " +
		"(the given main exits 0 when Serve returns an error that wraps EPIPE).",
	Hint: check.Hint{
		Report: "Check the error of every write to stdout. The given main ignores SIGPIPE, so a write to a closed pipe returns EPIPE: cancel what is running, " +
			"stop Serve and return that error. Waiting for a 10 s tool call to finish first keeps a dead server alive for 10 s. " +
			"Every write goes through the one writer that remembers the error: responses, progress notifications (Send), and the wait at end of input watches it too.",
		Question: "When the client stops reading, what does your write to stdout return, and what does your server do with that error?",
		Pointer:  "With SIGPIPE ignored (the given main does that), a write to a closed pipe returns an error (syscall.EPIPE) instead of killing the process. basic/lifecycle › Shutdown: a server that cannot talk to its client may end the session by exiting.",
		Near: `In the writer, remember the first write error and say so once:

	if _, err := w.out.Write(b); err != nil {
		w.once.Do(func() { w.err = err; close(w.failed) })
		return err
	}

In Serve's select:

	case <-c.failed:
		cancel() // stop the running tools too
		return c.err`,
	},
	Claims: []check.Claim{
		{Claim: "a failed write stops the server: cancel what runs, return the error", Where: "step 6", How: "stdout closed while a 10 s countdown runs: exit within 2 s, status 0; with pings to answer, with only progress notifications to write, after stdin has closed, and while eight responses wait behind a full pipe (every one of their writes fails)"},
	},
	Checklist: []string{"B7", "D8"},
	Run:       checkStdoutClosed,
}

func checkStdoutClosed(t *check.T) {
	t.Parallel(func() {
		s := wire.StartStdio(t)
		s.Initialize(spec.Rev)
		// A 10 s countdown runs when the client goes away: the server must not
		// wait for it before it stops.
		s.Send(wire.Request(`"long"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 100, "interval_ms": 100}, nil)))
		s.Proc.Stdout.Close()
		t.Wire.Event("closed the read end of the server's stdout, while a 10 s countdown runs")
		// Each ping's answer cannot be written. Keep sending them: a child that
		// the grader starts at the same moment can hold a copy of the pipe for
		// an instant, and one write may still get through.
		deadline := time.Now().Add(wire.EXIT)
		for id := 2; time.Now().Before(deadline); id++ {
			s.TrySend(wire.Request(fmt.Sprint(id), "ping", nil))
			if s.Proc.WaitExit(100 * time.Millisecond) {
				break
			}
		}
		if !s.Proc.Exited() {
			t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after its stdout was closed and it had a response to write", wire.EXIT),
				Want: "the server exits, cancelling the countdown still running"})
		}
		exitedZero(t, s, "after its stdout was closed")
	}, func() {
		// Nothing but progress notifications to write: a failed write of one
		// of them is a failed write like any other.
		progressOnly(t, false)
	}, func() {
		// Stdin has ended and the server waits for the countdown: it must
		// still notice that stdout has gone.
		progressOnly(t, true)
	}, func() {
		// Many writes wait behind a full pipe when it breaks: every one of
		// them fails, and the server must take that in its stride.
		s := wire.StartStdio(t)
		s.Initialize(spec.Rev)
		s.PauseReads()
		var echoes strings.Builder
		for i := 0; i < 8; i++ {
			echoes.WriteString(wire.Request(fmt.Sprintf(`"w%d"`, i), "tools/call", wire.ToolCall("echo", map[string]any{"text": strings.Repeat("w", 48<<10)}, nil)) + "\n")
		}
		sent := s.SendRawAsync(echoes.String())
		s.Pause(200 * time.Millisecond)
		s.Proc.Stdout.Close()
		t.Wire.Event("closed the read end of the server's stdout, while eight echoes of 48 KiB wait to be written")
		if !s.Proc.WaitExit(wire.EXIT) {
			t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after its stdout was closed, while eight responses waited to be written", wire.EXIT),
				Want: "the server exits"})
		}
		sent()
		exitedZero(t, s, "after its stdout was closed while eight responses waited to be written")
	})
}

// progressOnly closes the server's stdout while a 10 s countdown reports
// its progress every 100 ms, and nothing else is sent (stdin closed first
// when eof), and fails the check unless the server exits within wire.EXIT.
func progressOnly(t *check.T, eof bool) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	s.Send(wire.Request(`"long"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 100, "interval_ms": 100}, "p-long")))
	s.Within(wire.T1, func(m *wire.Msg) bool { return m.MethodName() == "notifications/progress" })
	when := "with stdin open"
	if eof {
		s.CloseStdin()
		when = "after stdin had closed"
	}
	s.Proc.Stdout.Close()
	t.Wire.Event("closed the read end of the server's stdout " + when + ", while a 10 s countdown reports progress every 100 ms")
	if !s.Proc.WaitExit(wire.EXIT) {
		t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after its stdout was closed %s, while it wrote progress notifications every 100 ms", wire.EXIT, when),
			Want: "the server notices the failed write of a notification, and exits, cancelling the countdown"})
	}
	exitedZero(t, s, "after its stdout was closed "+when)
}

var stdio24 = &check.Check{
	ID: "STDIO-24", Step: 6, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Signal: true},
	Title: "SIGTERM stops the server",
	Spec: lifecycleRule("Shutdown › stdio",
		"sending SIGTERM if the server does not exit within a reasonable time"),
	Course: "The course requires the server to exit within 2 s of SIGTERM, even with a request running, whether stdin is still open " +
		"or has closed and the server is waiting for that request to finish, and to exit with status 0 (the given main does when Serve returns ctx.Err()). " +
		"A message begun before SIGTERM is finished: stdout never ends in the middle of a line (the spec's rule: only valid messages on stdout).",
	Hint: check.Hint{
		Report: "The given main cancels Serve's context on SIGTERM. Watch ctx.Done() in your loop (select on it beside the lines channel), cancel what is running, and return. " +
			"At end of input, wait for the running requests in a select that also watches ctx.Done(), not with a bare WaitGroup.Wait.",
		Question: "The given main cancels Serve's context on SIGTERM: does your loop ever look at ctx.Done() while it waits for input?",
		Pointer:  "os/signal.NotifyContext cancels a context on a signal; a goroutine blocked in ReadBytes cannot notice it, so read on a goroutine of its own and select on the lines channel and ctx.Done(). basic/lifecycle › Shutdown › stdio.",
		Near: `Read on a goroutine of its own, so the loop can also watch ctx:

	go func() {
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	for {
		select {
		case line := <-lines:
			c.handle(ctx, line)
		case err := <-readErr:
			// step 6: end of input
		case <-ctx.Done():
			return ctx.Err() // SIGTERM; defer c.session.Close() stops the tools
		}
	}`,
	},
	Claims: []check.Claim{
		{Claim: "SIGTERM stops the server, also while it waits at end of input, with exit status 0", Where: "step 6", How: "with stdin open, and with stdin closed and a countdown running"},
		{Claim: "Serve returns ctx.Err() on SIGTERM (main exits 0), after the writes it has begun", Where: "step 6", How: "SIGTERM while ten 48 KiB echoes wait behind a full pipe: no message cut short on stdout, then exit 0"},
	},
	Checklist: []string{"B7", "D8"},
	Run:       checkSIGTERM,
}

func checkSIGTERM(t *check.T) {
	if !proc.CanTerminate {
		return // no SIGTERM on this system; the check has nothing to test
	}
	terminate := func(stdinOpen bool) {
		s := wire.StartStdio(t)
		s.Initialize(spec.Rev)
		s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 100, "interval_ms": 100}, nil)))
		when := "with a 10 s countdown running and stdin open"
		if !stdinOpen {
			s.CloseStdin()
			when = "with stdin closed, while the server waits for a 10 s countdown to finish"
			s.Pause(100 * time.Millisecond)
		}
		if s.Proc.Exited() {
			return // it did not wait for the countdown at end of input: STDIO-22's business
		}
		t.Wire.Event("sent SIGTERM, " + when)
		if err := s.Proc.Terminate(); err != nil {
			if s.Proc.WaitExit(time.Second) {
				return // it exited on its own just before: STDIO-22's business
			}
			t.Failf("could not send SIGTERM: %v", err)
		}
		if !s.Proc.WaitExit(wire.EXIT) {
			t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after SIGTERM, sent %s", wire.EXIT, when), Want: "the server exits"})
		}
		exitedZero(t, s, "after SIGTERM, sent "+when)
	}
	t.Parallel(func() { terminate(true) }, func() { terminate(false) }, func() { noHalfLineOnSIGTERM(t) })
}

// noHalfLineOnSIGTERM sends SIGTERM while responses wait to be written,
// the grader not reading: the server may leave them unwritten, but a
// message it has begun to write it must finish, or stdout ends in the
// middle of a line.
func noHalfLineOnSIGTERM(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	s.PauseReads()
	// Echoes of 48 KiB: each line under 64 KiB (a reader with a small
	// buffer copes), each answer more than the pipe has room for once
	// the first few wait in it.
	big := strings.Repeat("z", 48<<10)
	var echoes strings.Builder
	for i := 0; i < 10; i++ {
		echoes.WriteString(wire.Request(fmt.Sprintf(`"big-%d"`, i), "tools/call", wire.ToolCall("echo", map[string]any{"text": big}, nil)) + "\n")
	}
	// Without waiting for the write: a server may stop reading while its
	// own writes wait.
	sent := s.SendRawAsync(echoes.String())
	s.Pause(200 * time.Millisecond) // the answers fill the pipe, and the next write blocks
	t.Wire.Event("sent SIGTERM, while ten echoes of 48 KiB wait to be written and the grader does not read")
	if err := s.Proc.Terminate(); err != nil {
		t.Failf("could not send SIGTERM: %v", err)
	}
	s.Pause(200 * time.Millisecond)
	s.ResumeReads()
	s.Drain(wire.EXIT)
	sent()
	func() {
		defer t.SpecRule()() // only MCP messages on stdout
		for i, l := range s.All() {
			// A message cut short: the start of one, and not JSON. (Other
			// lines that are not JSON are STDIO-06's business.)
			if l.Err != nil && strings.HasPrefix(l.Text, "{") && strings.Contains(l.Text, `"jsonrpc"`) {
				t.Fail(check.Failure{What: fmt.Sprintf("after SIGTERM, line %d of stdout is not a whole message: the server exited in the middle of writing it (%v)", i+1, l.Err),
					Got: check.Quote(l.Text[:min(len(l.Text), 200)]) + fmt.Sprintf(" (%d bytes in all)", len(l.Text)), Want: "whole messages only: finish a write you have begun before you exit"})
			}
		}
	}()
	if !s.Proc.WaitExit(wire.EXIT) {
		t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after SIGTERM, once the grader read its stdout again", wire.EXIT), Want: "the server exits"})
	}
	exitedZero(t, s, "after SIGTERM")
}

// exitedZero fails the check unless the server, which has exited, did so
// with status 0.
func exitedZero(t *check.T, s *wire.Stdio, when string) {
	if code := s.Proc.ExitCode(); code != 0 {
		t.Fail(check.Failure{What: "the server exited with " + s.Proc.Status() + " " + when, Want: "exit status 0: an orderly end, not a crash"})
	}
}

var stdio30 = &check.Check{
	ID: "STDIO-30", Step: 6, Severity: check.Must, Budget: 8 * time.Second,
	Title: "at end of stdin, batches in flight are answered whole, then the server exits 0",
	Spec: lifecycleRule("Shutdown › stdio",
		"the client SHOULD initiate shutdown by: First, closing the input stream to the child process"),
	Course: "A batch runs like a request. The course requires the server, at end of stdin, to finish the batches it already has, " +
		"write each one's array, and exit with status 0 within 2 s, as it does for requests (STDIO-22).",
	Hint: check.Hint{
		Report: "Count a batch in the WaitGroup that end of input waits for, exactly as a request: Add before its goroutine starts, Done when it has written its answer. " +
			"A batch outside the count is lost at end of input; one that never gives its count back keeps the server from ever exiting.",
		Question: "When stdin ends while a batch is still running, is its array still written, and does Serve then return?",
		Pointer:  "basic/lifecycle › Shutdown › stdio: the client closes stdin and waits for the server to exit. sync.WaitGroup: every Add needs its Done, on every path. Lesson 01, steps 5 and 6.",
		Near: `	if IsBatch(data) {
		if !c.admit(jsonrpc.ID{}) { // Add(1) on the WaitGroup
			return
		}
		c.run(func() {
			defer c.release() // Done, whatever happens
			// ServeBatch, then write its answer
		})
		return
	}`,
	},
	Claims: []check.Claim{
		{Claim: "at end of stdin, batches in flight are answered whole, then exit 0", Where: "step 5, step 6", How: "at 2025-03-26, a batch of a 0.3 s countdown and a ping, and a batch of one ping, then stdin closes"},
	},
	Checklist: []string{"B7", "D8"},
	Run:       checkEOFWithBatches,
}

func checkEOFWithBatches(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize("2025-03-26")
	// A quick batch first: a server whose batches never give their place
	// back has one more to wait for.
	s.Send("[" + wire.Request(`"q"`, "ping", nil) + "]")
	s.AwaitLine(wire.T1, "answer to a batch of one ping", func(l wire.Line) bool { return strings.Contains(l.Text, `"q"`) })
	s.Send("[" + wire.Request(`"a"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 3, "interval_ms": 100}, nil)) + "," +
		wire.Request(`"b"`, "ping", nil) + "]")
	s.CloseStdin()
	l := s.AwaitLine(wire.T2, "answer to a batch of a 0.3 s countdown and a ping, running when stdin closed",
		func(l wire.Line) bool { return strings.HasPrefix(strings.TrimSpace(l.Text), "[") })
	got := batchResponses(t, l, "a batch of a countdown and a ping", `[{"jsonrpc":"2.0","id":"b","result":{}},{"jsonrpc":"2.0","id":"a","result":{...}}]`)
	if len(got) != 2 || got[`"a"`] == nil || got[`"b"`] == nil {
		t.Fail(check.Failure{What: "the batch running when stdin closed was not answered whole", Got: check.Quote(l.Text), Want: `responses with ids "a" and "b"`})
	}
	if !s.Proc.WaitExit(wire.EXIT) {
		t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after stdin closed and its last batch was answered", wire.EXIT),
			Want: "exit with status 0"})
	}
	if code := s.Proc.ExitCode(); code != 0 {
		t.Fail(check.Failure{What: "the server exited with " + s.Proc.Status() + " after stdin closed", Want: "exit status 0"})
	}
}
