package lesson02

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step1 holds the checks of step 1: one endpoint that takes POSTs.
var step1 = check.Step{
	Checks: []*check.Check{http01, http02, http03, http04, http05, http06, http07, http08, http27, http28, http34, http35},
	Unchecked: []check.Claim{
		{Claim: "any other read error is a 400", Where: "step 1", How: "a client that breaks its own body mid-request cannot read the answer anyway"},
	},
}

var http01 = &check.Check{
	ID: "HTTP-01", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "POST initialize gets 200 and the InitializeResult",
	Spec:  spec.HTTP("", "The server MUST provide a single HTTP endpoint path (hereafter referred to as the MCP endpoint) that supports both POST and GET methods"),
	Hint: check.Hint{
		Report:   "Mount the handler at /mcp. Read the body, Decode it with stage 01's Decode, hand it to a new session, and write the response as JSON with Content-Type: application/json.",
		Question: "Does a POST to /mcp reach your servePOST at all? What status and body did the report's wire show for initialize?",
		Pointer:  "basic/transports › Streamable HTTP: one MCP endpoint that takes POST. net/http: ServeHTTP dispatches on r.Method; io.ReadAll reads the body; stdio.Decode (your stage 01) turns it into a message.",
		Near: `In ServeHTTP, then in servePOST:

	if r.Method == http.MethodPost {
		h.servePOST(w, r)
		return
	}

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	// …
	msg, reject := stdio.Decode(body)
	// …
	if msg.Method == "initialize" {
		h.serveInitialize(w, r, msg)
		return
	}

serveRequest ends with httpjson.Write(w, http.StatusOK, resp).`,
	},
	Claims: []check.Claim{
		{Claim: "one endpoint, /mcp, takes POST; initialize gets 200 and its result", Where: "concept, step 1"},
	},
	Checklist: []string{"C1", "D1", "D3"},
	Run:       checkHTTPInitialize,
}

func checkHTTPInitialize(t *check.T) {
	h := wire.StartHTTP(t)
	resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), "initialize")
	probe.ExpectStatus(t, resp, http.StatusOK, "initialize")
	m := probe.ExpectResponse(t, resp, `1`, "initialize")
	probe.CheckInitializeResult(t, m)
}

var http02 = &check.Check{
	ID: "HTTP-02", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "a request gets 200 and its response as one JSON object (or an SSE stream)",
	Spec:  spec.RequestAnswer,
	Hint: check.Hint{
		Report:   "Answer a request with 200, Content-Type: application/json, and the response object as the whole body: one object, not an array, not wrapped in anything.",
		Question: "What exactly is the body of your answer to tools/list: one JSON object, with Content-Type: application/json?",
		Pointer:  "basic/transports › Sending Messages to the Server: a request is answered with Content-Type: application/json and one JSON object, or with text/event-stream. The given httpjson.Write sets the header, the status and the body in one go.",
		Near: `In serveRequest, for a request without a progress token:

	resp := sess.Handle(h.requestContext(r), msg, nil)
	if resp != nil {
		httpjson.Write(w, http.StatusOK, resp)
	}

Nothing else is written to w, before or after.`,
	},
	Claims: []check.Claim{
		{Claim: "a request gets 200 and one JSON object (or an SSE stream)", Where: "concept, step 1", How: "tools/list and an echo with UTF-8"},
	},
	Checklist: []string{"A2", "C10"},
	Run:       checkHTTPRequest,
}

func checkHTTPRequest(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	resp := h.Post(session, spec.Rev, wire.Request(`2`, "tools/list", nil), "tools/list")
	probe.ExpectStatus(t, resp, http.StatusOK, "tools/list")
	if resp.ContentType == "application/json" {
		m, err := wire.Parse(resp.Body)
		if err != nil {
			t.Fail(check.Failure{What: "an application/json answer to a request must be one JSON object: " + err.Error(),
				Got: resp.Summary(), Want: `{"jsonrpc":"2.0","id":2,"result":{"tools":[...]}}`})
		}
		if !m.IsResponseTo(`2`) {
			t.Fail(check.Failure{What: "the JSON body is not the response to tools/list (id 2)", Got: resp.Summary()})
		}
	}
	probe.MustResult(t, probe.ExpectResponse(t, resp, `2`, "tools/list"), "tools/list")

	resp = h.Post(session, spec.Rev, wire.Request(`"e"`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "héllo ✓"}, nil)), "tools/call echo")
	probe.ExpectStatus(t, resp, http.StatusOK, "tools/call echo")
	if got := probe.ToolText(t, probe.ExpectResponse(t, resp, `"e"`, "tools/call echo"), "echo"); got != "héllo ✓" {
		t.Fail(check.Failure{What: "echo did not return its text unchanged", Got: check.Quote(got), Want: check.Quote("héllo ✓")})
	}
}

