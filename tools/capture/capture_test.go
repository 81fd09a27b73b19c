package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/tools/courseroot"
	"mcpcourse/tools/docgen"
)

const sample = `FAIL STDIO-01 [MUST] initialize gets an InitializeResult with the same id
  what    the server closed its stdout
  hint    Read one line.
          Then another.
  wire    +0.001s > {"id":1}
          +0.004s < hello
  stderr  notes-server: stopped
  blocks  1 more check fails because of this; it is graded again once this one passes:
          STDIO-02

FAIL STDIO-09 [MUST] an unknown tool gets a -32602 error
  what    wrong code

Lesson 01 · stdio, graded on your code (./01-stdio/cmd/server)
  ✗ STDIO-01  step 1  initialize
  ✗ STDIO-02  step 1  negotiate  (blocked by STDIO-01)
0 of 2 checks pass. Next: STDIO-01, step 1 of lessons/01-stdio.md. Run it alone: go test ./grader -run 'Lesson01/STDIO-01'
--- FAIL: TestLesson01 (0.18s)
    --- FAIL: TestLesson01/STDIO-09_x (0.01s)
    --- FAIL: TestLesson01/STDIO-01_x (0.00s)
FAIL
FAIL	mcpcourse/grader	0.216s
FAIL
`

func TestRenderKeepsWhatTheMarkerAsks(t *testing.T) {
	m, err := parseMarker("<!-- capture lesson=01 target=variant:x show=STDIO-01 drop=wire,stderr summary=last gotest=no -->")
	require.NoError(t, err)
	assert.Equal(t, `FAIL STDIO-01 [MUST] initialize gets an InitializeResult with the same id
  what    the server closed its stdout
  hint    Read one line.
          Then another.
…
  blocks  1 more check fails because of this; it is graded again once this one passes:
          STDIO-02

…
0 of 2 checks pass. Next: STDIO-01, step 1 of lessons/01-stdio.md. Run it alone: go test ./grader -run 'Lesson01/STDIO-01'
`, m.render(sample))
	assert.Equal(t, "GRADER_VARIANT=x go test -count=1 ./grader -run Lesson01", m.command())

	whole, err := parseMarker("<!-- capture lesson=01 -->")
	require.NoError(t, err)
	assert.Equal(t, sample, whole.render(sample), "by default everything is kept")
}

func TestMarkersAreChecked(t *testing.T) {
	for _, bad := range []string{
		"<!-- capture lesson=99 -->",
		"<!-- capture lesson=01 target=mine -->",
		"<!-- capture lesson=01 summary=half -->",
		"<!-- capture lesson=01 colour=red -->",
		"<!-- capture lesson=01 loud -->",
	} {
		_, err := parseMarker(bad)
		assert.Error(t, err, bad)
	}
}

func TestNormaliseIgnoresWhatChangesBetweenRuns(t *testing.T) {
	// Another run of the same grade: other timings, the wire lines of a
	// failure in another order, the subtests finished in another order.
	other := sample
	for _, edit := range [][2]string{
		{"  wire    +0.001s > {\"id\":1}\n          +0.004s < hello\n",
			"  wire    +0.002s < hello\n          +0.003s > {\"id\":1}\n"},
		{"--- FAIL: TestLesson01 (0.18s)", "--- FAIL: TestLesson01 (1.18s)"},
		{"    --- FAIL: TestLesson01/STDIO-09_x (0.01s)\n    --- FAIL: TestLesson01/STDIO-01_x (0.00s)\n",
			"    --- FAIL: TestLesson01/STDIO-01_x (0.00s)\n    --- FAIL: TestLesson01/STDIO-09_x (0.02s)\n"},
		{"mcpcourse/grader\t0.216s", "mcpcourse/grader\t1.216s"},
	} {
		require.Contains(t, other, edit[0])
		other = strings.Replace(other, edit[0], edit[1], 1)
	}
	assert.Equal(t, normalise(sample), normalise(other))
	assert.NotEqual(t, normalise(sample), normalise(other+"x"))
	assert.Equal(t, "listening at http://127.0.0.1:<port>/mcp, session <id>, <tmp>",
		normalise("listening at http://127.0.0.1:41234/mcp, session 0123456789abcdef0123456789abcdef, /tmp/mcp-course-grader-1/x"))
}

