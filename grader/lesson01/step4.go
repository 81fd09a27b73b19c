package lesson01

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step4 holds the checks of step 4: many requests at once.
var step4 = check.Step{
	Checks: []*check.Check{stdio16, stdio17, stdio18, stdio19, stdio29, stdio33},
}

var stdio16 = &check.Check{
	ID: "STDIO-16", Step: 4, Severity: check.Must, Budget: 8 * time.Second,
	Title: "a running request does not hold up the next one",
	Spec:  check.Spec{Rev: spec.Rev, Section: "basic/utilities/cancellation › Behavior Requirements", Quote: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request"},
	Course: "A request that takes seconds (a tool call) must not block a ping behind it, " +
		"nor the cancellation meant to stop it. The course requires each request to run on its own goroutine.",
	Hint: check.Hint{
		Report:   "Run each request in a goroutine and keep reading stdin. Handle notifications in order on the reading goroutine, so a cancellation is seen while the request it cancels still runs.",
		Question: "While a three-second tool call runs, is your loop still reading stdin, or is it waiting for the tool to finish?",
		Pointer:  "basic/utilities/cancellation: a cancellation can only stop a request the server still reads messages for. A goroutine per request, and a sync.WaitGroup to know when all are done.",
		Near: `Requests on goroutines, notifications in order on the reader:

	switch {
	case msg.IsRequest():
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			if resp := c.session.Handle(ctx, msg, c); resp != nil {
				c.send(resp)
			}
		}()
	default:
		c.session.Handle(ctx, msg, c)
	}`,
	},
	Claims: []check.Claim{
		{Claim: "each request runs on its own goroutine; a slow one holds up nothing", Where: "step 4", How: "a ping behind a 3 s countdown"},
	},
	Run: checkConcurrentRequests,
}

func checkConcurrentRequests(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 30, "interval_ms": 100}, nil)))
	s.Send(wire.Request(`3`, "ping", nil))
	resp := s.Await(2500*time.Millisecond, "response to ping (id 3) while a 3 s countdown (id 2) runs",
		func(m *wire.Msg) bool { return m.IsResponseTo(`3`) || m.IsResponseTo(`2`) })
	if resp.IsResponseTo(`2`) {
		t.Fail(check.Failure{What: "the 3 s countdown (id 2) finished before the ping sent after it (id 3) was answered: requests run one at a time",
			Want: "the ping's response first, while the countdown still runs"})
	}
	s.Send(wire.Notification("notifications/cancelled", map[string]any{"requestId": 2}))
}

var stdio17 = &check.Check{
	ID: "STDIO-17", Step: 4, Severity: check.Must, Budget: 8 * time.Second,
	Title: "progress notifications carry the token, increase, and reach stdout while the tool runs, before the response",
	Spec:  check.Spec{Rev: spec.Rev, Section: "basic/utilities/progress", Quote: "The progress value MUST increase with each notification"},
	Course: "The spec lets a server send progress as often as it likes (MAY), and requires it to stop after completion. The course's countdown " +
		"sends one notification per step, each on stdout as it happens, all before the response.",
	Hint: check.Hint{
		Report: "Pass your connection as the session's Peer, so that its Send writes each progress notification to stdout while the tool runs, " +
			"at once: a notification that waits in a buffer until the response is flushed tells the client nothing. The token goes back exactly as sent, string or number.",
		Question: "When the countdown tool sends progress, where does it go? Which Peer did you give session.Handle?",
		Pointer:  "basic/utilities/progress: progress notifications carry the request's progressToken, exactly as sent, and a progress value that increases. The session sends them through the mcp.Peer you pass to Handle, with Send(ctx, msg).",
		Near: `Make conn an mcp.Peer, writing the same way as responses, and pass it to Handle:

	func (c *conn) Send(ctx context.Context, msg *jsonrpc.Message) error {
		return c.send(msg)
	}

	resp := c.session.Handle(ctx, msg, c)`,
	},
	Claims: []check.Claim{
		{Claim: "Send writes progress notifications as they happen, with the token exactly as sent, increasing, before the response, none after, none without a token", Where: "concept, step 4", How: "string and integer tokens; a 2 s countdown that reports every 100 ms must show its first notification within 1 s (not held in a buffer until the response)"},
	},
	Checklist: []string{"A9", "D12"},
	Split:     &check.Split{Rule: "progress", Parts: "a value that does not increase, another token, a notification after the response break the spec (they cite the progress rule); one notification per step, each flushed, is the course's", Also: []string{"HTTP-22", "SSE-11"}},
	Run:       checkProgress,
}

