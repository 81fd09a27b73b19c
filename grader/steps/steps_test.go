package steps

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
)

func courseRoot(t *testing.T) string {
	root, err := grader.ModuleRoot()
	require.NoError(t, err)
	return root
}

// TestEveryStateApplies makes every lesson's state after every step, and
// parses its Go files: each undo still finds its text in the reference, and
// leaves a TODO for the step it takes out. (The proof builds and grades
// them.)
func TestEveryStateApplies(t *testing.T) {
	root := courseRoot(t)
	require.Len(t, All(), len(grader.Lessons()))
	for _, l := range All() {
		gl := grader.LessonByNumber(l.Number)
		require.NotNil(t, gl, l.Number)
		last := 0
		for _, c := range gl.Checks() {
			last = max(last, c.Step)
		}
		assert.Equal(t, last, l.Steps, "lesson %s's last step", l.Number)
		for _, u := range l.Undos {
			assert.True(t, u.Step > 1 && u.Step <= l.Steps, "lesson %s undoes step %d: only steps 2 to %d have a state before them", l.Number, u.Step, l.Steps)
			for _, e := range u.Edits {
				assert.Contains(t, e.New, "TODO(step "+itoa(u.Step)+")", "lesson %s: an undo of step %d must say where the step's work goes", l.Number, u.Step)
			}
		}
		for n := 1; n <= l.Steps; n++ {
			files, err := l.Files(root, n)
			require.NoError(t, err, "lesson %s after step %d", l.Number, n)
			for path, content := range files {
				if strings.HasSuffix(path, ".go") {
					_, err := parser.ParseFile(token.NewFileSet(), path, content, 0)
					assert.NoError(t, err, "lesson %s after step %d: %s", l.Number, n, path)
					assert.NotContains(t, string(content), "solutions/", "lesson %s after step %d: %s still points at the reference", l.Number, n, path)
				}
				assert.False(t, strings.HasSuffix(path, "_test.go"), "a state part-way through a lesson has no tests of the reference")
			}
		}
		_, err := l.Files(root, 0)
		assert.Error(t, err)
	}
}

func itoa(n int) string { return string(rune('0' + n)) }
