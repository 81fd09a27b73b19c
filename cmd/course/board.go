package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/grader/variants"
)

// progress is the state of every lesson, from a real grader run.
type progress struct {
	lessons []lessonResult
	current int // the lesson to work on: the first that is not done; -1 when all are
}

// collect grades the course as a learner needs it: every lesson whose stage
// the learner has started, and the first lesson that is not done even if
// untouched (so a fresh clone shows lesson 01's real failures). A later
// lesson whose stage is still the starter is "not started" and not graded.
// Before it reports that every lesson is done, it grades afresh whatever came
// from the cache: "done" is never read back from a file.
func (g *grading) collect(ctx context.Context, lessons []*check.Lesson) progress {
	states := map[string]string{}
	if g.ownCode() && !g.opts.Pristine {
		states = stageStates(g.root, g.root, lessons)
	}
	p := progress{current: -1}
	for i, l := range lessons {
		var r lessonResult
		switch {
		case g.opts.Variant != "" && variants.Lookup(l.Number, g.opts.Variant) == nil:
			// A variant is a mistake in one lesson; the others have nothing to show.
			r = newLessonResult(l, stateNotStarted)
		case states[l.Stage] == stagePristine && p.current >= 0:
			r = newLessonResult(l, stateNotStarted)
		default:
			r = g.grade(ctx, l)
		}
		p.lessons = append(p.lessons, r)
		if !r.Done() && r.State != stateNotStarted && p.current < 0 {
			p.current = i
		}
	}
	if p.current < 0 {
		for i, r := range p.lessons {
			if r.Cached {
				g.fresh = true
				p.lessons[i] = g.grade(ctx, lessons[i])
				g.fresh = false
				if !p.lessons[i].Done() && p.current < 0 {
					p.current = i
				}
			}
		}
	}
	return p
}

func (a *app) board(args []string) error {
	fs := a.flags("board", "[--fresh] [--all]")
	fresh := fs.Bool("fresh", false, "grade every lesson afresh, ignoring results cached for unchanged files")
	all := fs.Bool("all", false, "list the checks of every lesson, not only of the current one")
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError("board takes no arguments; did you mean %s watch %s?", self, rest[0])
	}
	g, err := a.newGrading(*fresh)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(a.stdout, "Grading… (%s)\n\n", describeTarget(g.opts))
	p := g.collect(ctx, grader.Lessons())
	renderBoard(a.stdout, newStyle(a.stdout), a.root, p, *all)
	return nil
}

// describeTarget says what is being graded.
func describeTarget(o grader.Options) string {
	switch {
	case o.Variant != "":
		return "the reference with the known mistake " + o.Variant
	case o.Pristine:
		return "the starters as shipped"
	case o.Base != "" && o.Base != ".":
		return "the code in " + o.Base + "/"
	}
	return "your code"
}

// renderBoard writes the board: a progress bar per lesson, the checks of
// the current lesson, its failures (one report per cause) and the next step.
func renderBoard(w io.Writer, st style, root string, p progress, all bool) {
	width := 0
	for _, r := range p.lessons {
		width = max(width, len([]rune(r.Title)))
	}
	width = min(width, 52)
	fmt.Fprintln(w, st.bold("MCP transports in Go · where you stand"))
	fmt.Fprintln(w)
	for i, r := range p.lessons {
		t := r.tally()
		marker := "  "
		if i == p.current {
			marker = st.bold("▶ ")
		}
		fmt.Fprintf(w, "%s%s  %-*s  %s  %s\n", marker, r.Number, width, clip(r.Title, width), bar(st, t, len(r.Checks)), lessonVerdict(st, r))
	}
	for i, r := range p.lessons {
		if all || i == p.current {
			fmt.Fprintln(w)
			renderChecks(w, st, r)
		}
	}
	fmt.Fprintln(w)
	renderNext(w, st, root, p)
}

