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
	"path"
	"path/filepath"
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

// Check is one graded behaviour, and everything the course says about it:
// the rule it enforces, its hints, the claims of the lesson texts it holds
// true, and what it needs of an external server. The tables and counts of
// the course's texts that list checks are generated from these values
// (go run ./tools/capture -write).
type Check struct {
	ID       string   // stable id, such as "STDIO-04"
	Step     int      // the lesson step that makes it pass
	Title    string   // one line: the behaviour that passes
	Severity Severity // Must or Should
	Spec     Spec     // the rule it enforces
	Course   string   // set when the course asks for more than the spec's own keyword, saying why
	Hint     Hint     // what usually causes a failure, and where to look, in every level
	Budget   time.Duration

	// Transport is how the check reaches its target, when it is not its
	// lesson's (Lesson.Transport): a lesson that grades one stage over
	// stdio and HTTP gives some of its checks the other transport.
	Transport Transport

	// StarterMayPass explains why the untouched starter may pass this check.
	// It is empty for every check that needs the learner's work, which the
	// course's own tests prove the starter fails.
	StarterMayPass string

	// Early is the earliest step after which the check already passes,
	// when that is before its own Step, as the lesson's text says (a simple
	// loop answers a line that is not JSON before step 2 asks for it); 0
	// when it passes from its own step on. EarlyEnds, when set, is the
	// step whose work turns it red again until its own step (STDIO-22: the
	// plain loop of step 1 finishes its requests at end of input, and the
	// goroutines of step 4 no longer wait for them). See GreenAfter.
	Early, EarlyEnds int

	// Needs says what the check asks of its target beyond a running server
	// of the lesson's transport that serves the tool contract. The course's
	// own servers meet every need; an external server may not, and then the
	// check is skipped, saying why (Target.Unmet).
	Needs Needs

	// Claims are the rows of grader/CLAIMS.md this check holds true: rules
	// the lesson texts state, and how the check enforces each. A rule that
	// several checks enforce together is one row, on the first of them,
	// naming the others (Claim.Also).
	Claims []Claim
	// Checklist lists the rules of the transport checklist
	// (shared/spec/transport-checklist.md) that the check observes, by
	// their ids, such as "A3" or "C26" (see Checklist).
	Checklist []string
	// Split is set on a check that holds a spec rule and a course rule at
	// once: which of its failures break which (see Split).
	Split *Split
	// Robustness is set on a check that breaks a rule of the client's on
	// purpose, to see how the server copes (a line that is not JSON on
	// stdio, which "The client MUST NOT write"): the rule the grader breaks.
	// Its spec findings say how a server survives a broken client, not
	// whether two correct programs can talk, and the verdicts show them
	// apart from the spec rules a server breaks with a correct client.
	Robustness *Spec

	// Run performs the check. It reports a failure with T.Fail, which ends it.
	Run func(t *T)
}

// GreenAfter reports whether the check passes once step n of its lesson is
// done, as the lesson's text says: from its own step on, and from Early
// until EarlyEnds when it goes green early.
func (c *Check) GreenAfter(n int) bool {
	if n >= c.Step {
		return true
	}
	return c.Early > 0 && n >= c.Early && (c.EarlyEnds == 0 || n < c.EarlyEnds)
}

// Hint is everything a check says to help: the line every failure report
// prints, and three levels that go run ./cmd/course hint ID gives one per
// call: a question that turns the learner towards the cause, a pointer into
// the Go standard library or the spec, and a near-solution.
type Hint struct {
	Report   string // in every failure report, after the failure's own hint
	Question string // level 1
	Pointer  string // level 2
	Near     string // level 3

	// Quotes names the reference code that Near quotes word for word: a
	// line "{{quote N}}" of Near stands for Quotes[N], read from the
	// reference when the hint is shown (Text), so that the quote is never
	// a copy that could drift from the code.
	Quotes []Source
}

// Levels is how many levels Level gives.
const Levels = 3

// Level returns hint level n, from 1 (the question) to Levels (the
// near-solution).
func (h Hint) Level(n int) string {
	switch n {
	case 1:
		return h.Question
	case 2:
		return h.Pointer
	case 3:
		return h.Near
	}
	return ""
}

