package lesson01

import (
	"fmt"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step3 holds the checks of step 3: framing that survives real clients.
var step3 = check.Step{
	Checks: []*check.Check{stdio14, stdio15, stdio28},
	Unchecked: []check.Claim{
		{Claim: "lines over MaxMessageBytes are refused, never held whole", Where: "step 3 (optional)", How: "an optional refactor in the lesson; not required of learners (STDIO-28 only holds a cap to its word)"},
	},
}

var stdio14 = &check.Check{
	ID: "STDIO-14", Step: 3, Severity: check.Must, Budget: 20 * time.Second,
	Title: "a 4 MiB line is read whole",
	Spec:  stdioRule("Messages are delimited by newlines"),
	Course: "The spec sets no size limit. The course requires at least 4 MiB, " +
		"the size of real tool results (files, screenshots).",
	Hint: check.Hint{
		Report:   "bufio.Scanner stops for good at a line longer than its buffer, 64 KiB by default (bufio.ErrTooLong: \"token too long\"). Use bufio.Reader, or give the Scanner a larger buffer with Scanner.Buffer.",
		Question: "What happens to your read loop when one line is longer than 64 KiB?",
		Pointer:  "bufio.Scanner stops at a token longer than its buffer (bufio.MaxScanTokenSize, 64 KiB) and Err returns bufio.ErrTooLong; bufio.Reader.ReadBytes grows its result as needed. Scanner.Buffer raises the Scanner's limit.",
		Near: `A bufio.Reader grows each line as needed:

	r := bufio.NewReaderSize(in, 64<<10)
	line, err := r.ReadBytes('\n') // 4 MiB is fine

If you keep a Scanner, raise its limit before the first Scan:

	sc.Buffer(make([]byte, 64<<10), MaxMessageBytes)`,
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "a 4 MiB line is read whole (a default bufio.Scanner dies at 64 KiB)", Where: "step 3"},
	},
	Run: checkLongLine,
}

func checkLongLine(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	t.SetRepro(func() string {
		return fmt.Sprintf(`{ printf '%%s' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"'; `+
			`head -c %d /dev/zero | tr '\0' a; printf '%%s\n' '"}}}'; } | %s`, 4<<20, t.Target.Invocation())
	})
	s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": longText}, nil)))
	resp := s.AwaitResponse(2*wire.T2, `2`, "tools/call echo with 4 MiB of text")
	if got := probe.ToolText(t, resp, "echo"); got != longText {
		t.Fail(check.Failure{What: fmt.Sprintf("echo returned %d bytes of text, not the %d bytes sent", len(got), len(longText))})
	}
	stillServing(t, s, `3`)
}

// longText is a little over 4 MiB, ending in a multi-byte character.
var longText = strings.Repeat("a", 4<<20) + "é"

var stdio15 = &check.Check{
	ID: "STDIO-15", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Title: "CRLF line endings work and blank lines are ignored",
	Spec:  stdioRule("Messages are delimited by newlines"),
	Course: "Clients on Windows may end lines with \\r\\n, and a stray blank line holds no message. " +
		"The course requires a server to take both in its stride, silently.",
	Hint: check.Hint{
		Report:   "Trim \\r and spaces from the end of each line, and skip a line that is empty after trimming: it is not a message, so it gets no answer, not even a parse error.",
		Question: "What does a line ending in \\r\\n look like to your decoder, and what do you answer to an empty line?",
		Pointer:  "The stdio transport frames messages by newlines only; bytes.TrimSpace removes \\r, spaces and tabs at both ends. A blank line holds no message, so it is owed no answer.",
		Near: `Before Decode:

	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		continue // a blank line holds no message: no answer at all
	}`,
	},
	Claims: []check.Claim{
		{Claim: "CRLF endings work; blank lines get no answer", Where: "step 3"},
	},
	Run: checkCRLFAndBlankLines,
}

func checkCRLFAndBlankLines(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	s.SendRaw(wire.Request(`2`, "ping", nil) + "\r\n")
	s.SendRaw("\n\n   \n\r\n")
	s.SendRaw(wire.Request(`3`, "ping", nil) + "\n")
	s.AwaitResponse(wire.T1, `2`, "ping sent with a CRLF line ending")
	s.AwaitResponse(wire.T1, `3`, "ping sent after blank lines")
	strayAfter(t, s, "an answer to a blank line")
}

