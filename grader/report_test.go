package grader

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"mcpcourse/grader/check"
)

func TestOutcomeReportsEachCauseOnce(t *testing.T) {
	l := &check.Lesson{Number: "99", Title: "t", Guide: "lessons/99.md", Stage: "99-x",
		Causes: map[string]string{"start": "X-01", "session": "X-02"}, Steps: []check.Step{{}}}
	for _, id := range []string{"X-01", "X-02", "X-03", "X-04", "X-05"} {
		l.Steps[0].Checks = append(l.Steps[0].Checks, &check.Check{ID: id, Step: 1, Title: "title of " + id})
	}
	result := func(id string, status check.Status, cause string) check.Result {
		return check.Result{Check: l.Check(id), Status: status, Cause: cause, Report: "FAIL " + id + " [MUST] title\n  what    broke\n"}
	}

	// X-01 fails on its own; X-02 fails because X-01 does; X-03 because
	// X-02 does (so, in the end, because of X-01); X-04 passes; X-05 fails
	// for a reason of its own.
	o := NewOutcome(l, check.Target{Name: "me", Package: "./x"}, []check.Result{
		result("X-05", check.Fail, ""),
		result("X-03", check.Fail, "session"),
		result("X-01", check.Fail, "start"),
		result("X-02", check.Fail, "start"),
		result("X-04", check.Pass, ""),
	})
	assert.Equal(t, map[string]string{"X-02": "X-01", "X-03": "X-01"}, o.BlockedBy)
	assert.Equal(t, "X-01", o.Next().ID)
	assert.Equal(t, 1, o.Passed())
	reports := o.Reports(false)
	assert.True(t, strings.Index(reports, "FAIL X-01") < strings.Index(reports, "FAIL X-05"), "reports in the lesson's order:\n%s", reports)
	assert.NotContains(t, reports, "FAIL X-02")
	assert.Contains(t, reports, "  blocks  2 more checks fail because of this")
	assert.Contains(t, reports, "          X-02, X-03\n")
	summary := o.Summary()
	assert.Contains(t, summary, "✗ X-03      step 1  title of X-03  (blocked by X-01)")
	assert.Contains(t, summary, "1 of 5 checks pass. Next: X-01, step 1 of lessons/99.md")

	// A failure whose cause's check passes is its own.
	o = NewOutcome(l, check.Target{}, []check.Result{result("X-01", check.Pass, ""), result("X-02", check.Fail, "start")})
	assert.Empty(t, o.BlockedBy)
	assert.Equal(t, "X-02", o.Next().ID)

	// A failure whose cause's check did not run sends the learner there.
	o = NewOutcome(l, check.Target{}, []check.Result{result("X-03", check.Fail, "session")})
	assert.Equal(t, map[string]string{"X-03": "X-02"}, o.CausedBy)
	assert.Equal(t, "X-02", o.Next().ID)
	assert.Contains(t, o.Reports(false), "make it pass first: go test ./grader -run 'Lesson99/X-02'")

	// A failure of a later step than the one at hand is shown short.
	l.Steps[0].Checks[4].Step = 3
	defer func() { l.Steps[0].Checks[4].Step = 1 }()
	o = NewOutcome(l, check.Target{}, []check.Result{result("X-01", check.Fail, ""), result("X-05", check.Fail, "")})
	reports = o.Reports(false)
	assert.Contains(t, reports, "FAIL X-01 [MUST] title\n  what    broke\n\n")
	assert.Contains(t, reports, "FAIL X-05 [MUST] title\n  what    broke\n  later   step 3: its full report shows when you reach that step (now step 1); to see it now: go test ./grader -run 'Lesson99/X-05'\n")

	// A lesson built on earlier stages says so under a failure of the
	// server's basics, and only there.
	l.Underneath = "the earlier stages run underneath"
	defer func() { l.Underneath = "" }()
	o = NewOutcome(l, check.Target{}, []check.Result{result("X-01", check.Fail, "start"), result("X-04", check.Fail, "")})
	reports = o.Reports(false)
	assert.Contains(t, reports, "FAIL X-01 [MUST] title\n  what    broke\n  stages  the earlier stages run underneath\n")
	assert.Equal(t, 1, strings.Count(reports, "  stages  "), reports)

	// Everything passes.
	o = NewOutcome(l, check.Target{}, []check.Result{result("X-04", check.Pass, "")})
	assert.Nil(t, o.Next())
}

// TestOutcomeSaysWhatCouldNotRun: a check this machine cannot run is
// reported with its reason even without verbose, marked in the summary,
// and the lesson is not called done.
func TestOutcomeSaysWhatCouldNotRun(t *testing.T) {
	l := &check.Lesson{Number: "99", Title: "t", Guide: "lessons/99.md", Stage: "99-x", Steps: []check.Step{{}}}
	for _, id := range []string{"X-01", "X-02"} {
		l.Steps[0].Checks = append(l.Steps[0].Checks, &check.Check{ID: id, Step: 1, Title: "title of " + id, Severity: check.Must})
	}
	o := NewOutcome(l, check.Target{Name: "me", Package: "./x"}, []check.Result{
		{Check: l.Check("X-01"), Status: check.Pass},
		{Check: l.Check("X-02"), Status: check.Skip, CannotRun: true, Skipped: "needs root", Report: check.SkipReport(l.Check("X-02"), "needs root")},
	})
	assert.Equal(t, []string{"X-02"}, o.CannotRun())
	assert.Contains(t, o.Reports(false), "SKIP X-02 [MUST] title of X-02\n  why     needs root")
	summary := o.Summary()
	assert.Contains(t, summary, "- X-02      step 1  title of X-02  (skipped: this machine cannot run it; see its report above)")
	assert.Contains(t, summary, "1 of 2 checks pass. X-02 could not run on this machine (see its report).")
	assert.Contains(t, summary, "Every other check of lesson 99 passes: run X-02 where it can run before you call the lesson done.")
	assert.NotContains(t, summary, "is done")
}
