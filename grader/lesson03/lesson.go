// Package lesson03 holds the checks of lesson 03, which grades stage 03,
// the standalone GET stream, event ids and resumption with Last-Event-ID,
// one file per step of the lesson.
package lesson03

import (
	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
)

// Lesson grades stage 03: the standalone GET stream, event ids, and
// resuming a stream with Last-Event-ID.
var Lesson = &check.Lesson{
	Number:    "03",
	Stage:     "03-sse-resume",
	Title:     "SSE streams and Last-Event-ID replay",
	Guide:     "lessons/03-sse-resume.md",
	Transport: check.HTTP,
	Stages:    []string{"01-stdio", "02-streamable-http", "03-sse-resume"},

	// A server that does not start or fails initialize is stage 02's
	// trouble, which SSE-01 meets first; a GET that gets no stream (the
	// starter's 501) fails most checks of the lesson, and a stream without
	// event ids fails every check that resumes one.
	Causes: map[string]string{check.CauseStart: "SSE-01", check.CauseUnimplemented: "SSE-01", check.CauseInitialize: "SSE-01",
		check.CauseSession: "SSE-01", probe.CauseGETStream: "SSE-01", causeEventIDs: "SSE-14"},
	Underneath: "stage 03 answers POST, initialize included, with your stage 02: if lesson 02 does not pass yet (go test ./grader -run Lesson02), " +
		"finish it, or run go run ./cmd/course catch-up 03, which puts the reference in place of each earlier stage whose lesson does not pass; " +
		"once lessons 01 and 02 pass, the trouble is in stage 03 itself",
	Steps: []check.Step{step1, step2, step3, step4},
	Unchecked: []check.Claim{
		{Claim: "the server never closes a stream's connection on purpose (no polling)", Where: "deep dives", How: "optional in the spec (SEP-1699) and not taught"},
	},
}

// Where lesson 03's rules live in the spec.
var (
	resumeRule    = func(q string) check.Spec { return spec.HTTP("Resumability and Redelivery", q) }
	multipleRule  = func(q string) check.Spec { return spec.HTTP("Multiple Connections", q) }
	resumeMayRule = resumeRule("The server MAY use this header to replay messages that would have been sent after the last event ID, on the stream that was disconnected, and to resume the stream from that point.")
	ownStreamRule = resumeRule("The server MUST NOT replay messages that would have been delivered on a different stream.")
)

// resumeCourse is the Course text of the checks that grade replay: the spec
// lets a server offer it (MAY); this course requires it.
const resumeCourse = "Resumability is a MAY in the spec; stage 03 of the course requires it: every event carries an id, and a GET with Last-Event-ID gets exactly what that stream missed."

// causeEventIDs is a cause of lesson 03's own (see Lesson.Causes): the
// events of a stream carry no id to resume from, which every resume needs.
// The other cause most of its checks meet, a GET that gets no stream, is
// probe.CauseGETStream, since lesson 04's checks open the stream too.
const causeEventIDs = "event-ids"
