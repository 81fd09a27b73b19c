package lesson02

import (
	"fmt"
	"net/http"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step3 holds the checks of step 3: the protocol version header, and batches.
var step3 = check.Step{
	Checks: []*check.Check{http18, http19, http20},
	Unchecked: []check.Claim{
		{Claim: "the header sent twice may be refused", Where: "step 3 (optional)", How: "optional in the lesson"},
	},
}

var http18 = &check.Check{
	ID: "HTTP-18", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Title: "MCP-Protocol-Version: unsupported or malformed gets 400, on requests, notifications, batches and DELETE; absent is accepted",
	Spec:  spec.HTTP("Protocol Version Header", "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"),
	Course: "Without the header, the spec says the server SHOULD assume 2025-03-26 (or use the version the session negotiated); " +
		"the course requires that such a request is served.",
	Hint: check.Hint{
		Report:   "Look the header up in the version table (mcp.LookupVersion) for every message, and for DELETE. Present and unknown: 400. Absent: use the session's negotiated version, or 2025-03-26.",
		Question: "What does your server do with MCP-Protocol-Version: 1999-01-01? And with no MCP-Protocol-Version header at all?",
		Pointer:  "› Protocol Version Header: an invalid or unsupported version MUST get 400 Bad Request; without the header, the server SHOULD assume 2025-03-26 (or use the negotiated version). mcp.LookupVersion finds a version in the table; mcp.HTTPFallbackVersion is 2025-03-26.",
		Near: `	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		pv, ok := mcp.LookupVersion(v)
		if !ok {
			httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest, "unsupported MCP-Protocol-Version %q", v)
			return mcp.ProtocolVersion{}, false
		}
		return pv, true
	}
	if s != nil {
		if pv, ok := s.Version(); ok {
			return pv, true
		}
	}
	pv, _ := mcp.LookupVersion(mcp.HTTPFallbackVersion)
	return pv, true

Call it in servePOST right after Decode: h.ProtocolVersion(w, r, nil).`,
	},
	Claims: []check.Claim{
		{Claim: "MCP-Protocol-Version: unknown or malformed gets 400, on every message and on DELETE", Where: "concept, step 3", How: "a request, a notification and a batch with each of two bad values; DELETE, after which the session must still be alive"},
		{Claim: "without the header, the session's version is used, else 2025-03-26", Where: "concept, step 3", How: "a request without the header is served; a batch without it in a 2025-11-25 session is refused; a stateless batch without it is served as 2025-03-26", Also: []string{"HTTP-20", "HTTP-24"}},
	},
	Checklist: []string{"C40", "C41"},
	Split:     &check.Split{Rule: "the protocol version header", Parts: "400 for an unsupported version is the spec's; serving a request without the header is the course's"},
	Run:       checkHTTPProtocolVersionHeader,
}

func checkHTTPProtocolVersionHeader(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	t.Case("an unsupported or malformed version", func() {
		defer t.SpecRule()()
		for _, v := range []string{"1999-01-01", "not-a-version"} {
			for _, m := range []struct{ body, what string }{
				{wire.Request(`2`, "ping", nil), "a request"},
				{wire.Notification("notifications/grader-unknown", nil), "a notification"},
				{"[" + wire.Request(`3`, "ping", nil) + "]", "a batch"},
			} {
				resp := h.Post(session, v, m.body, m.what+" with MCP-Protocol-Version: "+v)
				if resp.Status != http.StatusBadRequest {
					t.Fail(check.Failure{What: fmt.Sprintf("%s with MCP-Protocol-Version: %s was not refused", m.what, v), Got: resp.Summary(), Want: "HTTP 400"})
				}
			}
		}
		resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, "1999-01-01"), Purpose: "DELETE with MCP-Protocol-Version: 1999-01-01"})
		if resp.Status != http.StatusBadRequest {
			t.Fail(check.Failure{What: "DELETE with MCP-Protocol-Version: 1999-01-01 was not refused", Got: resp.Summary(),
				Want: "HTTP 400, and the session left alone: the rule covers every request"})
		}
	})
	t.Case("no version header", func() {
		resp := h.Post(session, "", wire.Request(`4`, "ping", nil), "ping without MCP-Protocol-Version")
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: "a request without MCP-Protocol-Version was refused", Got: resp.Summary(),
				Want: "HTTP 200: without the header, use the session's version or assume 2025-03-26"})
		}
	})
}

var http19 = &check.Check{
	ID: "HTTP-19", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Mode: check.AnyMode},
	Title: "at 2025-03-26, a batch POST gets all its responses; a batch of notifications gets 202",
	Spec: check.Spec{Rev: "2025-03-26", Section: "basic/index › Batching; basic/transports › Streamable HTTP › Sending Messages to the Server",
		Quote: "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches"},
	Hint: check.Hint{
		Report:   "When the body is an array (stdio.IsBatch), serve it with stdio.ServeBatch at the request's protocol version; answer the responses as one JSON array, or 202 when there are none.",
		Question: "At 2025-03-26, does a POST whose body is a JSON array reach your stage 01 ServeBatch, at the session's version?",
		Pointer:  "MCP 2025-03-26 › Sending Messages to the Server: a POST body may be a batch of requests and notifications, answered with the responses (or 202 when there are none). stdio.IsBatch and stdio.ServeBatch from stage 01 do the work.",
		Near: `In servePOST, before Decode:

	if stdio.IsBatch(body) {
		h.serveBatch(w, r, body)
		return
	}

In serveBatch (the batch's reply, rp, is step 5's: until then its end returns nil, and the batch is answered as JSON):

{{quote 1}}`,
		Quotes: []check.Source{{File: "solutions/02-streamable-http/post.go", Func: "servePOST"}, {File: "solutions/02-streamable-http/post.go", Func: "serveBatch"}},
	},
	Claims: []check.Claim{
		{Claim: "batches only at 2025-03-26: an array of responses, 202 for notifications only", Where: "concept, step 3"},
	},
	Checklist: []string{"A6", "A8"},
	Run:       checkHTTPBatchAt20250326,
}

