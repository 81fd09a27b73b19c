// Package proof proves that the grader works: the reference passes every
// check, the untouched starter fails every check that needs the learner's
// work, and every check is failed by at least one known-bad variant, which
// fails exactly the checks it names and no others.
//
// It runs in CI through the course's own test command; it is slow, because it
// builds and grades every variant.
package proof

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/internal/check"
	"mcpcourse/grader/internal/testflag"
	"mcpcourse/grader/variants"
	"mcpcourse/internal/starters"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Grade two variants at once (each runs its checks in parallel too),
	// but not more: a loaded machine would make timing checks flaky.
	testflag.DefaultParallel(2)
	code := m.Run()
	build.Cleanup()
	os.Exit(code)
}

// referenceRuns is how many times the reference is graded under -race:
// a check that passes only sometimes is a flaky check, and a flaky check
// teaches learners to ignore the grader.
const referenceRuns = 3

func options(t *testing.T) grader.Options {
	t.Helper()
	root, err := build.ModuleRoot()
	require.NoError(t, err)
	return grader.Options{Root: root, Base: "."}
}

// grade builds the lesson for o and runs all its checks.
func grade(t *testing.T, l *grader.Lesson, o grader.Options) map[string]check.Result {
	t.Helper()
	target, err := grader.Prepare(context.Background(), l, o)
	require.NoError(t, err, "building %s", o.Package(l))
	out := map[string]check.Result{}
	for _, r := range grader.RunAll(context.Background(), l, target) {
		out[r.Check.ID] = r
	}
	return out
}

func TestReferencePassesEveryCheckUnderRace(t *testing.T) {
	for _, l := range grader.Lessons() {
		t.Run("Lesson"+l.Number, func(t *testing.T) {
			o := options(t)
			o.Base, o.Race = "solutions", true
			for run := 1; run <= referenceRuns; run++ {
				for id, r := range grade(t, l, o) {
					assert.Equal(t, check.Pass, r.Status, "run %d: the reference fails %s:\n%s", run, id, r.Report)
				}
			}
		})
	}
}

// TestStarterFailsEveryCheckThatNeedsWork grades the starters as the course
// ships them. In a learner's clone the stage folders hold the learner's
// work, so the shipped starters are read back from git (internal/starters):
// the learner's code is never what this test grades.
func TestStarterFailsEveryCheckThatNeedsWork(t *testing.T) {
	for _, l := range grader.Lessons() {
		t.Run("Lesson"+l.Number, func(t *testing.T) {
			o := options(t)
			o.Pristine = true
			for id, r := range grade(t, l, o) {
				if reason := r.Check.StarterMayPass; reason != "" {
					t.Logf("%s may pass on the starter: %s", id, reason)
					continue
				}
				assert.NotEqual(t, check.Pass, r.Status, "the untouched starter passes %s, a check that needs the learner's work", id)
			}
		})
	}
}

func TestEachVariantFailsExactlyTheChecksItNames(t *testing.T) {
	for _, v := range variants.All() {
		v := v
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			l := grader.LessonByNumber(v.Lesson)
			require.NotNil(t, l, "variant %s names lesson %s, which does not exist", v.Name, v.Lesson)
			o := options(t)
			o.Base, o.Variant = "solutions", v.Name
			want := append([]string(nil), v.Kills...)
			sort.Strings(want)

			attempts := 1
			if v.Racy {
				attempts = racyAttempts
			}
			var failed []string
			var reports strings.Builder
			for attempt := 1; attempt <= attempts; attempt++ {
				failed, reports = nil, strings.Builder{}
				results := grade(t, l, o)
				for id, r := range results {
					if r.Status != check.Pass {
						failed = append(failed, id)
						fmt.Fprintf(&reports, "%s\n", r.Report)
						assert.Contains(t, r.Report, "hint", "%s's report has no hint", id)
						assert.Contains(t, r.Report, "MCP ", "%s's report cites no spec", id)
					}
				}
				sort.Strings(failed)
				if len(failed) > 0 || attempt == attempts {
					break // caught, or out of attempts; judge this run
				}
				t.Logf("attempt %d: the racy variant %s was not caught this time; grading it again", attempt, v.Name)
			}
			assert.Equal(t, want, failed, "variant %s (%s) should fail exactly the checks it names.\nReports:\n%s", v.Name, v.Mistake, reports.String())
		})
	}
}

