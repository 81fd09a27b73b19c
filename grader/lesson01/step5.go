package lesson01

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step5 holds the checks of step 5: batches, by protocol version.
var step5 = check.Step{
	Checks: []*check.Check{stdio20, stdio21, stdio26, stdio31, stdio32},
	Unchecked: []check.Claim{
		{Claim: "requests inside a batch run concurrently", Where: "step 5", How: "not observable in a way that would fail a correct server under load without a timing margin worth its cost; the spec does not ask for it"},
	},
}

var stdio20 = &check.Check{
	ID: "STDIO-20", Step: 5, Severity: check.Must, Budget: 8 * time.Second,
	Title: "at 2025-03-26, a batch gets one array of responses; only notifications, nothing at all",
	Spec: check.Spec{Rev: "2025-03-26", Section: "basic/index › Batching; JSON-RPC 2.0 §6",
		Quote: "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches"},
	Course: "For a batch with invalid elements, JSON-RPC 2.0 §6 says a Response SHOULD exist for each Request object; the course requires " +
		"each invalid element's error in the array, and an initialize in a batch refused (2025-03-26 forbids a client to send one).",
	Hint: check.Hint{
		Report: "When the session negotiated 2025-03-26, a line that is a JSON array is a batch: answer its requests together in one array on one line, " +
			"with an error in the array for each invalid element (initialize included: it may not be batched). Skip its notifications, and write nothing at all, " +
			"not even [] or null, for a batch of notifications only. Answer [] with a single -32600 error, and an array that is not JSON with a single -32700.",
		Question: "At protocol version 2025-03-26, what does your server do with a line that is a JSON array?",
		Pointer:  "MCP 2025-03-26, basic/index › Batching: servers MUST support receiving batches. JSON-RPC 2.0 §6: the answer is one array of the requests' responses, nothing for notifications, and one -32600 for an empty array. The version session.Version() returns has a Batches field that says whether it allows them.",
		Near: `In ServeBatch (Serve passes the version from c.session.Version()):

	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil { /* -32700 */ }
	if !version.Batches || len(items) == 0 { /* one -32600 reject */ }
	for _, item := range items {
		msg, reject := Decode(item)
		// reject: collect it; initialize: -32600; notification: Handle, no answer;
		// request: Handle on a goroutine (WaitGroup, mutex around the slice)
	}

Serve writes the responses as one json.Marshal'ed array on one line, or nothing when there are none.`,
	},
	Claims: []check.Claim{
		{Claim: "at 2025-03-26 a batch is one array of responses, in any order; notifications in it get none", Where: "step 5"},
		{Claim: "a batch of notifications only gets nothing at all, not [] or null", Where: "step 5", How: "any line, JSON or not, fails"},
		{Claim: "invalid elements of a batch get their errors inside the array", Where: "step 5"},
		{Claim: "initialize inside a batch is refused", Where: "step 5", How: "observed only as an error in the array: the given session also refuses a second initialize, so a server that forgot the rule cannot be told apart from outside"},
		{Claim: "[] gets one -32600; an array that is not JSON gets one -32700", Where: "step 5"},
		{Claim: "a notification inside a batch is handled like one sent alone", Where: "step 5", How: "a notifications/cancelled in a batch stops a running countdown"},
	},
	Checklist: []string{"A6", "A8", "B6"},
	Split: &check.Split{Rule: "batches at 2025-03-26", Parts: "a batch unanswered, an answer to notifications only, [] or a bad array not answered alone break the spec; each invalid element's error in the array, initialize refused in a batch, " +
		"batches kept after a refused second initialize, and a cancellation in a batch obeyed, are the course's"},
	Run: checkBatchAt20250326,
}