// renderNext writes what to do next: the current lesson's build error, or
// its failure reports, one per cause, each with the checks it blocks (the
// grader's own grouping), and the step of the lesson that fixes the first.
func renderNext(w io.Writer, st style, root string, p progress) {
	if p.current < 0 {
		renderDone(w, st, p)
		return
	}
	cur := p.lessons[p.current]
	l := grader.LessonByNumber(cur.Number)
	if p.current > 0 && p.lessons[p.current-1].Done() {
		renderPassed(w, p.lessons[p.current-1])
		fmt.Fprintln(w)
	}
	switch cur.State {
	case stateBuildError:
		fmt.Fprintf(w, "%s lesson %s does not build, so no check could run. The compiler says:\n\n", st.red("Build error:"), cur.Number)
		fmt.Fprintln(w, indent(strings.TrimRight(cur.BuildOutput, "\n"), "    "))
		fmt.Fprintf(w, "\nNext: fix the compile errors above (in %s/, or a stage it imports), then run %s again.\n", cur.Stage, self)
		return
	case stateError, stateTimedOut:
		fmt.Fprintf(w, "The grader could not grade lesson %s: %s\n", cur.Number, firstNonEmpty(cur.Error, cur.State))
		return
	}
	if f := cur.firstFailure(); f != nil {
		reports := cur.Reports
		if reports == "" {
			reports = f.Report
		}
		reports = stagesKnown(l, reports, p.lessons[:p.current])
		what := "the check to work on first"
		switch n := cur.blocked(); {
		case n == 1:
			what = "the check to work on first. One report per cause: 1 more failing check is listed under the report of the failure it comes from"
		case n > 1:
			what = fmt.Sprintf("the check to work on first. One report per cause: %d more failing checks are listed under the report of the failure they come from", n)
		}
		fmt.Fprintf(w, "%s %s, %s.\n\n", st.red("Fix first:"), f.ID, what)
		fmt.Fprintln(w, indent(strings.TrimRight(reports, "\n"), "  "))
		fmt.Fprintln(w)
		fmt.Fprintf(w, "%s lesson %s, step %d: %q in %s\n", st.bold("Next:"), cur.Number, f.Step, stepHeading(root, l, f.Step), l.Guide)
		fmt.Fprintf(w, "  run this check alone   go test ./grader -run 'Lesson%s/%s'\n", cur.Number, f.ID)
		fmt.Fprintf(w, "  a hint, level by level %s hint %s\n", self, f.ID)
		fmt.Fprintf(w, "  re-grade on every save %s watch\n", self)
		return
	}
	fmt.Fprintf(w, "%s lesson %s: not every check ran. Run %s --fresh.\n", st.bold("Next:"), cur.Number, self)
}

// stagesKnown rewrites the grader's stages line under a failure of the
// server's basics (grader.Lesson.Underneath), which cannot know whether
// the lessons under this one pass, with what the course command knows:
// earlier, the results of every lesson before l. When they all pass, the
// trouble is l's own stage, and the line says so, rather than send the
// learner to catch-up, which would change nothing. Without a result for
// each earlier lesson, the grader's line stays.
func stagesKnown(l *check.Lesson, reports string, earlier []lessonResult) string {
	i := lessonIndex(l)
	if l.Underneath == "" || i <= 0 || len(earlier) != i || !strings.Contains(reports, l.Underneath) {
		return reports
	}
	var passing []string
	for _, r := range earlier {
		if !r.Done() {
			t := r.tally()
			line := fmt.Sprintf("lesson %s does not pass (%d of %d), and %s/ runs on it: finish it first, or run %s catch-up %s, "+
				"which puts the reference in place of each stage before %s whose lesson does not pass", r.Number, t.passed(), len(r.Checks), l.Stage, self, l.Number, l.Number)
			return strings.ReplaceAll(reports, l.Underneath, line)
		}
		passing = append(passing, r.Number)
	}
	pass := "lesson " + passing[0] + " passes"
	switch len(passing) {
	case 1:
	case 2:
		pass = "lessons " + passing[0] + " and " + passing[1] + " pass"
	default:
		pass = "lessons " + passing[0] + " to " + passing[len(passing)-1] + " pass"
	}
	below := grader.Lessons()[i-1].Stage
	line := fmt.Sprintf("%s, so the stages under %s/ work: the trouble is in %s/ itself, in its cmd/server or in how it hands requests to %s/",
		pass, l.Stage, l.Stage, below)
	return strings.ReplaceAll(reports, l.Underneath, line)
}

