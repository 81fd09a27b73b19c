package grader

import (
	"fmt"
	"strings"

	"mcpcourse/grader/check"
)

// A learner fixes one thing at a time, so a graded lesson reads best as one
// full report per cause. When a server fails its handshake, a dozen checks
// fail with it; each such failure names the trouble it comes from
// (check.Result.Cause), the lesson maps that name to the check that tests
// it (Lesson.Causes), and the failure is listed under that check's report
// instead of being reported again.

// Outcome is a lesson's results, put in order for a learner.
type Outcome struct {
	Lesson  *check.Lesson
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
func NewOutcome(l *check.Lesson, target check.Target, results []check.Result) *Outcome {
	byID := map[string]check.Result{}
	for _, r := range results {
		byID[r.Check.ID] = r
	}
	o := &Outcome{Lesson: l, Target: target, BlockedBy: map[string]string{}, CausedBy: map[string]string{}}
	for _, c := range l.Checks() {
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
func RunCommand(l *check.Lesson, id string) string {
	return fmt.Sprintf("go test ./grader -run 'Lesson%s/%s'", l.Number, id)
}

// runCommandOn is RunCommand for target, with the environment that points
// the grader at an external server.
func runCommandOn(target check.Target, l *check.Lesson, id string) string {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	var env []string
	switch {
	case len(target.Command) > 0:
		env = append(env, "GRADER_COMMAND="+quote(target.Invocation()))
	case target.URL != "":
		env = append(env, "GRADER_URL="+quote(target.URL))
		if target.Stateless {
			env = append(env, "GRADER_STATELESS=1")
		}
		if len(target.AllowOrigins) > 0 {
			env = append(env, "GRADER_ALLOW_ORIGIN="+quote(strings.Join(target.AllowOrigins, ",")))
		}
	}
	return strings.Join(append(env, RunCommand(l, id)), " ")
}

// Reports returns the report of each failure and warning that no other
// failure explains, in the lesson's order, each followed by the checks it
// blocks. The failures of the step to work on now (the step of Next) and of
// the steps before it get their full reports; those of later steps get
// their first lines and the command that shows the rest, so that a learner
// reads about the step at hand, not about every step still to write. With
// verbose, passing checks get a line each too.
func (o *Outcome) Reports(verbose bool) string {
	var b strings.Builder
	step := 0 // the step to work on: failures of later steps are shown short
	if next := o.Next(); next != nil {
		step = next.Step
	}
	for _, r := range o.Results {
		id := r.Check.ID
		switch {
		case r.Status == check.Pass:
			if verbose {
				fmt.Fprintf(&b, "PASS %s [%s] %s (%.2fs)\n\n", id, r.Check.Severity, r.Check.Title, r.Duration.Seconds())
			}
			continue
		case r.Status == check.Skip:
			if verbose || r.CannotRun {
				b.WriteString(r.Report + "\n") // a check this machine could not run is always said
			}
			continue
		case o.BlockedBy[id] != "":
			continue // listed under the report of its cause
		}
		report := r.Report
		if o.Lesson.Underneath != "" && basicCauses[r.Cause] {
			report = afterWhat(report, fmt.Sprintf("  %-7s %s", "stages", o.Lesson.Underneath))
		}
		if step > 0 && r.Check.Step > step {
			b.WriteString(shortReport(report))
			fmt.Fprintf(&b, "  %-7s step %d: its full report shows when you reach that step (now step %d); to see it now: %s\n", "later", r.Check.Step, step, RunCommand(o.Lesson, id))
		} else {
			b.WriteString(report)
		}
		if cause := o.CausedBy[id]; cause != "" {
			c := o.Lesson.Check(cause)
			fmt.Fprintf(&b, "  %-7s this failure comes from what %s checks (%s), which did not run:\n", "cause", cause, c.Title)
			fmt.Fprintf(&b, "  %-7s make it pass first: %s\n", "", runCommandOn(o.Target, o.Lesson, cause))
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

// basicCauses are the failures of a server's basics: it does not start,
// answers 501, fails initialize, or issues no session id.
var basicCauses = map[string]bool{check.CauseStart: true, check.CauseUnimplemented: true, check.CauseInitialize: true, check.CauseSession: true}

// afterWhat puts line into a report right after its what field, so that
// it is among the first things a learner reads.
func afterWhat(report, line string) string {
	lines := strings.Split(report, "\n")
	at := len(lines)
	for i := 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "  ") && !strings.HasPrefix(lines[i], "   ") && !strings.HasPrefix(lines[i], "  what ") {
			at = i
			break
		}
	}
	if at == len(lines) && at > 0 && lines[at-1] == "" {
		at-- // before the report's final newline
	}
	lines = append(lines[:at], append([]string{line}, lines[at:]...)...)
	return strings.Join(lines, "\n")
}

// shortReport keeps a report's first line and the first line of its what
// field.
func shortReport(report string) string {
	lines := strings.Split(report, "\n")
	out := lines[0] + "\n"
	for _, line := range lines[1:] {
		if strings.HasPrefix(line, "  what ") {
			out += line + "\n"
			break
		}
	}
	return out
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
	fmt.Fprintf(&b, "Lesson %s · %s, graded on %s\n", l.Number, l.Title, o.Target.Describe())
	for _, r := range o.Results {
		mark, note := "✓", ""
		switch r.Status {
		case check.Skip:
			mark, note = "-", "  (skipped: it does not apply)"
			if r.CannotRun {
				note = "  (skipped: this machine cannot run it; see its report above)"
			}
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
	if o.Target.External() {
		fmt.Fprintf(&b, "%d of %d checks that apply pass; %d skipped.", o.Passed(), len(o.Results)-o.Skipped(), o.Skipped())
		if next := o.Next(); next != nil {
			fmt.Fprintf(&b, " First to look at: %s. Run it alone: %s", next.ID, runCommandOn(o.Target, l, next.ID))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%d of %d checks pass.", o.Passed(), len(o.Results))
	notRun := o.CannotRun()
	if len(notRun) > 0 {
		fmt.Fprintf(&b, " %s could not run on this machine (see %s).", strings.Join(notRun, ", "), plural(len(notRun), "its report", "their reports"))
	}
	switch next := o.Next(); {
	case next != nil:
		fmt.Fprintf(&b, " Next: %s, step %d of %s. Run it alone: %s", next.ID, next.Step, l.Guide, RunCommand(l, next.ID))
	case len(o.Results) == len(l.Checks()) && len(notRun) > 0:
		fmt.Fprintf(&b, " Every other check of lesson %s passes: run %s where %s can run before you call the lesson done.",
			l.Number, strings.Join(notRun, ", "), plural(len(notRun), "it", "they"))
	case len(o.Results) == len(l.Checks()):
		fmt.Fprintf(&b, " Lesson %s is done. Compare with the reference: solutions/%s", l.Number, l.Stage)
	}
	return b.String()
}

// CannotRun lists the checks that this machine could not run
// (check.Result.CannotRun), in the lesson's order.
func (o *Outcome) CannotRun() []string {
	var ids []string
	for _, r := range o.Results {
		if r.Status == check.Skip && r.CannotRun {
			ids = append(ids, r.Check.ID)
		}
	}
	return ids
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Skipped counts the checks that did not apply.
func (o *Outcome) Skipped() int {
	n := 0
	for _, r := range o.Results {
		if r.Status == check.Skip {
			n++
		}
	}
	return n
}

// Verdict sorts the failures of an external server by whose rule they
// break: the MCP spec's (with the section and its words), or only the
// course's, which asks more of its own servers than the spec does; then it
// lists the checks that did not apply, and why. A failure blocked by
// another is listed under it, as in Reports.
func (o *Outcome) Verdict() string {
	var spec, robust, course, skipped strings.Builder
	for _, r := range o.Results {
		id := r.Check.ID
		specW := &spec
		if r.Check.Robustness != nil {
			specW = &robust
		}
		switch {
		case r.Status == check.Skip:
			fmt.Fprintf(&skipped, "  %-9s %s\n", id, r.Skipped)
		case r.Status == check.Pass:
		case o.BlockedBy[id] != "":
			w := &course
			if r.Rule == check.SpecRule {
				w = specW
			}
			fmt.Fprintf(w, "  %-9s (fails because %s does)\n", id, o.BlockedBy[id])
		case r.Rule == check.SpecRule:
			fmt.Fprintf(specW, "  %-9s %s\n  %-9s %s\n  %-9s the server: %s\n", id, r.Check.Title, "", r.Cites, "", r.What)
		default:
			fmt.Fprintf(&course, "  %-9s %s\n  %-9s the server: %s\n", id, r.Check.Title, "", r.What)
		}
		// A check graded in parts may break a course rule too, beside the
		// spec's: each such part is listed with the course rules.
		if r.Rule == check.SpecRule && o.BlockedBy[id] == "" {
			for _, c := range r.Cases {
				if c.Rule == check.CourseRule {
					fmt.Fprintf(&course, "  %-9s %s, %s\n  %-9s the server: %s\n", id, r.Check.Title, c.Name, "", c.What)
				}
			}
		}
	}
	var b strings.Builder
	if spec.Len() > 0 {
		b.WriteString("Spec rules this server breaks:\n" + spec.String())
	}
	if robust.Len() > 0 {
		b.WriteString("Spec rules it breaks on input a correct client never sends (the grader broke a client's MUST first, to see how the server copes):\n" + robust.String())
	}
	if course.Len() > 0 {
		b.WriteString("Course rules it does not meet (the spec leaves these open; the course asks more of its own servers):\n" + course.String())
	}
	if skipped.Len() > 0 {
		b.WriteString("Checks that do not apply to it:\n" + skipped.String())
	}
	return b.String()
}
