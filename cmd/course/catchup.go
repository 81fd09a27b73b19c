package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/tools/stages"
)

// catchUp starts lesson NN on working code: every stage before NN whose
// lesson does not pass (a stage that partly passes too) becomes a copy of
// its reference, and every stage whose lesson passes stays as the learner
// wrote it. It grades each earlier lesson as the board does, asks once,
// naming the stages it will replace and why, and backs each up first.
func (a *app) catchUp(args []string) error {
	l, yes, err := a.stageCommand("catch-up", "the lesson to start", args)
	if err != nil {
		return err
	}
	i := lessonIndex(l)
	if i == 0 {
		return usageError("lesson %s is the first: there is nothing before it to catch up on. To start it afresh: %s reset %s", l.Number, self, l.Number)
	}
	earlier := grader.Lessons()[:i]
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(a.stdout, "catch-up %s starts lesson %s on working code: each stage before it whose lesson does not pass gets the reference solution.\n", l.Number, l.Number)
	plan, err := a.planCatchUp(ctx, earlier)
	if err != nil {
		return err
	}
	var replace []string
	fmt.Fprintln(a.stdout)
	for _, s := range plan {
		what := "kept, as you wrote it:"
		switch {
		case s.replace:
			what = "replaced by the reference:"
			replace = append(replace, s.lesson.Stage+"/")
		case s.isReference:
			what = "kept:"
		}
		fmt.Fprintf(a.stdout, "  %-20s %-27s %s\n", s.lesson.Stage+"/", what, s.why)
	}
	fmt.Fprintln(a.stdout)
	if len(replace) == 0 {
		fmt.Fprintf(a.stdout, "Every stage before lesson %s works: nothing to replace.\n", l.Number)
		fmt.Fprintf(a.stdout, "Next: lesson %s, step 1 (%s). See where you stand: %s\n", l.Number, l.Guide, self)
		return nil
	}
	fmt.Fprintf(a.stdout, "The reference of a stage is solutions/<stage>, with its imports pointed at your stage folders.\n"+
		"Your files in each stage replaced are copied to a backup folder first.\n")
	if !yes && !a.confirm("Replace "+andList(replace)+"?") {
		return &exitError{code: 1, msg: "nothing changed"}
	}
	for _, s := range plan {
		if !s.replace {
			continue
		}
		backup, err := a.replaceStage(s.lesson.Stage, s.files)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "Your files are in %s/.\n%s/ now holds the reference of lesson %s.\n", backup, s.lesson.Stage, s.lesson.Number)
	}
	if err := a.checkCaughtUp(plan); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Next: lesson %s, step 1 (%s). See where you stand: %s\n", l.Number, l.Guide, self)
	return nil
}

// catchUpStage is what catch-up does with one stage before the lesson.
type catchUpStage struct {
	lesson      *check.Lesson
	replace     bool         // the reference goes in its place
	isReference bool         // it holds the reference already
	why         string       // "lesson 01 passes (26 of 26)", "lesson 01: 3 of 26 pass", …
	files       stages.Files // the reference, as catch-up writes it
}

// planCatchUp decides, lesson by lesson in course order, which of the
// stages to replace. A stage that holds the reference stays; one that is
// still the starter as shipped goes (a starter never passes its lesson:
// the course's proofs hold it to that); any other is graded on the stages
// before it as they will be once the plan is carried out, so that a stage
// which passes on the reference of the stage under it is kept.
func (a *app) planCatchUp(ctx context.Context, earlier []*check.Lesson) ([]catchUpStage, error) {
	race := os.Getenv("GRADER_RACE") == "1"
	g := &grading{root: a.root, opts: grader.Options{Root: a.root, Base: ".", Race: race}, cache: openCache(a.root, race), run: gradeNow}
	states := stageStates(a.root, a.root, earlier)
	replaced := map[string]stages.Files{}
	var plan []catchUpStage
	for _, l := range earlier {
		ref, err := referenceFiles(a.root, l.Stage)
		if err != nil {
			return nil, err
		}
		s := catchUpStage{lesson: l, files: ref}
		if same, _ := stageHolds(a.root, l.Stage, ref); same {
			s.isReference, s.why = true, "it holds the reference already"
		} else if states[l.Stage] == stagePristine {
			s.replace, s.why = true, fmt.Sprintf("lesson %s is not started (the starter as shipped)", l.Number)
		} else {
			fmt.Fprintf(a.stdout, "Grading lesson %s (your %s/)…\n", l.Number, l.Stage)
			r, err := g.gradeWith(ctx, l, replaced)
			if err != nil {
				return nil, err
			}
			t := r.tally()
			switch {
			case ctx.Err() != nil:
				return nil, &exitError{code: 1, msg: "interrupted: nothing changed"}
			case r.Done():
				s.why = fmt.Sprintf("lesson %s passes (%d of %d)", l.Number, t.passed(), len(r.Checks))
			case r.State == stateBuildError:
				s.replace, s.why = true, fmt.Sprintf("lesson %s does not build", l.Number)
			case r.State == stateGraded:
				s.replace, s.why = true, fmt.Sprintf("lesson %s: %d of %d pass", l.Number, t.passed(), len(r.Checks))
			default:
				return nil, fmt.Errorf("the grader could not grade lesson %s (%s), so nothing changed", l.Number, firstNonEmpty(r.Error, r.State))
			}
			if len(replaced) > 0 {
				s.why += " on the reference of " + andList(stageList(replaced, earlier))
			}
		}
		if s.replace {
			replaced[l.Stage] = ref
		}
		plan = append(plan, s)
	}
	return plan, nil
}

