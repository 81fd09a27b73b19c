package main

import (
	"context"
	"time"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
)

// What became of a lesson when it was graded.
const (
	stateGraded     = "graded"      // the server built and the checks ran
	stateBuildError = "build error" // the server does not build: no check ran
	stateNotStarted = "not started" // the stage is the untouched starter: not graded
	stateTimedOut   = "timed out"   // the time limit ended the grading
	stateError      = "error"       // the grader could not run (see Error)
)

// A check's status: the grader's own, or notRun.
const (
	statusPass   = "PASS"
	statusFail   = "FAIL"
	statusWarn   = "WARN"
	statusSkip   = "SKIP" // the check does not apply to an external server
	statusNotRun = "NOT RUN"
)

// checkResult is one check's outcome.
type checkResult struct {
	ID       string  `json:"id"`
	Step     int     `json:"step"`
	Title    string  `json:"title"`
	Severity string  `json:"severity"`
	Status   string  `json:"status"`
	Seconds  float64 `json:"seconds,omitempty"`
	Report   string  `json:"report,omitempty"` // the failure report; empty on a pass

	// Rule says whose rule a failure breaks, "spec" or "course", and
	// Skipped why a check did not apply: both only for external servers.
	Rule    string `json:"rule,omitempty"`
	Skipped string `json:"skipped,omitempty"`

	// BlockedBy names the failing check whose cause this failure shares
	// (grader.Outcome): it is graded again once that one passes.
	BlockedBy string `json:"blocked_by,omitempty"`
}

// lessonResult is one lesson's outcome.
type lessonResult struct {
	Number      string        `json:"lesson"`
	Stage       string        `json:"stage"`
	Title       string        `json:"title"`
	State       string        `json:"state"`
	BuildOutput string        `json:"build_output,omitempty"`
	Error       string        `json:"error,omitempty"`
	Checks      []checkResult `json:"checks"`
	GradedAt    time.Time     `json:"graded_at"`

	// Next is the check to work on first, as the grader's summary names it:
	// the cause of the first failures, not merely the first failure.
	// Reports are the grader's failure reports, one per cause, each with
	// the checks it blocks (grader.Outcome.Reports).
	Next    string `json:"next,omitempty"`
	Reports string `json:"reports,omitempty"`

	// Copied names the course's own version of the stage that the folder
	// holds, file for file ("reference", "checkpoint 03 2"; see
	// copyIndex), or is empty. grade and classroom set it, for instructors.
	Copied string `json:"copied,omitempty"`

	// Cached is set when the result was read back from the cache rather
	// than graded by this run.
	Cached bool `json:"-"`
}

// newLessonResult is l with every check not run.
func newLessonResult(l *check.Lesson, state string) lessonResult {
	r := lessonResult{Number: l.Number, Stage: l.Stage, Title: l.Title, State: state}
	for _, c := range l.Checks() {
		r.Checks = append(r.Checks, checkResult{ID: c.ID, Step: c.Step, Title: c.Title, Severity: string(c.Severity), Status: statusNotRun})
	}
	return r
}

// tally counts a lesson's checks by status.
type tally struct{ pass, warn, fail, skip, notRun int }

func (r lessonResult) tally() tally {
	var t tally
	for _, c := range r.Checks {
		switch c.Status {
		case statusPass:
			t.pass++
		case statusWarn:
			t.warn++
		case statusFail:
			t.fail++
		case statusSkip:
			t.skip++
		default:
			t.notRun++
		}
	}
	return t
}

// passed counts the checks that do not fail the lesson: a WARN is a
// SHOULD the server misses, which the lesson lists but does not fail on.
func (t tally) passed() int { return t.pass + t.warn }

// Done reports whether every check ran and none failed.
func (r lessonResult) Done() bool {
	t := r.tally()
	return r.State == stateGraded && t.fail == 0 && t.notRun == 0 && len(r.Checks) > 0
}

// firstFailure returns the failing check to work on next: the one the
// grader names (Next), or without it the earliest step's, in the lesson's
// order.
func (r lessonResult) firstFailure() *checkResult {
	if r.Next != "" {
		for i := range r.Checks {
			if r.Checks[i].ID == r.Next {
				return &r.Checks[i]
			}
		}
	}
	var first *checkResult
	for i := range r.Checks {
		c := &r.Checks[i]
		if c.Status == statusFail && (first == nil || c.Step < first.Step) {
			first = c
		}
	}
	return first
}

// blocked counts the failing checks that another failure blocks.
func (r lessonResult) blocked() int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == statusFail && c.BlockedBy != "" {
			n++
		}
	}
	return n
}

// failing lists the ids of the failing checks.
func (r lessonResult) failing() []string {
	var ids []string
	for _, c := range r.Checks {
		if c.Status == statusFail {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// gradeNow builds the lesson's server and runs every check, now. A build
// error is a result (stateBuildError), not an error. It must not run
// concurrently with another gradeNow in the same process: the grader
// keeps one folder of built servers, which Cleanup empties.
func gradeNow(ctx context.Context, l *check.Lesson, opts grader.Options) lessonResult {
	defer grader.Cleanup()
	r := newLessonResult(l, stateGraded)
	r.GradedAt = time.Now()
	target, err := grader.Prepare(ctx, l, opts)
	if ctx.Err() != nil {
		r.State = stateTimedOut
		return r
	}
	if out, ok := grader.BuildOutput(err); ok {
		r.State, r.BuildOutput = stateBuildError, out
		return r
	}
	if err != nil {
		r.State, r.Error = stateError, err.Error()
		return r
	}
	results := grader.RunAll(ctx, l, target)
	outcome := grader.NewOutcome(l, target, results)
	for i, res := range results {
		c := &r.Checks[i]
		c.Status, c.Seconds, c.Report = string(res.Status), res.Duration.Seconds(), res.Report
		c.Rule, c.Skipped = string(res.Rule), res.Skipped
		c.BlockedBy = outcome.BlockedBy[c.ID]
	}
	if next := outcome.Next(); next != nil {
		r.Next = next.ID
	}
	r.Reports = outcome.Reports(false)
	if ctx.Err() != nil {
		// Checks cut short by the deadline failed for that reason alone.
		r.State = stateTimedOut
	}
	return r
}
