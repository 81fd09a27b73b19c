package proof

import (
	"context"
	"regexp"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/proc"
	"mcpcourse/grader/lesson01"
	"mcpcourse/grader/lesson02"
	"mcpcourse/grader/lesson03"
	"mcpcourse/grader/lesson04"
	"mcpcourse/grader/variants"
)

// The external-server mode grades a server the grader did not build
// (grader/EXTERNAL.md). These tests grade the reference, and known-bad
// variants of it, through that mode, as an outsider's server would be: the
// verdicts must be the built mode's for every check that applies.

// courseAllowlist is what lesson 04's checks start the reference with
// (grader's allowArgs), as a server at a URL claims it.
var courseAllowlist = []string{"https://*.example.com", "http://localhost:*", "vscode-webview://*", "https://mcp.test:8443"}

// externalRun is one external grading: a lesson, how its server starts, and
// what the grader is told about it.
type externalRun struct {
	name    string
	lesson  *check.Lesson
	variant string   // a variant of the reference, or ""
	args    []string // for an HTTP server, beyond -addr
	opts    grader.Options
}

// gradeExternally builds the run's server the way Prepare builds the
// reference, runs it (over HTTP: starts it, and stops it after), and grades
// the lesson on it through the external mode.
func gradeExternally(t *testing.T, run externalRun) []check.Result {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := options(t)
	o.Base, o.Variant = "solutions", run.variant
	built, err := grader.Prepare(ctx, run.lesson, o)
	require.NoError(t, err, "%s: building", run.name)
	opts := run.opts
	if run.lesson.Transport == check.Stdio {
		opts.Command = []string{built.Binary}
	} else {
		p, err := proc.Start(ctx, built.Binary, append([]string{"-addr", "127.0.0.1:0"}, run.args...)...)
		require.NoError(t, err)
		defer p.Kill()
		listening := regexp.MustCompile(`listening on (http://\S+)`)
		deadline := time.Now().Add(10 * time.Second)
		for opts.URL == "" && time.Now().Before(deadline) {
			if m := listening.FindStringSubmatch(p.Stderr()); m != nil {
				opts.URL = m[1]
			}
			time.Sleep(20 * time.Millisecond)
		}
		require.NotEmpty(t, opts.URL, "%s: the server never said where it listens:\n%s", run.name, p.Stderr())
	}
	target, err := grader.Prepare(ctx, run.lesson, opts)
	require.NoError(t, err, "%s", run.name)
	require.True(t, target.External())
	return grader.RunAll(ctx, run.lesson, target)
}

// inParallelT runs the runs at once (grading mostly waits on servers), and
// returns their results in order.
func inParallelT(t *testing.T, runs []externalRun) [][]check.Result {
	out := make([][]check.Result, len(runs))
	var wg sync.WaitGroup
	for i, run := range runs {
		wg.Add(1)
		go func(i int, run externalRun) {
			defer wg.Done()
			out[i] = gradeExternally(t, run)
		}(i, run)
	}
	wg.Wait()
	return out
}

