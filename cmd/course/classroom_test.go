package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/variants"
	"mcpcourse/tools/chromium"
)

// hangingServer answers nothing, ever, and shrugs off SIGTERM: only a kill
// stops it.
const hangingServer = `package main

import (
	"os/signal"
	"syscall"
	"time"
)

func main() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	for {
		time.Sleep(time.Hour)
	}
}
`

// classOfFour makes a folder holding four learners' checkouts of lesson 01:
// one that passes, one that fails a check (and has edited the grader), one
// that does not compile, and one whose server hangs.
func classOfFour(t *testing.T) string {
	class := t.TempDir()
	learner := func(name string) string {
		root := copyCourse(t, filepath.Join(class, name))
		useReference(t, root, "01-stdio")
		return root
	}
	learner("alice")

	bob := learner("bob")
	v := variants.Lookup("01", "banner-on-stdout")
	require.NotNil(t, v, "the variant this test borrows its mistake from")
	for _, e := range v.Edits {
		file := filepath.Join(bob, filepath.FromSlash(strings.TrimPrefix(e.File, "solutions/")))
		text := readFile(t, file)
		require.Equal(t, 1, strings.Count(text, e.Old), "variant edit of %s", e.File)
		writeFile(t, file, strings.Replace(text, e.Old, e.New, 1))
	}
	grader01 := filepath.Join(bob, "grader", "lesson01", "step1.go")
	writeFile(t, grader01, readFile(t, grader01)+"\n// bob was here\n")

	carol := learner("carol")
	serve := filepath.Join(carol, "01-stdio", "serve.go")
	writeFile(t, serve, readFile(t, serve)+"\nfunc unfinished( {\n")

	dave := learner("dave")
	writeFile(t, filepath.Join(dave, "01-stdio", "cmd", "server", "main.go"), hangingServer)
	return class
}

// TestClassroomGradesPassingFailingBrokenAndHangingCheckouts is the
// classroom mode's acceptance test: four checkouts graded within a bounded
// time, each correctly, with CSV, JSON and an HTML report that a real
// browser renders.
func TestClassroomGradesPassingFailingBrokenAndHangingCheckouts(t *testing.T) {
	if testing.Short() {
		t.Skip("grades four checkouts")
	}
	class := classOfFour(t)
	out := filepath.Join(t.TempDir(), "results")
	a := newTestApp(courseRoot(t), "")
	// Each checkout is graded by a child course command. The test binary
	// would do (it acts as the command when asked), but under -race its
	// grader runs several times slower than the one learners run: build
	// the command as they do, and grade with that.
	a.exe, a.exeEnv = []string{buildCourse(t)}, nil
	start := time.Now()
	code := a.run([]string{"classroom", "--lessons", "01", "--jobs", "2", "--timeout", "45s", "--out", out, class})
	took := time.Since(start)
	t.Logf("classroom took %v:\n%s%s", took, a.errs, a.out)
	assert.Equal(t, 1, code, "not every checkout passes, so the exit status says so")
	// Lesson 01's grade takes about 9 s on a quiet machine, and twice that
	// with two at a time on two cores; a hanging server is failed by the
	// checks' own deadlines well within the limit.
	assert.Less(t, took, 100*time.Second, "one hanging server must not stall the run")

	var report classReport
	require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(out, "results.json"))), &report))
	require.Len(t, report.Students, 4)
	byName := map[string]studentResult{}
	for _, s := range report.Students {
		require.Len(t, s.Lessons, 1, s.Name)
		byName[s.Name] = s
	}

	alice := byName["alice"]
	assert.Equal(t, outcomeGraded, alice.Outcome)
	assert.True(t, alice.AllDone(), "alice passes: %v", alice.Lessons[0].failing())
	assert.Empty(t, alice.Warnings)
	assert.Equal(t, "reference", alice.Lessons[0].Copied, "alice's pass is the reference's: she took it with catch-up")
	assert.NotEmpty(t, report.CopiedNote)

	bob := byName["bob"]
	assert.Equal(t, outcomeGraded, bob.Outcome)
	assert.Equal(t, stateGraded, bob.Lessons[0].State)
	assert.Equal(t, []string{"STDIO-06"}, bob.Lessons[0].failing())
	require.Len(t, bob.Warnings, 1)
	assert.Empty(t, bob.Lessons[0].Copied, "bob's stage is his own")
	assert.Contains(t, bob.Warnings[0], "the grader differs from the instructor's copy: grader/lesson01/step1.go (edited)")

	carol := byName["carol"]
	assert.Equal(t, stateBuildError, carol.Lessons[0].State)
	assert.Contains(t, carol.Lessons[0].BuildOutput, "serve.go")

	// The grader's own deadlines fail every check of a server that never
	// answers, long before the time limit.
	dave := byName["dave"]
	assert.Equal(t, outcomeGraded, dave.Outcome)
	assert.Equal(t, stateGraded, dave.Lessons[0].State)
	assert.Len(t, dave.Lessons[0].failing(), len(grader.LessonByNumber("01").Checks()))
	assert.Contains(t, dave.Lessons[0].firstFailure().Report, "no response to initialize")
	assert.Less(t, dave.Seconds, 30.0)

	rows := readCSV(t, filepath.Join(out, "results.csv"))
	require.Len(t, rows, 5)
	assert.Equal(t, csvHeader, rows[0])
	all := len(grader.LessonByNumber("01").Checks())
	assert.Equal(t, []string{"alice", "01", "graded", strconv.Itoa(all), "0"}, rows[1][:5])
	assert.Equal(t, []string{"bob", "01", "graded", strconv.Itoa(all - 1), "1"}, rows[2][:5])
	assert.Equal(t, "STDIO-06", rows[2][8])
	copied := len(csvHeader) - 1
	assert.Equal(t, "copied", csvHeader[copied])
	assert.Equal(t, "reference", rows[1][copied])
	assert.Empty(t, rows[2][copied])
	assert.Equal(t, []string{"carol", "01", "build error"}, rows[3][:3])
	assert.Equal(t, []string{"dave", "01", "graded", "0", strconv.Itoa(all)}, rows[4][:5])

	page := readFile(t, filepath.Join(out, "report.html"))
	assert.Contains(t, page, `<div class="copied">copied: reference</div>`)
	assert.Contains(t, page, "It is not proof of cheating")

	checkReportInBrowser(t, filepath.Join(out, "report.html"))
}

