package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
)

// TestBoardOnAFreshClone grades the untouched starters for real: lesson 01
// is the current lesson, with its failure reports (one per cause) and the
// exact next step; lesson 02 is not started, and not graded.
func TestBoardOnAFreshClone(t *testing.T) {
	root := copyCourse(t, t.TempDir())
	a := newTestApp(root, "")
	require.Equal(t, 0, a.run(nil), a.errs.String())
	out := a.out.String()
	assert.Contains(t, out, "▶ 01")
	assert.Regexp(t, `02 .*not started`, out)
	assert.Contains(t, out, "0/"+strconv.Itoa(len(grader.LessonByNumber("01").Checks())))
	assert.Contains(t, out, "Fix first: STDIO-01")
	assert.Contains(t, out, "FAIL STDIO-01 [MUST]", "the failure report in full")
	blocked := len(grader.LessonByNumber("01").Checks()) - 1
	assert.Contains(t, out, "blocks  "+strconv.Itoa(blocked)+" more checks fail because of this", "one report per cause, with the checks it blocks")
	assert.Contains(t, out, "(blocked by STDIO-01)")
	assert.Equal(t, 1, strings.Count(out, "FAIL STDIO-"), "the failures STDIO-01 explains get no report of their own")
	assert.Contains(t, out, "repro")
	assert.Contains(t, out, `Next: lesson 01, step 1: "Step 1 · Read a line, answer a line" in lessons/01-stdio.md`)
	assert.Contains(t, out, "go run ./cmd/course hint STDIO-01")
}

// TestBoardShowsABuildErrorAsABuildError: a stage that does not compile
// shows the compiler's output, and no check.
func TestBoardShowsABuildErrorAsABuildError(t *testing.T) {
	root := copyCourse(t, t.TempDir())
	serve := filepath.Join(root, "01-stdio", "serve.go")
	writeFile(t, serve, readFile(t, serve)+"\nfunc broken( {\n")
	a := newTestApp(root, "")
	require.Equal(t, 0, a.run([]string{"board"}), a.errs.String())
	out := a.out.String()
	assert.Contains(t, out, "does not build")
	assert.Contains(t, out, "Build error: lesson 01 does not build")
	assert.Contains(t, out, "serve.go", "the compiler's own words")
	assert.NotContains(t, out, "Fix first")
	assert.Contains(t, out, "· STDIO-01", "no check ran")
}

// fakeRun grades by table: each lesson passes everything unless listed in
// fail, and every call is counted.
type fakeRun struct {
	fail  map[string]bool
	calls map[string]int
}

func (f *fakeRun) run(_ context.Context, l *check.Lesson, _ grader.Options) lessonResult {
	f.calls[l.Number]++
	r := newLessonResult(l, stateGraded)
	for i := range r.Checks {
		r.Checks[i].Status = statusPass
	}
	if f.fail[l.Number] {
		r.Checks[0].Status, r.Checks[0].Report = statusFail, "FAIL "+r.Checks[0].ID
	}
	return r
}

// TestCollectCachesByContentAndRegradesBeforeDone checks the board's rules
// on a course whose grades are faked: an unchanged lesson is not graded
// twice, a change grades it again, an untouched later stage is not graded,
// and "done" always comes from a fresh run.
func TestCollectCachesByContentAndRegradesBeforeDone(t *testing.T) {
	root := copyCourse(t, t.TempDir())
	fake := &fakeRun{fail: map[string]bool{"01": true}, calls: map[string]int{}}
	grading := func() *grading {
		return &grading{root: root, opts: grader.Options{Root: root, Base: "."}, cache: openCache(root, false), run: fake.run}
	}
	lessons := grader.Lessons()[:2]

	p := grading().collect(context.Background(), lessons)
	assert.Equal(t, 0, p.current)
	assert.Equal(t, stateNotStarted, p.lessons[1].State, "an untouched stage after the current lesson is not graded")
	assert.Equal(t, map[string]int{"01": 1}, fake.calls)

	p = grading().collect(context.Background(), lessons)
	assert.True(t, p.lessons[0].Cached, "nothing changed: the grade is reused")
	assert.Equal(t, map[string]int{"01": 1}, fake.calls)

	// The learner fixes stage 01 and starts stage 02.
	fake.fail = map[string]bool{"02": true}
	serve := filepath.Join(root, "01-stdio", "serve.go")
	writeFile(t, serve, readFile(t, serve)+"\n// fixed\n")
	handler := filepath.Join(root, "02-streamable-http", "handler.go")
	writeFile(t, handler, readFile(t, handler)+"\n// started\n")
	p = grading().collect(context.Background(), lessons)
	assert.Equal(t, map[string]int{"01": 2, "02": 1}, fake.calls, "a change grades again")
	assert.Equal(t, 1, p.current)

	// Lesson 02 passes now, with no change to its files: its cached
	// failure would say otherwise, so change a file as a fix would.
	fake.fail = map[string]bool{}
	writeFile(t, handler, readFile(t, handler)+"\n// fixed\n")
	p = grading().collect(context.Background(), lessons)
	assert.Equal(t, -1, p.current)
	assert.Equal(t, map[string]int{"01": 3, "02": 2}, fake.calls,
		"lesson 01 came from the cache, so it is graded afresh before the course is called done")
	for _, r := range p.lessons {
		assert.False(t, r.Cached)
	}
}