var http03 = &check.Check{
	ID: "HTTP-03", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "a notification, or a response from the client, gets 202 Accepted with an empty body",
	Spec:  spec.Sending("If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body"),
	Course: "The spec lets a server that cannot accept a notification or a response refuse it with an HTTP error. The course requires every one to be accepted, " +
		"an unknown notification and a response to no request included: JSON-RPC never answers a notification, and a refusal tells the client nothing it can act on.",
	Hint: check.Hint{
		Report: "A body that holds no request (a notification, or the client's response to a request of the server's) needs no answer: " +
			"hand it to the session, then w.WriteHeader(http.StatusAccepted) and write nothing. Not 200, not 204, not {}.",
		Question: "What does your server answer to a POST that holds a notification: which status, and is the body really empty?",
		Pointer:  "basic/transports › Sending Messages to the Server: for a notification or a response the server MUST return 202 Accepted with no body. http.ResponseWriter.WriteHeader(http.StatusAccepted) with no Write sends exactly that.",
		Near: `In servePOST, once the session is found:

	if !msg.IsRequest() {
		sess.Handle(h.requestContext(r), msg, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}`,
	},
	Claims: []check.Claim{
		{Claim: "a notification or a response gets 202 with no body", Where: "concept, step 1", How: "the body is read to its end and must be empty"},
	},
	Checklist: []string{"A6", "C8", "D11"},
	Split:     &check.Split{Rule: "the answer to a notification or a response", Parts: "a success status other than 202, or a body, breaks the spec; a refusal with an HTTP error is allowed (\"cannot accept the input\"), and only the course wants 202", Also: []string{"HTTP-23"}},
	Run:       checkHTTPNotification,
}

func checkHTTPNotification(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	for _, body := range []string{
		wire.Notification("notifications/initialized", nil),
		wire.Notification("notifications/cancelled", map[string]any{"requestId": "no-such-request"}),
		wire.Notification("notifications/grader-unknown", map[string]any{"x": 1}),
		`{"jsonrpc":"2.0","id":"srv-1","result":{}}`, // the client's response to a request the server never sent
	} {
		expectAccepted(t, h.Post(session, spec.Rev, body, "a message that needs no answer"), "a POST holding only a notification or a response")
	}
	expectNoHandlerReports(t, h, "the notifications and the response")
}

var http04 = &check.Check{
	ID: "HTTP-04", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "Accept is read as a list: any order, spacing, case, wildcards or repeated headers are served; without both types, or with q=0, a 4xx",
	Spec:  spec.Sending("The client MUST include an Accept header, listing both application/json and text/event-stream as supported content types"),
	Course: "The spec puts the rule on the client and leaves the server's answer open. The course requires a 4xx " +
		"(406 Not Acceptable in the reference): the server picks JSON or SSE per response, so a client that cannot take both will break later, not now. " +
		"Real clients write Accept in many ways (RFC 9110 §12.5.1), and each must be understood.",
	Hint: check.Hint{
		Report: "Parse Accept as a comma-separated list of media types, in every value of the header (r.Header.Values): mime.ParseMediaType each piece, " +
			"skip pieces with q=0, and let type/*, */* match. Refuse the POST unless both types are acceptable; never compare the header with one fixed string.",
		Question: "Which Accept values does your server let through? Does it notice when application/json or text/event-stream is missing?",
		Pointer:  "The client MUST list both types in Accept (› Sending Messages to the Server). mime.ParseMediaType parses one media range and its q parameter; r.Header.Values(\"Accept\") returns every Accept header; strings.Split on commas splits each into ranges.",
		Near: `In Accepts, for each value and each comma-separated part of it:

	mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
	if err != nil {
		continue
	}
	if q, ok := params["q"]; ok {
		if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
			continue
		}
	}
	if mt == mediaType || mt == major+"/*" || mt == "*/*" {
		return true
	}

In servePOST: if !acceptsBoth(r.Header.Values("Accept")), answer 406 with httpjson.Error and return.`,
	},
	Claims: []check.Claim{
		{Claim: "Accept must allow both types: a list, any order or spacing, case, wildcards, several header lines; q=0 takes a type away; without both a 4xx", Where: "step 1", How: "ten refused forms (one of each type; q=0 on either, written 0, 0.0, 0.000, 0. or Q=0, with spaces around the ';'; another type with parameters; none) and ten accepted ones (q=0.001, and wildcards with parameters, among them)"},
	},
	Checklist: []string{"C6"},
	Run:       checkHTTPAccept,
}

