package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
)

// TestRulesAreCountedOnce: checks that find one spec rule broken count as
// one rule; robustness findings count apart; a check graded in parts lists
// its course-rule parts beside its spec finding.
func TestRulesAreCountedOnce(t *testing.T) {
	origin := check.Spec{Rev: "2025-11-25", Section: "s", Quote: "servers MUST respond with HTTP 403 Forbidden"}
	jsonrpc := check.Spec{Rev: "2025-11-25", Section: "m", Quote: "All messages MUST follow the JSON-RPC 2.0 specification"}
	client := check.Spec{Rev: "2025-11-25", Section: "stdio", Quote: "The client MUST NOT write anything that is not a valid MCP message"}
	mk := func(id string, spec check.Spec, robust bool) *check.Check {
		c := &check.Check{ID: id, Title: "title of " + id, Severity: check.Must, Spec: spec, Course: "the course asks more", Budget: 1}
		if robust {
			c.Robustness = &client
		}
		return c
	}
	o1, o2, o4 := mk("ORIGIN-01", origin, false), mk("ORIGIN-02", origin, false), mk("ORIGIN-04", origin, false)
	s10, s13 := mk("STDIO-10", jsonrpc, true), mk("STDIO-13", jsonrpc, true)
	l := &check.Lesson{Number: "99", Steps: []check.Step{{Checks: []*check.Check{o1, o2, o4, s10, s13}}}}
	fail := func(c *check.Check, cases ...check.CaseResult) check.Result {
		return check.Result{Check: c, Status: check.Fail, Rule: check.SpecRule, Cites: c.Spec, What: "it broke", Cases: cases}
	}
	results := []check.Result{fail(o1), fail(o2, check.CaseResult{Name: "DELETE", Rule: check.CourseRule, What: "no error body"},
		check.CaseResult{Name: "GET", Rule: check.SpecRule, What: "it broke"}), fail(o4), fail(s10), fail(s13)}
	s := &server{key: "x", name: "X 1.0", about: "a server"}
	g := &graded{row: row{s, modeHTTP}, lesson: l, outcome: grader.NewOutcome(l, check.Target{}, results)}

	all := findings(s, []*graded{g})
	assert.Equal(t, 1, mustRules(all, false), "ORIGIN-01, 02 and 04 break one rule")
	assert.Equal(t, 1, mustRules(all, true), "STDIO-10 and 13, robustness, break one rule, counted apart")

	text := report([]*server{s}, []*graded{g}, map[string]string{}, true)
	assert.Contains(t, text, "### MUST-level spec rules it breaks: 1\n")
	assert.Contains(t, text, "(ORIGIN-01, ORIGIN-02, ORIGIN-04)")
	assert.Contains(t, text, "### Robustness: MUST-level rules it breaks on input a correct client never sends: 1\n")
	assert.Contains(t, text, "The grader broke the client's rule first, to see how the server copes: MCP 2025-11-25 · stdio: “"+client.Quote+"”.")
	assert.Contains(t, text, "the part “DELETE” (the check's spec finding is above). The server: no error body.")
	assert.Equal(t, 1, strings.Count(text, " | 1 | 1 |\n"), "the server's first row counts one rule and one robustness rule")
}
