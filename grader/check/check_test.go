package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestShow(t *testing.T) {
	assert.Equal(t, "plain text", Show("plain text"))
	assert.Equal(t, `"ends with CR\r"`, Show("ends with CR\r"))
	assert.Equal(t, `""`, Show(""))
	assert.Equal(t, `" padded"`, Show(" padded"))
	assert.Equal(t, `"bell\a"`, Show("bell\a"))
	assert.Equal(t, `"x"`, Quote("x"))

	long := strings.Repeat("é", 200) // 400 bytes
	got := Show(long)
	assert.True(t, strings.HasSuffix(got, " … (400 bytes in all)"), got)
	assert.Equal(t, 240+len(" … (400 bytes in all)"), len(got), "cut on a rune boundary at 240 bytes")
}

func TestSlug(t *testing.T) {
	c := &Check{ID: "STDIO-12", Title: `a request with "id": null gets -32600`}
	assert.Equal(t, "STDIO-12_a_request_with_id_null_gets_-32600", c.Slug())
}

func TestRunReportsTheFirstFailure(t *testing.T) {
	c := &Check{ID: "X-01", Title: "t", Severity: Must, Budget: time.Second, Hint: Hint{Report: "check hint"},
		Spec: Spec{Rev: "2025-11-25", Section: "s", Quote: "q"},
		Run: func(t *T) {
			t.Wire.Sent("hello")
			t.Fail(Failure{What: "first", Hint: "specific"})
			t.Fail(Failure{What: "second"}) // never reached
		}}
	r := Run(context.Background(), c, Target{Name: "me", Package: "./x"})
	assert.Equal(t, Fail, r.Status)
	assert.Contains(t, r.Report, "what    first")
	assert.NotContains(t, r.Report, "second")
	assert.Contains(t, r.Report, "specific\n          check hint")
	assert.Contains(t, r.Report, `MCP 2025-11-25 · s: "q"`)
	assert.Contains(t, r.Report, "> hello")
}

func TestRunEndsACheckThatOutlivesItsBudget(t *testing.T) {
	c := &Check{ID: "X-02", Title: "t", Severity: Should, Budget: 50 * time.Millisecond,
		Run: func(t *T) { <-t.Context().Done() }}
	r := Run(context.Background(), c, Target{})
	assert.Equal(t, Warn, r.Status, "a SHOULD check warns")
	assert.Contains(t, r.Report, "did not finish within its 50ms budget")
}

func TestWireKeepsHeadAndTail(t *testing.T) {
	w := newWire(time.Now())
	for i := 0; i < wireHead+wireTail+5; i++ {
		w.Sent("x")
	}
	lines := w.lines()
	assert.Len(t, lines, wireHead+1+wireTail)
	assert.Equal(t, "… 5 more lines …", lines[wireHead])
}

func TestCannotRunIsASkipThatSaysWhy(t *testing.T) {
	c := &Check{ID: "X-03", Title: "t", Severity: Must, Budget: time.Second,
		Run: func(t *T) {
			t.CannotRun("needs root")
			t.Failf("never reached")
		}}
	r := Run(context.Background(), c, Target{Name: "me", Binary: "server"})
	assert.Equal(t, Skip, r.Status, "on a server the grader built too")
	assert.True(t, r.CannotRun)
	assert.Equal(t, "needs root", r.Skipped)
	assert.Contains(t, r.Report, "SKIP X-03 [MUST] t\n  why     needs root")

	c.Run = func(t *T) { t.Skip("does not apply") }
	assert.False(t, Run(context.Background(), c, Target{}).CannotRun, "a plain skip is the target's, not the machine's")
}

// partsCheck has two parts: a course rule that fails first, then a spec
// rule that fails too.
var partsCheck = &Check{ID: "X-03", Title: "t", Severity: Must, Budget: time.Second, Course: "the course asks more",
	Spec: Spec{Rev: "2025-11-25", Section: "s", Quote: "q MUST"},
	Run: func(t *T) {
		t.Case("the course's part", func() {
			t.Fail(Failure{What: "course failure"})
		})
		t.Case("the spec's part", func() {
			defer t.SpecRule()()
			t.Fail(Failure{What: "spec failure", Got: "what came"})
		})
		t.Case("a part that passes", func() {})
	}}

func TestCasesOnACourseServerReportTheFirstFailure(t *testing.T) {
	r := Run(context.Background(), partsCheck, Target{Name: "me", Package: "./x"})
	assert.Equal(t, Fail, r.Status)
	assert.Equal(t, CourseRule, r.Rule)
	assert.Empty(t, r.Cases, "the course's servers get today's report")
	assert.Contains(t, r.Report, "what    course failure")
	assert.NotContains(t, r.Report, "spec failure")
	assert.NotContains(t, r.Report, "part")
}

func TestCasesOnAnExternalServerReportEveryPart(t *testing.T) {
	r := Run(context.Background(), partsCheck, Target{Name: "them", URL: "http://127.0.0.1:1/mcp"})
	assert.Equal(t, Fail, r.Status)
	assert.Equal(t, SpecRule, r.Rule, "the spec's failure is the one the result leads with")
	assert.Equal(t, "spec failure", r.What)
	assert.Equal(t, "what came", r.Got)
	if assert.Len(t, r.Cases, 2) {
		assert.Equal(t, CaseResult{Name: "the course's part", Rule: CourseRule, Cites: partsCheck.Spec, What: "course failure"}, r.Cases[0])
		assert.Equal(t, "the spec's part", r.Cases[1].Name)
		assert.Equal(t, SpecRule, r.Cases[1].Rule)
	}
	assert.Contains(t, r.Report, "part    the course's part\n  what    course failure\n  rule    course:")
	assert.Contains(t, r.Report, "part    the spec's part\n  what    spec failure\n  got     what came\n  rule    spec (MUST)")
	assert.NotContains(t, r.Report, "a part that passes\n  what")
}

func TestCasesEndOnASkip(t *testing.T) {
	c := &Check{ID: "X-04", Title: "t", Severity: Must, Budget: time.Second,
		Run: func(t *T) {
			t.Case("skips", func() { t.Skip("not for this server") })
			t.Case("never runs", func() { t.Fail(Failure{What: "reached"}) })
		}}
	r := Run(context.Background(), c, Target{URL: "http://127.0.0.1:1/mcp"})
	assert.Equal(t, Skip, r.Status)
	assert.Equal(t, "not for this server", r.Skipped)
}