func checkHTTPAccept(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	post := func(accept []string, id string) *wire.Response {
		hdr := wire.Headers(session, spec.Rev)
		hdr.Del("Accept")
		for _, a := range accept {
			hdr.Add("Accept", a)
		}
		return h.Do(wire.Req{Header: hdr, Body: wire.Request(id, "ping", nil), Purpose: "ping with Accept: " + strings.Join(accept, " + ")})
	}
	for i, accept := range [][]string{
		{"application/json"},
		{"text/event-stream"},
		{"application/json, text/event-stream;q=0"},
		{"application/json;q=0, text/event-stream"},
		// q=0 is a number, not a text (RFC 9110 §12.4.2: "0" [ "." 0*3DIGIT ]),
		// and parameter names have no case; spaces may surround the ";".
		{"application/json;q=0.0, text/event-stream"},
		{"application/json, text/event-stream;q=0.000"},
		{"application/json;Q=0, text/event-stream"},
		{"application/json ; q=0. , text/event-stream"},
		// A range with parameters names its own type, and no other.
		{"text/event-stream, text/html;q=0.5"},
		{}, // no Accept at all
	} {
		if resp := post(accept, fmt.Sprint(10+i)); resp.Status < 400 || resp.Status > 499 {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST with Accept %q, which does not allow both types, was served", strings.Join(accept, " + ")),
				Got: resp.Summary(), Want: "a 4xx status (406 Not Acceptable, for instance)"})
		}
	}
	for i, accept := range [][]string{
		{"application/json, text/event-stream"},
		{"text/event-stream, application/json"},
		{"application/json,text/event-stream"},
		{"application/json;q=0.9, text/event-stream;q=0.5"},
		{"application/json;q=0.001, text/event-stream;q=1.000"}, // the least weight there is is still a yes
		{"Application/JSON, Text/Event-Stream"},
		{"application/json", "text/event-stream"}, // two Accept lines
		{"application/*, text/*"},
		{"*/*"},
		{"application/*;q=0.5, */*;q=0.1"}, // wildcards with parameters
	} {
		resp := post(accept, fmt.Sprint(20+i))
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST with Accept %q, which allows both types, was refused", strings.Join(accept, " + ")),
				Got: resp.Summary(), Want: "HTTP 200: Accept is a list of media ranges, in any order, with optional spaces, parameters, wildcards, and any case"})
		}
	}
}

var http05 = &check.Check{
	ID: "HTTP-05", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Mode: check.AnyMode},
	Title:  "a body that is not JSON gets 400 with a -32700 error body",
	Spec:   spec.Sending("If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)"),
	Course: errorBodyCourse,
	Hint: check.Hint{
		Report:   "Decode returns a reject for text that is not JSON. Write it as the body of a 400 response, with Content-Type: application/json.",
		Question: "Which status and body does a POST whose body is not JSON get from your server?",
		Pointer:  "› Sending Messages to the Server: input the server cannot accept gets an HTTP error status such as 400. Your stage 01 Decode already returns the -32700 reject; httpjson.Write sends any value as a JSON body with a status.",
		Near: `	msg, reject := stdio.Decode(body)
	if reject != nil {
		httpjson.Write(w, http.StatusBadRequest, reject)
		return
	}`,
		Quotes: []check.Source{{File: "solutions/02-streamable-http/post.go", Func: "servePOST"}},
	},
	Claims: []check.Claim{
		{Claim: "input that is not JSON gets 400 with a -32700 body; invalid messages 400 with -32600", Where: "concept, step 1", How: "the JSON-RPC error body is checked, not only the status", Also: []string{"HTTP-06"}},
	},
	Checklist:  []string{"A7", "C9"},
	Robustness: &spec.ClientBody,
	Split:      &check.Split{Rule: "input that cannot be accepted", Parts: "an HTTP error status is the spec's MUST; the JSON-RPC error body in it is the course's (the spec: MAY)", Also: []string{"HTTP-06"}},
	Run:        checkHTTPParseError,
}

func checkHTTPParseError(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	resp := h.Post(session, spec.Rev, `{"jsonrpc":"2.0","id":1,"method":"ping"`, "a body that is not JSON")
	expectHTTPError(t, resp, http.StatusBadRequest, "a body that is not JSON")
	expectErrorBody(t, resp, -32700, "a body that is not JSON")
}

