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
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/internal/testflag"
	"mcpcourse/grader/variants"
	"mcpcourse/tools/courseroot"
	"mcpcourse/tools/starters"
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Grade two variants at once (each runs its checks in parallel too),
	// but not more: a loaded machine would make timing checks flaky.
	testflag.DefaultParallel(6)
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
	root, err := courseroot.Find()
	require.NoError(t, err)
	return grader.Options{Root: root, Base: "."}
}

// grade builds the lesson for o and runs all its checks. The checks this
// machine cannot run are left out (see unrun).
func grade(t *testing.T, u *unrun, l *check.Lesson, o grader.Options) map[string]check.Result {
	t.Helper()
	target, err := grader.Prepare(context.Background(), l, o)
	require.NoError(t, err, "building %s", o.Package(l))
	out := map[string]check.Result{}
	for _, r := range u.runnable(grader.RunAll(context.Background(), l, target)) {
		// Only an external server may lack what a check needs: a course
		// server that makes a check skip would hide a failure as a skip.
		require.NotEqual(t, check.Skip, r.Status, "%s was skipped on a server the grader built: %s", r.Check.ID, r.Skipped)
		out[r.Check.ID] = r
	}
	return out
}

// unrun collects, for one proof, the checks this machine could not run
// (check.Result.CannotRun: a network namespace needs root). A proof is
// made for the checks that ran; for the others it cannot be, so it never
// passes: in CI, where every check must run, it fails, and elsewhere it is
// marked skipped, naming them, once the rest is proven (a failure of the
// rest stays a failure).
type unrun struct {
	t   *testing.T
	ids map[string]string // check id → why it could not run
}

func newUnrun(t *testing.T) *unrun { return &unrun{t: t, ids: map[string]string{}} }

// runnable returns results without the checks that could not run, and
// notes those.
func (u *unrun) runnable(results []check.Result) []check.Result {
	var kept []check.Result
	for _, r := range results {
		if r.Status == check.Skip && r.CannotRun {
			u.ids[r.Check.ID] = r.Skipped
			continue
		}
		kept = append(kept, r)
	}
	return kept
}

// has reports whether the check id could not run.
func (u *unrun) has(id string) bool {
	_, ok := u.ids[id]
	return ok
}

// end fails or skips the proof for the checks that could not run; defer it.
func (u *unrun) end() {
	if len(u.ids) == 0 {
		return
	}
	var lines []string
	for id, why := range u.ids {
		lines = append(lines, id+": "+why)
	}
	sort.Strings(lines)
	if os.Getenv("COURSE_CI") == "1" {
		u.t.Errorf("CI must run every check, and these could not run here:\n%s", strings.Join(lines, "\n"))
		return
	}
	if !u.t.Failed() {
		u.t.Skipf("proven for every check that ran; these could not run on this machine, so the proof is not made for them:\n%s", strings.Join(lines, "\n"))
	}
}

func TestReferencePassesEveryCheckUnderRace(t *testing.T) {
	for _, l := range grader.Lessons() {
		t.Run("Lesson"+l.Number, func(t *testing.T) {
			o := options(t)
			o.Base, o.Race = "solutions", true
			u := newUnrun(t)
			defer u.end()
			for run := 1; run <= referenceRuns; run++ {
				for id, r := range grade(t, u, l, o) {
					assert.Equal(t, check.Pass, r.Status, "run %d: the reference fails %s:\n%s", run, id, r.Report)
				}
			}
		})
	}
}

