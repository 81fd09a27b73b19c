package lesson03

import (
	"net/http"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

var sse42 = &check.Check{
	ID: "SSE-42", Step: 4, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Optional: []check.Feature{check.EventIDs}},
	Title: "a resuming GET with an unsupported MCP-Protocol-Version gets 400",
	Spec:  spec.HTTP("Protocol Version Header", "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"),
	Course: "The grader resumes a countdown's stream from its first event, which has events after it to replay, with MCP-Protocol-Version 1999-01-01 " +
		"and 2024-11-05 (a revision without the header): each must get 400, and the same resume with the session's version must then replay the stream.",
	Hint: check.Hint{
		Report:   "Check the version at the top of serveGET, before the Last-Event-ID branch: h.ProtocolVersion(w, r, nil) answers 400 itself, for a resuming GET as for a fresh one.",
		Question: "In your serveGET, does a GET with Last-Event-ID reach h.resume before or after the protocol-version check?",
		Pointer:  "basic/transports › Protocol Version Header: every request with an unsupported version gets 400; lesson 03 step 1 puts the check before the session and before h.resume.",
		Near:     "serveGET: Accept, then if _, ok := h.ProtocolVersion(w, r, nil); !ok { return }, then the session, then the Last-Event-ID branch.",
	},
	Claims: []check.Claim{
		{Claim: "a resuming GET with an unsupported MCP-Protocol-Version gets 400", Where: "step 1, step 4",
			How: "an ended countdown's stream resumed from its first event with 1999-01-01 and 2024-11-05, then with the session's version (replayed)"},
	},
	Run: checkResumeVersion,
}

func checkResumeVersion(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	first, _ := endedCountdown(t, h, session, "countdown, for an event id with events after it")
	// A good id of a stream that has more to replay: without the version
	// rule, each of these would be a 200 replay.
	for _, version := range []string{"1999-01-01", "2024-11-05"} {
		expectRefusalHeader(t, h, probe.GETHeaders(session, version, first), http.StatusBadRequest, true,
			"GET with Last-Event-ID: "+first+" and MCP-Protocol-Version: "+version,
			"every GET with an unsupported version gets 400, one that resumes too")
	}
	expectReplay(t, h, session, first, `2`, "GET with Last-Event-ID: "+first+" and the session's version")
}
