package grader_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/tools/courseroot"
)

// These tests take no grader run: go test ./grader -run 'WellFormed|Quote|NotYet|Grading'

func TestLessonsAreWellFormed(t *testing.T) {
	require.NoError(t, check.ValidateCourse(grader.Lessons()))
}

// TestHintQuotesAreTheReference holds the hints that quote the reference
// (check.Hint.Quotes) to it: every quote a near-solution reads from the
// reference ({{quote N}}) is found, and every code block of the
// near-solution as shown (its lines indented with a tab), quoted or written
// in the hint, is a run of lines of one of the functions it names, as they
// are today, indentation aside.
func TestHintQuotesAreTheReference(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	quoted := 0
	for _, l := range grader.Lessons() {
		for _, c := range l.Checks() {
			if len(c.Hint.Quotes) == 0 {
				continue
			}
			var funcs [][]string
			for _, q := range c.Hint.Quotes {
				whole := check.Source{File: q.File, Func: q.Func}
				lines, err := whole.Lines(root)
				require.NoError(t, err, "%s quotes %s in %s", c.ID, q.Func, q.File)
				funcs = append(funcs, lines)
			}
			near, err := c.Hint.Text(root, check.Levels)
			require.NoError(t, err, "%s's near-solution", c.ID)
			blocks := codeBlocks(near)
			require.NotEmpty(t, blocks, "%s says its hint quotes the reference, but its near-solution holds no code", c.ID)
			for _, b := range blocks {
				found := false
				for _, f := range funcs {
					found = found || containsRun(f, b)
				}
				assert.True(t, found, "%s's hint quotes code that is no longer in %v, or not as it is there:\n%s\nCopy it again from the reference.",
					c.ID, c.Hint.Quotes, strings.Join(b, "\n"))
				quoted++
			}
		}
	}
	assert.Positive(t, quoted, "no hint quotes the reference any more: drop this test, or find the quotes")
}

// codeBlocks returns the runs of tab-indented lines of text.
func codeBlocks(text string) [][]string {
	var blocks [][]string
	var cur []string
	for _, line := range append(strings.Split(text, "\n"), "end") {
		switch {
		case strings.HasPrefix(line, "\t"):
			cur = append(cur, line)
		case line == "" && len(cur) > 0:
			cur = append(cur, line) // a blank line inside a block
		default:
			for len(cur) > 0 && cur[len(cur)-1] == "" {
				cur = cur[:len(cur)-1]
			}
			if len(cur) > 0 {
				blocks = append(blocks, cur)
			}
			cur = nil
		}
	}
	return blocks
}

// containsRun reports whether block is a run of lines of f, each
// dedented by the tabs its first line has.
func containsRun(f, block []string) bool {
	dedent := func(lines []string) []string {
		n := len(lines[0]) - len(strings.TrimLeft(lines[0], "\t"))
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = strings.TrimPrefix(l, strings.Repeat("\t", n))
		}
		return out
	}
	want := strings.Join(dedent(block), "\n")
	for i := 0; i+len(block) <= len(f); i++ {
		if strings.Join(dedent(f[i:i+len(block)]), "\n") == want {
			return true
		}
	}
	return false
}

// TestLessonsTheGraderCannotGradeYetAreRefused: a lesson's description can
// say that it grades a client, or builds a stage that is a Go module of
// its own, before the grader can do either; Prepare says so, and builds
// nothing.
func TestLessonsTheGraderCannotGradeYetAreRefused(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := grader.Options{Root: root, Base: "."}
	lesson := func() *check.Lesson {
		l := *grader.LessonByNumber("01")
		return &l
	}

	client := lesson()
	client.Kind = check.Client
	_, err = grader.Prepare(ctx, client, o)
	assert.ErrorContains(t, err, "grades a client")
	assert.ErrorContains(t, err, "cannot do yet")

	module := lesson()
	module.Build = check.Build{Module: true}
	_, err = grader.Prepare(ctx, module, o)
	assert.ErrorContains(t, err, "is a Go module of its own")
	assert.ErrorContains(t, err, "cannot build such a stage yet")

	other := lesson()
	other.Transport = "WebSocket"
	_, err = grader.Prepare(ctx, other, o)
	assert.ErrorContains(t, err, `uses the transport "WebSocket"`)

	// The values that lessons 01-04 use build as before.
	assert.Equal(t, "./01-stdio/cmd/server", o.Package(lesson()))
	sub := lesson()
	sub.Build.Main = "cmd/other"
	assert.Equal(t, "./solutions/01-stdio/cmd/other", grader.Options{Base: "solutions"}.Package(sub))
}

// TestAHTTPCheckOfAStdioLessonIsSkippedWithoutAURL: a lesson may give some
// of its checks the other transport (lesson 05 grades one stage over both);
// graded on an external command alone, those checks are skipped, saying
// why, and the lesson is not.
func TestAHTTPCheckOfAStdioLessonIsSkippedWithoutAURL(t *testing.T) {
	c := &check.Check{ID: "X-01", Title: "t", Severity: check.Must, Budget: time.Second, Transport: check.HTTP,
		Run: func(t *check.T) { t.Failf("it ran") }}
	l := &check.Lesson{Number: "99", Transport: check.Stdio, Steps: []check.Step{{Checks: []*check.Check{c}}}}
	assert.Equal(t, []check.Transport{check.Stdio, check.HTTP}, l.Transports())

	o := grader.Options{Command: []string{"server"}}
	assert.Empty(t, o.Skips(l), "the lesson grades stdio too")
	assert.Contains(t, grader.Options{URL: "http://127.0.0.1:1/mcp"}.Skips(&check.Lesson{Number: "98", Transport: check.Stdio}), "no command was given")

	r := grader.Run(context.Background(), l, c, check.Target{Command: []string{"server"}})
	assert.Equal(t, check.Skip, r.Status)
	assert.Contains(t, r.Skipped, "over Streamable HTTP")

	built := grader.Run(context.Background(), l, c, check.Target{Binary: "server"})
	assert.Equal(t, check.Fail, built.Status, "a server the grader built runs every check")
}

func TestLessonsGradingAStage(t *testing.T) {
	var numbers []string
	for _, l := range grader.LessonsGrading("02-streamable-http") {
		numbers = append(numbers, l.Number)
	}
	assert.Equal(t, []string{"02", "03", "04"}, numbers)
	assert.Len(t, grader.LessonsGrading("04-origin"), 1)
	assert.Empty(t, grader.LessonsGrading("99-nothing"))
}
