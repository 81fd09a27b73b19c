package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
)

// syncBuffer is a bytes.Buffer safe for the watcher's goroutine and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// watchRig runs a watcher on a small course whose grading the test holds
// and releases, with keys typed into a pipe.
type watchRig struct {
	t        *testing.T
	root     string
	out      *syncBuffer
	keys     *io.PipeWriter
	started  chan struct{}
	release  chan lessonResult
	finished chan error
}

func startWatch(t *testing.T, manual bool) *watchRig {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module mcpcourse\n\ngo 1.22\n")
	writeFile(t, filepath.Join(root, "01-stdio", "serve.go"), "package stdio\n")
	r := &watchRig{t: t, root: root, out: &syncBuffer{}, started: make(chan struct{}), release: make(chan lessonResult), finished: make(chan error, 1)}
	keysIn, keysOut := io.Pipe()
	r.keys = keysOut
	t.Cleanup(func() { keysOut.Close() })

	w := &watcher{
		app:    &app{root: root, stdout: r.out, stderr: r.out},
		lesson: grader.LessonByNumber("01"),
		grade: func(ctx context.Context, l *check.Lesson) lessonResult {
			r.started <- struct{}{}
			return <-r.release
		},
		interval: 20 * time.Millisecond,
		manual:   manual,
		keyHelp:  "press",
	}
	w.keys = readKeys(keysIn, &w.busy)
	go func() { r.finished <- w.loop(context.Background()) }()
	return r
}

// failing is lesson 01 with one failing check.
func failing() lessonResult {
	r := newLessonResult(grader.LessonByNumber("01"), stateGraded)
	for i := range r.Checks {
		r.Checks[i].Status = statusPass
	}
	r.Checks[6].Status, r.Checks[6].Report = statusFail, "FAIL STDIO-07 [MUST] notifications get no reply"
	return r
}

// expectRun waits for a grading run to start, then lets it finish with res.
func (r *watchRig) expectRun(res lessonResult, why string) {
	r.t.Helper()
	select {
	case <-r.started:
	case <-time.After(5 * time.Second):
		r.t.Fatalf("no grading run started: %s\noutput:\n%s", why, r.out.String())
	}
	shown := strings.Count(r.out.String(), "Keys (press)")
	r.release <- res
	require.Eventually(r.t, func() bool { return strings.Count(r.out.String(), "Keys (press)") > shown }, 5*time.Second, 10*time.Millisecond,
		"the run's result was never shown:\n%s", r.out.String())
}

// expectNoRun checks that no grading run starts for a while.
func (r *watchRig) expectNoRun(why string) {
	r.t.Helper()
	select {
	case <-r.started:
		r.t.Fatalf("a grading run started: %s", why)
	case <-time.After(600 * time.Millisecond):
	}
}

// waitFor waits until the output holds text.
func (r *watchRig) waitFor(text string) {
	r.t.Helper()
	require.Eventually(r.t, func() bool { return strings.Contains(r.out.String(), text) }, 5*time.Second, 10*time.Millisecond,
		"the output never showed %q:\n%s", text, r.out.String())
}

func (r *watchRig) press(keys string) {
	r.t.Helper()
	_, err := io.WriteString(r.keys, keys) // returns once the watcher has read them
	require.NoError(r.t, err)
}

func TestWatchRegradesOnSaveAndOnR(t *testing.T) {
	r := startWatch(t, false)
	select {
	case <-r.started:
	case <-time.After(5 * time.Second):
		t.Fatal("watch did not grade at start")
	}
	r.press("r") // while the check runs: ignored
	r.release <- failing()
	r.waitFor("Fix first: STDIO-07")
	r.expectNoRun("a key pressed while the checks ran must not queue another run")

	writeFile(t, filepath.Join(r.root, "01-stdio", "serve.go"), "package stdio // saved\n")
	r.expectRun(failing(), "a saved file is graded again")

	r.press("r")
	r.expectRun(failing(), "r grades again")

	r.press("h")
	r.waitFor("Hint 1 of 3")
	r.press("q")
	select {
	case err := <-r.finished:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("q did not quit")
	}
}

func TestWatchManualIgnoresSaves(t *testing.T) {
	r := startWatch(t, true)
	r.expectRun(failing(), "watch grades at start")
	assert.Contains(t, r.out.String(), "--manual")
	writeFile(t, filepath.Join(r.root, "01-stdio", "serve.go"), "package stdio // saved\n")
	r.expectNoRun("--manual re-grades only on r")
	r.press("r")
	r.expectRun(failing(), "r grades again")
	r.keys.Close()
	select {
	case err := <-r.finished:
		assert.NoError(t, err, "the end of input ends watch")
	case <-time.After(5 * time.Second):
		t.Fatal("the end of input did not end watch")
	}
}

func TestWatchMovesOnOnceDone(t *testing.T) {
	r := startWatch(t, false)
	done := failing()
	done.Checks[6].Status = statusPass
	r.expectRun(done, "watch grades at start")
	r.waitFor("Lesson 01 is done")
	r.waitFor("Press n for lesson 02")
	r.press("n")
	select {
	case <-r.started:
	case <-time.After(5 * time.Second):
		t.Fatal("n did not move on to lesson 02")
	}
	next := newLessonResult(grader.LessonByNumber("02"), stateGraded)
	r.release <- next
	r.waitFor("Checking lesson 02")
}
