package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/tools/stages"
)

// backupIn finds the backup folder a command's output names.
func backupIn(t *testing.T, root, out string) string {
	t.Helper()
	m := regexp.MustCompile(`Your files are in (\S+)/\.`).FindStringSubmatch(out)
	require.NotNil(t, m, "the output names no backup folder:\n%s", out)
	return filepath.Join(root, filepath.FromSlash(m[1]))
}

func TestCatchUpStartsLesson02FromTheReferenceOfLesson01(t *testing.T) {
	root := copyCourse(t, t.TempDir())
	mine := filepath.Join(root, "01-stdio", "serve.go")
	writeFile(t, mine, readFile(t, mine)+"\n// my work in progress\n")
	writeFile(t, filepath.Join(root, "01-stdio", "extra.go"), "package stdio\n\n// mine too\n")

	// Without a yes, nothing changes.
	a := newTestApp(root, "n\n")
	assert.Equal(t, 1, a.run([]string{"catch-up", "02"}))
	assert.Contains(t, readFile(t, mine), "my work in progress")

	a = newTestApp(root, "y\n")
	require.Equal(t, 0, a.run([]string{"catch-up", "02"}), "%s%s", a.out, a.errs)
	backup := backupIn(t, root, a.out.String())
	assert.Contains(t, readFile(t, filepath.Join(backup, "serve.go")), "my work in progress", "the learner's files are backed up")
	assert.FileExists(t, filepath.Join(backup, "extra.go"))
	assert.FileExists(t, filepath.Join(backup, "cmd", "server", "main.go"))

	// 01-stdio is the reference now, pointed at the learner's folders.
	assert.NoFileExists(t, filepath.Join(root, "01-stdio", "extra.go"), "a file the reference lacks would not compile beside it")
	assert.FileExists(t, filepath.Join(root, "01-stdio", "writer.go"))
	for _, f := range []string{"serve.go", "cmd/server/main.go"} {
		text := readFile(t, filepath.Join(root, "01-stdio", filepath.FromSlash(f)))
		assert.NotContains(t, text, "solutions/", "%s still points at the reference", f)
	}
	assert.Contains(t, readFile(t, filepath.Join(root, "01-stdio", "cmd", "server", "main.go")), `stdio "mcpcourse/01-stdio"`)
	assert.Contains(t, a.out.String(), "Next: lesson 02, step 1")

	// A second catch-up has nothing to do, and grades nothing.
	a = newTestApp(root, "")
	require.Equal(t, 0, a.run([]string{"catch-up", "02"}))
	assert.Contains(t, a.out.String(), "it holds the reference already")
	assert.Contains(t, a.out.String(), "nothing to replace")
	assert.NotContains(t, a.out.String(), "Grading")
	assert.Contains(t, a.out.String(), "Next: lesson 02, step 1")

	a = newTestApp(root, "")
	assert.Equal(t, 2, a.run([]string{"catch-up", "01"}), "nothing comes before lesson 01")
}

func TestResetRestoresTheStarterFromGit(t *testing.T) {
	root := copyCourse(t, t.TempDir())
	gitInit(t, root)
	stage := filepath.Join(root, "02-streamable-http")
	starter := readFile(t, filepath.Join(stage, "handler.go"))

	writeFile(t, filepath.Join(stage, "handler.go"), "package streamable // mine\n")
	writeFile(t, filepath.Join(stage, "mine", "helper.go"), "package mine\n")
	require.NoError(t, os.Remove(filepath.Join(stage, "streams.go")))

	a := newTestApp(root, "")
	require.Equal(t, 0, a.run([]string{"reset", "02", "--yes"}), "%s%s", a.out, a.errs)
	assert.Equal(t, starter, readFile(t, filepath.Join(stage, "handler.go")))
	assert.FileExists(t, filepath.Join(stage, "streams.go"))
	assert.NoDirExists(t, filepath.Join(stage, "mine"), "an added file, and its folder, are gone from the stage")
	backup := backupIn(t, root, a.out.String())
	assert.Equal(t, "package streamable // mine\n", readFile(t, filepath.Join(backup, "handler.go")))
	assert.FileExists(t, filepath.Join(backup, "mine", "helper.go"))

	assert.Equal(t, stagePristine, stageStates(root, root, grader.Lessons())["02-streamable-http"])

	a = newTestApp(root, "")
	require.Equal(t, 0, a.run([]string{"reset", "2"}))
	assert.Contains(t, a.out.String(), "nothing to reset")
}

func TestResetWithoutHistoryChangesNothing(t *testing.T) {
	root := copyCourse(t, t.TempDir()) // no git: the starters cannot be read back
	handler := filepath.Join(root, "02-streamable-http", "handler.go")
	writeFile(t, handler, "package streamable // mine\n")
	a := newTestApp(root, "")
	assert.Equal(t, 1, a.run([]string{"reset", "02", "--yes"}))
	assert.Contains(t, a.errs.String(), "git")
	assert.Equal(t, "package streamable // mine\n", readFile(t, handler))
	assert.NoDirExists(t, filepath.Join(root, stateDir, "backups"))
}

func TestCheckpointStartsAStepFromTheReference(t *testing.T) {
	root := copyCourse(t, t.TempDir())
	stage := filepath.Join(root, "03-sse-resume")
	mine := filepath.Join(stage, "get.go")
	writeFile(t, mine, readFile(t, mine)+"\n// my work in progress\n")

	// Without a yes, nothing changes; a step out of range is a usage error.
	a := newTestApp(root, "n\n")
	assert.Equal(t, 1, a.run([]string{"checkpoint", "03", "3"}))
	assert.Contains(t, readFile(t, mine), "my work in progress")
	for _, bad := range []string{"0", "5", "x"} {
		a = newTestApp(root, "")
		assert.Equal(t, 2, a.run([]string{"checkpoint", "03", bad, "--yes"}), "step %s", bad)
	}
	a = newTestApp(root, "")
	assert.Equal(t, 2, a.run([]string{"checkpoint", "03", "1", "--yes"}))
	assert.Contains(t, a.errs.String(), "reset 03", "step 1 starts from the starter")

	a = newTestApp(root, "y\n")
	require.Equal(t, 0, a.run([]string{"checkpoint", "03", "step3"}), "%s%s", a.out, a.errs)
	backup := backupIn(t, root, a.out.String())
	assert.Contains(t, readFile(t, filepath.Join(backup, "get.go")), "my work in progress", "the learner's files are backed up")
	assert.Contains(t, a.out.String(), "Next: lesson 03, step 3")

	// The stage holds exactly the state the proof grades: the reference
	// after step 2, pointed at the learner's folders, without its tests.
	want, err := stages.State(root, "03-sse-resume", 2)
	require.NoError(t, err)
	have, err := readTree(stage)
	require.NoError(t, err)
	assert.Equal(t, len(want), len(have))
	for path, content := range want {
		assert.Equal(t, string(content), string(have[path]), path)
	}
	get := readFile(t, mine)
	assert.Contains(t, get, "TODO(step 3)")
	assert.Contains(t, get, "TODO(step 4)")
	assert.NotContains(t, get, "TODO(step 2)")
	assert.NotContains(t, get, "solutions/")
	assert.NoFileExists(t, filepath.Join(stage, "handler_test.go"))

	a = newTestApp(root, "")
	require.Equal(t, 0, a.run([]string{"checkpoint", "03", "3"}))
	assert.Contains(t, a.out.String(), "already holds the checkpoint")
}
