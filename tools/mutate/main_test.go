package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/tools/courseroot"
	"mcpcourse/tools/mutate/mutant"
)

func TestEveryStageHasMutantsWithUniqueIDs(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, l := range grader.Lessons() {
		ms, err := stageMutants(root, l.Stage)
		require.NoError(t, err)
		assert.NotEmpty(t, ms, "stage %s has no mutants", l.Stage)
		for _, m := range ms {
			assert.False(t, seen[m.ID], "two mutants are called %s", m.ID)
			seen[m.ID] = true
			assert.False(t, strings.HasSuffix(m.File, "_test.go"), "a test file is mutated: %s", m.File)
			assert.True(t, strings.HasPrefix(m.File, "solutions/"+l.Stage+"/"), "%s is not the stage's own code", m.File)
		}
	}
}

func TestTriageListsOnlyMutantsThatExist(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	triage, err := readTriage(filepath.Join(root, triagePath))
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, l := range grader.Lessons() {
		ms, err := stageMutants(root, l.Stage)
		require.NoError(t, err)
		for _, m := range ms {
			ids[m.ID] = true
		}
	}
	for id := range triage {
		assert.True(t, ids[id], "%s lists %s, which is no longer a mutant of the reference (its code changed): triage it again", triagePath, id)
	}
}

func TestReadTriageWantsAReason(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "eq.txt")
	require.NoError(t, os.WriteFile(path, []byte("# comment\n\na.go:F:negate:1234  no client sees a log line\nb.go:G:drop-stmt:5678\tonly timing\n"), 0o644))
	got, err := readTriage(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a.go:F:negate:1234": "no client sees a log line", "b.go:G:drop-stmt:5678": "only timing"}, got)

	require.NoError(t, os.WriteFile(path, []byte("a.go:F:negate:1234\n"), 0o644))
	_, err = readTriage(path)
	assert.Error(t, err, "an entry without a reason")
}

func TestPickIsFixedAndSpread(t *testing.T) {
	var jobs []*job
	for i := 0; i < 100; i++ {
		jobs = append(jobs, &job{m: mutant.Mutant{Line: i}})
	}
	a, b := pick(jobs, 10), pick(jobs, 10)
	require.Len(t, a, 10)
	assert.Equal(t, a, b)
	assert.Equal(t, 0, a[0].m.Line)
	assert.Equal(t, 90, a[9].m.Line)
	assert.Len(t, pick(jobs[:3], 10), 3)
}

func TestScoreLeavesOutWhatDoesNotCount(t *testing.T) {
	c := Counts{Mutants: 10, Killed: 6, TimedOut: 1, Equivalent: 1, NoCompile: 1, Survived: 1}
	assert.InDelta(t, 7.0/8.0, c.Score(), 1e-9)
}

func TestReportIsTheStoredResults(t *testing.T) {
	root, err := courseroot.Find()
	require.NoError(t, err)
	stored, err := readStored(filepath.Join(root, "grader", "mutation"))
	require.NoError(t, err)
	if len(stored) == 0 {
		t.Skip("no sweep is stored yet (go run ./tools/mutate -all -write)")
	}
	got, err := os.ReadFile(filepath.Join(root, reportPath))
	require.NoError(t, err)
	assert.Equal(t, render(stored), string(got), "%s is not the stored results': run go run ./tools/mutate -report", reportPath)
}

func TestRegradedMovesSurvivorsOnly(t *testing.T) {
	c := Counts{Mutants: 10, Killed: 6, Equivalent: 1, NoCompile: 1, Survived: 2}
	c.regraded(Counts{Mutants: 2, Killed: 1, Equivalent: 1})
	assert.Equal(t, Counts{Mutants: 10, Killed: 7, Equivalent: 2, NoCompile: 1, Survived: 0}, c)
}