var http06 = &check.Check{
	ID: "HTTP-06", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Mode: check.AnyMode},
	Title:  "JSON that is not a valid message gets 400 with a -32600 error body",
	Spec:   spec.Sending("If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)"),
	Course: errorBodyCourse,
	Hint: check.Hint{
		Report:   `"method": 42 or "id": null is valid JSON but no valid message: Decode's reject is a -32600 error. Send it with status 400, not 200.`,
		Question: "For valid JSON that is no valid message (\"method\": 42, \"id\": null), which status does your server send, and which JSON-RPC code is inside?",
		Pointer:  "JSON-RPC 2.0 §5.1: -32600 Invalid Request; › Sending Messages to the Server: an input the server cannot accept gets an HTTP error status. Decode's reject for such input is already the -32600 error.",
		Near: `Treat every reject from stdio.Decode the same way, with status 400, never 200:

	if reject != nil {
		httpjson.Write(w, http.StatusBadRequest, reject)
		return
	}

If your Decode calls these -32700, fix it in stage 01 (STDIO-11 to STDIO-13).`,
		Quotes: []check.Source{{File: "solutions/02-streamable-http/post.go", Func: "servePOST"}},
	},
	Checklist:  []string{"A3", "A7", "C9"},
	Robustness: &spec.ClientBody,
	Run:        checkHTTPInvalidMessage,
}

func checkHTTPInvalidMessage(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	for _, body := range []string{`{"jsonrpc":"2.0","id":7,"method":42}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`} {
		t.Case(body, func() {
			resp := h.Post(session, spec.Rev, body, body)
			expectHTTPError(t, resp, http.StatusBadRequest, body)
			expectErrorBody(t, resp, -32600, body)
		})
	}
}

var http07 = &check.Check{
	ID: "HTTP-07", Step: 1, Severity: check.Must, Budget: 10 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "a body over 4 MiB gets 413; one of exactly 4 MiB is served",
	Spec:  spec.NoLimit,
	Course: "The spec sets no size limit. The course requires one (4 MiB by default) so that one request cannot make " +
		"the server read without end, and 413 Content Too Large when it is exceeded.",
	Hint: check.Hint{
		Report:   "Wrap the body in http.MaxBytesReader(w, r.Body, limit) before reading it; when the read fails with *http.MaxBytesError, answer 413.",
		Question: "How much of a body will your server read before it gives up? What does the client see when a body is too large?",
		Pointer:  "net/http: http.MaxBytesReader(w, r.Body, n) stops reading after n bytes and returns an *http.MaxBytesError; errors.As finds it. 413 is http.StatusRequestEntityTooLarge (Content Too Large in RFC 9110).",
		Near: `	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		httpjson.Error(w, http.StatusRequestEntityTooLarge, codeInvalidRequest,
			"the body is larger than %d bytes", tooBig.Limit)
		return
	}
	if err != nil {
		// 400: the body could not be read
	}`,
	},
	Claims: []check.Claim{
		{Claim: "the body is read through MaxBytesReader: over 4 MiB gets 413, under is served", Where: "step 1", How: "a notification of exactly 4 MiB (4194304 bytes) taken, one of 4194305 refused, then a ping; HTTP-34 tests -max-body the same way", Also: []string{"HTTP-34"}},
	},
	Checklist: []string{"C9"},
	Run:       checkHTTPBodyLimit,
}

func checkHTTPBodyLimit(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	expectBodyLimit(t, h, session, defaultMaxBody, "the default 4 MiB limit")
	resp := h.Post(session, spec.Rev, wire.Request(`4`, "ping", nil), "ping after the refused body")
	probe.ExpectStatus(t, resp, http.StatusOK, "ping after the refused body")
}

// defaultMaxBody is the course's default body limit, 4 MiB.
const defaultMaxBody = 4 << 20

// expectBodyLimit sends two notifications in session, of exactly limit
// bytes and of one byte more: the first must be taken (202), the second
// refused with 413. A limit is a boundary, and a boundary is tested on
// both sides. (Notifications, so that nothing of the size comes back.)
func expectBodyLimit(t *check.T, h *wire.HTTP, session string, limit int, what string) {
	resp := h.Do(wire.Req{Header: wire.Headers(session, spec.Rev), Within: wire.T2, Purpose: fmt.Sprintf("a notification of exactly %d bytes", limit),
		Body: sizedNotification(limit)})
	if resp.Status != http.StatusAccepted {
		t.Fail(check.Failure{What: fmt.Sprintf("a body of exactly %d bytes, %s, was not taken", limit, what), Got: resp.Summary(),
			Want: "HTTP 202: the limit is the largest body served, so a body of exactly that size is served"})
	}
	resp = h.Do(wire.Req{Header: wire.Headers(session, spec.Rev), Within: wire.T2, Purpose: fmt.Sprintf("a notification of %d bytes, one over the limit", limit+1),
		Body: sizedNotification(limit + 1)})
	if resp.Status != http.StatusRequestEntityTooLarge {
		t.Fail(check.Failure{What: fmt.Sprintf("a body of %d bytes, one byte over %s, was not refused with 413", limit+1, what), Got: resp.Summary(), Want: "HTTP 413"})
	}
}

