package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
)

// TestCopyIndexTellsACopyFromAPass marks the stages that hold the course's
// own code, file for file: the reference as catch-up writes it, the
// reference copied from solutions/ by hand (region markers, imports not
// rewritten, another editor's indentation), a checkpoint's state; and
// nothing else: the starter, or the reference with one line of the
// learner's own.
func TestCopyIndexTellsACopyFromAPass(t *testing.T) {
	course := courseRoot(t)
	idx, err := newCopyIndex(course, grader.Lessons())
	require.NoError(t, err)
	checkout := copyCourse(t, t.TempDir())
	for _, l := range grader.Lessons() {
		assert.Empty(t, idx.copied(checkout, l.Stage), "the starter of %s is not a copy", l.Stage)
	}

	// catch-up 02: the reference, its tests included.
	useReference(t, checkout, "01-stdio")
	assert.Equal(t, "reference", idx.copied(checkout, "01-stdio"))
	// A test of the learner's own changes nothing: the code is a copy.
	writeFile(t, filepath.Join(checkout, "01-stdio", "mine_test.go"), "package stdio\n")
	assert.Equal(t, "reference", idx.copied(checkout, "01-stdio"))
	// One line of the learner's own, and it is theirs.
	serve := filepath.Join(checkout, "01-stdio", "serve.go")
	writeFile(t, serve, strings.Replace(readFile(t, serve), "\nfunc ", "\n// Mine.\nfunc ", 1))
	assert.Empty(t, idx.copied(checkout, "01-stdio"))

	// solutions/02-streamable-http copied in by hand, as it is.
	stage := filepath.Join(checkout, "02-streamable-http")
	require.NoError(t, os.RemoveAll(stage))
	copyTree(t, filepath.Join(course, "solutions", "02-streamable-http"), stage)
	main := filepath.Join(stage, "cmd", "server", "main.go")
	require.Contains(t, readFile(t, main), `"mcpcourse/solutions/`, "the copy still imports the reference")
	writeFile(t, main, strings.ReplaceAll(readFile(t, main), "\t", "    "))
	assert.Equal(t, "reference", idx.copied(checkout, "02-streamable-http"))
	writeFile(t, filepath.Join(stage, "server"), "\x7fELF a binary built in place\n")
	assert.Equal(t, "reference", idx.copied(checkout, "02-streamable-http"), "only the Go code counts")

	// checkpoint 03 3: the reference after step 2.
	a := newTestApp(checkout, "")
	require.Equal(t, 0, a.run([]string{"checkpoint", "03", "3", "--yes"}), "%s%s", a.out, a.errs)
	assert.Equal(t, "checkpoint 03 3", idx.copied(checkout, "03-sse-resume"))
	// The learner writes step 3: their own work from there on.
	get := filepath.Join(checkout, "03-sse-resume", "get.go")
	writeFile(t, get, readFile(t, get)+"\n// step 3, begun\n")
	assert.Empty(t, idx.copied(checkout, "03-sse-resume"))

	assert.Empty(t, idx.copied(filepath.Join(checkout, "nowhere"), "01-stdio"), "no folder, no copy")
}

// TestGradeRootMarksCopiesAndWarns grades a checkout whose stage 01 is a
// checkpoint's state, and whose grader was edited, with grade --root: the
// lesson's line says it is a copy, and a warning names the edited grader.
func TestGradeRootMarksCopiesAndWarns(t *testing.T) {
	if testing.Short() {
		t.Skip("grades lesson 01")
	}
	checkout := copyCourse(t, t.TempDir())
	a := newTestApp(checkout, "")
	require.Equal(t, 0, a.run([]string{"checkpoint", "01", "3", "--yes"}), "%s%s", a.out, a.errs)
	edited := filepath.Join(checkout, "grader", "grader.go")
	writeFile(t, edited, readFile(t, edited)+"\n// easier\n")

	a = newTestApp(courseRoot(t), "")
	assert.Equal(t, 1, a.run([]string{"grade", "--root", checkout, "--lessons", "01"}), a.errs.String())
	out := a.out.String()
	assert.Contains(t, out, "warning: the grader differs from the instructor's copy: grader/grader.go (edited)")
	assert.Regexp(t, `lesson 01: \d+/\d+, failing .* \(copied: checkpoint 01 3\)`, out)
}
