package layering

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/tools/courseroot"
)

type pkg struct {
	ImportPath string
	Imports    []string
}

// packages lists every package of the course module with its non-test
// imports.
func packages(t *testing.T) []pkg {
	root, err := courseroot.Find()
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err)
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

func under(path, prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+"/") }

func TestTheLayersImportDownOnly(t *testing.T) {
	for _, p := range packages(t) {
		for _, imp := range p.Imports {
			switch {
			case under(p.ImportPath, "mcpcourse/internal") && (under(imp, "mcpcourse/grader") || under(imp, "mcpcourse/tools")):
				t.Errorf("%s is code given to learners, and imports %s: the given code imports nothing of the grader or the tools", p.ImportPath, imp)
			case under(p.ImportPath, "mcpcourse/grader") && p.ImportPath != "mcpcourse/grader" && imp == "mcpcourse/grader":
				t.Errorf("%s imports its parent, package grader", p.ImportPath)
			case isStage(p.ImportPath) && (under(imp, "mcpcourse/grader") || under(imp, "mcpcourse/tools")):
				t.Errorf("the stage %s imports %s: a stage builds on the given code and the stages before it only", p.ImportPath, imp)
			}
		}
	}
}

// isStage reports whether path is a stage's package, a starter's or the
// reference's.
func isStage(path string) bool {
	rest := strings.TrimPrefix(strings.TrimPrefix(path, "mcpcourse/"), "solutions/")
	return len(rest) > 3 && rest[0] >= '0' && rest[0] <= '9' && rest[1] >= '0' && rest[1] <= '9' && rest[2] == '-'
}

func TestIsStage(t *testing.T) {
	assert.True(t, isStage("mcpcourse/01-stdio"))
	assert.True(t, isStage("mcpcourse/solutions/04-origin/cmd/server"))
	assert.False(t, isStage("mcpcourse/tools/stages"))
	assert.False(t, isStage("mcpcourse/grader"))
}