func checkProgress(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	for _, token := range []any{"p-grader", 7} {
		tokenJSON, _ := json.Marshal(token)
		id, interval := `"with-token"`, 20
		if _, ok := token.(int); ok {
			// At once, with no pause between steps: a server that queues
			// its notifications then writes the response first.
			id, interval = `"with-int-token"`, 0
		}
		s.Send(wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 3, "interval_ms": interval}, token)))
		s.AwaitResponse(wire.T2, id, "tools/call countdown")
		var before []*wire.Msg
		for _, l := range s.Pending() {
			before = append(before, l.Msg)
		}
		values := probe.ProgressValues(t, before, tokenJSON)
		if len(values) != 3 {
			want := `three {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(tokenJSON) + `,"progress":1,...}} lines, then the response`
			// Count what comes after the response: a server that queues its
			// notifications may write any number of them late, all included.
			var late []string
			for deadline := time.Now().Add(300 * time.Millisecond); ; {
				m := s.Within(time.Until(deadline), func(m *wire.Msg) bool { return m.MethodName() == "notifications/progress" })
				if m == nil {
					break
				}
				late = append(late, check.Quote(string(m.Raw)))
			}
			if len(late) > 0 {
				t.Fail(check.Failure{What: fmt.Sprintf("countdown from 3 with progress token %s sent %d progress notifications before its response, and %d after it", tokenJSON, len(values), len(late)),
					Got: strings.Join(late, "\n"), Want: want, Cites: &spec.ProgressStops})
			}
			t.Fail(check.Failure{What: fmt.Sprintf("countdown from 3 with progress token %s sent %d progress notifications before its response, not 3", tokenJSON, len(values)),
				Want: want})
		}
	}
	s.Send(wire.Request(`"no-token"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 2, "interval_ms": 10}, nil)))
	s.AwaitResponse(wire.T2, `"no-token"`, "tools/call countdown")
	const stray = "a message after the last response (a progress notification for a finished request, or for one that asked for none)"
	for _, l := range s.Pending() {
		if l.Msg != nil {
			f := check.Failure{What: stray + " arrived", Got: check.Quote(l.Text), Want: "nothing"}
			if l.Msg.MethodName() == "notifications/progress" {
				f.Cites = &spec.ProgressStops
			}
			t.Fail(f)
		}
	}
	strayAfter(t, s, stray)

	// A 2 s countdown sends a notification every 100 ms: the first must
	// reach stdout long before the response, not wait in a buffer for it.
	s.Send(wire.Request(`"slow"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 20, "interval_ms": 100}, "p-slow")))
	first := s.Within(time.Second, func(m *wire.Msg) bool { return m.MethodName() == "notifications/progress" || m.IsResponseTo(`"slow"`) })
	if first == nil || first.IsResponse() {
		t.Fail(check.Failure{What: "a 2 s countdown that reports progress every 100 ms had not sent its first notification after 1 s: " +
			"notifications wait somewhere (a buffer) until the response is written", Want: "the first progress notification after about 100 ms"})
	}
	s.Send(wire.Notification("notifications/cancelled", map[string]any{"requestId": "slow"}))
}

var stdio18 = &check.Check{
	ID: "STDIO-18", Step: 4, Severity: check.Must, Budget: 10 * time.Second,
	Title: "notifications/cancelled stops a running request, which then gets no response",
	Spec:  check.Spec{Rev: spec.Rev, Section: "basic/utilities/cancellation › Behavior Requirements", Quote: "Not send a response for the cancelled request"},
	Course: "The spec says receivers SHOULD stop work and SHOULD NOT answer a cancelled request; " +
		"the course requires both.",
	Hint: check.Hint{
		Report:   "The session cancels the request's context when the notification arrives, but only if your loop reads that line while the request runs, and only if you write nothing when Handle returns nil.",
		Question: "When notifications/cancelled arrives, does your loop read it while the request still runs? And what do you write when Handle then returns nil?",
		Pointer:  "basic/utilities/cancellation › Behavior Requirements: stop processing the cancelled request and send no response for it. The session cancels the request's context when it handles the notification.",
		Near: `Requests on goroutines; notifications straight to the session on the reading goroutine, so a cancellation lands while its request runs; and nothing written when Handle returns nil:

	go func() {
		defer c.wg.Done()
		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.send(resp) // a cancelled request returns nil: nothing is sent
		}
	}()`,
	},
	Claims: []check.Claim{
		{Claim: "notifications are handled in order on the reading goroutine, so a cancellation reaches its request", Where: "step 4", How: "cancel a running countdown; no response, no more progress, the server keeps serving"},
		{Claim: "a cancelled request gets no response", Where: "concept, step 4"},
	},
	Checklist: []string{"D11"},
	Run:       checkCancellation,
}

func checkCancellation(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	// The countdown takes 1 s. Once it is cancelled, neither its response
	// nor its progress may come, however long the grader waits.
	s.Send(wire.Request(`2`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 20, "interval_ms": 50}, "c")))
	s.Within(500*time.Millisecond, func(m *wire.Msg) bool { return m.MethodName() == "notifications/progress" })
	s.Send(wire.Notification("notifications/cancelled", map[string]any{"requestId": 2, "reason": "the grader changed its mind"}))

	// A notification already on its way when the cancellation lands is fine;
	// give the server a moment, then nothing more may come for id 2, for
	// longer than the whole countdown would have taken.
	if resp := s.Within(500*time.Millisecond, func(m *wire.Msg) bool { return m.IsResponseTo(`2`) }); resp != nil {
		t.Fail(check.Failure{What: "the cancelled request (id 2) got a response", Got: check.Quote(string(resp.Raw)), Want: "no response at all"})
	}
	s.Pending()
	s.Quiet(time.Second, "a message for the cancelled countdown (id 2), more than 500 ms after notifications/cancelled")
	stillServing(t, s, `3`)
}

var stdio19 = &check.Check{
	ID: "STDIO-19", Step: 4, Severity: check.Must, Budget: 10 * time.Second,
	Title: "concurrent responses never mix within a line",
	Spec:  stdioRule("Messages are delimited by newlines, and MUST NOT contain embedded newlines"),
	Hint: check.Hint{
		Report:   "Several goroutines write to stdout at once. Write each message, newline included, with a single Write while holding a mutex; two Writes (message, then newline) or a shared bufio.Writer without a lock let lines interleave.",
		Question: "Two goroutines finish at the same moment: can the bytes of their two responses end up mixed on one line?",
		Pointer:  "sync.Mutex, held around exactly one Write per message with its newline (basic/transports › stdio: no embedded newlines, so a line must be one whole message). Two Writes (message, then newline), or a shared bufio.Writer without the lock, let another goroutine's bytes slip in between.",
		Near: `	type writer struct {
		mu  sync.Mutex
		out io.Writer
	}

	func (w *writer) send(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		_, err = w.out.Write(append(b, '\n')) // one Write, newline included
		return err
	}`,
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "writes are safe for concurrent use: one locked Write per message", Where: "step 4", How: "the grader stops reading while 24 large responses are written"},
	},
	Checklist: []string{"B2"},
	Run:       checkNoInterleaving,
}

func checkNoInterleaving(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	const n, size = 24, 48 << 10
	var batch strings.Builder
	texts := map[string]string{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf(`%d`, 100+i)
		texts[id] = strings.Repeat(string(rune('A'+i)), size)
		batch.WriteString(wire.Request(id, "tools/call", wire.ToolCall("echo", map[string]any{"text": texts[id]}, nil)) + "\n")
	}
	// Stop reading while the responses are written, as a busy client
	// would: the server's writers then queue up behind a full pipe, which
	// is when unguarded writes mix.
	s.PauseReads()
	sent := s.SendRawAsync(batch.String())
	s.Pause(300 * time.Millisecond)
	s.ResumeReads()
	sent()

	// A line that is not JSON but holds a message's start is what two
	// writers racing on stdout leave behind. (Other stray lines are for
	// STDIO-06 to judge.)
	mixed := func(l wire.Line) bool { return l.Err != nil && strings.Contains(l.Text, `"jsonrpc"`) }
	for len(texts) > 0 {
		l := s.AwaitLine(wire.T2, fmt.Sprintf("%d more echo responses; %d echoes of %d KiB were sent at once", len(texts), n, size>>10),
			func(l wire.Line) bool { return mixed(l) || (l.Msg != nil && texts[string(l.Msg.ID)] != "") })
		if mixed(l) {
			what := "a line on stdout is not one JSON message: responses were mixed"
			if j := strings.Index(l.Text[1:], `{"jsonrpc"`) + 1; j > 0 {
				what = fmt.Sprintf("at byte %d of a line, a second message starts before the first has ended: …%s…", j, l.Text[max(0, j-40):min(len(l.Text), j+40)])
			}
			t.Fail(check.Failure{What: what, Got: check.Quote(l.Text), Want: "each response whole, on a line of its own"})
		}
		id := string(l.Msg.ID)
		if got := probe.ToolText(t, l.Msg, "echo"); got != texts[id] {
			t.Fail(check.Failure{What: fmt.Sprintf("echo (id %s) came back altered", id), Got: check.Quote(got)})
		}
		delete(texts, id)
	}
}

var stdio29 = &check.Check{
	ID: "STDIO-29", Step: 4, Severity: check.Must, Budget: 10 * time.Second,
	Title: "with MaxInFlight requests running, the next ones are answered at once, each exactly once, and a cancellation still gets through",
	Spec:  check.Spec{Rev: spec.Rev, Section: "basic/utilities/cancellation › Behavior Requirements", Quote: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request"},
	Course: "A server may cap the requests it runs at once; the starter names the cap MaxInFlight (256). The course requires the reading loop never to wait for a place: " +
		"a request beyond the cap is served, or refused at once with one -32000 error, never both, and every request beyond it is treated alike, none at or below it refused. " +
		"A cancellation sent then must still stop its request.",
	Hint: check.Hint{
		Report: "Never block the reading goroutine on a full house. Reserve a place without waiting (select with a default); when none is free, answer the request at once " +
			"with a -32000 error and do not run it. A request that got its refusal must not also get a result.",
		Question: "When MaxInFlight requests are running and another arrives, does your loop wait for a place (and stop reading cancellations), or answer at once? And after refusing it, does it still run it?",
		Pointer:  "JSON-RPC 2.0 §5: one response per request; -32000 to -32099 are server-defined errors. basic/utilities/cancellation: a cancellation can only stop a request while the server still reads. Lesson 01, step 4.",
		Near: `	func (c *conn) admit(id jsonrpc.ID) bool {
		select {
		case c.slots <- struct{}{}:
			c.inflight.Add(1)
			return true
		default: // full: answer now, and do not run it
			c.out.send(jsonrpc.NewErrorResponse(id, jsonrpc.NewError(-32000, "server busy")))
			return false
		}
	}

	if !c.admit(*msg.ID) {
		return // refused: nothing runs
	}`,
	},
	Claims: []check.Claim{
		{Claim: "with MaxInFlight requests running, the next ones are answered at once, exactly once: all served, or all refused with -32000; none of the first MaxInFlight refused", Where: "step 4",
			How: "256 three-second countdowns, then a ping and three echoes"},
		{Claim: "a cancellation still reaches its request when MaxInFlight are running", Where: "step 4", How: "the first countdown, cancelled after the probes, sends no more progress and no response"},
	},
	Checklist: []string{"A9", "D11"},
	Run:       checkFullHouse,
}

// maxInFlight is the starter's MaxInFlight: the requests a server may cap
// at, and must allow.
const maxInFlight = 256

// fillHouse starts maxInFlight countdowns of 3 s (ids "c0" … "c255"), as
// one write, and returns their ids. The first one reports its progress
// with token0, unless that is "".
func fillHouse(s *wire.Stdio, token0 string) map[string]bool {
	ids := map[string]bool{}
	var b strings.Builder
	for i := 0; i < maxInFlight; i++ {
		id, token := fmt.Sprintf(`"c%d"`, i), any(nil)
		if i == 0 && token0 != "" {
			token = token0
		}
		ids[id] = true
		b.WriteString(wire.Request(id, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 30, "interval_ms": 100}, token)) + "\n")
	}
	s.SendRaw(b.String())
	return ids
}

// busyOrServed reads the one answer to each request of ids, the first within
// d, and fails the check unless each is a result or a -32000 error, all of
// them alike.
func busyOrServed(t *check.T, s *wire.Stdio, d time.Duration, ids []string, what string) {
	deadline := time.Now().Add(d)
	var kinds []string
	first := ""
	for _, id := range ids {
		resp := s.Await(time.Until(deadline), fmt.Sprintf("answer to %s (id %s), sent while %d countdowns run", what, id, maxInFlight),
			func(m *wire.Msg) bool { return m.IsResponseTo(id) })
		kind := "served"
		if resp.Error != nil {
			kind = "refused"
			if code, _ := resp.ErrorCode(); code != -32000 {
				t.Fail(check.Failure{What: fmt.Sprintf("%s (id %s), sent while %d requests run, got an error other than the busy refusal", what, id, maxInFlight),
					Got: check.Quote(string(resp.Raw)), Want: "its result, or a -32000 error"})
			}
		}
		if first == "" {
			first = kind
		}
		kinds = append(kinds, id+" "+kind)
		if kind != first {
			t.Fail(check.Failure{What: fmt.Sprintf("requests beyond MaxInFlight (%d) were not treated alike: %s", maxInFlight, strings.Join(kinds, ", ")),
				Want: "all served (no cap), or all refused with -32000 (a cap at MaxInFlight)"})
		}
	}
}

// judgeFullHouse fails the check if one of lines refuses one of the first
// maxInFlight requests (a cap must allow MaxInFlight), or answers a probe
// (already answered) a second time.
func judgeFullHouse(t *check.T, lines []wire.Line, house map[string]bool, probes []string) {
	for _, l := range lines {
		if l.Msg == nil {
			continue
		}
		if l.Msg.Error != nil && house[string(l.Msg.ID)] {
			t.Fail(check.Failure{What: fmt.Sprintf("countdown %s, one of the first %d requests, was refused: a server must allow MaxInFlight requests at once", l.Msg.ID, maxInFlight),
				Got: check.Quote(l.Text), Want: "all of them running"})
		}
		if isResponseToOne(l.Msg, probes) {
			t.Fail(check.Failure{What: fmt.Sprintf("request %s got a second response", l.Msg.ID), Got: check.Quote(l.Text), Want: "one response per request"})
		}
	}
}

func isResponseToOne(m *wire.Msg, ids []string) bool {
	for _, id := range ids {
		if m.IsResponseTo(id) {
			return true
		}
	}
	return false
}

func checkFullHouse(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	house := fillHouse(s, "pc0")
	probes := []string{`"p1"`, `"x1"`, `"x2"`, `"x3"`}
	var b strings.Builder
	b.WriteString(wire.Request(probes[0], "ping", nil) + "\n")
	for _, id := range probes[1:] {
		b.WriteString(wire.Request(id, "tools/call", wire.ToolCall("echo", map[string]any{"text": "beyond the cap"}, nil)) + "\n")
	}
	s.SendRaw(b.String())
	// The countdowns run 3 s: every probe must be answered long before.
	busyOrServed(t, s, time.Second, probes, "a request")

	// The first countdown is cancelled now: with the house full, the
	// cancellation must still be read at once and stop it.
	s.Send(wire.Notification("notifications/cancelled", map[string]any{"requestId": "c0", "reason": "the grader changed its mind"}))
	s.Pause(300 * time.Millisecond)                                      // a notification already on its way is fine
	s.Within(50*time.Millisecond, func(*wire.Msg) bool { return false }) // take what came meanwhile
	judgeFullHouse(t, s.Pending(), house, probes)
	cancelled := func(m *wire.Msg) bool {
		token, _, ok := probe.ProgressOf(m)
		return m.IsResponseTo(`"c0"`) || (ok && token == `"pc0"`)
	}
	if m := s.Within(700*time.Millisecond, cancelled); m != nil {
		t.Fail(check.Failure{What: "countdown c0, cancelled while MaxInFlight requests ran, went on: the cancellation was not read while the house was full",
			Got: check.Quote(string(m.Raw)), Want: "no progress and no response for c0, 300 ms after notifications/cancelled"})
	}
	// A refusal is the request's one answer: nothing more may come for the
	// probes, however the countdowns end.
	judgeFullHouse(t, s.Pending(), house, probes)
	if m := s.Within(wire.Q, func(m *wire.Msg) bool { return isResponseToOne(m, probes) }); m != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("request %s got a second response", m.ID), Got: check.Quote(string(m.Raw)), Want: "one response per request"})
	}
	judgeFullHouse(t, s.Pending(), house, probes)
}

var stdio33 = &check.Check{
	ID: "STDIO-33", Step: 4, Severity: check.Must, Budget: 40 * time.Second,
	Title: "a finished request leaves nothing behind: 10 000 pings later, the server's memory has hardly grown",
	Spec:  check.Spec{Rev: spec.Rev, Section: "basic/transports › stdio", Quote: "The server reads JSON-RPC messages from its standard input (stdin) and sends messages to its standard output (stdout)"},
	Course: "The spec says nothing of resources. The course requires a server to serve for as long as its client likes: " +
		"a goroutine, a buffer or a map entry kept for each finished request adds up, so after 10 000 pings its memory (resident set) " +
		"must not have grown by 40 MiB or more (the reference grows by a few; a goroutine left per request, by about 50).",
	Hint: check.Hint{
		Report: "Something stays behind for every request: usually a goroutine that never ends (one waiting on a channel nobody sends to, " +
			"or on the connection's context, which lives as long as the server), or a map of requests that is never cleaned. Let each request's goroutine end, " +
			"or go back to a bounded pool, when its response is written.",
		Question: "When a request has been answered, what of it is still alive in your server: its goroutine, a channel, an entry in a map?",
		Pointer:  "A goroutine blocked for ever is never collected, nor is what it refers to. runtime.NumGoroutine (or go test -run with a goroutine count) shows the pile-up. Lesson 01, step 4.",
		Near: `Each request on a goroutine that ends when its response is written:

	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.send(resp)
		}
	}() // returns: nothing left behind