// TestExternalModeGradesTheReference grades each stage of the reference as
// an external server: lesson 01 through its command, lessons 02-04 through
// a URL, with sessions and without. Every check that applies passes, as it
// does in the built mode (TestReferencePassesEveryCheckUnderRace), and a
// check is skipped only for a need the server cannot meet by its nature
// (a flag of the course's servers, a restart, SIGTERM to a server someone
// else started, the other mode): the reference offers every optional
// feature a check may find missing on an outsider's server (the GET
// stream, event ids, the history tool), so nothing is skipped at run time.
func TestExternalModeGradesTheReference(t *testing.T) {
	stateless := grader.Options{Stateless: true}
	runs := []externalRun{
		{name: "lesson 01, command", lesson: lesson01.Lesson},
		{name: "lesson 02, URL", lesson: lesson02.Lesson},
		{name: "lesson 02, URL, stateless", lesson: lesson02.Lesson, args: []string{"-stateless"}, opts: stateless},
		{name: "lesson 03, URL", lesson: lesson03.Lesson},
		{name: "lesson 03, URL, stateless", lesson: lesson03.Lesson, args: []string{"-stateless"}, opts: stateless},
		{name: "lesson 04, URL, the course's allowlist", lesson: lesson04.Lesson,
			args: []string{"-allow-origin", "https://*.example.com,http://localhost:*", "-allow-origin", "vscode-webview://*,https://mcp.test:8443"},
			opts: grader.Options{AllowOrigins: courseAllowlist}},
	}
	applied := map[string]bool{}
	for i, results := range inParallelT(t, runs) {
		run := runs[i]
		target := check.Target{URL: "http://external", Command: run.opts.Command, Stateless: run.opts.Stateless, AllowOrigins: run.opts.AllowOrigins}
		if run.lesson.Transport == check.Stdio {
			target = check.Target{Command: []string{"external"}}
		}
		for _, r := range results {
			switch r.Status {
			case check.Pass:
				applied[r.Check.ID] = true
			case check.Skip:
				assert.Equal(t, target.Unmet(r.Check.Needs), r.Skipped,
					"%s: %s was skipped at run time, for a feature the reference has", run.name, r.Check.ID)
			default:
				assert.Failf(t, "a check fails on the reference graded externally", "%s: %s\n%s", run.name, r.Check.ID, r.Report)
			}
		}
	}
	// Most of the course applies to an outsider's server: guard that the
	// needs stay honest, and do not creep into skipping what could run.
	// (Three fifths, not two thirds, since the checks that test a limit
	// at its flag's edges, -max-body, -session-timeout, -debug's counters,
	// can only run where the flag exists.)
	n := 0
	for _, l := range grader.Lessons() {
		n += len(l.Checks())
	}
	assert.Greater(t, len(applied), n*3/5, "only %d of %d checks apply to the reference graded externally", len(applied), n)
}

// TestExternalModeCatchesVariants grades known-bad variants of the
// reference as external servers: each fails exactly the checks it names
// that apply there, as in the built mode, and the verdict says whose rule
// the failure breaks.
func TestExternalModeCatchesVariants(t *testing.T) {
	runs := []externalRun{
		{name: "answers-unknown-notifications, command", lesson: lesson01.Lesson, variant: "answers-unknown-notifications"},
		{name: "unknown-method-is-an-http-error, URL", lesson: lesson02.Lesson, variant: "unknown-method-is-an-http-error"},
		{name: "missing-session-gets-200, URL", lesson: lesson02.Lesson, variant: "missing-session-gets-200"},
		{name: "replay-ignores-the-stream, URL", lesson: lesson03.Lesson, variant: "replay-ignores-the-stream"},
	}
	wantRule := map[string]check.Rule{"STDIO-07": check.SpecRule, "HTTP-08": check.SpecRule, "HTTP-11": check.CourseRule,
		"SSE-21": check.SpecRule, "SSE-22": check.SpecRule}
	for i, results := range inParallelT(t, runs) {
		run := runs[i]
		v := variants.Lookup(run.lesson.Number, run.variant)
		require.NotNil(t, v, run.variant)
		var failed []string
		for _, r := range results {
			switch r.Status {
			case check.Fail:
				failed = append(failed, r.Check.ID)
				if want, ok := wantRule[r.Check.ID]; ok {
					assert.Equal(t, want, r.Rule, "%s: %s's failure is a %s rule's:\n%s", run.name, r.Check.ID, want, r.Report)
				}
			case check.Warn:
				failed = append(failed, r.Check.ID)
			}
		}
		sort.Strings(failed)
		// The checks it names that apply there: a check an external
		// server cannot meet the needs of is skipped, not failed.
		target := check.Target{URL: "http://external", Command: run.opts.Command, Stateless: run.opts.Stateless, AllowOrigins: run.opts.AllowOrigins}
		if run.lesson.Transport == check.Stdio {
			target = check.Target{Command: []string{"external"}}
		}
		var want []string
		for _, id := range v.Kills {
			if c := run.lesson.Check(id); c == nil || target.Unmet(c.Needs) == "" {
				want = append(want, id)
			}
		}
		sort.Strings(want)
		assert.Equal(t, want, failed, "%s graded externally should fail exactly the checks it names that apply there", run.name)
	}
}