// racyAttempts is how many times the proof grades a Racy variant before it
// gives up waiting for the race to show.
const racyAttempts = 5

func TestEveryCheckIsKilledByAVariant(t *testing.T) {
	killed := map[string]bool{}
	for _, v := range variants.All() {
		for _, id := range v.Kills {
			killed[v.Lesson+"/"+id] = true
		}
	}
	for _, l := range grader.Lessons() {
		for _, c := range l.Checks {
			assert.True(t, killed[l.Number+"/"+c.ID], "no variant fails %s: a check that cannot fail is a defect", c.ID)
		}
	}
}

// TestStartersHaveTheReferenceAPI compares the exported API of each starter
// with its reference, as go doc prints it: the two must be interchangeable,
// because each stage imports the one before.
func TestStartersHaveTheReferenceAPI(t *testing.T) {
	o := options(t)
	if changes, err := starters.Changes(o.Root); err != nil || len(changes) > 0 {
		t.Skipf("the stage folders differ from the shipped starters (%s), so their API is the learner's: "+
			"this proof compares the shipped starters only, on a clean clone", describeChanges(changes, err))
	}
	api := func(pkg string) string {
		cmd := exec.Command("go", "doc", "-all", pkg)
		cmd.Dir = o.Root
		out, err := cmd.Output()
		require.NoError(t, err, "go doc %s", pkg)
		var decls []string
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "func ") || strings.HasPrefix(line, "type ") || strings.HasPrefix(line, "const ") ||
				strings.HasPrefix(line, "var ") || (strings.HasPrefix(line, "\t") && len(line) > 1 && line[1] >= 'A' && line[1] <= 'Z') {
				decls = append(decls, line)
			}
		}
		return strings.Join(decls, "\n")
	}
	for _, l := range grader.Lessons() {
		assert.Equal(t, api("./solutions/"+l.Stage), api("./"+l.Stage), "the starter %s and its reference differ in their exported API", l.Stage)
	}
}

func describeChanges(changes []starters.Change, err error) string {
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, c := range changes {
		parts = append(parts, c.Kind+" "+c.Path)
	}
	if len(parts) > 4 {
		parts = append(parts[:4], fmt.Sprintf("and %d more", len(parts)-4))
	}
	return strings.Join(parts, ", ")
}

func TestChecksAreWellFormed(t *testing.T) {
	ids := map[string]bool{}
	for _, l := range grader.Lessons() {
		for _, c := range l.Checks {
			assert.False(t, ids[c.ID], "duplicate check id %s", c.ID)
			ids[c.ID] = true
			assert.NotEmpty(t, c.Title, c.ID)
			assert.NotEmpty(t, c.Hint, "%s has no hint", c.ID)
			assert.NotEmpty(t, c.Spec.Rev, "%s cites no spec revision", c.ID)
			assert.NotEmpty(t, c.Spec.Section, "%s cites no spec section", c.ID)
			assert.NotZero(t, c.Step, "%s names no lesson step", c.ID)
			assert.Positive(t, c.Budget, "%s has no budget", c.ID)
			assert.Contains(t, []check.Severity{check.Must, check.Should}, c.Severity, c.ID)
			assert.NotNil(t, c.Run, c.ID)
		}
	}
	for _, v := range variants.All() {
		assert.NotEmpty(t, v.Mistake, v.Name)
		assert.NotEmpty(t, v.Kills, "variant %s names no check it fails", v.Name)
		for _, id := range v.Kills {
			assert.True(t, ids[id], "variant %s names an unknown check %s", v.Name, id)
		}
	}
}
