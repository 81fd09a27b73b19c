package courseroot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree makes a course in a temporary folder: its go.mod, a subfolder, and
// a nested module of its own (as bench/ and interop/ are), and returns its
// root.
func tree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("go.mod", "module mcpcourse\n\ngo 1.22\n")
	write("solutions/01-stdio/cmd/server/main.go", "package main\n")
	write("bench/go.mod", "module mcpcourse/bench\n\nreplace mcpcourse => ../\n")
	write("bench/peers/cmd/x/main.go", "package main\n")
	write("07-fleet/go.mod", "// a stage that is a module of its own\nmodule \"mcpcourse/07-fleet\"\n")
	return root
}

func TestFromFindsTheCourseModule(t *testing.T) {
	root := tree(t)
	for _, dir := range []string{
		".",                             // the root itself
		"solutions/01-stdio/cmd/server", // a subfolder
		"bench",                         // a nested module
		"bench/peers/cmd/x",             // below a nested module
		"07-fleet",                      // a stage with a go.mod of its own
	} {
		got, err := From(filepath.Join(root, filepath.FromSlash(dir)))
		require.NoError(t, err, dir)
		assert.Equal(t, root, got, "from %s", dir)
	}
}

func TestFromOutsideTheCourseSaysSo(t *testing.T) {
	dir := t.TempDir()
	// A module that is not the course does not count, even one whose path
	// begins with the course's.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module mcpcourse/bench\n"), 0o644))
	_, err := From(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir)
	assert.Contains(t, err.Error(), `"module mcpcourse"`)
}

func TestFindFromTheWorkingDirectory(t *testing.T) {
	root := tree(t)
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(filepath.Join(root, "bench", "peers")))
	t.Cleanup(func() { os.Chdir(wd) })
	got, err := Find()
	require.NoError(t, err)
	// The working directory may come back with symbolic links resolved
	// (macOS's /var is /private/var).
	want, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	got, err = filepath.EvalSymlinks(got)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestModulePath(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		"module mcpcourse\n":                 "mcpcourse",
		"// comment\nmodule \"mcpcourse\"\n": "mcpcourse",
		"module mcpcourse // the course\n":   "mcpcourse",
		"go 1.22\n":                          "",
	} {
		p := filepath.Join(dir, "go.mod")
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		assert.Equal(t, want, ModulePath(p), "%q", content)
	}
	assert.Equal(t, "", ModulePath(filepath.Join(dir, "missing", "go.mod")))
}
