package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
)

// childVar makes the test binary behave as the course command, so that
// classroom mode can run it as its child (`course grade --json …`).
const childVar = "COURSE_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(childVar) == "1" {
		a := &app{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, exe: []string{os.Args[0]}, exeEnv: []string{childVar + "=1"}}
		os.Exit(a.run(os.Args[1:]))
	}
	code := m.Run()
	grader.Cleanup()
	os.Exit(code)
}

// courseRoot is the real course, which these tests copy from.
func courseRoot(t *testing.T) string {
	t.Helper()
	root, err := findRoot()
	require.NoError(t, err)
	return root
}

// courseParts are what a copy of the course needs besides its stage
// folders: interop (its own module, with node_modules) is left out.
var courseParts = []string{"go.mod", "go.sum", "internal", "grader", "lessons", "solutions"}

// copyCourse copies the course into dir as a fresh clone holds it: the
// stage folders are the starters as shipped (read back from git when this
// clone's stages hold a learner's work), whatever this clone's learner has
// written.
func copyCourse(t *testing.T, dir string) string {
	t.Helper()
	src := courseRoot(t)
	for _, part := range courseParts {
		copyTree(t, filepath.Join(src, part), filepath.Join(dir, part))
	}
	for _, l := range grader.Lessons() {
		files, err := starterFiles(src, l.Stage)
		require.NoError(t, err, "the starter of %s", l.Stage)
		for path, content := range files {
			writeFile(t, filepath.Join(dir, l.Stage, filepath.FromSlash(path)), string(content))
		}
	}
	return dir
}

// copyTree copies src to dst as catch-up copies a stage (copyPath), and
// fails the test when src is not there.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	_, err := os.Stat(src)
	require.NoError(t, err)
	require.NoError(t, copyPath(src, dst))
}

// gitInit makes dir a git repository with one commit, as a clone is.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "course"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
}

// testApp is the course command run on root, with its output captured.
type testApp struct {
	*app
	out, errs *bytes.Buffer
}

func newTestApp(root string, stdin string) testApp {
	out, errs := &bytes.Buffer{}, &bytes.Buffer{}
	return testApp{
		app: &app{root: root, stdout: out, stderr: errs, stdin: strings.NewReader(stdin),
			exe: []string{os.Args[0]}, exeEnv: []string{childVar + "=1"}},
		out: out, errs: errs,
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// useReference makes a stage of the course at root the reference, as
// catch-up does.
func useReference(t *testing.T, root, stage string) {
	t.Helper()
	files, err := referenceFiles(root, stage)
	require.NoError(t, err)
	a := newTestApp(root, "")
	_, err = a.replaceStage(stage, files)
	require.NoError(t, err)
}
