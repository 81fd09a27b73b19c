package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/proc"
)

// Deadlines shared by the checks (see the transport checklist, "How to read this").
const (
	T1    = 2 * time.Second        // one response
	T2    = 5 * time.Second        // a stream or a slow tool to finish
	Q     = 400 * time.Millisecond // quiet window: "nothing may arrive"
	EXIT  = 2 * time.Second        // a process to exit once told to
	write = 2 * time.Second        // one write to the target's stdin
)

// maxLine caps one line from the target. A longer line is cut and marked:
// enough for every message a check expects, and memory stays bounded.
const maxLine = 32 << 20

// Line is one line the target wrote to stdout, without its newline.
type Line struct {
	Text    string
	Msg     *Msg      // nil when the line is not a JSON-RPC message
	Err     error     // why Msg is nil
	Problem string    // why Msg is not a valid JSON-RPC message, or ""
	At      time.Time // when the grader read it
}

// Stdio is a conversation with a program over its stdin and stdout.
type Stdio struct {
	t     *check.T
	Proc  *proc.Process
	lines chan Line // closed at EOF on stdout
	// pending holds lines received but not yet taken by Await, in order.
	pending []Line
	eof     bool
	sent    []string // every line sent, for the repro command
	all     []Line   // every line received (up to maxKept), in order
	// answered is set once the target has written one valid JSON-RPC
	// message: until then, a missing answer means it answers nothing at all.
	answered bool

	mu     sync.Mutex
	resume chan struct{} // while reading is paused, closed to resume it

	// grace is added to the first wait for an answer: an external command
	// may be an interpreter that takes a while to start (node, python),
	// which the grader does not count against the server's answers.
	grace time.Duration
}

// maxKept caps how many received lines a conversation remembers.
const maxKept = 2000

// StartStdio starts the target as a stdio MCP server: the server the grader
// built, or the target's external command. It is killed when the check ends.
func StartStdio(t *check.T) *Stdio {
	bin, args := t.Target.Binary, []string(nil)
	if len(t.Target.Command) > 0 {
		bin, args = t.Target.Command[0], t.Target.Command[1:]
	}
	p, err := proc.Start(t.Context(), bin, args...)
	if err != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("could not start %s: %v", t.Target.Invocation(), err), Cause: check.CauseStart})
	}
	t.Cleanup(p.Kill)
	t.AttachStderr(p.Stderr)
	s := &Stdio{t: t, Proc: p, lines: make(chan Line, 256)}
	if len(t.Target.Command) > 0 {
		s.grace = check.StartupGrace
	}
	t.SetRepro(s.repro)
	go s.read()
	return s
}

func (s *Stdio) read() {
	defer close(s.lines)
	r := bufio.NewReaderSize(s.Proc.Stdout, 64<<10)
	for {
		s.mu.Lock()
		resume := s.resume
		s.mu.Unlock()
		if resume != nil {
			select {
			case <-resume:
			case <-s.t.Context().Done():
				return
			}
		}
		var buf []byte
		cut := false
		for {
			chunk, err := r.ReadSlice('\n')
			if len(buf)+len(chunk) <= maxLine {
				buf = append(buf, chunk...)
			} else {
				cut = true
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && len(buf) == 0 {
				return // EOF (or a closed pipe) with nothing left
			}
			break
		}
		text := strings.TrimSuffix(string(buf), "\n")
		l := Line{Text: text, At: time.Now()}
		if cut {
			l.Err = fmt.Errorf("line longer than %d bytes", maxLine)
		} else if l.Msg, l.Err = Parse([]byte(text)); l.Err == nil {
			l.Problem = l.Msg.Problem()
		}
		s.t.Wire.Received(text)
		select {
		case s.lines <- l:
		case <-s.t.Context().Done():
			return // the check is over; nobody will read this
		}
	}
}

// Send writes line and a newline to the target's stdin.
func (s *Stdio) Send(line string) { s.SendRaw(line + "\n") }

// SendRaw writes data to the target's stdin as it is.
func (s *Stdio) SendRaw(data string) { s.SendRawAsync(data)() }

// SendRawAsync starts writing data to the target's stdin and returns at once.
// The returned function waits for the write to end, and fails the check if
// it failed. Checks use it when the target may stop reading stdin until the
// grader reads its stdout.
func (s *Stdio) SendRawAsync(data string) (wait func()) {
	s.t.Wire.Sent(strings.TrimSuffix(data, "\n"))
	if len(data) > reproMax {
		s.sent = append(s.sent, tooLongToPaste) // keep the count, not the bytes
	} else {
		s.sent = append(s.sent, data)
	}
	// Allow a second per MiB beyond the base deadline, for big lines: a
	// server that reads a 16 MiB line on a loaded machine is slow, not
	// stuck, and one that has stopped reading is still found.
	deadline := write + time.Duration(len(data)>>20)*time.Second
	s.Proc.Stdin.SetWriteDeadline(time.Now().Add(deadline))
	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(s.Proc.Stdin, data)
		done <- err
	}()
	return func() {
		err := <-done
		if err == nil {
			return
		}
		what := fmt.Sprintf("could not write to the server's stdin: %v", err)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			what = fmt.Sprintf("the server did not read its stdin for %v (the write of %d bytes blocked)", deadline, len(data))
		case s.Proc.WaitExit(500 * time.Millisecond):
			// The server has exited. The next wait for its answer reports
			// that, with what it wrote before: whether this write came
			// before its exit or after is a matter of timing.
			return
		}
		s.t.Fail(check.Failure{What: what})
	}
}

