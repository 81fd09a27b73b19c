package stages

import (
	"go/format"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const example = `package x

import (
	"errors"
	"fmt"
)

// @step 3: the finished F

// F does it.
func F() error { return fmt.Errorf("done") }

// @was 1: a first F
// | // F does it, roughly.
// | func F() error {
// | 	// @step 2: a nested region of an older version
// | 	x := 2
// | 	// @starter
// | 	// | x := 1
// | 	// @end
// | 	return fmt.Errorf("x=%d", x)
// | }
// @starter
// | // F does it.
// | func F() error {
// | 	// TODO(step 1): do it.
// | 	return errors.New("F is not written yet")
// | }
// @end

func G() int {
	n := 0
	// @step 2: count
	n++
	// @step 4: twice
	n++
	// @end
	// @end

	return n
}
`

func renderAt(t *testing.T, src string, s int) string {
	t.Helper()
	f, err := Parse("x.go", []byte(src))
	require.NoError(t, err)
	out, err := format.Source(f.Render(s))
	require.NoError(t, err, "%s", f.Render(s))
	return string(out)
}

func TestRenderPicksTheVersionOfEachState(t *testing.T) {
	starter := renderAt(t, example, 0)
	assert.Contains(t, starter, "// TODO(step 1): do it.")
	assert.NotContains(t, starter, "n++")
	assert.Contains(t, starter, "n := 0\n\n\treturn n", "no blank lines doubled where a region was")

	one := renderAt(t, example, 1)
	assert.Contains(t, one, "// F does it, roughly.")
	assert.Contains(t, one, "x := 1", "a region nested in an older version")
	assert.NotContains(t, one, "TODO(step 1)")

	two := renderAt(t, example, 2)
	assert.Contains(t, two, "x := 2")
	assert.Equal(t, 1, strings.Count(two, "n++"))

	three := renderAt(t, example, 3)
	assert.Contains(t, three, `return fmt.Errorf("done")`)
	assert.NotContains(t, three, "roughly")

	four := renderAt(t, example, 4)
	assert.Equal(t, 2, strings.Count(four, "n++"))
	for s, text := range []string{starter, one, two, three, four} {
		for _, line := range strings.Split(text, "\n") {
			assert.False(t, IsMarker(line), "state %d holds a marker: %q", s, line)
		}
	}

	f, err := Parse("x.go", []byte(example))
	require.NoError(t, err)
	assert.Equal(t, 4, f.LastStep())
	regions := f.Regions()
	require.Len(t, regions, 4)
	assert.Equal(t, []int{3, 2, 2, 4}, []int{regions[0].Step, regions[1].Step, regions[2].Step, regions[3].Step})
	assert.Contains(t, regions[0].Versions[1].Lines(), "\tx := 1", "Lines reads nested older versions too")
	assert.Contains(t, f.Outside(regions[0]), "func G() int {")
	assert.NotContains(t, f.Outside(regions[0]), "func F() error { return fmt.Errorf(\"done\") }")
}

func TestAFileOfALaterStepIsAbsentBefore(t *testing.T) {
	f, err := Parse("w.go", []byte("// @step 2: all of it\n\npackage x\n\nfunc W() {}\n\n// @end\n"))
	require.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(string(f.Render(1))))
	assert.Contains(t, string(f.Render(2)), "func W() {}")
}

func TestParseRefusesMalformedRegions(t *testing.T) {
	for name, src := range map[string]string{
		"unclosed":             "package x\n// @step 1: a\nvar a = 1\n",
		"says not what":        "package x\n// @step 1\nvar a = 1\n// @end\n",
		"end outside":          "package x\n// @end\n",
		"was outside":          "package x\n// @was 1\n",
		"older not in stubs":   "package x\n// @step 2: a\nvar a = 2\n// @was 1\nvar a = 1\n// @end\n",
		"older not older":      "package x\n// @step 2: a\nvar a = 2\n// @was 2\n// | var a = 1\n// @end\n",
		"starter not last":     "package x\n// @step 2: a\nvar a = 2\n// @starter\n// | var a = 0\n// @was 1\n// | var a = 1\n// @end\n",
		"was 0":                "package x\n// @step 2: a\nvar a = 2\n// @was 0\n// | var a = 0\n// @end\n",
		"nested not later":     "package x\n// @step 2: a\n// @step 1: b\nvar a = 1\n// @end\n// @end\n",
		"nested outside range": "package x\n// @step 3: a\nvar a = 3\n// @was 1\n// | // @step 3: b\n// | var b = 1\n// | // @end\n// @end\n",
		"nested unprefixed":    "package x\n// @step 3: a\nvar a = 3\n// @was 1\n// | var a = 1\n// @step 2: b\n// @end\n",
	} {
		_, err := Parse("x.go", []byte(src))
		assert.Error(t, err, name)
	}
}

func TestFixImports(t *testing.T) {
	known := map[string]importSpec{
		"errors": {path: "errors"},
		"fmt":    {path: "fmt"},
		"stdio":  {name: "stdio", path: "mcpcourse/01-stdio"},
		"mcp":    {path: "mcpcourse/internal/mcp"},
	}
	fix := func(src string) string {
		t.Helper()
		out, err := fixImports("x.go", []byte(src), known)
		require.NoError(t, err)
		formatted, err := format.Source(out)
		require.NoError(t, err, "%s", out)
		return string(formatted)
	}
	// Unused imports go; one import left is written on one line.
	assert.Equal(t, "package x\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n",
		fix("package x\n\nimport (\n\t\"bytes\"\n\t\"fmt\"\n\n\t\"mcpcourse/internal/mcp\"\n)\n\nvar _ = fmt.Sprint\n"))
	// What a stub uses comes, into the group it belongs to.
	assert.Equal(t, "package x\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n\n\t\"mcpcourse/internal/mcp\"\n)\n\nvar _, _, _ = fmt.Sprint, errors.New, mcp.NewServer\n",
		fix("package x\n\nimport (\n\t\"fmt\"\n\n\t\"mcpcourse/internal/mcp\"\n)\n\nvar _, _, _ = fmt.Sprint, errors.New, mcp.NewServer\n"))
	assert.Equal(t, "package x\n\nimport (\n\t\"fmt\"\n\n\tstdio \"mcpcourse/01-stdio\"\n)\n\nvar _, _ = fmt.Sprint, stdio.Decode\n",
		fix("package x\n\nimport (\n\t\"fmt\"\n)\n\nvar _, _ = fmt.Sprint, stdio.Decode\n"))
	// A single import becomes a block; no import at all gets one.
	assert.Equal(t, "package x\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\nvar _, _ = fmt.Sprint, errors.New\n",
		fix("package x\n\nimport \"fmt\"\n\nvar _, _ = fmt.Sprint, errors.New\n"))
	assert.Equal(t, "package x\n\nimport \"errors\"\n\nvar _ = errors.New\n", fix("package x\n\nvar _ = errors.New\n"))
	// A local name is not a package.
	assert.Equal(t, "package x\n\nfunc f(errors struct{ New int }) int { return errors.New }\n",
		fix("package x\n\nfunc f(errors struct{ New int }) int { return errors.New }\n"))
}