// Source is a run of lines of a function of the reference that a hint
// quotes.
type Source struct {
	File string // relative to the course root, such as "solutions/02-streamable-http/post.go"
	Func string // the function's name; a method's name alone, such as "serveBatch"
	// From and To are the first and the last line of the run, as they
	// read without their indentation; each must be a line of the function
	// exactly once. An empty From starts at the body's first line, an
	// empty To ends at its last.
	From, To string
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

// Target is the program under test: a server the grader built from the
// course's folders, or an external one (URL or Command set).
type Target struct {
	Name    string // who wrote it: "your code", "solutions", a variant's name
	Binary  string // the built executable
	Package string // its main package, for commands a learner can paste, such as "./01-stdio/cmd/server"
	Variant string // the known-bad variant built, or ""; it exists only inside the grader

	// URL is an external Streamable HTTP endpoint that is already running,
	// such as http://127.0.0.1:8080/mcp. Every check talks to it; none
	// starts or stops it.
	URL string
	// Command is an external stdio server: the program and its arguments,
	// which the grader runs afresh for each check.
	Command []string
	// Stateless says that the server at URL serves without sessions.
	Stateless bool
	// AllowOrigins are the Origin patterns the server at URL claims to
	// allow, in the course's syntax (https://*.example.com,
	// http://localhost:*); the checks that depend on them run only when
	// they are the ones the check would start a course server with.
	AllowOrigins []string

	// Sources is where the Go code of a server the grader built lives, as
	// the build read it, for the checks that read code (Needs.Source); nil
	// for an external server.
	Sources *Sources
}

// Sources is the Go code a server was built from: the stage folders under
// Base, with the files an overlay swaps in (a variant, a step state, the
// starter) in place of theirs.
type Sources struct {
	Root    string // the module root, where go.mod is
	Base    string // the folder holding the stage folders, relative to Root: "." or "solutions"
	Overlay string // the go build -overlay file the build used, or ""
}

// Package is a stage's package as the go tool names it from Root, such as
// "./02-streamable-http" or "./solutions/02-streamable-http".
func (s *Sources) Package(stage string) string {
	return "./" + path.Join(filepath.ToSlash(s.Base), stage)
}

// External reports whether the grader did not build the target.
func (t Target) External() bool { return t.URL != "" || len(t.Command) > 0 }

// Describe names the target for reports: "your code (./01-stdio/cmd/server)".
func (t Target) Describe() string {
	if t.Package == "" {
		return t.Name
	}
	return t.Name + " (" + t.Package + ")"
}

// Invocation is how to run the target by hand, for the commands a failure
// report suggests: "go run ./01-stdio/cmd/server", or an external command.
func (t Target) Invocation() string {
	if len(t.Command) > 0 {
		var words []string
		for _, w := range t.Command {
			if w == "" || strings.ContainsAny(w, " \t'\"$*?[]{}()<>|&;`\\") {
				w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
			}
			words = append(words, w)
		}
		return strings.Join(words, " ")
	}
	return "go run " + t.Package
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
	// (Lesson.Causes), so that a failure that only repeats another
	// check's can be listed under that check instead of reported again.
	Cause string

	// Spec marks a failure that breaks the spec's own rule, in a check
	// whose Course text asks for more than the spec: a 200 where the spec
	// says 403, rather than a 403 without the error body the course wants.
	// In a check without Course text every failure breaks the spec.
	Spec bool
	// Cites is the spec rule the failure breaks when it is not the check's
	// own, such as the progress rule for a check of streams; it implies
	// Spec.
	Cites *Spec
}

// Status is the outcome of a check.
type Status string

const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Warn Status = "WARN"
	// Skip: the check does not apply to the target, an external server
	// that lacks what the check needs (Result.Skipped says what). A skip is
	// never a pass; the course's own servers are never skipped.
	Skip Status = "SKIP"
)

// Rule says whose rule a failure breaks.
type Rule string

const (
	// SpecRule: the server breaks the MCP spec's rule the check cites.
	SpecRule Rule = "spec"
	// CourseRule: the server meets the spec but not what the course asks
	// beyond it (Check.Course says what, and why).
	CourseRule Rule = "course"
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

	// Rule says whose rule a failure or a warning breaks: the spec's, or
	// only the course's (see Failure.Spec). It is "" on a pass or a skip.
	Rule Rule
	// Cites is the rule a failure breaks: the check's Spec, or the one the
	// failure names (Failure.Cites).
	Cites Spec
	// What is the failure's one-line description, or why the check was
	// skipped; Got is what arrived, when the failure says.
	What string
	Got  string
	// Skipped says why a skipped check did not apply, such as "needs
	// -session-timeout, a flag of the course's own servers".
	Skipped string
	// CannotRun marks a skip that comes from this machine, not from the
	// target: the check needs something the machine lacks, such as root to
	// make a network namespace (T.CannotRun). Skipped says what, and how to
	// run the check where it can. It is never a pass: the summary and the
	// course command name the check and the reason, and the course's proof
	// fails on it in CI.
	CannotRun bool

	// Cases are the named parts of the check that failed (T.Case), in the
	// order they ran, on an external server, where every part is graded
	// so that one failure cannot hide another; Rule, Cites, What and Got
	// are then those of the first part that breaks the spec, or of the
	// first part. Empty for the course's own servers, whose report is
	// their first failure's.
	Cases []CaseResult
}