var stdio28 = &check.Check{
	ID: "STDIO-28", Step: 3, Severity: check.Must, Budget: 40 * time.Second,
	Title: "a line is one message, whatever its length: a line of MaxMessageBytes is served, and no part of a longer one is",
	Spec:  stdioRule("Messages are delimited by newlines"),
	Course: "The spec sets no size limit. The course's starter names MaxMessageBytes (16 MiB) the longest line a server must accept; " +
		"a server may refuse longer lines, and then it must refuse every line beyond MaxMessageBytes, a last line without a newline included, " +
		"and none up to it.",
	Hint: check.Hint{
		Report: "Only a newline ends a message. A line of exactly MaxMessageBytes bytes is served. If you cap lines, answer a longer one with one error and skip all of it, " +
			"up to its newline: never serve its first MaxMessageBytes bytes, nor what follows the point where you gave up, as messages of their own. " +
			"Measure the line without its newline, and count a last line without one the same way.",
		Question: "When a line passes your cap, what happens to the bytes you have not read yet: are they skipped up to the newline, or read as the next line? And is a line of exactly MaxMessageBytes bytes under your cap or over it?",
		Pointer: "basic/transports › stdio: messages are delimited by newlines, so one line is one message, however long. bufio.Reader.ReadSlice('\\n') returns bufio.ErrBufferFull " +
			"for every full buffer of a long line: keep reading (and discarding) until the chunk that ends with the newline. Lesson 01, deep dives, step 3.",
		Near: `	for {
		chunk, err := r.ReadSlice('\n')
		if !l.tooLong {
			if len(l.data)+len(bytes.TrimSuffix(chunk, []byte("\n"))) > MaxMessageBytes {
				l = line{tooLong: true} // drop what was kept, keep reading to the newline
			} else {
				l.data = append(l.data, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue // the same line goes on
		}
		// …
	}`,
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "a line of exactly MaxMessageBytes bytes is served", Where: "step 3", How: "a ping padded to 16 MiB"},
		{Claim: "no part of a line is served as a message: not its head, nor its tail after a cap gives up", Where: "step 3",
			How: "a ping followed by white space past the cap, and white space past the cap followed by a ping: each gets one error and nothing else"},
		{Claim: "a cap, if any, starts right after MaxMessageBytes", Where: "step 3",
			How: "pings padded to MaxMessageBytes+1 and to twice MaxMessageBytes, and to MaxMessageBytes+1 as a last line without a newline: all served, or all refused; a last line of exactly MaxMessageBytes is served"},
	},
	Checklist: []string{"B2"},
	Run:       checkLineIsOneMessage,
}

// maxMessageBytes is the starter's MaxMessageBytes: the longest line a
// server must accept.
const maxMessageBytes = 16 << 20