// TestRenderBoardPointsAtTheReferenceAfterPassing renders a board where
// lesson 01 is done and lesson 02 current.
func TestRenderBoardPointsAtTheReferenceAfterPassing(t *testing.T) {
	fake := &fakeRun{fail: map[string]bool{"02": true}, calls: map[string]int{}}
	var p progress
	for _, l := range grader.Lessons()[:2] {
		p.lessons = append(p.lessons, fake.run(context.Background(), l, grader.Options{}))
	}
	p.current = 1
	var out strings.Builder
	renderBoard(&out, style{}, courseRoot(t), p, false)
	assert.Contains(t, out.String(), "[########################]")
	assert.Contains(t, out.String(), "Lesson 01 is done. Compare your code with the reference, now that you pass: solutions/01-stdio")
	assert.Contains(t, out.String(), "go run ./cmd/course clients 01")
	assert.Contains(t, out.String(), "Next: lesson 02, step 1")
}

// TestRenderBoardSaysWhatCouldNotRun: a check this machine cannot run (a
// network namespace without root) is a skip the board names, with the
// reason, on the lesson's line, in its list and where it says the lesson
// is done: never a silent pass.
func TestRenderBoardSaysWhatCouldNotRun(t *testing.T) {
	fake := &fakeRun{fail: map[string]bool{"02": true}, calls: map[string]int{}}
	var p progress
	for _, l := range grader.Lessons()[:2] {
		p.lessons = append(p.lessons, fake.run(context.Background(), l, grader.Options{}))
	}
	c := &p.lessons[0].Checks[0]
	c.Status, c.CannotRun, c.Skipped = statusSkip, true, "this machine cannot run it: it needs root"
	p.current = 1
	var out strings.Builder
	renderBoard(&out, style{}, courseRoot(t), p, true)
	assert.Regexp(t, `01 .*done  1 not run here`, out.String())
	assert.Contains(t, out.String(), c.Title+"  (not run: this machine cannot run it)")
	assert.Contains(t, out.String(), "Not run: "+c.ID+" did not run: this machine cannot run it: it needs root")
	assert.Contains(t, out.String(), "but "+c.ID+" did not run on this machine, so it is not proven: this machine cannot run it: it needs root")
}

func TestFingerprintSeesContentNotTimes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "s", "a.go"), "package s\n")
	before := fingerprint(dir, []string{"s"})
	require.NoError(t, os.Chtimes(filepath.Join(dir, "s", "a.go"), fixedTime, fixedTime))
	assert.Equal(t, before, fingerprint(dir, []string{"s"}), "a touch changes nothing")
	writeFile(t, filepath.Join(dir, "s", "a.go"), "package t\n")
	edited := fingerprint(dir, []string{"s"})
	assert.NotEqual(t, before, edited)
	writeFile(t, filepath.Join(dir, "s", "notes.txt"), "not Go\n")
	assert.Equal(t, edited, fingerprint(dir, []string{"s"}), "only what the build sees counts")
}

var fixedTime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// TestRenderBoardNamesTheCause: when a later check's failure is the cause
// of an earlier one's, the board sends the learner to the cause, as the
// grader's summary does, and lists the failures it blocks under it.
func TestRenderBoardNamesTheCause(t *testing.T) {
	r := newLessonResult(grader.LessonByNumber("02"), stateGraded)
	for i := range r.Checks {
		r.Checks[i].Status = statusPass
		switch r.Checks[i].ID {
		case "HTTP-02":
			r.Checks[i].Status, r.Checks[i].BlockedBy = statusFail, "HTTP-09"
		case "HTTP-09":
			r.Checks[i].Status, r.Checks[i].Report = statusFail, "FAIL HTTP-09 [MUST] ...\n"
		}
	}
	r.Next = "HTTP-09"
	r.Reports = "FAIL HTTP-09 [MUST] ...\n  blocks  1 more check fails because of this\n          HTTP-02\n\n"
	var out strings.Builder
	renderBoard(&out, style{}, courseRoot(t), progress{lessons: []lessonResult{r}, current: 0}, false)
	assert.Contains(t, out.String(), "Fix first: HTTP-09")
	assert.Contains(t, out.String(), "1 more failing check is listed under the report of the failure it comes from")
	assert.Contains(t, out.String(), "HTTP-02   step 1  "+grader.LessonByNumber("02").Check("HTTP-02").Title+"  (blocked by HTTP-09)")
	assert.Contains(t, out.String(), "Next: lesson 02, step 2")
	assert.Contains(t, out.String(), "hint HTTP-09")
}