func checkHTTPBatchAt20250326(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize("2025-03-26")
	// The first notification is one every server knows (a cancellation of
	// no request in particular), so that only batching is judged there.
	cancelled := wire.Notification("notifications/cancelled", map[string]any{"requestId": "no-such-request"})
	// pings posts a batch of two pings and a notification; purpose and
	// status name it in the wire log and in a report on its status, answer
	// in a report on what its answer holds.
	pings := func(a, b, notification, purpose, status, answer string) {
		batch := "[" + wire.Request(a, "ping", nil) + "," + wire.Request(b, "ping", nil) + "," + notification + "]"
		resp := h.Post(session, "2025-03-26", batch, purpose)
		probe.ExpectStatus(t, resp, http.StatusOK, status)
		for _, id := range []string{a, b} {
			if m := resp.Find(id); m == nil || m.Error != nil {
				t.Fail(check.Failure{What: fmt.Sprintf("the answer to %s holds no result for ping %s", answer, id), Got: resp.Summary(),
					Want: fmt.Sprintf(`[{"jsonrpc":"2.0","id":%s,"result":{}},{"jsonrpc":"2.0","id":%s,"result":{}}] (any order)`, a, b)})
			}
		}
	}
	t.Case("two pings and a notification", func() {
		pings(`"b1"`, `"b2"`, cancelled, "a batch of two pings and a notification", "a batch at 2025-03-26", "the batch")
	})
	t.Case("a notification the server does not know", func() {
		// JSON-RPC never answers a notification, an unknown one included,
		// and a POST that holds requests MUST get their responses.
		pings(`"b3"`, `"b4"`, wire.Notification("notifications/grader-unknown", nil), "a batch of two pings and an unknown notification",
			"a batch with an unknown notification at 2025-03-26", "the batch with an unknown notification")
	})
	t.Case("notifications only", func() {
		resp := h.Post(session, "2025-03-26", "["+cancelled+"]", "a batch of notifications only")
		if resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
			t.Fail(check.Failure{What: "a batch holding only notifications did not get 202 with an empty body", Got: resp.Summary(), Want: "HTTP 202, empty body"})
		}
	})
}

var http20 = &check.Check{
	ID: "HTTP-20", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Title: "at 2025-11-25 and 2025-06-18, a batch POST gets 400 with a -32600 error, with or without the version header",
	Spec:  spec.Sending("The body of the POST request MUST be a single JSON-RPC request, notification, or response"),
	Course: "Batches left the spec in 2025-06-18, and it does not say how a server refuses one. The course requires 400 with a -32600 (Invalid Request) error body, " +
		"judged by the session's version when the header is missing.",
	Hint: check.Hint{
		Report: "ServeBatch refuses batches at versions without them; send its reject with status 400. Without MCP-Protocol-Version, " +
			"the version is the one the session negotiated: a 2025-11-25 session does not turn into 2025-03-26 because a header is missing.",
		Question: "At 2025-11-25, what status does a batch POST get from your server, and which JSON-RPC error is in the body?",
		Pointer:  "› Sending Messages to the Server (2025-11-25): the body MUST be a single JSON-RPC message. stdio.ServeBatch returns a -32600 reject when the version has no batches.",
		Near: `In serveBatch, a reject is a 400 with the reject as its body, never 200 and never an array:

	case reject != nil:
		httpjson.Write(w, http.StatusBadRequest, reject)`,
		Quotes: []check.Source{{File: "solutions/02-streamable-http/post.go", Func: "serveBatch"}},
	},
	Early: 1,
	Claims: []check.Claim{
		{Claim: "elsewhere a batch gets 400 with -32600", Where: "concept, step 3", How: "at 2025-11-25 with and without the header, and at 2025-06-18"},
	},
	Checklist: []string{"A8", "C40"},
	Split:     &check.Split{Rule: "batches after 2025-03-26", Parts: "the spec removed batches without saying how to refuse one: the whole answer is the course's", Also: []string{"STDIO-21"}},
	Run:       checkHTTPBatchAt20251125,
}

func checkHTTPBatchAt20251125(t *check.T) {
	h := wire.StartHTTP(t)
	refused := func(session, negotiated, header string) {
		what := fmt.Sprintf("a batch in a session at %s, with MCP-Protocol-Version: %s", negotiated, header)
		if header == "" {
			what = fmt.Sprintf("a batch in a session at %s, without MCP-Protocol-Version", negotiated)
		}
		resp := h.Post(session, header, "["+wire.Request(`"b1"`, "ping", nil)+"]", what)
		probe.ExpectStatus(t, resp, http.StatusBadRequest, what+", a version without batches,")
		expectErrorBody(t, resp, -32600, what)
	}
	latest, _ := h.Initialize(spec.Rev)
	refused(latest, spec.Rev, spec.Rev)
	refused(latest, spec.Rev, "")
	older, _ := h.Initialize("2025-06-18")
	refused(older, "2025-06-18", "2025-06-18")
}