// PauseReads stops reading the target's stdout after the line being read,
// so its writes back up in the pipe, until ResumeReads. Checks use it to make
// the target's writers contend, as they do behind a slow client.
func (s *Stdio) PauseReads() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resume == nil {
		s.resume = make(chan struct{})
		s.t.Wire.Event("stopped reading stdout")
	}
}

// ResumeReads undoes PauseReads.
func (s *Stdio) ResumeReads() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resume != nil {
		close(s.resume)
		s.resume = nil
		s.t.Wire.Event("reading stdout again")
	}
}

// Within waits up to d for a message for which match returns true, like
// Await, but returns nil instead of failing when none comes.
func (s *Stdio) Within(d time.Duration, match func(*Msg) bool) *Msg {
	d += s.takeGrace()
	for i, l := range s.pending {
		if l.Msg != nil && match(l.Msg) {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			return l.Msg
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		l, ok := s.next(timer.C)
		if !ok {
			return nil
		}
		if l.Msg != nil && match(l.Msg) {
			return l.Msg
		}
		s.pending = append(s.pending, l)
	}
}

// Pause lets time pass without reading anything, for d or until the check
// ends. It is for letting work pile up on the target, never for waiting on
// an answer: that is what Await is for.
func (s *Stdio) Pause(d time.Duration) {
	select {
	case <-time.After(d):
	case <-s.t.Context().Done():
	}
}

// TrySend writes line and a newline to the target's stdin, like Send, but
// returns a failed write instead of failing the check: for checks that expect
// the target to stop reading.
func (s *Stdio) TrySend(line string) error {
	s.t.Wire.Sent(line)
	s.Proc.Stdin.SetWriteDeadline(time.Now().Add(write))
	_, err := io.WriteString(s.Proc.Stdin, line+"\n")
	return err
}

// CloseStdin closes the target's stdin: end of input.
func (s *Stdio) CloseStdin() {
	s.t.Wire.Event("closed stdin")
	s.Proc.Stdin.Close()
}

// Await waits up to within for a message for which match returns true and
// returns it. Lines that do not match are kept for later calls. If none
// matches in time, or stdout ends first, the check fails; what names the
// awaited message in that report, such as "response to ping (id 2)".
func (s *Stdio) Await(within time.Duration, what string, match func(*Msg) bool) *Msg {
	return s.AwaitLine(within, what, func(l Line) bool { return l.Msg != nil && match(l.Msg) }).Msg
}

// AwaitLine is Await for any line, such as a JSON array (a batch response).
func (s *Stdio) AwaitLine(within time.Duration, what string, match func(Line) bool) Line {
	within += s.takeGrace()
	for i, l := range s.pending {
		if match(l) {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			return l
		}
	}
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		l, ok := s.next(timer.C)
		switch {
		case !ok && s.eof:
			s.t.Fail(check.Failure{
				What:  fmt.Sprintf("the server closed its stdout (%s) before sending the %s", s.exitStatus(), what),
				Got:   s.strayLines(),
				Hint:  joinHints(s.strayHint(), "Your server stopped. Look at its stderr below: a panic, or Serve returning, ends the process."),
				Cause: s.silentCause(),
			})
		case !ok:
			s.t.Fail(check.Failure{
				What:  fmt.Sprintf("no %s within %v", what, within),
				Got:   s.strayLines(),
				Hint:  s.strayHint(),
				Cause: s.silentCause(),
			})
		case match(l):
			return l
		default:
			s.pending = append(s.pending, l)
		}
	}
}

// takeGrace returns the startup grace, once.
func (s *Stdio) takeGrace() time.Duration {
	g := s.grace
	s.grace = 0
	return g
}

// AwaitResponse waits for the response to the request with id (its JSON text).
func (s *Stdio) AwaitResponse(within time.Duration, id, method string) *Msg {
	return s.Await(within, fmt.Sprintf("response to %s (id %s)", method, id), func(m *Msg) bool { return m.IsResponseTo(id) })
}

// Call sends a request and waits up to T1 for its response.
func (s *Stdio) Call(id, method string, params any) *Msg {
	s.Send(Request(id, method, params))
	return s.AwaitResponse(T1, id, method)
}