// CaseResult is one failed part of a check (T.Case).
type CaseResult struct {
	Name  string // what the part tests, such as "a session that has ended"; "" for a failure outside every part
	Rule  Rule   // whose rule the failure breaks
	Cites Spec   // the rule it breaks
	What  string
	Got   string
}

// T is what a running check works with: its context, the target, and the
// record of everything sent and received, which a failure report shows.
type T struct {
	ctx    context.Context
	Target Target
	Wire   *Wire
	Check  *Check // the check that runs

	mu       sync.Mutex
	failure  *Failure
	cleanups []func()
	stderr   []func() string // tails of the target's stderr, for reports
	repro    func() string
	suspects []string // causes suspected so far, in order (see Suspect)
	skipped  string   // why the check does not apply (see Skip)
	cannot   bool     // the skip is this machine's (see CannotRun)
	counts   map[string]int
	spec     int        // open SpecRule sections
	part     *caseRun   // the part (Case) that runs now, on an external target
	parts    []*caseRun // the parts that failed, in order
}

// caseRun is a part of a check (Case) and its first failure.
type caseRun struct {
	name    string
	failure *Failure
}

// Count adds one to the check's counter named key and returns its new
// value: wire counts the servers a check starts with it.
func (t *T) Count(key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.counts == nil {
		t.counts = map[string]int{}
	}
	t.counts[key]++
	return t.counts[key]
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

// SpecRule opens a section of the check in which every failure breaks the
// spec's own rule (Failure.Spec), failures that wire reports included: in a
// check whose Course text asks for more than the spec, the part that asks
// only what the spec asks. The returned function closes the section.
func (t *T) SpecRule() (end func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spec++
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.spec--
	}
}

// Fail records the failure and ends the check (or, on an external server,
// the part of it that runs: see Case). Only the first failure of a check,
// or of a part, is reported: later ones are usually its consequences.
func (t *T) Fail(f Failure) {
	t.mu.Lock()
	t.recordLocked(f)
	t.mu.Unlock()
	runtime.Goexit()
}

// recordLocked keeps f as the failure of the part that runs, or of the
// check, unless one is kept already. The caller holds t.mu.
func (t *T) recordLocked(f Failure) {
	f.Spec = f.Spec || t.spec > 0
	switch {
	case t.part != nil:
		if t.part.failure == nil {
			t.part.failure = &f
		}
	case t.failure == nil:
		t.failure = &f
	}
}

// Case runs f as a named part of the check, such as "a session that has
// ended", where the check tests several things whose failures break rules
// of different levels (a course rule, and a spec MUST). On the course's own
// servers it simply runs f: a failure ends the check, and the report is the
// first failure's, as everywhere. On an external server a failure ends f
// only: it is recorded, and the check goes on with its next part, so that
// a failure of one part cannot hide the failure of another; the result
// lists every part that failed (Result.Cases). A skip ends the whole check.
func (t *T) Case(name string, f func()) {
	if !t.Target.External() {
		f()
		return
	}
	part := &caseRun{name: name}
	t.mu.Lock()
	spec := t.spec
	t.part = part
	t.mu.Unlock()
	t.Wire.Event("part of the check: %s", name)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
	t.mu.Lock()
	t.part = nil
	t.spec = spec // a part that failed inside a SpecRule section leaves none open
	if part.failure != nil {
		t.parts = append(t.parts, part)
	}
	skipped := t.skipped != ""
	t.mu.Unlock()
	if skipped {
		runtime.Goexit()
	}
}

// Skip ends the check as not applicable to the target, saying why. Only
// checks of an external server skip: for a server the grader built, a
// check that finds what it needs missing fails instead. (A check that this
// machine cannot run calls CannotRun.)
func (t *T) Skip(why string) {
	t.mu.Lock()
	if t.skipped == "" {
		t.skipped = why
	}
	t.mu.Unlock()
	runtime.Goexit()
}