// buildCourse builds the course command, as go run ./cmd/course does,
// into a folder of the test's, and returns its path.
func buildCourse(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "course")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/course:\n%s", out)
	return bin
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return rows
}

// checkReportInBrowser opens the report in a real headless Chromium, and
// checks what it renders: a row per checkout with the right cells, and the
// filter the page's script adds, which proves the script ran. Without a
// Chromium the check is skipped, except in CI (COURSE_CI=1), which
// installs one.
func checkReportInBrowser(t *testing.T, page string) {
	t.Helper()
	bin, err := chromium.Find()
	if errors.Is(err, chromium.ErrNotFound) && os.Getenv("COURSE_CI") != "1" {
		t.Logf("the report was not checked in a browser: %v", err)
		return
	}
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dom, err := chromium.DumpDOM(ctx, bin, (&url.URL{Scheme: "file", Path: page}).String())
	require.NoError(t, err)
	assert.Contains(t, dom, `id="only-open"`, "the page's script ran")
	assert.Contains(t, dom, "1 of 4 checkouts pass every lesson graded")
	for name, cell := range map[string]string{
		"alice": `class="lesson done" data-lesson="01"`,
		"bob":   `class="lesson failing" data-lesson="01"`,
		"carol": `class="lesson build" data-lesson="01"`,
		"dave":  `class="lesson failing" data-lesson="01"`,
	} {
		row := rowOf(dom, name)
		require.NotEmpty(t, row, "the report has no row for %s", name)
		assert.Contains(t, row, cell, name)
	}
	assert.Contains(t, rowOf(dom, "bob"), "STDIO-06")
	assert.Contains(t, rowOf(dom, "alice"), "copied: reference")
	assert.NotContains(t, rowOf(dom, "bob"), "copied")
	assert.Contains(t, dom, `id="copied-note"`, "the report says what the mark means")
	assert.Contains(t, dom, "It is not proof of cheating")
	assert.Contains(t, rowOf(dom, "bob"), "grader/lesson01/step1.go (edited)")
	assert.Contains(t, rowOf(dom, "carol"), "does not build")
}

// rowOf returns the HTML of a checkout's row in the report.
func rowOf(dom, name string) string {
	start := strings.Index(dom, `data-student="`+name+`"`)
	if start < 0 {
		return ""
	}
	end := strings.Index(dom[start:], "</tr>")
	if end < 0 {
		return dom[start:]
	}
	return dom[start : start+end]
}

// TestGradeStopsAtItsTimeLimit grades a checkout whose server hangs with a
// limit too short to finish: the lesson is reported as timed out, soon
// after the limit, instead of holding the run up.
func TestGradeStopsAtItsTimeLimit(t *testing.T) {
	dave := copyCourse(t, t.TempDir())
	useReference(t, dave, "01-stdio")
	writeFile(t, filepath.Join(dave, "01-stdio", "cmd", "server", "main.go"), hangingServer)
	a := newTestApp(courseRoot(t), "")
	start := time.Now()
	assert.Equal(t, 1, a.run([]string{"grade", "--root", dave, "--lessons", "01,02", "--json", "--timeout", "1s"}), a.errs.String())
	assert.Less(t, time.Since(start), 10*time.Second)
	lines := strings.Split(strings.TrimSpace(a.out.String()), "\n")
	require.Len(t, lines, 2, "one JSON line per lesson:\n%s", a.out)
	for _, line := range lines {
		var r lessonResult
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		assert.Equal(t, stateTimedOut, r.State, r.Number)
	}
}

