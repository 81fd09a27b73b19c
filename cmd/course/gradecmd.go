package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"mcpcourse/grader"
)

// grade grades one checkout, this one or another, with this course's
// grader, and exits 0 only when every lesson asked for passes: what a
// CI-based autograder needs. With --json it prints one JSON object per
// lesson, each as soon as the lesson is graded, which is how classroom
// mode reads it from a child process.
//
// Unlike the board it never reads the cache, and a stage that is still the
// untouched starter is "not started" rather than graded.
func (a *app) grade(args []string) error {
	fs := a.flags("grade", "[--root DIR | --url URL | --command CMD] [--lessons 01,02] [--json] [--timeout D]")
	root := fs.String("root", "", "the checkout to grade (default: this course)")
	ext := externalFlags(fs)
	only := fs.String("lessons", "", "the lessons to grade, such as 01,02 (default: all)")
	asJSON := fs.Bool("json", false, "print one JSON object per lesson instead of a summary")
	limit := fs.Duration("timeout", 0, "stop grading after this long; lessons not finished by then are \"timed out\" (0: no limit)")
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError("grade takes no positional arguments; use --root DIR")
	}
	lessons, err := lessonsArg(*only)
	if err != nil {
		return err
	}
	if ext.given() {
		if *root != "" {
			return usageError("--root grades a checkout, --url and --command an external server: give one or the other")
		}
		return a.gradeExternal(ext, lessons, *only != "", *asJSON, *limit)
	}
	dir := a.root
	if *root != "" {
		abs, err := filepath.Abs(*root)
		if err != nil {
			return err
		}
		dir = abs
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return usageError("%s is not a checkout of the course: it has no go.mod", dir)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *limit)
		defer cancel()
	}
	// The starters to compare with are this course's: a checkout's own
	// manifest is the learner's to edit.
	states := stageStates(dir, a.root, lessons)
	// So are the versions of each stage that the course writes itself.
	copies, err := newCopyIndex(a.root, lessons)
	if err != nil {
		return err
	}
	opts := grader.Options{Root: dir, Base: ".", Race: os.Getenv("GRADER_RACE") == "1"}
	enc := json.NewEncoder(a.stdout)
	if !*asJSON && dir != a.root {
		for _, w := range integrity(a.root, dir) {
			fmt.Fprintln(a.stdout, "warning:", w)
		}
	}
	allDone := true
	for _, l := range lessons {
		var r lessonResult
		switch {
		case ctx.Err() != nil:
			r = newLessonResult(l, stateTimedOut)
		case states[l.Stage] == stagePristine:
			r = newLessonResult(l, stateNotStarted)
		default:
			r = gradeNow(ctx, l, opts)
		}
		r.Copied = copies.copied(dir, l.Stage)
		allDone = allDone && r.Done()
		if *asJSON {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(a.stdout, gradeLine(r))
	}
	if !allDone {
		return &exitError{code: 1}
	}
	return nil
}

// gradeLine sums a lesson's result up in one line.
func gradeLine(r lessonResult) string {
	t := r.tally()
	line := fmt.Sprintf("lesson %s: ", r.Number)
	switch {
	case r.State != stateGraded:
		line += r.State
	case r.Done():
		line += fmt.Sprintf("%d/%d, done", t.passed(), len(r.Checks)-t.skip)
	default:
		line += fmt.Sprintf("%d/%d, failing %s", t.passed(), len(r.Checks)-t.skip, strings.Join(r.failing(), " "))
	}
	if t.skip > 0 {
		line += fmt.Sprintf(" (%d checks do not apply)", t.skip)
	}
	if r.Copied != "" {
		line += fmt.Sprintf(" (copied: %s)", r.Copied)
	}
	return line
}

// childLimit is how long a child grading one checkout gives itself, out of
// the time limit the parent enforces: the rest is for winding down (killing
// the learner's servers, reporting what it has) before the parent kills it.
func childLimit(limit time.Duration) time.Duration {
	return limit - min(limit/4, 15*time.Second)
}