// paddedPing is a ping with the given id (its JSON text), padded with a
// params member to exactly n bytes.
func paddedPing(id string, n int) string {
	head := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping","params":{"pad":"`
	const tail = `"}}`
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

func checkLineIsOneMessage(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	// verdict sends one long line and returns its one answer: a response
	// to id, or an error without an id. A second answer to the same line
	// shows after the ping that follows it.
	marker := 0
	verdict := func(line, id, what string) *wire.Msg {
		s.Send(line)
		// Decoding 16 MiB takes a server built with -race seconds, more
		// on a loaded machine.
		resp := s.Await(4*wire.T2, "answer to "+what, answerTo(id))
		marker++
		stillServing(t, s, fmt.Sprintf(`"after-%d"`, marker))
		strayAfter(t, s, "a second answer to "+what)
		return resp
	}
	served := func(resp *wire.Msg) bool { return resp.Error == nil && !resp.HasNoID() }

	t.Case("a line of exactly MaxMessageBytes", func() {
		what := fmt.Sprintf("a ping of exactly %d bytes (MaxMessageBytes)", maxMessageBytes)
		if resp := verdict(paddedPing(`"at-cap"`, maxMessageBytes), `"at-cap"`, what); !served(resp) {
			t.Fail(check.Failure{What: what + " was refused: MaxMessageBytes is the longest line a server must accept",
				Got: check.Quote(string(resp.Raw)), Want: `{"jsonrpc":"2.0","id":"at-cap","result":{}}`})
		}
	})

	// Two lines past the cap, each with a whole message at one end. The
	// line's length is a multiple of 64 KiB, less its newline, so that a
	// reader that gives up at a buffer's edge resumes on a message.
	const past = maxMessageBytes + 2<<16 - 1
	head := wire.Request(`"head"`, "ping", nil)
	tail := wire.Request(`"tail"`, "ping", nil)
	for _, c := range []struct{ id, line, what string }{
		{`"head"`, head + strings.Repeat(" ", past-len(head)-1) + "x",
			fmt.Sprintf("a line of %d bytes: a ping, then white space, then an x", past)},
		{`"tail"`, "x" + strings.Repeat(" ", past-len(tail)-1) + tail,
			fmt.Sprintf("a line of %d bytes: an x, then white space, then a ping", past)},
	} {
		t.Case("no part of a line served: "+c.id, func() {
			defer t.SpecRule()() // one line, one message: the spec's framing
			if resp := verdict(c.line, c.id, c.what); served(resp) {
				t.Fail(check.Failure{What: c.what + ", was served as a message: part of a line was read as a message of its own",
					Got: check.Quote(string(resp.Raw)), Want: "one error without an id (the line is not one message), and nothing else"})
			}
		})
	}

	t.Case("a cap starts right after MaxMessageBytes", func() {
		justOver := fmt.Sprintf("a ping of %d bytes (MaxMessageBytes+1)", maxMessageBytes+1)
		over := verdict(paddedPing(`"over"`, maxMessageBytes+1), `"over"`, justOver)
		// Twice MaxMessageBytes and more: past any cap a little too high.
		farWhat := fmt.Sprintf("a ping of %d bytes (twice MaxMessageBytes, and 64 KiB)", 2*maxMessageBytes+1<<16)
		far := verdict(paddedPing(`"far"`, 2*maxMessageBytes+1<<16), `"far"`, farWhat)
		if served(over) != served(far) {
			t.Fail(check.Failure{What: fmt.Sprintf("%s was %s, but %s was %s: a cap must start right after MaxMessageBytes", justOver, servedOr(over), farWhat, servedOr(far)),
				Want: "both served (no cap), or both refused"})
		}
		// The same line as the last one, without a newline: a last line
		// is measured like any other.
		lastWhat := justOver + ", sent as the last line, without a newline"
		last := lastLine(t, `"last"`, maxMessageBytes+1, lastWhat)
		if last != nil && served(last) != served(far) {
			t.Fail(check.Failure{What: fmt.Sprintf("%s was %s, but %s was %s: a last line must be measured like any other", lastWhat, servedOr(last), farWhat, servedOr(far)),
				Want: "both served (no cap), or both refused"})
		}
		// And a last line of exactly MaxMessageBytes is served. (Not on a
		// -race build: decoding 16 MiB once more there takes seconds of
		// the CPU the lesson's other checks share.)
		if probe.RaceBuilt(t) {
			return
		}
		atCapWhat := fmt.Sprintf("a ping of exactly %d bytes (MaxMessageBytes), sent as the last line, without a newline", maxMessageBytes)
		if resp := lastLine(t, `"last-at-cap"`, maxMessageBytes, atCapWhat); resp != nil && !served(resp) {
			t.Fail(check.Failure{What: atCapWhat + " was refused: MaxMessageBytes is the longest line a server must accept, the last one too",
				Got: check.Quote(string(resp.Raw)), Want: `{"jsonrpc":"2.0","id":"last-at-cap","result":{}}`})
		}
	})
}

// lastLine sends a ping with the given id, padded to n bytes, as the last
// line of a new session, without a newline, closes stdin, and returns its
// one answer. It returns nil when the server exits without answering:
// whether a server waits for the requests still running at end of input is
// STDIO-22's rule (the goroutines of step 4 stop waiting until step 6), and
// this check holds a last line to the length rule only.
func lastLine(t *check.T, id string, n int, what string) *wire.Msg {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	s.SendRaw(paddedPing(id, n))
	s.CloseStdin()
	match := answerTo(id)
	// Decoding 16 MiB takes a server built with -race seconds.
	if resp := s.Within(4*wire.T2, match); resp != nil {
		return resp
	}
	if s.Proc.WaitExit(wire.EXIT) {
		t.Wire.Event("the server exited at end of input without answering " + what + ": no verdict on its length here (STDIO-22 holds the wait at end of input)")
		return nil
	}
	t.Fail(check.Failure{What: fmt.Sprintf("no answer to %s within %v of stdin closing, and the server is still running", what, 4*wire.T2+wire.EXIT),
		Want: "one answer: the ping's result, or an error without an id if the line is over your cap"})
	return nil
}

// answerTo matches the one answer a long line gets: the response to id,
// or an error without an id (the line refused as a whole).
func answerTo(id string) func(*wire.Msg) bool {
	return func(m *wire.Msg) bool {
		return m.Method == nil && ((m.HasNoID() && m.Error != nil) || m.IsResponseTo(id))
	}
}

func servedOr(resp *wire.Msg) string {
	if resp.Error == nil && !resp.HasNoID() {
		return "served"
	}
	return "refused"
}
