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
	Checks: []*check.Check{stdio14, stdio15},
	Unchecked: []check.Claim{
		{Claim: "lines over MaxMessageBytes are answered -32600 and skipped, never held whole", Where: "step 3 (optional)", How: "an optional refactor in the lesson; not required of learners"},
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
