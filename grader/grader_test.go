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
	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/internal/check"
	"mcpcourse/grader/internal/testflag"
)

func TestMain(m *testing.M) {
	flag.Parse()
	testflag.DefaultParallel(8)
	code := m.Run()
	build.Cleanup()
	os.Exit(code)
}

// TestLesson01 grades stage 01, the stdio transport: go test ./grader -run Lesson01
func TestLesson01(t *testing.T) { gradeLesson(t, grader.Lesson01) }

// TestLesson02 grades stage 02, Streamable HTTP: go test ./grader -run Lesson02
func TestLesson02(t *testing.T) { gradeLesson(t, grader.Lesson02) }

// TestLesson03 grades stage 03, SSE streams and resumption: go test ./grader -run Lesson03
func TestLesson03(t *testing.T) { gradeLesson(t, grader.Lesson03) }

// TestLesson04 grades stage 04, Origin checks, CORS and WebSocket: go test ./grader -run Lesson04
func TestLesson04(t *testing.T) { gradeLesson(t, grader.Lesson04) }

// gradeLesson builds the lesson's server and runs each check as a parallel
// subtest named after it, so one check can be run alone:
//
//	go test ./grader -run 'Lesson01/STDIO-05'
func gradeLesson(t *testing.T, lesson *grader.Lesson) {
	opts, err := grader.OptionsFromEnv()
	require.NoError(t, err)
	noteSources(t, opts.Root)
	target, err := grader.Prepare(context.Background(), lesson, opts)
	var buildErr *build.Error
	switch {
	case errors.As(err, &buildErr):
		t.Fatalf("Lesson %s · %s: %s does not build, so no check can run.\n\n%s\nFix the compile errors above, then run the grader again.",
			lesson.Number, lesson.Title, buildErr.Request.Package, buildErr.Output)
	case err != nil:
		t.Fatalf("Lesson %s: %v", lesson.Number, err)
	}

	var (
		mu      sync.Mutex
		results = map[string]check.Result{}
	)
	t.Cleanup(func() { t.Log("\n" + summary(lesson, target, results)) })
	verbose := os.Getenv("GRADER_VERBOSE") == "1"
	for _, c := range lesson.Checks {
		c := c
		t.Run(c.Slug(), func(t *testing.T) {
			t.Parallel()
			r := check.Run(context.Background(), c, target)
			mu.Lock()
			results[c.ID] = r
			mu.Unlock()
			switch {
			case r.Status == check.Fail:
				t.Error("\n" + r.Report)
			case r.Status == check.Warn:
				t.Log("\n" + r.Report)
			case verbose:
				t.Logf("PASS %s [%s] %s (%.2fs)", c.ID, c.Severity, c.Title, r.Duration.Seconds())
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

// summary lists every check that ran, with a pointer to the first one that
// needs work.
func summary(lesson *grader.Lesson, target check.Target, results map[string]check.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Lesson %s · %s, graded on %s (%s)\n", lesson.Number, lesson.Title, target.Name, target.Package)
	passed, ran := 0, 0
	var next *check.Check
	for _, c := range lesson.Checks {
		r, ok := results[c.ID]
		if !ok {
			continue
		}
		ran++
		mark := "✓"
		switch r.Status {
		case check.Pass:
			passed++
		case check.Warn:
			mark = "!"
		case check.Fail:
			mark = "✗"
			if next == nil {
				next = c
			}
		}
		fmt.Fprintf(&b, "  %s %-9s step %d  %s\n", mark, c.ID, c.Step, c.Title)
	}
	fmt.Fprintf(&b, "%d of %d checks pass.", passed, ran)
	if next != nil {
		fmt.Fprintf(&b, " Next: %s, step %d of %s. Run it alone: go test ./grader -run '%s/%s'",
			next.ID, next.Step, lesson.Guide, "Lesson"+lesson.Number, next.ID)
	} else if ran == len(lesson.Checks) {
		fmt.Fprintf(&b, " Lesson %s is done. Compare with the reference: solutions/%s", lesson.Number, lesson.Stage)
	}
	return b.String()
}
