// Package lesson01 holds the checks of lesson 01, which grades stage 01,
// the stdio transport, one file per step of the lesson.
package lesson01

import (
	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/spec"
)

// Lesson grades stage 01: the stdio transport.
var Lesson = &check.Lesson{
	Number:    "01",
	Stage:     "01-stdio",
	Title:     "stdio: newline-delimited JSON-RPC",
	Guide:     "lessons/01-stdio.md",
	Transport: check.Stdio,
	Stages:    []string{"01-stdio"},

	// A server that answers nothing, or fails initialize, fails every
	// check; STDIO-01 is the one that tells why.
	Causes: map[string]string{check.CauseStart: "STDIO-01", check.CauseInitialize: "STDIO-01"},
	Steps:  []check.Step{step1, step2, step3, step4, step5, step6},
	Unchecked: []check.Claim{
		{Claim: "logs go to stderr", Where: "concept", How: "stderr is the server's own; the grader never judges it (checklist B5), it only shows its tail in reports"},
		{Claim: "MaxInFlight caps requests per connection", Where: "serve.go", How: "the starter says no check asks for a cap; STDIO-29 and STDIO-31 hold one to its word"},
	},
}

// Where the rules of lesson 01 live in the spec.

// stdioRule cites a rule of the stdio transport.
func stdioRule(quote string) check.Spec {
	return check.Spec{Rev: spec.Rev, Section: "basic/transports › stdio", Quote: quote}
}

// messagesRule cites a rule of JSON-RPC messages.
func messagesRule(quote string) check.Spec {
	return check.Spec{Rev: spec.Rev, Section: "basic/index › Messages", Quote: quote}
}

// lifecycleRule cites a rule of the lifecycle, in the given section of it.
func lifecycleRule(section, quote string) check.Spec {
	return check.Spec{Rev: spec.Rev, Section: "basic/lifecycle › " + section, Quote: quote}
}
