package grader

import (
	"fmt"
	"strings"

	"mcpcourse/grader/internal/check"
)

// A learner fixes one thing at a time, so a graded lesson reads best as one
// full report per cause. When a server fails its handshake, a dozen checks
// fail with it; each such failure names the trouble it comes from
// (check.Result.Cause), the lesson maps that name to the check that tests
// it (Lesson.Causes), and the failure is listed under that check's report
// instead of being reported again.

// Outcome is a lesson's results, put in order for a learner.
type Outcome struct {
	Lesson  *Lesson
	Target  check.Target
	Results []check.Result // in the lesson's order; only the checks that ran

	// BlockedBy maps a failing check whose failure comes from another
	// failing check to that check's id: the root of the chain, the one to
	// fix first.
	BlockedBy map[string]string

	// CausedBy maps a failing check whose cause is tested by a check that
	// did not run (it was not selected) to that check's id.
	CausedBy map[string]string
}

// NewOutcome orders results (any subset of the lesson's checks, in any
// order) and works out which failures block which.
func NewOutcome(l *Lesson, target check.Target, results []check.Result) *Outcome {
	byID := map[string]check.Result{}
	for _, r := range results {
		byID[r.Check.ID] = r
	}
	o := &Outcome{Lesson: l, Target: target, BlockedBy: map[string]string{}, CausedBy: map[string]string{}}
	for _, c := range l.Checks {
		if r, ok := byID[c.ID]; ok {
			o.Results = append(o.Results, r)
		}
	}
	failed := func(id string) bool {
		r, ok := byID[id]
		return ok && r.Status == check.Fail
	}
	// causeOf follows a failure to the check that tests its cause, through
	// chains (a check blocked by one that is itself blocked), without loops.
	causeOf := func(r check.Result) (root string, ran bool) {
		seen := map[string]bool{r.Check.ID: true}
		for {
			next := l.CauseCheck(r.Cause)
			if next == "" || seen[next] {
				return root, true
			}
			next2, ok := byID[next]
			if !ok {
				return next, false
			}
			if !failed(next) {
				return root, true // the cause's own check passes: this failure is its own
			}
			seen[next] = true
			root, r = next, next2
		}
	}
	for _, r := range o.Results {
		if r.Status != check.Fail {
			continue
		}
		root, ran := causeOf(r)
		switch {
		case !ran:
			o.CausedBy[r.Check.ID] = root
		case root != "":
			o.BlockedBy[r.Check.ID] = root
		}
	}
	return o
}

// Passed counts the checks that passed.
func (o *Outcome) Passed() int {
	n := 0
	for _, r := range o.Results {
		if r.Status == check.Pass {
			n++
		}
	}
	return n
}

// Next is the check to work on first: the first failure in the lesson's
// order that no other failure explains, or the check that tests its cause
// when that one did not run. It is nil when nothing failed.
func (o *Outcome) Next() *check.Check {
	for _, r := range o.Results {
		if r.Status != check.Fail || o.BlockedBy[r.Check.ID] != "" {
			continue
		}
		if cause := o.CausedBy[r.Check.ID]; cause != "" {
			if c := o.Lesson.Check(cause); c != nil {
				return c
			}
		}
		return r.Check
	}
	return nil
}

// blocks lists the checks that r's failure blocks, in the lesson's order.
func (o *Outcome) blocks(id string) []string {
	var ids []string
	for _, r := range o.Results {
		if o.BlockedBy[r.Check.ID] == id {
			ids = append(ids, r.Check.ID)
		}
	}
	return ids
}

// RunCommand is how a learner runs one check of a lesson alone.
func RunCommand(l *Lesson, id string) string {
	return fmt.Sprintf("go test ./grader -run 'Lesson%s/%s'", l.Number, id)
}

// Reports returns the full report of each failure and warning that no
// other failure explains, in the lesson's order, each followed by the
// checks it blocks. With verbose, passing checks get a line each too.
func (o *Outcome) Reports(verbose bool) string {
	var b strings.Builder
	for _, r := range o.Results {
		id := r.Check.ID
		switch {
		case r.Status == check.Pass:
			if verbose {
				fmt.Fprintf(&b, "PASS %s [%s] %s (%.2fs)\n\n", id, r.Check.Severity, r.Check.Title, r.Duration.Seconds())
			}
			continue
		case o.BlockedBy[id] != "":
			continue // listed under the report of its cause
		}
		b.WriteString(r.Report)
		if cause := o.CausedBy[id]; cause != "" {
			c := o.Lesson.Check(cause)
			fmt.Fprintf(&b, "  %-7s this failure comes from what %s checks (%s), which did not run:\n", "cause", cause, c.Title)
			fmt.Fprintf(&b, "  %-7s make it pass first: %s\n", "", RunCommand(o.Lesson, cause))
		}
		if blocked := o.blocks(id); len(blocked) > 0 {
			what := fmt.Sprintf("%d more checks fail because of this; they are graded again once it passes:", len(blocked))
			if len(blocked) == 1 {
				what = "1 more check fails because of this; it is graded again once this one passes:"
			}
			fmt.Fprintf(&b, "  %-7s %s\n", "blocks", what)
			for _, line := range wrapIDs(blocked, 10) {
				fmt.Fprintf(&b, "  %-7s %s\n", "", line)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// wrapIDs joins ids with commas, perLine to a line.
func wrapIDs(ids []string, perLine int) []string {
	var lines []string
	for len(ids) > 0 {
		n := min(perLine, len(ids))
		line := strings.Join(ids[:n], ", ")
		ids = ids[n:]
		if len(ids) > 0 {
			line += ","
		}
		lines = append(lines, line)
	}
	return lines
}

// Summary lists every check that ran, with its mark, and names the next
// one to work on.
func (o *Outcome) Summary() string {
	l := o.Lesson
	var b strings.Builder
	fmt.Fprintf(&b, "Lesson %s · %s, graded on %s (%s)\n", l.Number, l.Title, o.Target.Name, o.Target.Package)
	for _, r := range o.Results {
		mark, note := "✓", ""
		switch r.Status {
		case check.Warn:
			mark = "!"
		case check.Fail:
			mark = "✗"
			if cause := o.BlockedBy[r.Check.ID]; cause != "" {
				note = "  (blocked by " + cause + ")"
			}
		}
		fmt.Fprintf(&b, "  %s %-9s step %d  %s%s\n", mark, r.Check.ID, r.Check.Step, r.Check.Title, note)
	}
	fmt.Fprintf(&b, "%d of %d checks pass.", o.Passed(), len(o.Results))
	if next := o.Next(); next != nil {
		fmt.Fprintf(&b, " Next: %s, step %d of %s. Run it alone: %s", next.ID, next.Step, l.Guide, RunCommand(l, next.ID))
	} else if len(o.Results) == len(l.Checks) {
		fmt.Fprintf(&b, " Lesson %s is done. Compare with the reference: solutions/%s", l.Number, l.Stage)
	}
	return b.String()
}