// sizedNotification returns a notification of exactly size bytes.
func sizedNotification(size int) string {
	body := func(pad string) string {
		return wire.Notification("notifications/grader-unknown", map[string]any{"pad": pad})
	}
	return body(strings.Repeat("n", size-len(body(""))))
}

// sizedEcho returns an echo call of exactly size bytes: its text is as
// long as it takes.
func sizedEcho(id string, size int) string {
	body := func(text string) string {
		return wire.Request(id, "tools/call", wire.ToolCall("echo", map[string]any{"text": text}, nil))
	}
	return body(strings.Repeat("a", size-len(body(""))))
}

var http34 = &check.Check{
	ID: "HTTP-34", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Flags: []string{"-max-body"}},
	Title: "-max-body sets the body limit: a body of exactly that size is served, one byte more gets 413, a notification too",
	Spec:  spec.NoLimit,
	Course: "The spec sets no size limit. The course's -max-body flag sets it (4 MiB when it is not given): the limit is the largest body served, " +
		"so a body of exactly -max-body bytes is served and one byte more gets 413, for every message a POST can hold. " +
		"The grader sets -max-body 1000.",
	Hint: check.Hint{
		Report: "Give http.MaxBytesReader the limit the flag set, h.opts.MaxBodyBytes, neither the default constant nor the limit plus or minus one: " +
			"MaxBytesReader already serves exactly n bytes and fails at n+1.",
		Question: "Which number does your MaxBytesReader get: the -max-body flag's value, or a constant? What happens to a body of exactly that many bytes, and to one byte more?",
		Pointer:  "net/http: http.MaxBytesReader(w, r.Body, n) lets n bytes through and fails the read of byte n+1 with *http.MaxBytesError. Options.MaxBodyBytes holds what -max-body set (RegisterFlags), or the default when it was not given.",
		Near: `	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))

not DefaultMaxBodyBytes, and not h.opts.MaxBodyBytes-1 or +1.`,
	},
	Claims: []check.Claim{
		{Claim: "the body limit is the -max-body flag's, on both sides of it: exactly the limit is served, one byte more gets 413", Where: "step 1",
			How: "-max-body 1000: notifications and echo calls of 1000 and 1001 bytes; HTTP-07 tests the default 4 MiB the same way", Also: []string{"HTTP-07"}},
	},
	Checklist: []string{"C9"},
	Run:       checkHTTPMaxBodyFlag,
}

func checkHTTPMaxBodyFlag(t *check.T) {
	const limit = 1000
	h := wire.StartHTTP(t, "-max-body", fmt.Sprint(limit))
	session, _ := h.Initialize(spec.Rev)
	expectBodyLimit(t, h, session, limit, "-max-body 1000")
	// A request is a body like any other.
	resp := h.Post(session, spec.Rev, sizedEcho(`2`, limit), "echo, a body of exactly 1000 bytes, with -max-body 1000")
	probe.ExpectStatus(t, resp, http.StatusOK, "an echo of exactly 1000 bytes, with -max-body 1000")
	resp = h.Post(session, spec.Rev, sizedEcho(`3`, limit+1), "echo, a body of 1001 bytes, with -max-body 1000")
	if resp.Status != http.StatusRequestEntityTooLarge {
		t.Fail(check.Failure{What: "an echo of 1001 bytes, with -max-body 1000, was not refused with 413", Got: resp.Summary(), Want: "HTTP 413: the limit holds for every POST body"})
	}
}