// CannotRun ends the check unrun because this machine cannot run it, for
// a server the grader built as for any other, saying why and how to run it
// where it can: a check that needs a network namespace, which needs root.
// It is reported as a skip (Result.CannotRun), never as a pass.
func (t *T) CannotRun(why string) {
	t.mu.Lock()
	if t.skipped == "" {
		t.skipped, t.cannot = why, true
	}
	t.mu.Unlock()
	runtime.Goexit()
}

// Failf ends the check with a one-line failure.
func (t *T) Failf(format string, args ...any) { t.Fail(Failure{What: fmt.Sprintf(format, args...)}) }

// Failed reports whether the check, or the part of it that runs (Case),
// has failed so far.
func (t *T) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failure != nil || (t.part != nil && t.part.failure != nil)
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
	t.recordLocked(Failure{What: strings.TrimSpace(fmt.Sprintf(format, args...))})
}

// FailNow ends the check; see Errorf.
func (t *T) FailNow() {
	t.mu.Lock()
	t.recordLocked(Failure{What: "check failed"})
	t.mu.Unlock()
	runtime.Goexit()
}

// Helper is a no-op, for testify.
func (t *T) Helper() {}

// StartupGrace is how long an external stdio command may take to start
// (an interpreter such as node or python), beyond what the checks allow a
// server to answer: the first wait for an answer, and the check's budget,
// are that much longer for it.
const StartupGrace = 3 * time.Second

// externalBudget is how many times its budget a check has on an external
// server, where it may be graded in parts (see Case).
const externalBudget = 3

// grace is how long a check that ran out of budget gets to wind down once
// its context is cancelled (which kills its processes and closes its pipes).
const grace = 3 * time.Second

// Run runs c against target within c's budget and reports the result.
func Run(ctx context.Context, c *Check, target Target) Result {
	start := time.Now()
	if why := target.Unmet(c.Needs); why != "" {
		return Result{Check: c, Status: Skip, Skipped: why, What: why, Report: SkipReport(c, why)}
	}
	budget := c.Budget
	if len(target.Command) > 0 {
		budget += StartupGrace // an external command may take a while to start
	}
	if target.External() {
		// Graded in parts (Case), a check goes on after a part fails, and
		// each part may wait out a deadline of its own.
		budget *= externalBudget
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()

	t := &T{ctx: ctx, Target: target, Wire: newWire(start), Check: c}
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
			t.failure = &Failure{What: fmt.Sprintf("the check did not finish within its %v budget", budget)}
		}
		t.mu.Unlock()
	}

	r := Result{Check: c, Status: Pass, Duration: time.Since(start)}
	t.mu.Lock()
	defer t.mu.Unlock()
	fails := t.parts
	if t.failure != nil {
		fails = append(fails, &caseRun{failure: t.failure})
	}
	if len(fails) == 0 && t.skipped != "" {
		r.Status, r.Skipped, r.What, r.Report, r.CannotRun = Skip, t.skipped, t.skipped, SkipReport(c, t.skipped), t.cannot
	}
	if len(fails) > 0 {
		r.Status = Fail
		if c.Severity == Should {
			r.Status = Warn
		}
		primary := fails[0]
		for _, p := range fails {
			if len(t.parts) > 0 {
				r.Cases = append(r.Cases, CaseResult{Name: p.name, Rule: ruleOf(c, p.failure), Cites: citesOf(c, p.failure), What: p.failure.What, Got: p.failure.Got})
			}
			if ruleOf(c, p.failure) == SpecRule && ruleOf(c, primary.failure) != SpecRule {
				primary = p
			}
		}
		f := primary.failure
		r.Rule, r.What, r.Got, r.Cites = ruleOf(c, f), f.What, f.Got, citesOf(c, f)
		r.Report = t.report(c, r.Status, fails)
		r.Cause = f.Cause
		for _, s := range t.suspects {
			if r.Cause == "" {
				r.Cause = s
			}
		}
	}
	return r
}

// ruleOf says whose rule f breaks: the spec's when the check asks no more
// than the spec, or when f says it breaks the spec's own rule.
func ruleOf(c *Check, f *Failure) Rule {
	if c.Course == "" || f.Spec || f.Cites != nil {
		return SpecRule
	}
	return CourseRule
}

// citesOf is the rule f breaks: the one it names, or the check's.
func citesOf(c *Check, f *Failure) Spec {
	if f.Cites != nil {
		return *f.Cites
	}
	return c.Spec
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