// Initialize runs the handshake at the given protocol version: initialize,
// its response, then notifications/initialized.
func (s *Stdio) Initialize(version string) *Msg {
	withdraw := s.t.Suspect(check.CauseInitialize)
	resp := s.Call(`"init"`, "initialize", InitializeParams(version))
	if resp.Error != nil {
		s.t.Fail(check.Failure{What: "initialize failed", Got: check.Quote(string(resp.Raw)), Want: "a result", Cause: check.CauseInitialize})
	}
	withdraw()
	s.Send(Notification("notifications/initialized", nil))
	return resp
}

// Quiet fails the check if a message arrives within window. what says what
// would have been wrong with it, such as "a reply to a notification". Lines
// that are not JSON do not count here: STDIO-06 judges those.
func (s *Stdio) Quiet(window time.Duration, what string) { s.quiet(window, what, false) }

// QuietAll is Quiet for every line, JSON or not: for the moments when the
// target must write nothing at all.
func (s *Stdio) QuietAll(window time.Duration, what string) { s.quiet(window, what, true) }

func (s *Stdio) quiet(window time.Duration, what string, all bool) {
	timer := time.NewTimer(window)
	defer timer.Stop()
	for {
		l, ok := s.next(timer.C)
		if !ok {
			return
		}
		if all || l.Msg != nil {
			s.t.Fail(check.Failure{What: fmt.Sprintf("%s arrived", what), Got: check.Quote(l.Text), Want: "nothing"})
		}
	}
}

// All returns every line received so far (up to a cap), in order.
func (s *Stdio) All() []Line { return s.all }

// Pending returns the lines received but not taken by Await, and forgets them.
func (s *Stdio) Pending() []Line {
	p := s.pending
	s.pending = nil
	return p
}

// Drain reads lines until stdout ends or within passes, so that All sees
// them.
func (s *Stdio) Drain(within time.Duration) {
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		if _, ok := s.next(timer.C); !ok {
			return
		}
	}
}

// next returns the next line, or false at EOF or when timeout fires.
func (s *Stdio) next(timeout <-chan time.Time) (Line, bool) {
	if s.eof {
		return Line{}, false
	}
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.eof = true
			return l, ok
		}
		if len(s.all) < maxKept {
			s.all = append(s.all, l)
		}
		if l.Msg != nil && l.Problem == "" {
			s.answered = true
		}
		return l, ok
	case <-timeout:
		return Line{}, false
	case <-s.t.Context().Done():
		s.t.Failf("the check ran out of time")
		return Line{}, false
	}
}

// silentCause is the cause of a missing answer: check.CauseStart when the server
// has not written one valid message yet, so that every check reads as
// blocked by the lesson's first check; else none.
func (s *Stdio) silentCause() string {
	if s.answered {
		return ""
	}
	return check.CauseStart
}

// joinHints joins the hints that are not empty, one per line.
func joinHints(hints ...string) string {
	var out []string
	for _, h := range hints {
		if h != "" {
			out = append(out, h)
		}
	}
	return strings.Join(out, "\n")
}

func (s *Stdio) exitStatus() string {
	if s.Proc.WaitExit(time.Second) {
		return "it exited: " + s.Proc.Status()
	}
	return "the process is still running"
}

// strayLines describes the lines that arrived but were not what a check
// waited for.
func (s *Stdio) strayLines() string {
	if len(s.pending) == 0 {
		return "nothing"
	}
	var b strings.Builder
	for i, l := range s.pending {
		if i == 6 {
			fmt.Fprintf(&b, "… and %d more lines\n", len(s.pending)-i)
			break
		}
		b.WriteString(check.Quote(l.Text))
		if l.Err != nil {
			fmt.Fprintf(&b, "  ← %v", l.Err)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (s *Stdio) strayHint() string {
	notJSON := 0
	for _, l := range s.pending {
		if l.Err != nil {
			notJSON++
		}
	}
	switch {
	case notJSON > 1:
		return "Several lines were not JSON on their own. If one message spans many lines, you are pretty-printing: use json.Marshal (or an Encoder without SetIndent), which writes one line."
	case notJSON == 1:
		return "A line that is not JSON reached stdout. Everything on stdout must be a JSON-RPC message; logs belong on stderr."
	}
	return ""
}

// reproMax is the longest input the repro command spells out.
const reproMax = 400

// tooLongToPaste stands in for an input longer than reproMax.
const tooLongToPaste = "\x00too long to paste"

// repro builds a shell command that feeds the same lines to the server.
func (s *Stdio) repro() string {
	var b strings.Builder
	b.WriteString("printf '%s\\n'")
	for _, line := range s.sent {
		line = strings.TrimSuffix(line, "\n")
		if line == tooLongToPaste || strings.ContainsAny(line, "\n\r") {
			return "" // not worth pasting; the wire log shows what was sent
		}
		b.WriteString(" '" + strings.ReplaceAll(line, "'", `'\''`) + "'")
	}
	fmt.Fprintf(&b, " | %s", s.t.Target.Invocation())
	return b.String()
}