var http08 = &check.Check{
	ID: "HTTP-08", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Mode: check.AnyMode},
	Title:  "an unknown method gets a -32601 JSON-RPC error, not an HTTP error",
	Spec:   spec.JSONRPCErrors,
	Course: "The course requires the error with status 200, as every response to a request: the request was delivered, and the error is JSON-RPC's to report.",
	Hint: check.Hint{
		Report:   "An unknown method is a perfectly good request with an error for an answer: send the session's -32601 response like any other response, with 200.",
		Question: "Is a request for an unknown method a failure of HTTP, or a normal request whose answer is an error?",
		Pointer:  "JSON-RPC 2.0 §5.1: -32601 Method not found is a response like any other. HTTP only says whether the message got through: it did, so 200. The session answers -32601 for you.",
		Near: `Write whatever the session returns, error responses included, with 200:

	resp := sess.Handle(h.requestContext(r), msg, nil)
	httpjson.Write(w, http.StatusOK, resp)

Do not map JSON-RPC errors to HTTP statuses.`,
	},
	Claims: []check.Claim{
		{Claim: "an unknown method is 200 with -32601 inside: HTTP and JSON-RPC are two layers", Where: "concept, step 1"},
	},
	Checklist: []string{"A7"},
	Split:     &check.Split{Rule: "an unknown method", Parts: "no JSON-RPC response at all breaks the spec; a -32601 with another status than 200 only the course"},
	Run:       checkHTTPUnknownMethod,
}

func checkHTTPUnknownMethod(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	resp := h.Post(session, spec.Rev, wire.Request(`"abc"`, "grader/no-such-method", nil), "an unknown method")
	if m := resp.Find(`"abc"`); m != nil && resp.Status != http.StatusOK {
		// The JSON-RPC error came, with a status the course does not want.
		probe.ExpectError(t, m, -32601, "an unknown method")
		probe.ExpectStatus(t, resp, http.StatusOK, "an unknown method")
	}
	if resp.Status != http.StatusOK {
		t.Fail(check.Failure{What: fmt.Sprintf("an unknown method got HTTP %d, and no JSON-RPC response", resp.Status), Got: resp.Summary(),
			Want:  `HTTP 200 with {"jsonrpc":"2.0","id":"abc","error":{"code":-32601,...}}: a request gets a response, an error one when its method is unknown`,
			Cites: &spec.RequestAnswer})
	}
	m := probe.ExpectResponse(t, resp, `"abc"`, "an unknown method")
	if code, ok := m.ErrorCode(); m.Error == nil || !ok || code != -32601 {
		t.Fail(check.Failure{What: "an unknown method did not get a -32601 error", Got: check.Quote(string(m.Raw)), Want: `an error response with "code": -32601`, Spec: true})
	}
}

var http27 = &check.Check{
	ID: "HTTP-27", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "a POST whose Content-Type is not application/json gets 415; parameters such as charset are fine",
	Spec:  spec.Sending("The body of the POST request MUST be a single JSON-RPC request, notification, or response"),
	Course: "The spec does not name the status. The course requires 415 Unsupported Media Type for a body that does not say it is JSON: " +
		"a web page can POST text/plain to any site without asking first, never application/json (lesson 04 builds on this).",
	Hint: check.Hint{
		Report: "Parse Content-Type with mime.ParseMediaType and compare the media type alone: application/json; charset=utf-8 is JSON too. " +
			"Anything else, or no Content-Type at all, gets 415 before the body is read.",
		Question: "What does your server do with a body whose Content-Type is text/plain, or missing? And with application/json; charset=utf-8?",
		Pointer:  "mime.ParseMediaType(r.Header.Get(\"Content-Type\")) returns the media type in lower case, without its parameters. 415 is http.StatusUnsupportedMediaType.",
		Near: `At the top of servePOST, after the Accept check:

	if !isJSON(r.Header.Get("Content-Type")) {
		httpjson.Error(w, http.StatusUnsupportedMediaType, codeServerError,
			"the body must be Content-Type: application/json")
		return
	}`,
	},
	Claims: []check.Claim{
		{Claim: "a Content-Type that is not application/json gets 415; parameters are fine", Where: "step 1", How: "text/plain, a form type, none, and types whose names begin as application/json's (json-seq, jsonl, json-patch+json) get 415; charset, upper case and spaces before the ';' pass"},
	},
	Checklist: []string{"C9"},
	Run:       checkHTTPContentType,
}

