package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Lesson is one lesson of the course as the grader sees it: the stage it
// grades, how the grader builds and reaches that stage, and its checks,
// step by step. Each lesson package (grader/lesson01, …) holds one, built
// from its step files: adding a check to a step touches that step's file
// only.
type Lesson struct {
	Number string // "01"
	Stage  string // the stage's folder, such as "01-stdio"
	Title  string
	Guide  string // the lesson text, relative to the course root

	// Kind is what the lesson grades: a server (the zero value), or a
	// client, which the grader would drive by playing the servers.
	Kind Kind
	// Transport is how the lesson's checks reach the target, unless a
	// check says otherwise (Check.Transport).
	Transport Transport
	// Build says how the grader builds the stage.
	Build Build
	// Stages are the stage folders whose code the lesson grades, in course
	// order, its own last: a stage runs on the stages before it (stage 03
	// answers POST with stage 02, which decodes with stage 01), so a change
	// to stage 01 is graded by every lesson.
	Stages []string

	// Steps are the lesson's steps in order, each with its checks.
	Steps []Step

	// Causes maps the causes a failure can name (the Cause* constants, and
	// the lesson's own) to the check of this lesson that tests each, so
	// that the failures one cause brings about are reported once, under
	// that check.
	Causes map[string]string

	// Underneath says, for a lesson whose server answers initialize with
	// the stages before it, what a failure of the server's basics (it does
	// not start, answers 501, fails initialize) most likely means. Reports
	// print it under such a failure.
	Underneath string

	// Unchecked are the claims of the lesson's texts that no check
	// enforces, each with the reason, beyond those of its steps
	// (Step.Unchecked): rows of grader/CLAIMS.md.
	Unchecked []Claim
	// Checklist, when set, is the table of transport-checklist rules that
	// ends this lesson's part of grader/CLAIMS.md, covering it and the
	// lessons before it that it names.
	Checklist *Checklist
}

// Step is one step of a lesson: the checks it turns green, in the order
// the grader reports them.
type Step struct {
	Checks []*Check
	// Unchecked are the claims the step's text makes that no check
	// enforces, each with the reason.
	Unchecked []Claim
}

// Kind is what a lesson grades.
type Kind int

const (
	// Server: the grader builds the stage's server and talks to it as a
	// client would.
	Server Kind = iota
	// Client: the grader plays the servers and runs the learner's client
	// command against them (lesson 06). The grader cannot do this yet.
	Client
)

// String names the kind in messages: "server" or "client".
func (k Kind) String() string {
	if k == Client {
		return "client"
	}
	return "server"
}

// Transport is how a check reaches its target.
type Transport string

const (
	// Stdio: the target is a child process; messages are lines on its
	// stdin and stdout.
	Stdio Transport = "stdio"
	// HTTP: the target is a Streamable HTTP endpoint.
	HTTP Transport = "Streamable HTTP"
)

// Build says how the grader builds a lesson's stage.
type Build struct {
	// Main is the stage's main package, relative to the stage folder;
	// "cmd/server" when empty.
	Main string
	// Module says that the stage folder is a Go module of its own (lesson
	// 07's fleet): go build must run from it, with a replace of mcpcourse
	// pointing at the course root. A stage without it is a package of the
	// course's module, built from the course root. The grader cannot build
	// such a stage yet.
	Module bool
}

// MainPackage is Main, or its default.
func (b Build) MainPackage() string {
	if b.Main == "" {
		return "cmd/server"
	}
	return b.Main
}

// Checks returns every check of the lesson, in the lesson's order: step by
// step, each step's in its order.
func (l *Lesson) Checks() []*Check {
	var out []*Check
	for _, s := range l.Steps {
		out = append(out, s.Checks...)
	}
	return out
}

// Check returns the lesson's check with the given id, or nil.
func (l *Lesson) Check(id string) *Check {
	for _, s := range l.Steps {
		for _, c := range s.Checks {
			if c.ID == id {
				return c
			}
		}
	}
	return nil
}

// CauseCheck returns the id of the check that tests the trouble a failure
// names (Result.Cause), or "". A lesson without Causes of its own sends a
// server that does not start, answers 501 or fails initialize to its first
// check.
func (l *Lesson) CauseCheck(cause string) string {
	if cause == "" {
		return ""
	}
	if l.Causes != nil {
		return l.Causes[cause]
	}
	switch cause {
	case CauseStart, CauseUnimplemented, CauseInitialize:
		if checks := l.Checks(); len(checks) > 0 {
			return checks[0].ID
		}
	}
	return ""
}

// DeepDives is the lesson's companion text, beside Guide: the background,
// the tables of checks and mistakes, and the optional depth that the core
// path leaves out.
func (l *Lesson) DeepDives() string { return strings.TrimSuffix(l.Guide, ".md") + "-deep-dives.md" }

// TransportOf is the transport check c of the lesson uses.
func (l *Lesson) TransportOf(c *Check) Transport {
	if c.Transport != "" {
		return c.Transport
	}
	return l.Transport
}

