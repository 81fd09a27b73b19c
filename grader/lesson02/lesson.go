// Package lesson02 holds the checks of lesson 02, which grades stage 02,
// Streamable HTTP with sessions and a stateless mode, one file per step of
// the lesson.
package lesson02

import (
	"mcpcourse/grader/check"
)

// Lesson grades stage 02: Streamable HTTP with sessions and stateless mode.
var Lesson = &check.Lesson{
	Number:    "02",
	Stage:     stage,
	Title:     "Streamable HTTP: one endpoint, sessions, stateless mode",
	Guide:     "lessons/02-streamable-http.md",
	Transport: check.HTTP,
	Stages:    []string{"01-stdio", "02-streamable-http"},

	// A server that does not start, answers 501 or fails initialize fails
	// nearly every check, and one that issues no session id fails every
	// check that needs a session: HTTP-01 and HTTP-09 tell why.
	Causes: map[string]string{check.CauseStart: "HTTP-01", check.CauseUnimplemented: "HTTP-01",
		check.CauseInitialize: "HTTP-01", check.CauseSession: "HTTP-09"},
	Steps: []check.Step{step1, step2, step3, step4, step5, step6},
	Unchecked: []check.Claim{
		{Claim: "the server binds to loopback by default", Where: "concept", How: "the given main does it, and the grader passes -addr 127.0.0.1:0 itself"},
		{Claim: "Origin checks and DNS rebinding", Where: "out of scope", How: "lesson 04"},
	},
	Checklist: &check.Checklist{Lessons: []string{"01", "02"}, Rows: []check.ChecklistRow{
		{Rule: "A1 every message is JSON-RPC 2.0", Notes: "every stdout line is judged; HTTP answers are judged where a check reads them"},
		{Rule: "A2 UTF-8"},
		{Rule: "A3 ids are strings or integers, never null, echoed exactly"},
		{Rule: "A4 no id reuse by a requester", Notes: "the notes server sends no requests in lessons 01 and 02"},
		{Rule: "A5 response shape; parse errors with no or a null id"},
		{Rule: "A6 notifications never answered, in batches too"},
		{Rule: "A7 error codes -32700, -32600, -32601, -32602", Notes: "-32603 needs a tool that panics, which the given code turns into -32603 itself"},
		{Rule: "A8 batches by version"},
		{Rule: "A9 exactly one response per request", Notes: "stray and duplicate lines fail"},
		{Rule: "B1 the subprocess model", Notes: "every stdio check starts the server as a child process"},
		{Rule: "B2 newline-delimited, no embedded newlines"},
		{Rule: "B3 nothing but MCP messages on stdout"},
		{Rule: "B4 (client)", Notes: "learners write no client"},
		{Rule: "B5 stderr is free", Notes: "never judged, by design"},
		{Rule: "B6 message kinds by version"},
		{Rule: "B7 shutdown: stdin closed, SIGTERM, a closed stdout"},
		{Rule: "B8 credentials from the environment", Notes: "no authorization in these stages"},
		{Rule: "C1 one endpoint, POST and GET (405 allowed), never 404"},
		{Rule: "C2 Origin validation", Notes: "lesson 04"},
		{Rule: "C3 bind to localhost", Notes: "the given main binds to loopback"},
		{Rule: "C6 Accept (the server's reaction is the course's)"},
		{Rule: "C8 202 with no body"},
		{Rule: "C9 an HTTP error status for input that cannot be accepted"},
		{Rule: "C10 a request gets JSON or SSE"},
		{Rule: "C11, C12, C14 the response on the stream, notifications before it, then the end"},
		{Rule: "C13 closing a stream early", Notes: "stage 02 never closes a stream before its response; lesson 03"},
		{Rule: "C15 disconnection is not cancellation"},
		{Rule: "C16 to C18 priming, retry, polling", Notes: "lesson 03"},
		{Rule: "C30, C32 a visible-ASCII session id at initialize"},
		{Rule: "C31 secure, non-deterministic ids", Notes: "observed from outside, and read in the source (newSessionID's calls)"},
		{Rule: "C34 400 without the header", Notes: "GET gets 405 first in stage 02"},
		{Rule: "C35 404 for ended or unknown sessions"},
		{Rule: "C38 DELETE", Notes: "the course requires 2xx"},
		{Rule: "C40 no version header: assume the session's, or 2025-03-26"},
		{Rule: "C41 a bad version header gets 400", Notes: "GET gets 405 first in stage 02"},
		{Rule: "C33, C36, C37, C39 (client)", Notes: "learners write no client"},
		{Rule: "D1, D3 initialization, the server's answer"},
		{Rule: "D5 ping before initialize", Notes: "the server sends no requests of its own"},
		{Rule: "D6 version negotiation", Notes: "given code, the same for both transports"},
		{Rule: "D8 shutdown"},
		{Rule: "D10 ping"},
		{Rule: "D11 cancellation: unknown ids, running requests, malformed"},
		{Rule: "D12 progress"},
		{Rule: "D2, D4, D7, D9 (client, or the given protocol logic)", Notes: "learners write no client; capabilities are the given code's"},
	}},
}