func checkHTTPContentType(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	// Types whose names begin like application/json's are other types.
	for i, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "", "application/json-seq", "application/jsonl", "application/json-patch+json"} {
		hdr := wire.Headers(session, spec.Rev)
		hdr.Del("Content-Type")
		if ct != "" {
			hdr.Set("Content-Type", ct)
		}
		resp := h.Do(wire.Req{Header: hdr, Body: wire.Request(fmt.Sprint(10+i), "ping", nil), Purpose: fmt.Sprintf("ping with Content-Type %q", ct)})
		if resp.Status != http.StatusUnsupportedMediaType {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST with Content-Type %q was not refused with 415", ct), Got: resp.Summary(),
				Want: "HTTP 415 Unsupported Media Type"})
		}
	}
	for i, ct := range []string{"application/json; charset=utf-8", "Application/JSON", "APPLICATION/JSON ; charset=UTF-8"} {
		hdr := wire.Headers(session, spec.Rev)
		hdr.Set("Content-Type", ct)
		resp := h.Do(wire.Req{Header: hdr, Body: wire.Request(fmt.Sprint(20+i), "ping", nil), Purpose: fmt.Sprintf("ping with Content-Type %q", ct)})
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST with Content-Type %q, which is JSON, was refused", ct), Got: resp.Summary(),
				Want: "HTTP 200: compare the media type alone, without case or parameters"})
		}
	}
}

var http28 = &check.Check{
	ID: "HTTP-28", Step: 1, Severity: check.Must, Budget: 10 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "a body over the limit is refused before it is read to its end (the grader counts the bytes the server takes)",
	Spec:  spec.NoLimit,
	Course: "A status code is not enough: a server that reads a 512 MiB body into memory and then answers 413 has already lost. " +
		"The grader streams a 48 MiB body without Content-Length and counts how much the server has taken when its answer begins: " +
		"the 4 MiB limit, plus what the network buffers hold, and no more than 24 MiB.",
	Hint: check.Hint{
		Report: "Read through http.MaxBytesReader(w, r.Body, limit), which stops at the limit, rather than io.ReadAll(r.Body) and a length check afterwards. " +
			"Checking r.ContentLength is not enough either: a chunked body has none.",
		Question: "When a body is too large, how much of it has your server read by the time it answers 413: the limit, or the whole body?",
		Pointer:  "http.MaxBytesReader stops reading at its limit, whatever the body's length; r.ContentLength is -1 for a chunked body, so a check of it alone lets a chunked body through. io.ReadAll(r.Body) reads everything first.",
		Near: `Read through the limit, never around it:

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		// 413 at once: the rest of the body is never read
	}`,
	},
	Claims: []check.Claim{
		{Claim: "the body is never read whole before the size is judged", Where: "step 1", How: "a 48 MiB chunked body with no Content-Length, over a raw connection; the grader counts the bytes the server took when it answered (the 4 MiB plus network buffers, at most 24 MiB)"},
	},
	Checklist: []string{"C9"},
	Run:       checkHTTPBodyReadBounded,
}

func checkHTTPBodyReadBounded(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	body := &endlessBody{prefix: wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "@"}, nil)), size: 48 << 20}
	resp := h.SendStreaming(wire.Req{Header: wire.Headers(session, spec.Rev), BodyReader: body, Within: wire.T2,
		Purpose: "echo with 48 MiB of text, chunked, without Content-Length"})
	taken := body.Taken()
	t.Wire.Event("the answer came once the server had taken %d MiB of the body", taken>>20)
	if resp.Status != http.StatusRequestEntityTooLarge {
		t.Fail(check.Failure{What: fmt.Sprintf("a 48 MiB chunked body got HTTP %d", resp.Status), Got: resp.Summary(), Want: "HTTP 413 Content Too Large"})
	}
	if taken > 24<<20 {
		t.Fail(check.Failure{What: fmt.Sprintf("the server took %d MiB of a 48 MiB body before it answered 413: it read the body whole, then looked at its size", taken>>20),
			Want: "the answer after about 4 MiB (plus what the network buffers hold), read through http.MaxBytesReader"})
	}
}

// endlessBody is a JSON-RPC request whose one string value goes on for size
// bytes, produced as it is read, and counted.
type endlessBody struct {
	prefix string // a request whose text ends in `"@"}}}`, where the filler goes
	size   int64
	taken  atomic.Int64
	done   bool
}

func (b *endlessBody) Read(p []byte) (int, error) {
	n := b.taken.Load()
	head, tail, _ := strings.Cut(b.prefix, "@")
	switch {
	case n < int64(len(head)):
		k := copy(p, head[n:])
		b.taken.Add(int64(k))
		return k, nil
	case n < b.size:
		k := int(min(int64(len(p)), b.size-n))
		for i := range p[:k] {
			p[i] = 'x'
		}
		b.taken.Add(int64(k))
		return k, nil
	case !b.done:
		b.done = true
		return copy(p, tail), nil
	}
	return 0, io.EOF
}

// Taken returns how many bytes have been read so far.
func (b *endlessBody) Taken() int64 { return b.taken.Load() }