func TestReadDocRoundTrips(t *testing.T) {
	text := "# A lesson\n\nRun it:\n\n<!-- capture lesson=01 summary=none -->\n```\nold output\n```\n\nThe end.\n"
	path := filepath.Join(t.TempDir(), "lesson.md")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	d, err := readDoc(path)
	require.NoError(t, err)
	require.Len(t, d.blocks, 1)
	assert.Equal(t, "old output\n", d.blocks[0].content)
	assert.Equal(t, 5, d.blocks[0].line)
	assert.Equal(t, text, d.text())
	d.blocks[0].content = "new output\n"
	assert.Equal(t, "# A lesson\n\nRun it:\n\n<!-- capture lesson=01 summary=none -->\n```\nnew output\n```\n\nThe end.\n", d.text())

	require.NoError(t, os.WriteFile(path, []byte("<!-- capture lesson=01 -->\nno fence\n"), 0o644))
	_, err = readDoc(path)
	assert.ErrorContains(t, err, "must be followed by a fenced code block")
}

// TestGeneratedPartsAreCurrent holds the parts of the course's texts that
// list or count checks to the lessons' descriptions: the tables of
// grader/CLAIMS.md and the deep dives, EXTERNAL.md's lists, the "make it
// pass" lists and the counts in the prose. It runs no grader.
func TestGeneratedPartsAreCurrent(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	stale, err := docgen.Check(root)
	require.NoError(t, err)
	for _, s := range stale {
		t.Errorf("%s\nRegenerate it with: go run ./tools/capture -write (or, without the grader runs: go run ./tools/capture -docs -write)", strings.Join(s.Diffs, "\n"))
	}
}

func TestMergeKeepsTheLinesThatDidNotChange(t *testing.T) {
	old := `FAIL HTTP-01 [MUST] POST initialize gets 200
  what    no answer within 2s
  repro   curl -s http://127.0.0.1:41234/mcp
  wire    +0.001s > POST /mcp
          +0.004s < HTTP 501
  stderr  listening on http://127.0.0.1:41234/mcp, session 0123456789abcdef0123456789abcdef

0 of 2 checks pass.
--- FAIL: TestLesson02 (0.18s)
    --- FAIL: TestLesson02/HTTP-02_x (0.01s)
    --- FAIL: TestLesson02/HTTP-01_x (0.00s)
FAIL
`
	// Another run: other ports, ids and timings everywhere, the wire lines
	// and go test's lines in another order, and one real change.
	fresh := `FAIL HTTP-01 [MUST] POST initialize gets 200
  what    no answer within 3s, and then a reset
  repro   curl -s http://127.0.0.1:50000/mcp
  wire    +0.004s < HTTP 501
          +0.002s > POST /mcp
  stderr  listening on http://127.0.0.1:50000/mcp, session fedcba9876543210fedcba9876543210

0 of 2 checks pass.
--- FAIL: TestLesson02 (1.02s)
    --- FAIL: TestLesson02/HTTP-01_x (0.00s)
    --- FAIL: TestLesson02/HTTP-02_x (0.03s)
FAIL
`
	got := merge(old, fresh)
	assert.Equal(t, strings.Replace(old, "no answer within 2s", "no answer within 3s, and then a reset", 1), got,
		"only the line that changed in substance is fresh; every other keeps its old bytes")
	assert.Equal(t, normalise(fresh), normalise(got))

	// Lines that come and go are taken and dropped as they are.
	fresh2 := strings.Replace(fresh, "0 of 2 checks pass.\n", "a new line\n0 of 2 checks pass.\n", 1)
	fresh2 = strings.Replace(fresh2, "  repro   curl -s http://127.0.0.1:50000/mcp\n", "", 1)
	got = merge(old, fresh2)
	assert.Contains(t, got, "a new line\n0 of 2 checks pass.\n--- FAIL: TestLesson02 (0.18s)\n")
	assert.NotContains(t, got, "repro")
	assert.Contains(t, got, "+0.001s > POST /mcp", "the wire field is unchanged once sorted, so it keeps its old bytes")
	assert.Equal(t, normalise(fresh2), normalise(got))
	assert.Equal(t, old, merge(old, old))
}
