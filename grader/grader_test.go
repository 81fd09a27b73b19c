package grader_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/internal/testflag"
	"mcpcourse/grader/lesson01"
	"mcpcourse/grader/lesson02"
	"mcpcourse/grader/lesson03"
	"mcpcourse/grader/lesson04"
)

func TestMain(m *testing.M) {
	flag.Parse()
	testflag.DefaultParallel(8)
	code := m.Run()
	build.Cleanup()
	os.Exit(code)
}

// TestLesson01 grades stage 01, the stdio transport: go test ./grader -run Lesson01
func TestLesson01(t *testing.T) { gradeLesson(t, lesson01.Lesson) }

// TestLesson02 grades stage 02, Streamable HTTP: go test ./grader -run Lesson02
func TestLesson02(t *testing.T) { gradeLesson(t, lesson02.Lesson) }

// TestLesson03 grades stage 03, SSE streams and resumption: go test ./grader -run Lesson03
func TestLesson03(t *testing.T) { gradeLesson(t, lesson03.Lesson) }

// TestLesson04 grades stage 04, Origin checks, CORS and WebSocket: go test ./grader -run Lesson04
func TestLesson04(t *testing.T) { gradeLesson(t, lesson04.Lesson) }

// gradeLesson builds the lesson's server and runs each check as a parallel
// subtest named after it, so one check can be run alone:
//
//	go test ./grader -run 'Lesson01/STDIO-05'
//
// The reports are printed once every check has run, in the lesson's order,
// one per cause: a failure that only repeats another check's (every check
// fails when initialize does) is listed under that check's report, and its
// subtest is skipped as blocked. They go to stdout as they are, without the
// file:line prefixes of t.Log; go test shows them when the lesson fails.
func gradeLesson(t *testing.T, lesson *check.Lesson) {
	opts, err := grader.OptionsFromEnv()
	require.NoError(t, err)
	if why := opts.Skips(lesson); why != "" {
		t.Skip(why)
	}
	noteSources(t, opts.Root)
	target, err := grader.Prepare(context.Background(), lesson, opts)
	var buildErr *build.Error
	switch {
	case errors.As(err, &buildErr):
		fmt.Printf("Lesson %s · %s: %s does not build, so no check can run.\n\n%s\nFix the compile errors above, then run the grader again.\n",
			lesson.Number, lesson.Title, buildErr.Request.Package, buildErr.Output)
		t.FailNow()
	case err != nil:
		t.Fatalf("Lesson %s: %v", lesson.Number, err)
	}

	var (
		mu      sync.Mutex
		results []check.Result
		chosen  = map[string]bool{} // the checks the -run pattern selected
	)
	verbose := os.Getenv("GRADER_VERBOSE") == "1"
	t.Cleanup(func() {
		if len(results) == 0 {
			return
		}
		outcome := grader.NewOutcome(lesson, target, results)
		fmt.Print(outcome.Reports(verbose) + outcome.Summary() + "\n")
		if target.External() {
			fmt.Print("\n" + outcome.Verdict())
		}
		if outcome.Passed()+outcome.Skipped() < len(outcome.Results) {
			t.Fail() // even if every failing subtest was skipped as blocked
		}
	})
	for _, c := range lesson.Checks() {
		c := c
		t.Run(c.Slug(), func(t *testing.T) {
			chosen[c.ID] = true
			t.Parallel() // from here on, it runs once every subtest has been created
			r := grader.Run(context.Background(), lesson, c, target)
			mu.Lock()
			results = append(results, r)
			mu.Unlock()
			// A failure whose cause another chosen check tests is reported
			// under that check (see grader.Outcome): skip this subtest
			// rather than fail it, so that go test lists only the causes.
			if cause := lesson.CauseCheck(r.Cause); r.Status == check.Fail && cause != "" && cause != c.ID && chosen[cause] {
				t.Skipf("blocked by %s: see its report", cause)
			}
			if r.Status == check.Fail {
				t.Fail() // the report is printed with the others, in order
			}
			if r.Status == check.Skip {
				t.Skip(r.Skipped)
			}
		})
	}
}

// noteSources looks at every Go source file of the course (outside the
// grader), so that go test's result cache knows the grade depends on them.
// The grader builds the server with a go build of its own, which the cache
// cannot see: without this, a passing grade would be replayed from the
// cache after the code changed.
func noteSources(t *testing.T, root string) {
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "grader", "interop", "lessons":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum" {
			os.Stat(path)
		}
		return nil
	})
}