func checkBatchAt20250326(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize("2025-03-26")
	isBatchAnswer := func(l wire.Line) bool {
		return strings.HasPrefix(strings.TrimSpace(l.Text), "[") || (l.Msg != nil && l.Msg.IsResponse()) || (l.Msg != nil && l.Msg.Error != nil)
	}

	t.Case("two pings and a notification", func() {
		defer t.SpecRule()() // receiving batches is the spec's MUST
		// One array with both responses.
		batch := "[" + wire.Request(`"b1"`, "ping", nil) + "," + wire.Request(`"b2"`, "ping", nil) + "," +
			wire.Notification("notifications/grader-unknown", nil) + "]"
		s.Send(batch)
		l := s.AwaitLine(wire.T1, "batch response (a JSON array)", isBatchAnswer)
		got := batchResponses(t, l, "a batch of two pings and a notification",
			`[{"jsonrpc":"2.0","id":"b1","result":{}},{"jsonrpc":"2.0","id":"b2","result":{}}] (in any order)`)
		if len(got) != 2 || got[`"b1"`] == nil || got[`"b2"`] == nil || got[`"b1"`].Error != nil || got[`"b2"`].Error != nil {
			t.Fail(check.Failure{What: "the batch response must hold exactly one result for each request, and nothing for the notification",
				Got: check.Quote(l.Text), Want: `results with ids "b1" and "b2"`})
		}
	})

	t.Case("invalid elements and an initialize", func() {
		// Invalid elements are answered inside the array (JSON-RPC 2.0 §6),
		// and initialize may not be batched (2025-03-26, lifecycle).
		s.Send("[" + wire.Request(`"ok"`, "ping", nil) + `,{"jsonrpc":"2.0","id":"bad","method":42},5,` +
			wire.Request(`"init"`, "initialize", wire.InitializeParams("2025-03-26")) + "]")
		var l wire.Line
		var got map[string]*wire.Msg
		specRule(t, func() {
			l = s.AwaitLine(wire.T1, "answer to a batch with invalid elements (a JSON array)", isBatchAnswer)
			got = batchResponses(t, l, "a batch of a ping, two invalid elements and an initialize",
				`[{"jsonrpc":"2.0","id":"ok","result":{}},{"jsonrpc":"2.0","id":"bad","error":{"code":-32600,...}},{"jsonrpc":"2.0","error":{"code":-32600,...}},{"jsonrpc":"2.0","id":"init","error":{...}}]`)
		})
		unreadable := 0
		for id, m := range got {
			if id == "" || id == "null" {
				unreadable++
				if c, _ := m.ErrorCode(); c != -32600 {
					unreadable = -100
				}
			}
		}
		okCode, _ := errorCode(got[`"bad"`])
		switch {
		case got[`"ok"`] == nil || got[`"ok"`].Error != nil:
			t.Fail(check.Failure{What: "in a batch with invalid elements, the valid ping got no result", Got: check.Quote(l.Text), Spec: true})
		case okCode != -32600 || unreadable != 1:
			t.Fail(check.Failure{What: `each invalid element of a batch must get its own -32600 error in the array: {"id":"bad","method":42} with its id, the bare 5 without one`,
				Got: check.Quote(l.Text), Want: `two -32600 errors in the array: one with "id":"bad", one without an id`})
		case got[`"init"`] == nil || got[`"init"`].Error == nil:
			t.Fail(check.Failure{What: "an initialize inside a batch was not refused: at 2025-03-26 the initialize request MUST NOT be part of a JSON-RPC batch",
				Got: check.Quote(l.Text), Want: `an error response with "id":"init" in the array`})
		}
	})

	t.Case("a second initialize changes nothing", func() {
		// The version is the one negotiated: a refused second initialize
		// that asks for 2025-11-25 does not take batches away.
		s.Send(wire.Request(`"again"`, "initialize", wire.InitializeParams(spec.Rev)))
		s.AwaitResponse(wire.T1, `"again"`, "a second initialize, asking for "+spec.Rev)
		s.Send("[" + wire.Request(`"b3"`, "ping", nil) + "]")
		l := s.AwaitLine(wire.T1, "answer to a batch after a second initialize", isBatchAnswer)
		if got := batchResponses(t, l, "a batch of one ping, after a refused second initialize that asked for "+spec.Rev,
			`[{"jsonrpc":"2.0","id":"b3","result":{}}]`); len(got) != 1 || got[`"b3"`] == nil {
			t.Fail(check.Failure{What: "after a second initialize (asking for " + spec.Rev + ") was refused, a batch was no longer served: batches follow the negotiated version, 2025-03-26",
				Got: check.Quote(l.Text), Want: `[{"jsonrpc":"2.0","id":"b3","result":{}}]`})
		}
	})

	t.Case("a cancellation inside a batch", func() {
		// A notification in a batch is handled like one sent alone: a
		// cancellation stops its request.
		// The countdown takes 1 s; cancelled at its first step, it never
		// answers. Left running, it answers after 1 s.
		s.Send(wire.Request(`"long"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 10, "interval_ms": 100}, "batch-c")))
		s.Within(500*time.Millisecond, func(m *wire.Msg) bool { return m.MethodName() == "notifications/progress" })
		s.Send("[" + wire.Notification("notifications/cancelled", map[string]any{"requestId": "long"}) + "]")
		if m := s.Within(1600*time.Millisecond, func(m *wire.Msg) bool { return m.IsResponseTo(`"long"`) }); m != nil {
			t.Fail(check.Failure{What: "a countdown cancelled by a notifications/cancelled inside a batch ran to its end and was answered: the batch's notification was not handled",
				Got: check.Quote(string(m.Raw)), Want: "no response for the cancelled countdown"})
		}
		s.Pending() // its progress, up to the cancellation
	})

	t.Case("notifications only", func() {
		defer t.SpecRule()() // JSON-RPC 2.0 §6: no empty array, nothing at all
		// Nothing at all comes back, not even [] or null.
		s.Pending() // stray lines from before are STDIO-06's business
		s.Send("[" + wire.Notification("notifications/grader-unknown", nil) + "]")
		s.Call(`3`, "ping", nil)
		for _, l := range s.Pending() {
			t.Fail(check.Failure{What: "a batch of notifications only was answered", Got: check.Quote(l.Text), Want: "no line at all"})
		}
		s.QuietAll(wire.Q, "a line in answer to a batch of notifications only")
	})

	t.Case("an empty batch, and one that is not JSON", func() {
		defer t.SpecRule()() // JSON-RPC 2.0 §6: a single Response object
		s.Send("[]")
		resp := awaitVerdict(s, ``, "answer to an empty batch []")
		probe.ExpectError(t, resp, -32600, "[]")
		s.Send(`[{"jsonrpc":"2.0","id":4,"method":"ping"}`)
		resp = awaitVerdict(s, ``, `answer to a batch that is not JSON, [{"jsonrpc":"2.0","id":4,"method":"ping"}`)
		probe.ExpectError(t, resp, -32700, "a batch that is not JSON")
	})
}

// batchResponses reads a line that must be a JSON array of valid responses,
// and returns them by id (their JSON text; "" when absent).
func batchResponses(t *check.T, l wire.Line, what, want string) map[string]*wire.Msg {
	var elems []json.RawMessage
	if err := json.Unmarshal([]byte(l.Text), &elems); err != nil {
		t.Fail(check.Failure{What: what + " was not answered with one JSON array", Got: check.Quote(l.Text), Want: want})
	}
	out := map[string]*wire.Msg{}
	for _, e := range elems {
		m, err := wire.Parse(e)
		if err != nil || m.Problem() != "" || !(m.IsResponse() || (m.HasNoID() && m.Error != nil)) {
			t.Fail(check.Failure{What: "the answer to " + what + " holds something that is not a valid response", Got: check.Quote(l.Text), Want: want})
		}
		out[string(m.ID)] = m
	}
	return out
}

// errorCode returns the error code of m, which may be nil.
func errorCode(m *wire.Msg) (int, bool) {
	if m == nil {
		return 0, false
	}
	return m.ErrorCode()
}

var stdio21 = &check.Check{
	ID: "STDIO-21", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
	Title: "at 2025-11-25 and 2025-06-18, and before initialize, a batch gets one -32600 error, and the server keeps serving",
	Spec: check.Spec{Rev: spec.Rev, Section: "basic/transports › stdio (batching was removed in 2025-06-18, changelog major change 1)",
		Quote: "Messages are individual JSON-RPC requests, notifications, or responses"},
	Course: "Batches left the spec in 2025-06-18, and it does not say how a server refuses one. The course requires one -32600 error " +
		"(JSON-RPC's Invalid Request: an array is not one message), and the server to go on serving.",
	Hint: check.Hint{
		Report: "Batches exist only where 2025-03-26 was negotiated: ask the version table (version.Batches), do not compare with one version string. " +
			"Before initialize no version is agreed, so no batches either. Answer an array with one -32600 error object (not an array), then keep reading.",
		Question: "At 2025-11-25, which has no batches, what does a client get back for an array, and does your server still answer the next line?",
		Pointer:  "2025-06-18 removed batching (changelog, major change 1); at later versions a message is a single request, notification or response (basic/transports). An array is then an Invalid Request, -32600.",
		Near: `In ServeBatch, before looking at the elements:

	if !version.Batches {
		return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"invalid request: protocol version %s has no JSON-RPC batches", version.Name))
	}

Serve writes that reject as one error object, not an array, and goes on reading.`,
	},
	Early: 2,
	Claims: []check.Claim{
		{Claim: "without batches (2025-06-18, 2025-11-25, before initialize) an array gets one -32600 object, and the server keeps serving", Where: "step 5"},
		{Claim: "a line that starts with [ but is not JSON gets -32700 at every version, before the version is asked", Where: "step 5", How: "at 2025-11-25 and before initialize"},
		{Claim: "batches follow the negotiated version, not what a later initialize asks for", Where: "step 5", How: "a refused second initialize asking for 2025-03-26 at 2025-11-25, then a batch (and at 2025-03-26, one asking for 2025-11-25: STDIO-20)", Also: []string{"STDIO-20"}},
	},
	Checklist: []string{"A8", "B6"},
	Run:       checkBatchAt20251125,
}

func checkBatchAt20251125(t *check.T) {
	refused := func(s *wire.Stdio, when string) {
		s.Send("[" + wire.Request(`"b1"`, "ping", nil) + "," + wire.Request(`"b2"`, "ping", nil) + "]")
		l := s.AwaitLine(wire.T1, "answer to a batch "+when, func(l wire.Line) bool {
			return strings.HasPrefix(strings.TrimSpace(l.Text), "[") || (l.Msg != nil && l.Msg.IsResponse()) ||
				(l.Msg != nil && l.Msg.Error != nil)
		})
		if l.Msg == nil {
			t.Fail(check.Failure{What: "a batch was served " + when + ", where there are no batches",
				Got: check.Quote(l.Text), Want: `one error object: {"jsonrpc":"2.0","error":{"code":-32600,...}}`})
		}
		probe.ExpectError(t, l.Msg, -32600, "a batch "+when)
	}
	// notJSON: an array that is not JSON is a parse error first, whatever
	// the version: -32700, never the refusal of a batch.
	notJSON := func(s *wire.Stdio, when string) {
		for _, line := range []string{`[{"jsonrpc":"2.0","id":4,"method":"ping"}`, `[1,2`} {
			s.Send(line)
			resp := awaitVerdict(s, ``, "answer to "+line+", a batch that is not JSON, "+when)
			probe.ExpectError(t, resp, -32700, "a line that starts with [ but is not JSON, "+when)
		}
	}
	t.Parallel(func() {
		s := wire.StartStdio(t)
		s.Initialize(spec.Rev)
		refused(s, "at 2025-11-25")
		notJSON(s, "at 2025-11-25")
		// The version is the one negotiated, not what a later initialize
		// asks for: a second initialize is refused, and changes nothing.
		s.Send(wire.Request(`"again"`, "initialize", wire.InitializeParams("2025-03-26")))
		if resp := s.AwaitResponse(wire.T1, `"again"`, "a second initialize, asking for 2025-03-26"); resp.Error == nil {
			t.Fail(check.Failure{What: "a second initialize, asking for 2025-03-26 on a session initialized at 2025-11-25, got a result",
				Got: check.Quote(string(resp.Raw)), Want: "an error: the session is initialized already"})
		}
		refused(s, "at 2025-11-25, after a second initialize that asked for 2025-03-26 was refused")
		stillServing(t, s, `3`)
	}, func() {
		s := wire.StartStdio(t)
		refused(s, "before initialize, when no version has been agreed")
		notJSON(s, "before initialize")
		s.Initialize("2025-06-18")
		refused(s, "at 2025-06-18")
		stillServing(t, s, `3`)
	})
}

var stdio26 = &check.Check{
	ID: "STDIO-26", Step: 5, Severity: check.Must, Budget: 5 * time.Second,
	Title: "a batch sent right after initialize, before its answer, sees the negotiated version",
	Spec: lifecycleRule("Initialization",
		"The client SHOULD NOT send requests other than pings before the server has responded to the initialize request"),
	Course: "Clients should wait for initialize's answer, but not all do. The course requires the server to answer initialize " +
		"before it reads the next line, so that every later line sees the version just agreed: batches at 2025-03-26 depend on it.",
	Hint: check.Hint{
		Report: "Handle initialize on the reading goroutine, not on a goroutine of its own: then the session knows its version " +
			"before the next line (a batch) asks for it.",
		Question: "Does your loop answer initialize before it reads the next line, or can a batch sent right behind initialize be read while the version is still unknown?",
		Pointer:  "session.Version() is set when Handle answers initialize. basic/lifecycle › Initialization: clients SHOULD wait for the answer, but the lesson asks the server not to depend on it (step 4).",
		Near: `In the reading loop, before the case that starts a goroutine per request:

	case msg.Method == "initialize":
		// answered here, so the next line sees the agreed version
		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.out.send(resp)
		}`,
	},
	Claims: []check.Claim{
		{Claim: "initialize is answered before the next line is read", Where: "step 4, step 5", How: "three batches right behind initialize at 2025-03-26, without waiting for its answer"},
	},
	Checklist: []string{"A8"},
	Run:       checkBatchRightAfterInitialize,
}

// checkBatchRightAfterInitialize sends batches right behind initialize, as a
// client that does not wait would. If the server answers initialize on a
// goroutine of its own, the batches may be read before the version is set.
func checkBatchRightAfterInitialize(t *check.T) {
	s := wire.StartStdio(t)
	var lines strings.Builder
	lines.WriteString(wire.Request(`"init"`, "initialize", wire.InitializeParams("2025-03-26")) + "\n")
	for i := 1; i <= 3; i++ {
		lines.WriteString(fmt.Sprintf("[%s,%s]\n", wire.Request(fmt.Sprintf(`"b%d"`, i), "ping", nil), wire.Notification("notifications/grader-unknown", nil)))
	}
	s.SendRaw(lines.String())
	probe.MustResult(t, s.AwaitResponse(wire.T1, `"init"`, "initialize"), "initialize")
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf(`"b%d"`, i)
		l := s.AwaitLine(wire.T1, fmt.Sprintf("answer to batch %d, sent right after initialize", i), func(l wire.Line) bool {
			return strings.Contains(l.Text, id) || (l.Msg != nil && l.Msg.Error != nil && l.Msg.HasNoID())
		})
		if !strings.HasPrefix(strings.TrimSpace(l.Text), "[") {
			t.Fail(check.Failure{What: fmt.Sprintf("batch %d, sent right after initialize asked for 2025-03-26, was refused: the server read it before it had agreed the version", i),
				Got: check.Quote(l.Text), Want: fmt.Sprintf(`[{"jsonrpc":"2.0","id":%s,"result":{}}]`, id)})
		}
	}
}

var stdio31 = &check.Check{
	ID: "STDIO-31", Step: 5, Severity: check.Must, Budget: 10 * time.Second,
	Title: "with MaxInFlight requests running, a batch is answered at once, exactly once, like a request",
	Spec: check.Spec{Rev: "2025-03-26", Section: "basic/index › Batching; JSON-RPC 2.0 §6",
		Quote: "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches"},
	Course: "A batch runs like a request, and counts as one against a cap (MaxInFlight). The course requires a batch beyond the cap to be served, " +
		"or refused at once with one -32000 error (one error object, without an id: the batch has none), never both, like the requests beyond it.",
	Hint: check.Hint{
		Report: "Reserve a place for a batch as for a request, without waiting; when none is free, answer the batch with one -32000 error and do not serve it. " +
			"A refused batch must not also get its array of responses.",
		Question: "When MaxInFlight requests are running and a batch arrives, what does your loop do: wait, refuse it, serve it, or refuse it and serve it anyway?",
		Pointer:  "JSON-RPC 2.0 §6: a batch gets one answer, an array, or a single error when the batch as a whole cannot be served. Lesson 01, step 5: a batch on a goroutine of its own, like a request.",
		Near: `	if IsBatch(data) {
		if !c.admit(jsonrpc.ID{}) {
			return // refused as a whole: -32000, and nothing runs
		}
		c.run(func() {
			defer c.release()
			// …
		})
		return
	}`,
	},
	Claims: []check.Claim{
		{Claim: "a batch beyond MaxInFlight is served, or refused at once with one -32000 error, never both, like a request beyond it", Where: "step 5",
			How: "256 three-second countdowns at 2025-03-26, then a batch of two pings and a ping"},
	},
	Checklist: []string{"A8", "A9"},
	Run:       checkFullHouseBatch,
}

func checkFullHouseBatch(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize("2025-03-26")
	house := fillHouse(s, "")
	s.SendRaw("[" + wire.Request(`"q1"`, "ping", nil) + "," + wire.Request(`"q2"`, "ping", nil) + "]\n" + wire.Request(`"q3"`, "ping", nil) + "\n")
	isAnswer := func(l wire.Line) bool {
		return strings.HasPrefix(strings.TrimSpace(l.Text), "[") || (l.Msg != nil && l.Msg.Error != nil && l.Msg.HasNoID())
	}
	deadline := time.Now().Add(time.Second)
	l := s.AwaitLine(time.Until(deadline), fmt.Sprintf("answer to a batch of two pings, sent while %d countdowns run", maxInFlight), isAnswer)
	batchRefused := l.Msg != nil
	if batchRefused {
		if code, _ := l.Msg.ErrorCode(); code != -32000 {
			t.Fail(check.Failure{What: fmt.Sprintf("a batch sent while %d requests run got an error other than the busy refusal", maxInFlight),
				Got: check.Quote(l.Text), Want: `its array of responses, or one -32000 error`})
		}
	} else if got := batchResponses(t, l, "a batch of two pings", `[{"jsonrpc":"2.0","id":"q1","result":{}},{"jsonrpc":"2.0","id":"q2","result":{}}]`); len(got) != 2 || got[`"q1"`] == nil || got[`"q2"`] == nil {
		t.Fail(check.Failure{What: "a batch of two pings, sent while MaxInFlight requests run, was not answered with both results", Got: check.Quote(l.Text)})
	}
	resp := s.Await(time.Until(deadline), fmt.Sprintf("answer to ping (id \"q3\"), sent while %d countdowns run", maxInFlight), func(m *wire.Msg) bool { return m.IsResponseTo(`"q3"`) })
	if pingRefused := resp.Error != nil; pingRefused != batchRefused {
		t.Fail(check.Failure{What: fmt.Sprintf("a batch and a ping, both beyond MaxInFlight (%d), were not treated alike: the batch %s, the ping %s", maxInFlight, refusedOr(batchRefused), refusedOr(pingRefused)),
			Want: "both served (no cap), or both refused with -32000 (a cap at MaxInFlight, a batch counting as one request)"})
	}
	// One answer per batch, and per request: no array may follow a
	// refusal, nor a second refusal. The countdowns send nothing for 3 s,
	// so any line now is one too many.
	pending := s.Pending()
	for _, l := range pending {
		if isAnswer(l) || (l.Msg != nil && l.Msg.IsResponseTo(`"q3"`)) {
			t.Fail(check.Failure{What: "a second answer to the batch or the ping sent beyond MaxInFlight arrived", Got: check.Quote(l.Text), Want: "one answer each"})
		}
	}
	judgeFullHouse(t, pending, house, []string{`"q1"`, `"q2"`, `"q3"`})
	s.QuietAll(wire.Q, "a second answer to the batch or the ping sent beyond MaxInFlight (the countdowns are silent)")
}

func refusedOr(refused bool) string {
	if refused {
		return "refused"
	}
	return "served"
}

var stdio32 = &check.Check{
	ID: "STDIO-32", Step: 5, Severity: check.Must, Budget: 30 * time.Second,
	Title: "every request of a batch gets its response, even when a thousand finish at the same moment",
	Spec: check.Spec{Rev: "2025-03-26", Section: "basic/index › Batching; JSON-RPC 2.0 §6",
		Quote: "The Server should respond with an Array containing the corresponding Response objects"},
	Course: "JSON-RPC 2.0 §6 says the array SHOULD hold a response for each request; the course requires every one of them, " +
		"which a batch whose requests run concurrently keeps only if it collects their responses under a lock.",
	Hint: check.Hint{
		Report: "The requests of a batch run on goroutines of their own, and each one adds its response to the batch's slice: guard that append with a mutex " +
			"(or send the responses on a channel), or two goroutines that finish together lose one of them.",
		Question: "Many requests of one batch finish at the same instant: can two of them append to the responses slice at once?",
		Pointer:  "A slice is not safe for concurrent appends: two goroutines that append at once can both write the same slot. sync.Mutex around the append, or a channel read by one goroutine. go test -race shows the race in a test that serves a batch. JSON-RPC 2.0 §6.",
		Near: `	var mu sync.Mutex
	reply := func(resp *jsonrpc.Message) {
		mu.Lock()
		responses = append(responses, resp)
		mu.Unlock()
	}`,
	},
	Claims: []check.Claim{
		{Claim: "every request of a batch gets its response in the array, none lost, none twice", Where: "step 5",
			How: "at 2025-03-26, three rounds of five batches at once, each of a thousand countdowns of one 200 ms step, which end within moments of each other"},
	},
	Checklist: []string{"A8", "A9"},
	Run:       checkBatchCollectsEveryResponse,
}

// checkBatchCollectsEveryResponse sends batches whose requests all finish
// at the same instant (countdowns of one step, timed alike), so that their
// goroutines append their responses at once: a batch that collects them
// without a lock loses some.
func checkBatchCollectsEveryResponse(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize("2025-03-26")
	// Rounds of five batches of a thousand: under -race, at most 8128
	// goroutines may live at once.
	rounds := 3
	if probe.RaceBuilt(t) {
		rounds = 1 // a -race build reports the race itself, and runs several times slower
	}
	const batches, size = 5, 1000
	for r := 0; r < rounds; r++ {
		batchRound(t, s, r*batches, batches, size)
	}
}

// batchRound sends batches number first, first+1, … at once, each of size
// countdowns of one step, and checks their answers.
func batchRound(t *check.T, s *wire.Stdio, first, batches, size int) {
	var all strings.Builder
	for b := first; b < first+batches; b++ {
		var elems []string
		for i := 0; i < size; i++ {
			elems = append(elems, wire.Request(fmt.Sprintf(`"b%d-%d"`, b, i), "tools/call", wire.ToolCall("countdown", map[string]any{"from": 1, "interval_ms": 200}, nil)))
		}
		all.WriteString("[" + strings.Join(elems, ",") + "]\n")
	}
	// All at once: the batches run side by side, and in each one a
	// thousand countdowns end within moments of each other.
	s.SendRaw(all.String())
	seen := map[int]bool{}
	for len(seen) < batches {
		l := s.AwaitLine(2*wire.T2, fmt.Sprintf("answers to %d more batches of %d countdowns", batches-len(seen), size),
			func(l wire.Line) bool { return strings.HasPrefix(strings.TrimSpace(l.Text), "[") })
		got := batchResponses(t, l, fmt.Sprintf("a batch of %d countdowns", size), fmt.Sprintf("an array of %d results", size))
		b := -1
		for id := range got {
			fmt.Sscanf(id, `"b%d-`, &b)
			break
		}
		var missing []string
		for i := 0; i < size; i++ {
			if id := fmt.Sprintf(`"b%d-%d"`, b, i); got[id] == nil {
				missing = append(missing, id)
			}
		}
		var elems []json.RawMessage
		json.Unmarshal([]byte(l.Text), &elems)
		if b < 0 || seen[b] || len(missing) > 0 || len(elems) != size {
			sort.Strings(missing)
			t.Fail(check.Failure{What: fmt.Sprintf("a batch of %d countdowns (ids b%d-…), whose requests end within moments of each other, was answered with %d responses; missing: %s",
				size, b, len(elems), strings.Join(missing[:min(len(missing), 10)], ", ")),
				Want: fmt.Sprintf("one array for each batch, with %d responses, one for each request", size)})
		}
		seen[b] = true
	}
}
