package starters

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlobIDIsGits(t *testing.T) {
	// git hash-object of an empty file, and of "hello\n".
	assert.Equal(t, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", BlobID(nil))
	assert.Equal(t, "ce013625030ba8dba906f756967f9e9ca394464a", BlobID([]byte("hello\n")))
}

// repo makes a git repository holding one starter folder and its manifest.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	write := func(path, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, path), []byte(content), 0o644))
	}
	write("01-x/a.go", "package x // TODO\n")
	write("01-x/cmd/main.go", "package main\n")
	files, err := Scan(root, []string{"01-x"})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "grader"), 0o755))
	require.NoError(t, Write(root, files))
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "starter"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return root
}

func TestChangesAndOverlay(t *testing.T) {
	root := repo(t)
	changes, err := Changes(root)
	require.NoError(t, err)
	assert.Empty(t, changes, "a fresh clone is pristine")
	overlay, err := Overlay(root, t.TempDir())
	require.NoError(t, err)
	assert.Empty(t, overlay)

	// The learner writes code, adds a file and deletes one: the manifest
	// still finds the starter's content in git.
	require.NoError(t, os.WriteFile(filepath.Join(root, "01-x/a.go"), []byte("package x // done\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "01-x/b.go"), []byte("package x\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(root, "01-x/cmd/main.go")))
	changes, err = Changes(root)
	require.NoError(t, err)
	require.Len(t, changes, 3)
	assert.Equal(t, Change{Path: "01-x/a.go", Kind: "modified", Blob: BlobID([]byte("package x // TODO\n"))}, changes[0])
	assert.Equal(t, "added", changes[1].Kind)
	assert.Equal(t, "removed", changes[2].Kind)

	pristine, err := Pristine(root, changes[0].Blob)
	require.NoError(t, err)
	assert.Equal(t, "package x // TODO\n", string(pristine))

	overlay, err = Overlay(root, t.TempDir())
	require.NoError(t, err)
	data, err := os.ReadFile(overlay)
	require.NoError(t, err)
	assert.Contains(t, string(data), filepath.Join(root, "01-x/b.go")+`":""`, "an added file is hidden from the build")
}