// renderChecks lists a lesson's checks, one line each.
func renderChecks(w io.Writer, st style, r lessonResult) {
	fmt.Fprintf(w, "Lesson %s · %s%s\n", r.Number, r.Title, cachedNote(r))
	for _, c := range r.Checks {
		note := ""
		if c.Status == statusFail && c.BlockedBy != "" {
			note = st.dim("  (blocked by " + c.BlockedBy + ")")
		}
		fmt.Fprintf(w, "  %s %-9s step %d  %s%s\n", statusMark(st, c.Status), c.ID, c.Step, c.Title, note)
	}
}

// renderPassed points a learner who has just finished a lesson at the
// reference, for comparison, and at real clients.
func renderPassed(w io.Writer, r lessonResult) {
	fmt.Fprintf(w, "Lesson %s is done. Compare your code with the reference, now that you pass: solutions/%s\n", r.Number, r.Stage)
	fmt.Fprintf(w, "  (for instance: diff -ru solutions/%s %s)\n", r.Stage, r.Stage)
	fmt.Fprintf(w, "  and drive your server with real MCP clients: %s clients %s\n", self, r.Number)
}

func renderDone(w io.Writer, st style, p progress) {
	fmt.Fprintln(w, st.green("Every lesson passes, graded afresh just now. The course is done!"))
	for _, r := range p.lessons {
		fmt.Fprintln(w)
		renderPassed(w, r)
	}
}

func lessonVerdict(st style, r lessonResult) string {
	t := r.tally()
	switch r.State {
	case stateBuildError:
		return st.red("does not build")
	case stateNotStarted:
		return st.dim("not started")
	case stateTimedOut:
		return st.red("timed out")
	case stateError:
		return st.red("could not be graded")
	}
	verdict := fmt.Sprintf("%d/%d", t.passed(), len(r.Checks))
	switch {
	case r.Done():
		verdict += "  " + st.green("done")
	case t.fail > 0:
		verdict += "  " + st.red(fmt.Sprintf("%d failing", t.fail))
	}
	if t.warn > 0 {
		verdict += "  " + st.yellow(fmt.Sprintf("%d warning(s)", t.warn))
	}
	return verdict + cachedNote(r)
}

func cachedNote(r lessonResult) string {
	if r.Cached && !r.GradedAt.IsZero() {
		return fmt.Sprintf("  (no change since %s)", r.GradedAt.Local().Format("15:04"))
	}
	return ""
}

// barWidth is the width of a progress bar, in characters.
const barWidth = 24

// bar draws a lesson's progress: [#########---------------].
func bar(st style, t tally, total int) string {
	filled := 0
	if total > 0 {
		filled = t.passed() * barWidth / total
	}
	return "[" + st.green(strings.Repeat("#", filled)) + strings.Repeat("-", barWidth-filled) + "]"
}

func statusMark(st style, status string) string {
	switch status {
	case statusPass:
		return st.green("✓")
	case statusFail:
		return st.red("✗")
	case statusWarn:
		return st.yellow("!")
	case statusSkip:
		return st.dim("–")
	}
	return st.dim("·")
}

// clip shortens s to n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// style colours text when it goes to a terminal and NO_COLOR is unset.
type style struct{ on bool }

func newStyle(w io.Writer) style {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return style{}
	}
	fi, err := f.Stat()
	return style{on: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

func (s style) paint(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) bold(t string) string   { return s.paint("1", t) }
func (s style) dim(t string) string    { return s.paint("2", t) }
func (s style) red(t string) string    { return s.paint("31", t) }
func (s style) green(t string) string  { return s.paint("32", t) }
func (s style) yellow(t string) string { return s.paint("33", t) }
