// Package check defines what a grader check is, runs one under its deadline,
// and turns a failure into the report a learner reads.
//
// A check is a claim about the spec ("a notification gets no reply"), tested
// black-box against the learner's running server. Every check names the rule
// it enforces, says how bad a failure is, carries a hint, and has a budget it
// cannot outlive.
package check

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Severity says what failing a check means.
type Severity string

const (
	// Must checks fail the lesson.
	Must Severity = "MUST"
	// Should checks only warn: the spec recommends the behaviour but does
	// not require it, and neither does the course.
	Should Severity = "SHOULD"
)

// Spec points at the rule a check enforces.
type Spec struct {
	Rev     string // the MCP revision, such as "2025-11-25"
	Section string // where the rule lives, such as "basic/transports › stdio"
	Quote   string // the rule in a few words, quoted from the spec
}

func (s Spec) String() string {
	out := "MCP " + s.Rev + " · " + s.Section
	if s.Quote != "" {
		out += `: "` + s.Quote + `"`
	}
	return out
}

// Check is one graded behaviour.
type Check struct {
	ID       string   // stable id, such as "STDIO-04"
	Step     int      // the lesson step that makes it pass
	Title    string   // one line: the behaviour that passes
	Severity Severity // Must or Should
	Spec     Spec     // the rule it enforces
	Course   string   // set when the course asks for more than the spec's own keyword, saying why
	Hint     string   // what usually causes a failure, and where to look
	Budget   time.Duration

	// StarterMayPass explains why the untouched starter may pass this check.
	// It is empty for every check that needs the learner's work, which the
	// course's own tests prove the starter fails.
	StarterMayPass string

	// Run performs the check. It reports a failure with T.Fail, which ends it.
	Run func(t *T)
}

// Slug is the check's id and title as one test name, such as
// "STDIO-04_only_MCP_messages_on_stdout".
func (c *Check) Slug() string {
	var b strings.Builder
	b.WriteString(c.ID)
	b.WriteByte('_')
	for _, r := range strings.ToLower(c.Title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// Target is the program under test.
type Target struct {
	Name    string // who wrote it: "your code", "solutions", a variant's name
	Binary  string // the built executable
	Package string // its main package, for commands a learner can paste, such as "./01-stdio/cmd/server"
	Variant string // the known-bad variant built, or ""; it exists only inside the grader
}

// Failure describes what went wrong. Every field but What is optional.
type Failure struct {
	What  string // one line: what happened, such as "no response to ping (id 2) within 2s"
	Got   string // what arrived, quoted
	Want  string // what should have arrived
	Hint  string // a hint for this failure in particular, shown before the check's own
	Repro string // a command that reproduces the failure, when the wire log cannot make one

	// Cause names the trouble behind this failure when another check is
	// the one that tests it, such as "initialize" when the handshake
	// failed. Each lesson maps these names to its own check ids
	// (grader.Lesson.Causes), so that a failure that only repeats another
	// check's can be listed under that check instead of reported again.
	Cause string
}

// Status is the outcome of a check.
type Status string

const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Warn Status = "WARN"
)

// Result is what running a check produced.
type Result struct {
	Check    *Check
	Status   Status
	Duration time.Duration
	Report   string // the failure report; empty on a pass

	// Cause names what this failure comes from, when it is something
	// another check tests (see Failure.Cause and T.Suspect); "" when the
	// failure is the check's own.
	Cause string
}

// T is what a running check works with: its context, the target, and the
// record of everything sent and received, which a failure report shows.
type T struct {
	ctx    context.Context
	Target Target
	Wire   *Wire

	mu       sync.Mutex
	failure  *Failure
	cleanups []func()
	stderr   []func() string // tails of the target's stderr, for reports
	repro    func() string
	suspects []string // causes suspected so far, in order (see Suspect)
}

// Context is cancelled when the check's budget runs out.
func (t *T) Context() context.Context { return t.ctx }

// Cleanup registers f to run when the check ends, last registered first.
func (t *T) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

// AttachStderr adds a source of the target's stderr to failure reports.
func (t *T) AttachStderr(tail func() string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stderr = append(t.stderr, tail)
}

// SetRepro sets how to build the reproduction command for a failure.
func (t *T) SetRepro(f func() string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.repro = f
}

// Suspect notes that something went wrong that another check tests, such
// as an initialize response without a session id: if this check fails
// later, its failure most likely comes from that (Result.Cause), unless the
// failure names a cause of its own. The returned function withdraws the
// suspicion, for a helper that suspects a cause only while it runs.
func (t *T) Suspect(cause string) (withdraw func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.suspects = append(t.suspects, cause)
	n := len(t.suspects) - 1
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if n < len(t.suspects) {
			t.suspects[n] = ""
		}
	}
}

// Fail records the failure and ends the check. Only the first failure of a
// check is reported: later ones are usually its consequences.
func (t *T) Fail(f Failure) {
	t.mu.Lock()
	if t.failure == nil {
		t.failure = &f
	}
	t.mu.Unlock()
	runtime.Goexit()
}

// Failf ends the check with a one-line failure.
func (t *T) Failf(format string, args ...any) { t.Fail(Failure{What: fmt.Sprintf(format, args...)}) }

// Failed reports whether the check has failed so far.
func (t *T) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failure != nil
}

// Parallel runs each f on a goroutine of its own and waits for all of them.
// If any of them fails, the check ends once all are done.
func (t *T) Parallel(fs ...func()) {
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Add(1)
		go func(f func()) {
			defer wg.Done()
			f()
		}(f)
	}
	wg.Wait()
	if t.Failed() {
		runtime.Goexit()
	}
}

// Errorf and FailNow make T a testify TestingT, so checks may use the
// require package for plain comparisons.
func (t *T) Errorf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failure == nil {
		t.failure = &Failure{What: strings.TrimSpace(fmt.Sprintf(format, args...))}
	}
}

// FailNow ends the check; see Errorf.
func (t *T) FailNow() {
	t.mu.Lock()
	if t.failure == nil {
		t.failure = &Failure{What: "check failed"}
	}
	t.mu.Unlock()
	runtime.Goexit()
}

// Helper is a no-op, for testify.
func (t *T) Helper() {}

// grace is how long a check that ran out of budget gets to wind down once
// its context is cancelled (which kills its processes and closes its pipes).
const grace = 3 * time.Second

// Run runs c against target within c's budget and reports the result.
func Run(ctx context.Context, c *Check, target Target) Result {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.Budget)
	defer cancel()

	t := &T{ctx: ctx, Target: target, Wire: newWire(start)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer t.runCleanups()
		c.Run(t)
	}()

	select {
	case <-done:
	case <-ctx.Done():
		select {
		case <-done:
		case <-time.After(grace):
		}
		t.mu.Lock()
		if t.failure == nil {
			t.failure = &Failure{What: fmt.Sprintf("the check did not finish within its %v budget", c.Budget)}
		}
		t.mu.Unlock()
	}

	r := Result{Check: c, Status: Pass, Duration: time.Since(start)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failure != nil {
		r.Status = Fail
		if c.Severity == Should {
			r.Status = Warn
		}
		r.Report = t.report(c, r.Status)
		r.Cause = t.failure.Cause
		for _, s := range t.suspects {
			if r.Cause == "" {
				r.Cause = s
			}
		}
	}
	return r
}

func (t *T) runCleanups() {
	for {
		t.mu.Lock()
		n := len(t.cleanups)
		if n == 0 {
			t.mu.Unlock()
			return
		}
		f := t.cleanups[n-1]
		t.cleanups = t.cleanups[:n-1]
		t.mu.Unlock()
		f()
	}
}
