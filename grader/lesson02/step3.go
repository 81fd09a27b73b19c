package lesson02

import (
	"fmt"
	"net/http"
	"strings"
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
	Title: "MCP-Protocol-Version: unsupported, malformed or empty gets 400 and does nothing, on requests, notifications, batches and DELETE; absent, or any version served, is accepted",
	Spec:  spec.HTTP("Protocol Version Header", "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"),
	Course: "Without the header, the spec says the server SHOULD assume 2025-03-26 (or use the version the session negotiated); " +
		"the course requires that such a request is served. The course also refuses a request that carries the header twice, with two versions: " +
		"the header holds one version, and a recipient may join two field lines into one value (RFC 9110 §5.3), \"2025-11-25, 2025-06-18\", which names none.",
	Hint: check.Hint{
		Report: "Look the header up in the table of the versions you speak (mcp.LookupVersion, not every revision there is) for every message, and for DELETE. " +
			"Present and unknown, present and empty, or present twice: 400, and return at once. Absent (no header at all): use the session's negotiated version, or 2025-03-26.",
		Question: "What does your server do with MCP-Protocol-Version: 1999-01-01? And with no MCP-Protocol-Version header at all?",
		Pointer:  "› Protocol Version Header: an invalid or unsupported version MUST get 400 Bad Request; without the header, the server SHOULD assume 2025-03-26 (or use the negotiated version). mcp.LookupVersion finds a version in the table; mcp.HTTPFallbackVersion is 2025-03-26.",
		Near: `	if values := r.Header.Values("Mcp-Protocol-Version"); len(values) > 0 {
		pv, ok := mcp.LookupVersion(values[0])
		if !ok || len(values) > 1 { // "" is present too, and names no version
			httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest, "unsupported MCP-Protocol-Version %q", values)
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
		{Claim: "MCP-Protocol-Version: unknown, malformed or empty gets 400, on every message and on DELETE, and the refused message does nothing", Where: "concept, step 3",
			How: "a request, a notification, a batch and DELETE with each of 1999-01-01, not-a-version, an empty value, and (course servers) 2024-11-05 and 2026-07-28, revisions the stage does not speak; the session must still be alive after; a refused add_note's 400 must be one JSON-RPC error, and its note must not be saved"},
		{Claim: "two MCP-Protocol-Version headers get 400, even when each names a version served (course rule)", Where: "step 3", How: "a ping with the header twice: 2025-11-25 and 2025-06-18"},
		{Claim: "every version initialize negotiates is accepted in the header, whatever the session's", Where: "step 3", How: "course servers: pings with 2025-03-26, 2025-06-18 and 2025-11-25 in a 2025-11-25 session"},
		{Claim: "without the header, the session's version is used, else 2025-03-26", Where: "concept, step 3", How: "a request without the header is served; a batch without it in a 2025-11-25 session is refused (HTTP-20); a stateless batch without it is served as 2025-03-26, and one with an empty header refused (HTTP-24)", Also: []string{"HTTP-20", "HTTP-24"}},
	},
	Checklist: []string{"C40", "C41"},
	Split:     &check.Split{Rule: "the protocol version header", Parts: "400 for an unsupported version is the spec's; serving a request without the header is the course's"},
	Run:       checkHTTPProtocolVersionHeader,
}

func checkHTTPProtocolVersionHeader(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	// An empty header is present, and names no version: only a missing one
	// falls back.
	bad := []string{"1999-01-01", "not-a-version", ""}
	if !t.Target.External() {
		// Revisions the course knows that this stage does not speak: the
		// HTTP+SSE one before it, and the stateless era after it. (An
		// external server may speak either.)
		bad = append(bad, "2024-11-05", "2026-07-28")
	}
	withVersion := func(session, v string) http.Header {
		hdr := wire.Headers(session, "")
		hdr.Set(versionHeader, v) // set even when empty: present, with no value
		return hdr
	}
	t.Case("an unsupported, malformed or empty version", func() {
		defer t.SpecRule()()
		for _, v := range bad {
			for _, m := range []struct{ body, what string }{
				{wire.Request(`2`, "ping", nil), "a request"},
				{wire.Notification("notifications/grader-unknown", nil), "a notification"},
				{"[" + wire.Request(`3`, "ping", nil) + "]", "a batch"},
			} {
				what := fmt.Sprintf("%s with MCP-Protocol-Version: %q", m.what, v)
				resp := h.Do(wire.Req{Header: withVersion(session, v), Body: m.body, Purpose: what})
				if resp.Status != http.StatusBadRequest {
					t.Fail(check.Failure{What: what + " was not refused", Got: resp.Summary(), Want: "HTTP 400"})
				}
			}
			what := fmt.Sprintf("DELETE with MCP-Protocol-Version: %q", v)
			resp := h.Do(wire.Req{Method: http.MethodDelete, Header: withVersion(session, v), Purpose: what})
			if resp.Status != http.StatusBadRequest {
				t.Fail(check.Failure{What: what + " was not refused", Got: resp.Summary(),
					Want: "HTTP 400, and the session left alone: the rule covers every request"})
			}
		}
		resp := h.Post(session, spec.Rev, wire.Request(`4`, "ping", nil), "ping, after every refused DELETE")
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: "after DELETEs that were refused for their MCP-Protocol-Version, the session is gone: a refused DELETE ended it", Got: resp.Summary(),
				Want: "HTTP 200: a refusal does nothing"})
		}
	})
	t.Case("two version headers", func() {
		// Each a version the server speaks, so only the rule of one
		// header, one version, refuses them.
		hdr := wire.Headers(session, "")
		hdr[versionHeader] = []string{spec.Rev, "2025-06-18"}
		what := fmt.Sprintf("a ping with two MCP-Protocol-Version headers, %s and 2025-06-18", spec.Rev)
		if resp := h.Do(wire.Req{Header: hdr, Body: wire.Request(`8`, "ping", nil), Purpose: what}); resp.Status != http.StatusBadRequest {
			t.Fail(check.Failure{What: what + " was not refused: the server took one of them and ignored the other", Got: resp.Summary(),
				Want: "HTTP 400: the header names one version, and the two lines joined (\"" + spec.Rev + ", 2025-06-18\") name none"})
		}
	})
	t.Case("a refused request does nothing", func() {
		note := fmt.Sprintf("refused-%d", time.Now().UnixNano()%1e9)
		what := "add_note with MCP-Protocol-Version: 1999-01-01"
		resp := h.Do(wire.Req{Header: withVersion(session, "1999-01-01"), Purpose: what,
			Body: wire.Request(`5`, "tools/call", wire.ToolCall("add_note", map[string]any{"text": note}, nil))})
		if resp.Status == http.StatusBadRequest && resp.ErrorBody() == nil {
			t.Fail(check.Failure{What: "the 400 to " + what + " is not one JSON-RPC error: something was written after the refusal, so the request ran on", Got: resp.Summary(),
				Want: `HTTP 400, Content-Type: application/json, one body {"jsonrpc":"2.0","error":{...}}, and nothing after it: return once the 400 is written`})
		}
		if got := probe.CallTool(t, h, session, `6`, "list_notes", nil); strings.Contains(got, note) {
			t.Fail(check.Failure{What: "a note added by a request refused for its MCP-Protocol-Version was saved: the refusal did not stop the request", Got: check.Quote(got),
				Want: "no such note: a refused request does nothing"})
		}
	})
	if !t.Target.External() {
		t.Case("every version the server speaks", func() {
			// The other direction of the table: each version the course's
			// servers negotiate is accepted in the header, whichever one
			// the session negotiated.
			for i, v := range []string{"2025-03-26", "2025-06-18", spec.Rev} {
				resp := h.Post(session, v, wire.Request(fmt.Sprint(10+i), "ping", nil), "ping with MCP-Protocol-Version: "+v)
				if resp.Status != http.StatusOK {
					t.Fail(check.Failure{What: fmt.Sprintf("a ping with MCP-Protocol-Version: %s, a version the server speaks, was refused", v), Got: resp.Summary(),
						Want: "HTTP 200: every version initialize can negotiate is a supported version"})
				}
			}
		})
	}
	t.Case("no version header", func() {
		resp := h.Post(session, "", wire.Request(`7`, "ping", nil), "ping without MCP-Protocol-Version")
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: "a request without MCP-Protocol-Version was refused", Got: resp.Summary(),
				Want: "HTTP 200: without the header, use the session's version or assume 2025-03-26"})
		}
	})
}

// versionHeader is the protocol version header, as Go writes it.
const versionHeader = "Mcp-Protocol-Version"

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
