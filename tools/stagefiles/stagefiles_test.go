package stagefiles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewrite(t *testing.T) {
	src := "// Run it: go run ./solutions/02-streamable-http/cmd/server\npackage main\n\nimport (\n\t\"fmt\"\n\n\tstreamable \"mcpcourse/solutions/02-streamable-http\"\n\t\"mcpcourse/internal/mcp\"\n)\n"
	out, err := Rewrite([]byte(src))
	require.NoError(t, err)
	assert.Contains(t, string(out), `streamable "mcpcourse/02-streamable-http"`)
	assert.Contains(t, string(out), "go run ./02-streamable-http/cmd/server")
	assert.False(t, strings.Contains(string(out), "solutions"))
}

func TestReferenceAndReplacements(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		path := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	write("solutions/01-x/a.go", "package x\n\nimport _ \"mcpcourse/solutions/00-y\"\n\nconst A = 1\n")
	write("solutions/01-x/a_test.go", "package x\n")
	write("solutions/01-x/cmd/server/main.go", "package main\n")
	write("01-x/a.go", "package x // the learner's\n")
	write("01-x/mine.go", "package x // added by the learner\n")

	files, err := Reference(root, "01-x", Options{Edit: func(rel string, src []byte) ([]byte, error) {
		if rel == "solutions/01-x/a.go" {
			return []byte(strings.Replace(string(src), "A = 1", "A = 2", 1)), nil
		}
		return src, nil
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{"a.go", "cmd/server/main.go"}, keys(files), "tests are left out unless asked for")
	assert.Contains(t, string(files["a.go"]), "A = 2")
	assert.Contains(t, string(files["a.go"]), `"mcpcourse/00-y"`)
	withTests, err := Reference(root, "01-x", Options{Tests: true})
	require.NoError(t, err)
	assert.Contains(t, withTests, "a_test.go")

	dir := t.TempDir()
	replace, err := Replacements(root, dir, map[string]Files{"01-x": files})
	require.NoError(t, err)
	assert.Equal(t, "", replace[filepath.Join(root, "01-x", "mine.go")], "a file the stage must not hold is hidden")
	got, err := os.ReadFile(replace[filepath.Join(root, "01-x", "a.go")])
	require.NoError(t, err)
	assert.Equal(t, string(files["a.go"]), string(got))
	assert.Contains(t, replace, filepath.Join(root, "01-x", "cmd", "server", "main.go"), "a file the folder lacks is added")

	path, err := WriteOverlay(dir, replace)
	require.NoError(t, err)
	var overlay struct{ Replace map[string]string }
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &overlay))
	assert.Equal(t, replace, overlay.Replace)
}

func keys(f Files) []string {
	var out []string
	for k := range f {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
