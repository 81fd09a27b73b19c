package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/tools/courseroot"
)

func TestHintStepsUpOneLevelPerCall(t *testing.T) {
	root := t.TempDir()
	c := grader.LessonByNumber("01").Check("STDIO-07")
	require.NotNil(t, c)
	for level := 1; level <= 3; level++ {
		a := newTestApp(root, "")
		require.Equal(t, 0, a.run([]string{"hint", "stdio-07"}), a.errs.String())
		out := a.out.String()
		assert.Contains(t, out, "STDIO-07 · "+c.Title+" (lesson 01, step 1)")
		assert.Contains(t, out, "Hint "+strconv.Itoa(level)+" of 3")
		assert.Contains(t, squash(out), squash(c.Hint.Level(level)), "level %d", level)
		for other := 1; other <= 3; other++ {
			if other != level {
				assert.NotContains(t, squash(out), squash(c.Hint.Level(other)), "only one level per call")
			}
		}
	}
	a := newTestApp(root, "")
	require.Equal(t, 0, a.run([]string{"hint", "STDIO-07"}))
	assert.Contains(t, a.out.String(), "last level, again")

	a = newTestApp(root, "")
	require.Equal(t, 0, a.run([]string{"hint", "STDIO-07", "--level", "1"}))
	assert.Contains(t, a.out.String(), "Hint 1 of 3")

	a = newTestApp(root, "")
	require.Equal(t, 0, a.run([]string{"hint", "HTTP-03"}))
	assert.Contains(t, a.out.String(), "Hint 1 of 3", "each check has its own level")

	a = newTestApp(root, "")
	assert.Equal(t, 2, a.run([]string{"hint", "NOPE-01"}))
}

// squash joins words with single spaces, so that wrapped text compares.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestHintQuotesAreReadFromTheReference: a near-solution that quotes the
// reference shows the reference's code, read when the hint is shown, with
// no marker left.
func TestHintQuotesAreReadFromTheReference(t *testing.T) {
	course, err := courseroot.Find()
	require.NoError(t, err)
	// A course of its own, holding the one file the hint quotes: showing a
	// hint also remembers its level in the course's .course folder.
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "solutions", "02-streamable-http", "post.go"),
		readFile(t, filepath.Join(course, "solutions", "02-streamable-http", "post.go")))
	a := newTestApp(root, "")
	require.NoError(t, showHint(a.out, root, "HTTP-19", 3))
	out := a.out.String()
	assert.NotContains(t, out, "{{quote")
	assert.Contains(t, out, "responses, reject := stdio.ServeBatch(h.requestContext(r), sess.Session, version, body, nil)")
	assert.NotContains(t, out, "// @step", "the reference's step markers are not part of a quote")
}