// TestClassroomKillsAGraderThatIgnoresTheTimeLimit stands a stubborn
// program in for the grader: it ignores SIGTERM and starts a child of its
// own. Both must be gone, and the checkout reported as timed out, soon
// after the limit.
func TestClassroomKillsAGraderThatIgnoresTheTimeLimit(t *testing.T) {
	a := newTestApp(courseRoot(t), "")
	a.exe = []string{"sh", "-c", `trap "" TERM; sleep 60 & wait`}
	start := time.Now()
	res := a.gradeCheckout(context.Background(), checkout{name: "stubborn", path: t.TempDir()}, grader.Lessons()[:1], time.Second)
	assert.Less(t, time.Since(start), time.Second+killGrace+4*time.Second)
	assert.Equal(t, outcomeTimeout, res.Outcome)
	require.Len(t, res.Lessons, 1)
	assert.Equal(t, stateTimedOut, res.Lessons[0].State)
}

func TestClassroomStopsAGraderThatPrintsTooMuch(t *testing.T) {
	a := newTestApp(courseRoot(t), "")
	a.exe = []string{"sh", "-c", `yes`}
	defer func(limit int) { outputLimit = limit }(outputLimit)
	outputLimit = 1 << 20
	res := a.gradeCheckout(context.Background(), checkout{name: "chatty", path: t.TempDir()}, grader.Lessons()[:1], 30*time.Second)
	assert.Equal(t, outcomeTooMuch, res.Outcome)
	assert.Less(t, res.Seconds, 10.0)
}

func TestClassroomReportsACrashedGrader(t *testing.T) {
	a := newTestApp(courseRoot(t), "")
	a.exe = []string{"sh", "-c", `echo "panic: something broke" >&2; exit 3`}
	res := a.gradeCheckout(context.Background(), checkout{name: "crash", path: t.TempDir()}, grader.Lessons()[:1], 30*time.Second)
	assert.Equal(t, outcomeCrashed, res.Outcome)
	assert.Contains(t, res.Detail, "panic: something broke")
	assert.Equal(t, stateError, res.Lessons[0].State)
}

func TestIntegrityNamesWhatDiffers(t *testing.T) {
	instructor, learner := t.TempDir(), t.TempDir()
	for _, root := range []string{instructor, learner} {
		writeFile(t, filepath.Join(root, "go.mod"), "module mcpcourse\n")
		writeFile(t, filepath.Join(root, "grader", "a.go"), "package grader\n")
		writeFile(t, filepath.Join(root, "internal", "mcp", "m.go"), "package mcp\n")
	}
	assert.Empty(t, integrity(instructor, learner))
	writeFile(t, filepath.Join(learner, "internal", "mcp", "m.go"), "package mcp // easier\n")
	writeFile(t, filepath.Join(learner, "grader", "skip.go"), "package grader\n")
	writeFile(t, filepath.Join(learner, "go.mod"), "module mcpcourse\n\nreplace x => y\n")
	assert.Equal(t, []string{
		"the grader differs from the instructor's copy: grader/skip.go (added)",
		"the given code differs from the instructor's copy: go.mod (edited), internal/mcp/m.go (edited)",
	}, integrity(instructor, learner))
}

func TestFindCheckouts(t *testing.T) {
	class := t.TempDir()
	for _, name := range []string{"zed", "amy", "notes"} {
		if name != "notes" {
			writeFile(t, filepath.Join(class, name, "go.mod"), "module mcpcourse\n")
		} else {
			writeFile(t, filepath.Join(class, name, "README"), "not a checkout\n")
		}
	}
	got, err := findCheckouts([]string{class})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "amy", got[0].name)
	assert.Equal(t, "zed", got[1].name)

	got, err = findCheckouts([]string{filepath.Join(class, "zed")})
	require.NoError(t, err)
	assert.Equal(t, []checkout{{name: "zed", path: filepath.Join(class, "zed")}}, got)

	_, err = findCheckouts([]string{filepath.Join(class, "notes")})
	assert.Error(t, err)
}

func TestClientsNeedsInteropThatTakesATarget(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "interop", "stdio_test.go"), "package interop // builds ./solutions/01-stdio/cmd/server\n")
	a := newTestApp(root, "")
	assert.Equal(t, 1, a.run([]string{"clients", "01"}))
	assert.Contains(t, a.errs.String(), "INTEROP_TARGET")
}