If you keep idle workers, bound them, and let them take the next request.`,
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "a finished request leaves nothing behind (no goroutine, no buffer, no map entry)", Where: "step 4",
			How: "the server's resident memory (/proc/PID/status), after 5 000 pings and after 10 000 more, in rounds of 2 500 sent at once"},
	},
	Run: checkNothingLeftBehind,
}

// rssKiB returns the resident memory of the process pid, in KiB, from
// /proc (Linux only).
func rssKiB(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kib int
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d", &kib); err == nil {
				return kib, true
			}
		}
	}
	return 0, false
}

func checkNothingLeftBehind(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	t.SetRepro(func() string {
		return fmt.Sprintf(`{ printf '%%s\n' '%s'; for i in $(seq 20000); do printf '{"jsonrpc":"2.0","id":%%d,"method":"ping"}\n' $i; done; sleep 2; } | %s >/dev/null & sleep 1; grep VmRSS /proc/$!/status`,
			wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), t.Target.Invocation())
	})
	id := 0
	pings := func(n int) {
		var b strings.Builder
		for i := 0; i < n; i++ {
			id++
			b.WriteString(wire.Request(fmt.Sprint(id), "ping", nil) + "\n")
		}
		sent := s.SendRawAsync(b.String())
		for i := 0; i < n; i++ {
			s.AwaitLine(2*wire.T2, fmt.Sprintf("%d more answers to pings sent at once", n-i), func(l wire.Line) bool { return l.Msg != nil && l.Msg.IsResponse() })
		}
		sent()
	}
	// The runtime's own memory grows first (more so under -race): measure
	// from there.
	pings(2500)
	pings(2500)
	if probe.RaceBuilt(t) {
		// A -race build keeps shadow memory for what it allocates: its
		// resident set says nothing about leaks. It served the pings; that
		// is all this check can say of it.
		return
	}
	before, ok := rssKiB(s.Proc.PID())
	if !ok {
		t.CannotRun("no /proc/PID/status to read the server's memory from (not Linux)")
	}
	for round := 0; round < 4; round++ {
		pings(2500)
	}
	after, _ := rssKiB(s.Proc.PID())
	if grown := after - before; grown >= 40<<10 {
		t.Fail(check.Failure{What: fmt.Sprintf("after 10 000 pings, each answered, the server's resident memory grew from %d MiB to %d MiB: something stays behind for every finished request", before>>10, after>>10),
			Want: "less than 40 MiB of growth (the reference grows by a few MiB)"})
	}
}