// errorBodyCourse is the Course text of the checks that want a JSON-RPC
// error body with an HTTP error.
const errorBodyCourse = "The spec requires an HTTP error status and lets its body hold a JSON-RPC error response without an id (MAY). " +
	"The course requires 400 with that error body, with the JSON-RPC code that says what was wrong."

// expectHTTPError fails the check unless resp has status want; a status
// that is no error at all breaks the spec itself.
func expectHTTPError(t *check.T, resp *wire.Response, want int, what string) {
	if resp.Status != want {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d", what, resp.Status), Got: resp.Summary(), Want: fmt.Sprintf("HTTP %d", want),
			Spec: resp.Status < 400})
	}
}

var http35 = &check.Check{
	ID: "HTTP-35", Step: 1, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "the MCP endpoint is one path, /mcp: an initialize POSTed to any other path (/, /other, /mcp/extra, /MCP) is not served",
	Spec:  spec.HTTP("", "The server MUST provide a single HTTP endpoint path (hereafter referred to as the MCP endpoint) that supports both POST and GET methods"),
	Course: "The spec asks for a single endpoint path. The course's servers serve MCP at /mcp alone, and every other path gets 404 Not Found " +
		"(paths are case-sensitive, and /mcp/extra is another path); a query string does not change the path. " +
		"On an external server the grader only asks that no other path answers initialize.",
	Hint: check.Hint{
		Report: "Mount the handler on the exact path: mux.Handle(\"/mcp\", handler). The pattern \"/\" (or \"/mcp/\", with its slash) matches every path below it, " +
			"which makes each of them an MCP endpoint.",
		Question: "Which paths reach your handler: /mcp only, or / and /mcp/extra too? What does http.ServeMux do with a pattern that ends in a slash?",
		Pointer:  "basic/transports › Streamable HTTP: a single MCP endpoint path. net/http: a ServeMux pattern without a trailing slash matches that path alone; \"/\" and \"/mcp/\" match every path under them.",
		Near: `In cmd/server's main:

	mux := http.NewServeMux()
	mux.Handle("/mcp", handler) // this path only`,
	},
	Claims: []check.Claim{
		{Claim: "one endpoint path, /mcp: other paths are not MCP endpoints (404 on the course's servers)", Where: "concept, step 1",
			How: "an initialize POSTed to /, /other, /mcp/extra, /mcpx and /MCP must not be served (404 on the course's servers); one to /mcp?grader=1 must be"},
	},
	Checklist: []string{"C1"},
	Run:       checkHTTPOneEndpoint,
}

func checkHTTPOneEndpoint(t *check.T) {
	h := wire.StartHTTP(t)
	u, err := url.Parse(h.URL)
	if err != nil {
		t.Failf("grader bug: the endpoint %q is no URL: %v", h.URL, err)
	}
	initialize := wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev))
	others := []string{u.Path + "/extra", u.Path + "x", strings.ToUpper(u.Path), "/grader-other-path"}
	if u.Path != "/" {
		others = append(others, "/")
	}
	for _, path := range others {
		if path == u.Path {
			continue // an endpoint with no letters in its path
		}
		resp := h.Do(wire.Req{Path: path, Header: wire.Headers("", ""), Body: initialize, Purpose: "initialize POSTed to " + path + ", which is not the endpoint"})
		if m := resp.Find(`1`); m != nil && m.Error == nil {
			t.Fail(check.Failure{What: fmt.Sprintf("an initialize POSTed to %s, which is not the endpoint %s, was served: every path is an MCP endpoint", path, u.Path), Got: resp.Summary(),
				Want: "HTTP 404 Not Found: the MCP endpoint is one path", Spec: true})
			continue
		}
		if !t.Target.External() && resp.Status != http.StatusNotFound {
			t.Fail(check.Failure{What: fmt.Sprintf("a POST to %s, which is not the endpoint, got HTTP %d", path, resp.Status), Got: resp.Summary(),
				Want: "HTTP 404 Not Found: nothing is served there"})
		}
	}
	if u.RawQuery == "" {
		resp := h.Do(wire.Req{Path: u.Path + "?grader=1", Header: wire.Headers("", ""), Body: initialize, Purpose: "initialize POSTed to the endpoint, with a query string"})
		if m := resp.Find(`1`); m == nil || m.Error != nil {
			t.Fail(check.Failure{What: "an initialize POSTed to " + u.Path + "?grader=1 was not served: a query string does not change the path", Got: resp.Summary(),
				Want: "HTTP 200 and the InitializeResult"})
		}
	}
}
