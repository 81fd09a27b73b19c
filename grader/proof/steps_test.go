package proof

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/steps"
	"mcpcourse/tools/stagefiles"
)

// A lesson promises, step by step, which checks each step turns green. The
// proof holds it to that: it rebuilds the learner's code as it stands after
// each step, as the reference with the later steps' work undone (package
// grader/steps, whose files the course command's checkpoint writes), and grades
// it. After step N, every check of steps 1 to N must pass, and every check
// of a later step must fail, unless the lesson says it goes green early
// (check.Check.Early and EarlyEnds; see GreenAfter).

// TestEachStepTurnsItsChecksGreen grades the code as it stands after each
// step of each lesson: all of them built first, then graded several at once,
// as the variants are.
func TestEachStepTurnsItsChecksGreen(t *testing.T) {
	type state struct {
		lesson  *check.Lesson
		step    int
		target  check.Target
		err     error
		results []check.Result
	}
	var states []*state
	for _, ls := range steps.All() {
		l := grader.LessonByNumber(ls.Number)
		require.NotNil(t, l)
		for n := 1; n <= ls.Steps; n++ {
			states = append(states, &state{lesson: l, step: n})
		}
	}
	root := options(t).Root
	inParallel(len(states), runtime.NumCPU(), func(i int) {
		st := states[i]
		st.target, st.err = buildStepState(root, st.lesson, st.step)
	})
	inParallel(len(states), gradeParallel(), func(i int) {
		if st := states[i]; st.err == nil {
			st.results = grader.RunAll(context.Background(), st.lesson, st.target)
		}
	})
	for _, st := range states {
		st := st
		t.Run("Lesson"+st.lesson.Number+"/step"+strconv.Itoa(st.step), func(t *testing.T) {
			require.NoError(t, st.err, "building lesson %s as it stands after step %d", st.lesson.Number, st.step)
			var wrong []string
			var reports strings.Builder
			for _, r := range st.results {
				c := r.Check
				wantGreen := c.GreenAfter(st.step)
				if (r.Status == check.Pass) == wantGreen {
					continue
				}
				wrong = append(wrong, c.ID)
				if wantGreen {
					reports.WriteString(r.Report + "\n")
				} else {
					reports.WriteString(c.ID + " passes, but the lesson says it is not green after step " + strconv.Itoa(st.step) + " (its step is " + strconv.Itoa(c.Step) + "; check.Check.Early says when it goes green early)\n")
				}
			}
			sort.Strings(wrong)
			assert.Empty(t, wrong, "after step %d of lesson %s, these checks do not match what the lesson says:\n%s",
				st.step, st.lesson.Number, reports.String())
		})
	}
}

// buildStepState builds the lesson's server from the files the course
// command's checkpoint writes for the start of step n+1 (the stage as it
// stands after step n), on the reference of the stages before it, as
// catch-up writes them: what a learner's clone holds after
// go run ./cmd/course checkpoint NN n+1.
func buildStepState(root string, l *check.Lesson, n int) (check.Target, error) {
	folders := map[string]stagefiles.Files{}
	for _, stage := range l.Stages {
		var err error
		if stage == l.Stage {
			folders[stage], err = steps.For(l.Number).Files(root, n)
		} else {
			folders[stage], err = stagefiles.Reference(root, stage, stagefiles.Options{})
		}
		if err != nil {
			return check.Target{}, err
		}
	}
	tmp, err := build.TempDir()
	if err != nil {
		return check.Target{}, err
	}
	dir, err := os.MkdirTemp(tmp, fmt.Sprintf("lesson%s-step%d-", l.Number, n))
	if err != nil {
		return check.Target{}, err
	}
	replace, err := stagefiles.Replacements(root, dir, folders)
	if err != nil {
		return check.Target{}, err
	}
	o := grader.Options{Root: root, Base: "."}
	req := build.Request{Root: root, Package: o.Package(l)}
	if req.Overlay, err = stagefiles.WriteOverlay(dir, replace); err != nil {
		return check.Target{}, err
	}
	bin, err := build.Binary(context.Background(), req)
	return check.Target{Name: "the code after step " + strconv.Itoa(n), Package: req.Package, Binary: bin}, err
}
