// Package grader is the course's black-box tester. Each lesson is a list of
// checks that build the lesson's server, run it as a real MCP client would
// (a child process on pipes, an HTTP server on loopback), and hold its
// behaviour to the MCP spec.
//
// Learners run one lesson at a time:
//
//	go test ./grader -run Lesson01
//
// These environment variables choose what is graded:
//
//	GRADER_TARGET   the folder holding the stage folders, relative to the
//	                course root: "." (the default, your code) or "solutions";
//	                or "starter", the starters as the course ships them
//	GRADER_VARIANT  grade a known-bad variant of the solutions, by name
//	                (see grader/variants), to watch a check catch a mistake
//	GRADER_RACE=1   build the server with the race detector
//	GRADER_VERBOSE=1 report passing checks too (go test shows them with -v)
package grader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/internal/check"
	"mcpcourse/grader/internal/wire"
	"mcpcourse/grader/variants"
	"mcpcourse/internal/starters"
)

// Lesson is one stage of the course and the checks that grade it.
type Lesson struct {
	Number string // "01"
	Stage  string // the stage's folder, such as "01-stdio"
	Title  string
	Guide  string // the lesson text, relative to the course root
	Checks []*check.Check

	// Causes maps the causes a failure can name (the wire.Cause*
	// constants) to the check of this lesson that tests each, so that the
	// failures one cause brings about are reported once, under that check.
	Causes map[string]string
}

// CauseCheck returns the id of the check that tests the trouble a failure
// names (check.Result.Cause), or "". A lesson without Causes of its own
// sends a server that does not start, answers 501 or fails initialize to
// its first check.
func (l *Lesson) CauseCheck(cause string) string {
	if cause == "" {
		return ""
	}
	if l.Causes != nil {
		return l.Causes[cause]
	}
	switch cause {
	case wire.CauseStart, wire.CauseUnimplemented, wire.CauseInitialize:
		if len(l.Checks) > 0 {
			return l.Checks[0].ID
		}
	}
	return ""
}

// Check returns the lesson's check with the given id, or nil.
func (l *Lesson) Check(id string) *check.Check {
	for _, c := range l.Checks {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Lessons returns every lesson, in course order.
func Lessons() []*Lesson { return []*Lesson{Lesson01, Lesson02, Lesson03, Lesson04} }

// LessonByNumber returns the lesson numbered n ("01"), or nil.
func LessonByNumber(n string) *Lesson {
	for _, l := range Lessons() {
		if l.Number == n {
			return l
		}
	}
	return nil
}

// Options chooses the code to grade.
type Options struct {
	Root    string // the course root (where go.mod is)
	Base    string // the folder holding the stage folders, relative to Root
	Variant string // the name of a known-bad variant of the solutions, or ""
	Race    bool   // build with the race detector

	// Pristine grades the starters as the course ships them, whatever a
	// learner has written in the stage folders since (see internal/starters).
	// The course's own tests use it, and GRADER_TARGET=starter.
	Pristine bool
}

// OptionsFromEnv reads the GRADER_* environment variables.
func OptionsFromEnv() (Options, error) {
	root, err := build.ModuleRoot()
	if err != nil {
		return Options{}, err
	}
	o := Options{Root: root, Base: ".", Race: os.Getenv("GRADER_RACE") == "1"}
	switch base := os.Getenv("GRADER_TARGET"); base {
	case "":
	case "starter":
		o.Pristine = true
	default:
		o.Base = base
	}
	if name := os.Getenv("GRADER_VARIANT"); name != "" {
		o.Variant = name
		o.Base = "solutions"
	}
	return o, nil
}

// Package returns the main package the lesson builds, relative to the root,
// in the form a learner can pass to go run.
func (o Options) Package(l *Lesson) string {
	return "./" + filepath.ToSlash(filepath.Join(o.Base, l.Stage, "cmd", "server"))
}

// buildTimeout bounds one go build, dependencies included.
const buildTimeout = 5 * time.Minute

// Prepare builds the lesson's server and describes it as a check target.
// A build failure comes back as a *build.Error holding the compiler output.
func Prepare(ctx context.Context, l *Lesson, o Options) (check.Target, error) {
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	req := build.Request{Root: o.Root, Package: o.Package(l), Race: o.Race}
	target := check.Target{Name: "your code", Package: req.Package}
	switch {
	case o.Variant != "":
		v := variants.Lookup(l.Number, o.Variant)
		if v == nil {
			return check.Target{}, fmt.Errorf("lesson %s has no variant %q; it has: %s", l.Number, o.Variant, strings.Join(variants.Names(l.Number), ", "))
		}
		tmp, err := build.TempDir()
		if err != nil {
			return check.Target{}, err
		}
		if req.Overlay, err = v.Overlay(o.Root, tmp); err != nil {
			return check.Target{}, err
		}
		target.Name, target.Variant = "variant "+v.Name+" of the reference", v.Name
	case o.Pristine:
		tmp, err := build.TempDir()
		if err != nil {
			return check.Target{}, err
		}
		if req.Overlay, err = starters.Overlay(o.Root, tmp); err != nil {
			return check.Target{}, err
		}
		target.Name = "the starter as shipped"
	case filepath.Clean(o.Base) != ".":
		target.Name = o.Base
	}
	bin, err := build.Binary(ctx, req)
	if err != nil {
		return check.Target{}, err
	}
	target.Binary = bin
	return target, nil
}

// BuildOutput reports whether err, from Prepare, is a failed build, and if
// so what the compiler said. A tool that shows results must show a build
// error as a build error, before (and instead of) any check.
func BuildOutput(err error) (output string, ok bool) {
	var b *build.Error
	if errors.As(err, &b) {
		return b.Output, true
	}
	return "", false
}

// Cleanup removes the servers Prepare has built and forgets them, so that
// the next Prepare builds afresh from the files as they are then. A program
// that grades more than once (a watch loop) calls it between runs, and
// every program that calls Prepare calls it on the way out.
func Cleanup() { build.Cleanup() }

// parallel is how many checks RunAll runs at once. Checks spend most of
// their time waiting on the target, so more than one per CPU is fine.
const parallel = 16

// RunAll runs every check of l against target, several at a time, and
// returns the results in the lesson's order.
func RunAll(ctx context.Context, l *Lesson, target check.Target) []check.Result {
	results := make([]check.Result, len(l.Checks))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, c := range l.Checks {
		wg.Add(1)
		go func(i int, c *check.Check) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = check.Run(ctx, c, target)
		}(i, c)
	}
	wg.Wait()
	return results
}