// TestStarterFailsEveryCheckThatNeedsWork grades the starters as the course
// ships them. In a learner's clone the stage folders hold the learner's
// work, so the shipped starters are read back from git (tools/starters):
// the learner's code is never what this test grades.
func TestStarterFailsEveryCheckThatNeedsWork(t *testing.T) {
	for _, l := range grader.Lessons() {
		t.Run("Lesson"+l.Number, func(t *testing.T) {
			o := options(t)
			o.Pristine = true
			u := newUnrun(t)
			defer u.end()
			for id, r := range grade(t, u, l, o) {
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
	all := variants.All()
	graded := make([]variantGrade, len(all))
	// Build every variant first, one go build per CPU: building is what
	// keeps the CPUs busy. Then grade several at once, while nothing else
	// competes for the CPUs: checks mostly wait on their servers, but some
	// of them judge timing.
	targets := make([]check.Target, len(all))
	errs := make([]error, len(all))
	began := time.Now()
	inParallel(len(all), runtime.NumCPU(), func(i int) {
		l := grader.LessonByNumber(all[i].Lesson)
		if l == nil {
			errs[i] = fmt.Errorf("variant %s names lesson %s, which does not exist", all[i].Name, all[i].Lesson)
			return
		}
		o := options(t)
		o.Base, o.Variant = "solutions", all[i].Name
		targets[i], errs[i] = grader.Prepare(context.Background(), l, o)
	})
	t.Logf("built %d variants in %v", len(all), time.Since(began).Round(time.Millisecond))
	began = time.Now()
	inParallel(len(all), gradeParallel(), func(i int) {
		if errs[i] == nil {
			graded[i] = gradeVariant(all[i], targets[i])
		}
	})
	t.Logf("graded them, %d at a time, in %v", gradeParallel(), time.Since(began).Round(time.Millisecond))
	for i, v := range all {
		i, v := i, v
		t.Run(v.Name, func(t *testing.T) {
			require.NoError(t, errs[i], "building variant %s", v.Name)
			g := graded[i]
			u := newUnrun(t)
			defer u.end()
			g.results = u.runnable(g.results)
			var want []string
			for _, id := range v.Kills {
				if !u.has(id) {
					want = append(want, id)
				}
			}
			sort.Strings(want)
			for _, r := range g.results {
				assert.NotEqual(t, check.Skip, r.Status, "%s was skipped on a variant the grader built: %s", r.Check.ID, r.Skipped)
				if r.Status != check.Pass {
					assert.Contains(t, r.Report, "hint", "%s's report has no hint", r.Check.ID)
					assert.Contains(t, r.Report, "MCP ", "%s's report cites no spec", r.Check.ID)
				}
			}
			if g.attempts > 1 {
				t.Logf("the racy variant %s was graded %d times", v.Name, g.attempts)
			}
			assert.Equal(t, want, g.failed, "variant %s (%s) should fail exactly the checks it names.\nReports:\n%s", v.Name, v.Mistake, g.reports)
		})
	}
}

// variantGrade is what grading a variant found.
type variantGrade struct {
	results  []check.Result
	failed   []string // ids of the checks that did not pass, sorted
	reports  string
	attempts int
}

// gradeVariant runs every check of v's lesson against target. A racy
// variant is graded again, up to racyAttempts times, until it fails
// exactly its Kills: until it is caught, and without a chance failure of
// another check (a failure that repeats in every attempt still shows).
func gradeVariant(v *variants.Variant, target check.Target) variantGrade {
	l := grader.LessonByNumber(v.Lesson)
	var g variantGrade
	for g.attempts = 1; ; g.attempts++ {
		g.results = grader.RunAll(context.Background(), l, target)
		g.failed, g.reports = nil, ""
		for _, r := range g.results {
			if r.Status != check.Pass && !r.CannotRun { // what could not run is neither caught nor missed (see unrun)
				g.failed = append(g.failed, r.Check.ID)
				g.reports += r.Report + "\n"
			}
		}
		sort.Strings(g.failed)
		g.failed = slices.DeleteFunc(g.failed, func(id string) bool { return slices.Contains(v.MayKill, id) })
		if !v.Racy || slices.Equal(g.failed, ranKills(v, g.results)) || g.attempts == racyAttempts {
			return g
		}
	}
}

// ranKills is v's Kills that could run on its target, sorted: what a
// grading that caught it exactly failed.
func ranKills(v *variants.Variant, results []check.Result) []string {
	var ids []string
	for _, r := range results {
		if slices.Contains(v.Kills, r.Check.ID) && !r.CannotRun {
			ids = append(ids, r.Check.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// gradeParallel is how many variants are graded at once: PROOF_PARALLEL,
// or four per CPU. On two CPUs, eight at once took the grading from 42 s
// (four at once) to 23 s; twelve at once gained nothing more.
func gradeParallel() int {
	if n, err := strconv.Atoi(os.Getenv("PROOF_PARALLEL")); err == nil && n > 0 {
		return n
	}
	// Two variants a core: lesson 01's checks of 16 MiB lines and
	// thousands of requests run several at a time in each grade already.
	return 2 * runtime.NumCPU()
}

// inParallel calls f(0) … f(n-1), at most limit at a time.
func inParallel(n, limit int, f func(i int)) {
	sem := make(chan struct{}, max(1, limit))
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}(i)
	}
	wg.Wait()
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
		for _, c := range l.Checks() {
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

// TestChecksAreWellFormed holds every lesson's description and every
// variant to what the grader and the generated texts rely on (see
// check.ValidateCourse).
func TestChecksAreWellFormed(t *testing.T) {
	require.NoError(t, check.ValidateCourse(grader.Lessons()))
	ids := map[string]bool{}
	for _, l := range grader.Lessons() {
		for _, c := range l.Checks() {
			ids[c.ID] = true
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
