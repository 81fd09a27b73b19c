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
	"mcpcourse/tools/stages"
)

// A lesson promises, step by step, which checks each step turns green. The
// proof holds it to that: it rebuilds the learner's code as it stands after
// each step, from the regions of the reference (tools/stages: the code of
// steps 1 to N, and the starter's stubs for the rest, the very files the
// course command's checkpoint writes), and grades it. After step N, every
// check of steps 1 to N must pass, and every check of a later step must
// fail, unless the lesson says it goes green early (check.Check.Early and
// EarlyEnds; see GreenAfter).

// lastStep is the lesson's last step: that of its last check.
func lastStep(l *check.Lesson) int {
	last := 0
	for _, c := range l.Checks() {
		last = max(last, c.Step)
	}
	return last
}

// TestEachStepHasAState holds the reference's regions to the lessons: a
// stage's regions name the steps of its lesson, and none beyond.
func TestEachStepHasAState(t *testing.T) {
	root := options(t).Root
	for _, l := range grader.Lessons() {
		last, err := stages.LastStep(root, l.Stage)
		require.NoError(t, err)
		assert.Equal(t, lastStep(l), last, "the regions of solutions/%s name steps up to %d; lesson %s has %d", l.Stage, last, l.Number, lastStep(l))
	}
}

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
	for _, l := range grader.Lessons() {
		for n := 1; n <= lastStep(l); n++ {
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
			u := newUnrun(t)
			defer u.end()
			var wrong []string
			var reports strings.Builder
			for _, r := range u.runnable(st.results) {
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
	folders := map[string]stages.Files{}
	for _, stage := range l.Stages {
		var err error
		if stage == l.Stage {
			folders[stage], err = stages.State(root, l.Stage, n)
		} else {
			folders[stage], err = stages.Reference(root, stage, false)
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
	replace, err := stages.Replacements(root, dir, folders)
	if err != nil {
		return check.Target{}, err
	}
	o := grader.Options{Root: root, Base: "."}
	req := build.Request{Root: root, Package: o.Package(l)}
	if req.Overlay, err = stages.WriteOverlay(dir, replace); err != nil {
		return check.Target{}, err
	}
	bin, err := build.Binary(context.Background(), req)
	return check.Target{Name: "the code after step " + strconv.Itoa(n), Package: req.Package, Binary: bin,
		Sources: &check.Sources{Root: root, Base: o.Base, Overlay: req.Overlay}}, err
}
