package main

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGradeExternalServer grades a stdio "server" that exits at once (true):
// every check of lesson 01 fails fast, the verdict sorts the failures by
// rule, and the exit status says so.
func TestGradeExternalServer(t *testing.T) {
	bin, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true command on this system")
	}
	a := newTestApp(courseRoot(t), "")
	assert.Equal(t, 1, a.run([]string{"grade", "--command", bin}), a.errs.String())
	out := a.out.String()
	assert.Contains(t, out, "graded on the command "+bin)
	assert.Contains(t, out, "FAIL STDIO-01 [MUST]")
	assert.Contains(t, out, "Spec rules this server breaks:")
	assert.Contains(t, out, "STDIO-01")
	assert.NotContains(t, out, "Lesson 02", "a command is graded by lesson 01 only")
}

func TestGradeExternalUsage(t *testing.T) {
	for _, args := range [][]string{
		{"grade", "--root", ".", "--url", "http://127.0.0.1:1/mcp"},
		{"grade", "--stateless", "--command", "true"},
		{"grade", "--command", "'unterminated"},
		{"grade", "--command", "true", "--lessons", "02"},
	} {
		a := newTestApp(courseRoot(t), "")
		assert.Equal(t, 2, a.run(args), "%v: %s", args, a.errs.String())
	}
	a := newTestApp(courseRoot(t), "")
	require.Equal(t, 1, a.run([]string{"grade", "--url", "http://127.0.0.1:1/mcp"}))
	assert.Contains(t, a.errs.String(), "nothing answers at http://127.0.0.1:1/mcp")
}
