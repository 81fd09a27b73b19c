package lesson01

import (
	"encoding/json"
	"fmt"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step2 holds the checks of step 2: decode and validate.
var step2 = check.Step{
	Checks: []*check.Check{stdio10, stdio11, stdio12, stdio13, stdio27},
}

var stdio10 = &check.Check{
	ID: "STDIO-10", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title: "a line that is not JSON gets -32700 without an id, and the server keeps serving",
	Spec:  spec.JSONRPCErrors,
	Hint: check.Hint{
		Report:   "When json.Valid fails, write {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,...}} (no id: it cannot be read) and go on to the next line. Do not stop reading, and do not stay silent: the client is waiting for an answer.",
		Question: "What does a client see when it sends a line that is not JSON: an error response, silence, or a server that stopped?",
		Pointer:  "JSON-RPC 2.0 §5.1: -32700 Parse error, for text that is not JSON; no id can be read, so the error has none. encoding/json's json.Valid tells you whether a line is JSON at all.",
		Near: `In Decode, before anything else:

	if !json.Valid(line) {
		return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},
			jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: the message is not valid JSON"))
	}

In Serve, write that reject and go on to the next line: no return, no break.`,
	},
	Early:      1,
	Robustness: &spec.ClientInput,
	Claims: []check.Claim{
		{Claim: "-32700, without an id, for a line that is not JSON, and keep serving", Where: "concept, step 2", How: "a truncated object and plain text, then a ping"},
	},
	Checklist: []string{"A5", "A7"},
	Run:       checkParseError,
}

func checkParseError(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	for _, bad := range []string{`{"jsonrpc":"2.0","id":9,"method":"ping"`, `this is not json`} {
		s.Send(bad)
		resp := awaitVerdict(s, ``, "answer to a line that is not JSON")
		probe.ExpectError(t, resp, -32700, "a line that is not JSON")
		if !resp.HasNoID() {
			t.Fail(check.Failure{What: "a parse error must carry no id (or a null one): the id of text that does not parse cannot be known",
				Got: check.Quote(string(resp.Raw)), Want: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"..."}}`})
		}
	}
	stillServing(t, s, `10`)
}

var stdio11 = &check.Check{
	ID: "STDIO-11", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title: `"jsonrpc" must be "2.0": anything else gets -32600`,
	Spec:  messagesRule("All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification"),
	Hint: check.Hint{
		Report:   `Check that the "jsonrpc" member is exactly the string "2.0". A missing member, "1.0" or 2.0 as a number is an Invalid Request (-32600), not a parse error: the text was valid JSON.`,
		Question: "Does your Decode look at the value of \"jsonrpc\", or only whether it is there? What about 2.0 written as a number?",
		Pointer:  "basic/index › Messages: all messages MUST follow JSON-RPC 2.0, which requires \"jsonrpc\": \"2.0\" exactly. Valid JSON with a wrong member is -32600 Invalid Request, not -32700.",
		Near:     "Decode the members as json.RawMessage, read the id first, then:\n\n\tif string(raw.JSONRPC) != `\"2.0\"` {\n\t\treturn nil, jsonrpc.NewErrorResponse(id,\n\t\t\tjsonrpc.NewError(jsonrpc.CodeInvalidRequest, `invalid request: \"jsonrpc\" must be exactly \"2.0\"`))\n\t}",
	},
	Robustness: &spec.ClientInput,
	Claims: []check.Claim{
		{Claim: "\"jsonrpc\" must be exactly \"2.0\": missing, \"1.0\", 2.0 as a number get -32600", Where: "step 2"},
	},
	Checklist: []string{"A1"},
	Run:       checkJSONRPCVersion,
}

func checkJSONRPCVersion(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	cases := []struct{ id, line string }{
		{`5`, `{"jsonrpc":"1.0","id":5,"method":"ping"}`},
		{`6`, `{"id":6,"method":"ping"}`},
		{`7`, `{"jsonrpc":2.0,"id":7,"method":"ping"}`},
	}
	for _, c := range cases {
		s.Send(c.line)
		resp := awaitVerdict(s, c.id, "answer to "+c.line)
		probe.ExpectError(t, resp, -32600, c.line)
	}
	stillServing(t, s, `10`)
}

var stdio12 = &check.Check{
	ID: "STDIO-12", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title: "a request with \"id\": null gets -32600",
	Spec:  spec.JSONRPCErrors,
	Hint: check.Hint{
		Report:   `Decoding straight into a struct with an *ID field turns "id": null into a nil pointer, so the request looks like a notification and gets no answer. Decode the members as json.RawMessage first: null is then the four bytes "null", and absent is nil.`,
		Question: "After decoding, can your code tell \"id\": null from a message with no id at all?",
		Pointer:  "basic/index › Requests: unlike base JSON-RPC, the ID MUST NOT be null. With json.RawMessage an absent member stays nil, while null becomes the four bytes null.",
		Near:     "\tvar raw struct {\n\t\tID     json.RawMessage `json:\"id\"`\n\t\tMethod json.RawMessage `json:\"method\"`\n\t\t// …\n\t}\n\tif err := json.Unmarshal(line, &raw); err != nil { /* -32600: not an object */ }\n\tif raw.Method != nil && string(raw.ID) == \"null\" {\n\t\treturn nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},\n\t\t\tjsonrpc.NewError(jsonrpc.CodeInvalidRequest, \"invalid request: a request id must not be null\"))\n\t}",
	},
	Robustness: &nullIDRule,
	Claims: []check.Claim{
		{Claim: "a request with \"id\": null gets -32600 (MCP is stricter than JSON-RPC)", Where: "concept, step 2"},
	},
	Checklist: []string{"A3"},
	Run:       checkNullID,
}

// nullIDRule is the rule a request with a null id breaks: MCP's own,
// stricter than JSON-RPC's.
var nullIDRule = messagesRule("Unlike base JSON-RPC, the ID MUST NOT be null")

func checkNullID(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	line := `{"jsonrpc":"2.0","id":null,"method":"ping"}`
	s.Send(line)
	resp := awaitVerdict(s, ``, "answer to a request with a null id")
	probe.ExpectError(t, resp, -32600, line)
	stillServing(t, s, `10`)
}

var stdio13 = &check.Check{
	ID: "STDIO-13", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title: "JSON that is not a valid message gets -32600, not -32700",
	Spec:  spec.JSONRPCErrors,
	Course: "JSON-RPC 2.0 defines \"method\" as a String, and an empty one names a method that does not exist: " +
		"-32601 Method not found is as right as -32600 for it. The course asks -32600, since no method can have that name. " +
		"JSON-RPC's -32600 speaks of requests; the course answers a response of the wrong shape with it too (a method beside a result or an error, " +
		"both a result and an error, neither, a result with a null id or none, an error that is not an object with an integer code), " +
		"since JSON-RPC 2.0 §5 allows a response exactly one of result and error and the client must learn that it was not read.",
	Robustness: &spec.ClientInput,
	Hint: check.Hint{
		Report: `-32700 is only for text that is not JSON. Valid JSON with the wrong shape ("method": 42 or "", "params": "oops", an id of 1.5 or true, a bare 42, {}) is -32600 Invalid Request, ` +
			`with the message's id when you could read it, and none when the id itself is the problem. ` +
			`A message without a method is a response: exactly one of "result" and "error", a result with its request's id, an error an object with an integer code; anything else is -32600 too.`,
		Question: "Which error does your server give valid JSON of the wrong shape: \"method\": 42, \"params\": \"oops\", a bare 42, {}, or a response with both \"result\" and \"error\"?",
		Pointer:  "JSON-RPC 2.0 §5.1: -32700 only when the text is not JSON; -32600 when it is JSON but not a valid Request object. json.Unmarshal into a struct fails on a type mismatch too, so its error alone cannot tell the two apart.",
		Near: `json.Valid first (-32700). Then every shape problem is -32600, with the id when you could read it:

	var raw struct {
		JSONRPC, ID, Method, Params, Result, Error json.RawMessage
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		// a bare 42, a string, an array: not an object
	}
	// "method", when present: a JSON string, not empty
	// "params", when present and not null: starts with { or [
	// no "method": exactly one of "result" and "error"; a result needs an id
	// an "error" must decode into a jsonrpc.Error (an integer code)`,
	},
	Claims: []check.Claim{
		{Claim: "valid JSON that is not a message gets -32600, with its id when readable: method 42 or \"\", params a string, a bare 42, {}", Where: "step 2"},
		{Claim: "an id that is not a string or an integer (1.5, true) gets -32600 without an id", Where: "step 2"},
		{Claim: "a response has exactly one of result and error", Where: "step 2", How: "{\"jsonrpc\":\"2.0\"} gets -32600; so do a response with both, with neither but an id, a method beside a result or an error, a result with a null id or none, and an error that is not an error object (a string, a code that is a string or 1.5): each wrong in one member only"},
	},
	Checklist: []string{"A3", "A7"},
	Split: &check.Split{Rule: "an empty method name; responses of the wrong shape", Parts: "no answer, or -32700, breaks the spec; -32601 for \"method\": \"\" only the course, which asks -32600; " +
		"a response of the wrong shape left unanswered only the course"},
	Run: checkInvalidShapes,
}

func checkInvalidShapes(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	cases := []struct{ id, line string }{
		{`7`, `{"jsonrpc":"2.0","id":7,"method":42}`},
		{`8`, `{"jsonrpc":"2.0","id":8,"method":"ping","params":"oops"}`},
		{`11`, emptyMethod},
		{``, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`}, // the id is the problem: it cannot be echoed
		{``, `{"jsonrpc":"2.0","id":true,"method":"ping"}`},
		{``, `42`},
		{``, `{"jsonrpc":"2.0"}`},
	}
	t.Case("requests and notifications of the wrong shape", func() {
		for _, c := range cases {
			s.Send(c.line)
			var resp *wire.Msg
			specRule(t, func() { resp = awaitVerdict(s, c.id, "answer to "+c.line) })
			if c.line == emptyMethod {
				if code, ok := resp.ErrorCode(); ok && code == -32601 && resp.Problem() == "" {
					// JSON-RPC allows -32601 for an empty name: only the course asks -32600.
					probe.ExpectError(t, resp, -32600, c.line)
				}
			}
			specRule(t, func() { probe.ExpectError(t, resp, -32600, c.line) })
		}
		specRule(t, func() { stillServing(t, s, `10`) })
	})
	t.Case("responses of the wrong shape", func() {
		// A message that is neither a valid request, a notification nor a
		// valid response: a method beside a result, both a result and an
		// error, a result with a null id, an error that is not an error
		// object. Each one alone, the others right, so that only the rule
		// under test refuses it. JSON-RPC's -32600 speaks of requests; that
		// a response of the wrong shape gets it too is the course's rule.
		for _, c := range badResponses {
			s.Send(c.line)
			resp := awaitVerdict(s, c.id, "answer to "+c.line)
			probe.ExpectError(t, resp, -32600, c.line)
		}
		stillServing(t, s, `12`)
	})
}

// badResponses are messages that are neither a valid request nor a valid
// response, each wrong in one member only, with the id an answer may echo.
var badResponses = []struct{ id, line string }{
	{`"r1"`, `{"jsonrpc":"2.0","id":"r1","method":"ping","result":{}}`},
	{`"r2"`, `{"jsonrpc":"2.0","id":"r2","method":"ping","error":{"code":1,"message":"m"}}`},
	{`"r3"`, `{"jsonrpc":"2.0","id":"r3","result":{},"error":{"code":1,"message":"m"}}`},
	{`"r4"`, `{"jsonrpc":"2.0","id":"r4"}`},
	{``, `{"jsonrpc":"2.0","id":null,"result":{}}`},
	{``, `{"jsonrpc":"2.0","result":{}}`},
	{`"r5"`, `{"jsonrpc":"2.0","id":"r5","error":"it failed"}`},
	{`"r6"`, `{"jsonrpc":"2.0","id":"r6","error":{"code":"x","message":"m"}}`},
	{`"r7"`, `{"jsonrpc":"2.0","id":"r7","error":{"code":1.5,"message":"m"}}`},
}

// emptyMethod is a request whose method is the empty string: JSON-RPC
// reads it as a method that does not exist (-32601), the course as an
// invalid request (-32600).
const emptyMethod = `{"jsonrpc":"2.0","id":11,"method":""}`

var stdio27 = &check.Check{
	ID: "STDIO-27", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title: "a valid message is served in every form JSON allows: params null or {}, members in any order, white space between tokens",
	Spec:  messagesRule("All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification"),
	Course: "JSON-RPC 2.0 §4.2 says \"params\" MAY be omitted, and is silent on \"params\": null; encoders that write a null for no params are common. " +
		"The course requires null to count as absent: a request with it is served, a notification with it is not answered. " +
		"MCP's methods take their params as an object, but an array is JSON-RPC's by-position form: the course requires it to pass validation (a method may still answer -32602).",
	Hint: check.Hint{
		Report: `Validation must refuse only what is wrong. "params": null means no params (isNull before you look at its first byte), JSON members come in any order, ` +
			`and white space may sit between any two tokens: a request written so is served like any other, and a notification so written is still not answered.`,
		Question: `Does your Decode refuse anything a JSON-RPC client may send: "params": null, "method" before "jsonrpc", spaces and tabs around the colons?`,
		Pointer:  "RFC 8259 §2: insignificant white space is allowed before or after any token, and an object's members are unordered. JSON-RPC 2.0 §4.2: params MAY be omitted; the course reads null as omitted (lesson 01, step 2).",
		Near: `Decode the members as json.RawMessage (their order and spacing do not matter then), and skip a null params:

	if raw.Params != nil && !isNull(raw.Params) {
		// only now must it start with { or [
	}`,
	},
	Early:      1,
	Robustness: &spec.ClientInput,
	Claims: []check.Claim{
		{Claim: "params null counts as absent", Where: "step 2", How: "a ping with \"params\": null is answered {}, a notification with it gets nothing"},
		{Claim: "params may be an array (JSON-RPC's by-position form): not -32600", Where: "step 2", How: "a ping with \"params\": [] gets its result, or at most -32602"},
		{Claim: "validation refuses nothing valid: members in any order, white space between tokens, \"params\": {}", Where: "step 2", How: "pings so written are answered, then no stray line"},
	},
	Checklist: []string{"A1", "A6"},
	Split:     &check.Split{Rule: "valid messages", Parts: "refusing members in another order, white space or \"params\": {} breaks JSON-RPC; refusing \"params\": null or [], or answering a notification with null params, only the course"},
	Run:       checkValidForms,
}

func checkValidForms(t *check.T) {
	s := wire.StartStdio(t)
	s.Initialize(spec.Rev)
	pong := func(id, line string) {
		s.Send(line)
		resp := awaitVerdict(s, id, "answer to "+line)
		if resp.Error != nil || !wire.SameJSON(resp.Result, json.RawMessage(`{}`)) {
			t.Fail(check.Failure{What: "a valid ping was not answered with an empty result: " + line,
				Got: check.Quote(string(resp.Raw)), Want: fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id)})
		}
	}
	t.Case("members in any order, white space, params {}", func() {
		defer t.SpecRule()()
		pong(`21`, `{"jsonrpc":"2.0","id":21,"method":"ping","params":{}}`)
		pong(`22`, `{"method":"ping","id":22,"jsonrpc":"2.0"}`)
		pong(`23`, "{ \"jsonrpc\" : \"2.0\" ,\t\"id\" :\t23 , \"method\" : \"ping\" , \"params\" : { } }")
		s.Send("{\"jsonrpc\":\"2.0\" , \"method\" : \"notifications/grader-unknown\" }")
		stillServing(t, s, `24`)
		strayAfter(t, s, "an answer to a valid notification")
	})
	t.Case(`"params": null, or an array`, func() {
		pong(`25`, `{"jsonrpc":"2.0","id":25,"method":"ping","params":null}`)
		// JSON-RPC's params may be an array too: valid, even where MCP's
		// methods take an object. A method may refuse it (-32602), but it
		// is not an invalid request.
		line := `{"jsonrpc":"2.0","id":27,"method":"ping","params":[]}`
		s.Send(line)
		if resp := awaitVerdict(s, `27`, "answer to "+line); resp.Error != nil {
			if code, _ := resp.ErrorCode(); code != -32602 {
				t.Fail(check.Failure{What: "a ping whose params is an array, which JSON-RPC allows, was refused as an invalid message",
					Got: check.Quote(string(resp.Raw)), Want: `{"jsonrpc":"2.0","id":27,"result":{}} (or, at most, -32602 Invalid params)`})
			}
		}
		s.Send(`{"jsonrpc":"2.0","method":"notifications/grader-unknown","params":null}`)
		stillServing(t, s, `26`)
		strayAfter(t, s, `an answer to a notification with "params": null`)
	})
}