// gradeWith grades lesson l as it will stand once the stages in replaced
// hold those files. When l grades none of them, that is the course as it
// is, graded in place through the cache. Otherwise it is graded in a
// temporary copy of everything the grade depends on (lessonInputs), with
// the replaced stages written in; the cache keeps the result under the
// key the course will have once they are written here, so the board
// reuses it.
func (g *grading) gradeWith(ctx context.Context, l *check.Lesson, replaced map[string]stages.Files) (lessonResult, error) {
	inputs := lessonInputs(l)
	affected := false
	for _, p := range inputs {
		if _, ok := replaced[p]; ok {
			affected = true
		}
	}
	if !affected {
		return g.grade(ctx, l), nil
	}
	tmp, err := os.MkdirTemp("", "mcp-course-catch-up-")
	if err != nil {
		return lessonResult{}, err
	}
	defer os.RemoveAll(tmp)
	for _, p := range inputs {
		if files, ok := replaced[p]; ok {
			err = writeFiles(filepath.Join(tmp, p), files)
		} else {
			err = copyPath(filepath.Join(g.root, p), filepath.Join(tmp, p))
		}
		if err != nil {
			return lessonResult{}, err
		}
	}
	there := *g
	there.root, there.opts.Root = tmp, tmp
	return there.grade(ctx, l), nil
}

// copyPath copies a file, or a folder with everything under it but the
// folders Go tools ignore, from src to dst. A src that does not exist
// copies nothing.
func copyPath(src, dst string) error {
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if name := d.Name(); path != src && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

// checkCaughtUp builds the server of the last lesson before the one to
// start, which runs on every stage before it. Stages the learner keeps
// pass their lessons, but the reference put above one of them expects the
// exported names its starter declares: the compiler says so when they
// differ.
func (a *app) checkCaughtUp(plan []catchUpStage) error {
	last := plan[len(plan)-1].lesson
	defer grader.Cleanup()
	_, err := grader.Prepare(context.Background(), last, grader.Options{Root: a.root, Base: "."})
	out, ok := grader.BuildOutput(err)
	if !ok {
		return err
	}
	var kept []string
	for _, s := range plan {
		if !s.replace && !s.isReference {
			kept = append(kept, s.lesson.Stage+"/")
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("%s/ does not build:\n%s", last.Stage, out)
	}
	return fmt.Errorf("%s/ does not build:\n%s\nThe reference builds on the stages you kept (%s), which pass their lessons, only where they declare "+
		"what their starters declare: the names, types and signatures the reference calls. Make yours declare them as the starter does "+
		"(the compiler output above names what differs), or put a kept stage back to its starter with %s reset NN: catch-up then counts it as not started, and replaces it",
		last.Stage, out, andList(kept), self)
}

// stageList names, in course order, the stages of earlier that replaced holds.
func stageList(replaced map[string]stages.Files, earlier []*check.Lesson) []string {
	var out []string
	for _, l := range earlier {
		if _, ok := replaced[l.Stage]; ok {
			out = append(out, l.Stage+"/")
		}
	}
	return out
}

// andList joins names as a sentence does: "a", "a and b", "a, b and c".
func andList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