// Transports lists the transports the lesson's checks use, the lesson's
// own first.
func (l *Lesson) Transports() []Transport {
	out := []Transport{l.Transport}
	for _, c := range l.Checks() {
		if t := l.TransportOf(c); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Grades reports whether the lesson grades the code of the stage folder.
func (l *Lesson) Grades(stage string) bool { return slices.Contains(l.Stages, stage) }

// Validate reports what is wrong with the lesson's description, if
// anything: every check must name its step (the one it is listed under),
// a title, a spec rule, a budget, every level of its hint and a run
// function, and every claim no check enforces must say why.
func (l *Lesson) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("lesson %s: "+format, append([]any{l.Number}, args...)...))
	}
	if l.Number == "" || l.Stage == "" || l.Title == "" || l.Guide == "" {
		bad("a lesson needs a number, a stage, a title and a guide")
	}
	if l.Transport != Stdio && l.Transport != HTTP {
		bad("the transport %q is neither Stdio nor HTTP", l.Transport)
	}
	if len(l.Stages) == 0 || l.Stages[len(l.Stages)-1] != l.Stage {
		bad("its stages %v do not end with its own, %s", l.Stages, l.Stage)
	}
	ids := map[string]bool{}
	for i, s := range l.Steps {
		if len(s.Checks) == 0 {
			bad("step %d has no checks", i+1)
		}
		for _, c := range s.Checks {
			if ids[c.ID] {
				bad("two checks are %s", c.ID)
			}
			ids[c.ID] = true
			if c.Step != i+1 {
				bad("%s says step %d but is listed under step %d", c.ID, c.Step, i+1)
			}
			if err := c.validate(); err != nil {
				bad("%v", err)
			}
		}
		for _, cl := range s.Unchecked {
			if cl.Claim == "" || cl.How == "" {
				bad("step %d's claim %q that no check enforces must say why (How)", i+1, cl.Claim)
			}
		}
	}
	for _, cl := range l.Unchecked {
		if cl.Claim == "" || cl.How == "" {
			bad("the claim %q that no check enforces must say why (How)", cl.Claim)
		}
	}
	for cause, id := range l.Causes {
		if !ids[id] {
			bad("the cause %q goes to %s, which is no check of the lesson", cause, id)
		}
	}
	return errors.Join(errs...)
}

// validate reports what is missing from c.
func (c *Check) validate() error {
	var missing []string
	need := func(ok bool, what string) {
		if !ok {
			missing = append(missing, what)
		}
	}
	need(c.ID != "", "an id")
	need(c.Title != "", "a title")
	need(c.Severity == Must || c.Severity == Should, "a severity")
	need(c.Spec.Rev != "" && c.Spec.Section != "", "a spec rule (revision and section)")
	need(c.Budget > 0, "a budget")
	need(c.Run != nil, "a run function")
	need(c.Hint.Report != "", "a hint for its reports (Hint.Report)")
	need(strings.HasSuffix(strings.TrimSpace(c.Hint.Question), "?"), "a question as its first hint level (Hint.Question)")
	need(c.Hint.Pointer != "", "a pointer as its second hint level (Hint.Pointer)")
	need(c.Hint.Near != "", "a near-solution as its third hint level (Hint.Near)")
	need(c.Early == 0 || (c.Early >= 1 && c.Early < c.Step), "an Early step before its own")
	need(c.EarlyEnds == 0 || (c.Early > 0 && c.EarlyEnds > c.Early && c.EarlyEnds < c.Step), "an EarlyEnds step between Early and its own")
	for _, cl := range c.Claims {
		need(cl.Claim != "" && cl.Where != "", "a claim and where the lessons state it, in each of its claims")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s needs %s", c.ID, strings.Join(missing, ", "))
	}
	return nil
}

// ValidateCourse validates every lesson, and what lessons share: check ids
// are unique across the course, every check holds at least one claim (its
// own, or another's that names it), and every id a claim, a split or a
// cause names is a check of the course.
func ValidateCourse(lessons []*Lesson) error {
	var errs []error
	all := map[string]bool{}
	claimed := map[string]bool{}
	for _, l := range lessons {
		if err := l.Validate(); err != nil {
			errs = append(errs, err)
		}
		for _, c := range l.Checks() {
			if all[c.ID] {
				errs = append(errs, fmt.Errorf("%s is a check of two lessons", c.ID))
			}
			all[c.ID] = true
		}
	}
	for _, l := range lessons {
		for _, c := range l.Checks() {
			for _, cl := range c.Claims {
				claimed[c.ID] = true
				for _, id := range cl.Also {
					claimed[id] = true
					if !all[id] {
						errs = append(errs, fmt.Errorf("%s's claim %q names %s, which is no check of the course", c.ID, cl.Claim, id))
					}
				}
			}
			if c.Split != nil {
				for _, id := range c.Split.Also {
					if !all[id] {
						errs = append(errs, fmt.Errorf("%s's split %q names %s, which is no check of the course", c.ID, c.Split.Rule, id))
					}
				}
			}
		}
	}
	for _, l := range lessons {
		for _, c := range l.Checks() {
			if !claimed[c.ID] {
				errs = append(errs, fmt.Errorf("%s holds no claim of the lesson texts: give it a Claims row (grader/CLAIMS.md is generated from them)", c.ID))
			}
		}
	}
	return errors.Join(errs...)
}
