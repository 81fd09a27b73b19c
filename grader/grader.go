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
//	                or "starter": the lesson's starter as the course ships it,
//	                on the reference of the stages before it (as a learner
//	                has it after go run ./cmd/course catch-up NN)
//	GRADER_VARIANT  grade a known-bad variant of the solutions, by name
//	                (see grader/variants), to watch a check catch a mistake
//	GRADER_RACE=1   build the server with the race detector
//	GRADER_VERBOSE=1 report passing checks too (go test shows them with -v)
//
// Or grade a server the grader did not build (see grader/EXTERNAL.md):
//
//	GRADER_URL           a Streamable HTTP endpoint that is already running,
//	                     graded by lessons 02-04
//	GRADER_COMMAND       a stdio server's command line, graded by lesson 01
//	GRADER_STATELESS=1   the server at GRADER_URL has no sessions
//	GRADER_ALLOW_ORIGIN  the Origin patterns it claims to allow, comma-separated
package grader

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/internal/wire"
	"mcpcourse/grader/variants"
	"mcpcourse/tools/courseroot"
	"mcpcourse/tools/stages"
	"mcpcourse/tools/starters"
)

// Lesson is one stage of the course and the checks that grade it.
type Lesson struct {
	Number string // "01"
	Stage  string // the stage's folder, such as "01-stdio"
	Title  string
	Guide  string // the lesson text, relative to the course root
	Checks []*check.Check

	// Stdio is set for a lesson whose server speaks stdio; the others
	// serve Streamable HTTP. An external command is graded by the first,
	// an external URL by the second.
	Stdio bool

	// Causes maps the causes a failure can name (the wire.Cause*
	// constants) to the check of this lesson that tests each, so that the
	// failures one cause brings about are reported once, under that check.
	Causes map[string]string

	// Underneath says, for a lesson whose server answers initialize with
	// the stages before it, what a failure of the server's basics (it does
	// not start, answers 501, fails initialize) most likely means. Reports
	// print it under such a failure.
	Underneath string
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

// DeepDives is the lesson's companion text, beside Guide: the background,
// the tables of checks and mistakes, and the optional depth that the core
// path leaves out.
func (l *Lesson) DeepDives() string { return strings.TrimSuffix(l.Guide, ".md") + "-deep-dives.md" }

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

	// Pristine grades the lesson's starter as the course ships it, whatever
	// a learner has written in the stage folder since (see
	// tools/starters), built on the reference of the stages before it:
	// what a learner who finished the earlier lessons starts this one with.
	// The course's own tests use it, and GRADER_TARGET=starter.
	Pristine bool

	// URL and Command grade an external server instead of the course's
	// folders: a Streamable HTTP endpoint that is already running (lessons
	// 02-04), and a stdio server's command (lesson 01). Stateless and
	// AllowOrigins describe the server at URL (check.Target).
	URL          string
	Command      []string
	Stateless    bool
	AllowOrigins []string
}

// External reports whether o grades a server the grader does not build.
func (o Options) External() bool { return o.URL != "" || len(o.Command) > 0 }

// Skips says why an external server is not graded by lesson l (it speaks
// the other transport), or "" when it is, or when o builds the course's
// own servers.
func (o Options) Skips(l *Lesson) string {
	switch {
	case !o.External():
		return ""
	case l.Stdio && len(o.Command) == 0:
		return fmt.Sprintf("lesson %s grades a stdio server, and no command was given (GRADER_COMMAND, or --command)", l.Number)
	case !l.Stdio && o.URL == "":
		return fmt.Sprintf("lesson %s grades a Streamable HTTP server, and no URL was given (GRADER_URL, or --url)", l.Number)
	}
	return ""
}

// OptionsFromEnv reads the GRADER_* environment variables.
func OptionsFromEnv() (Options, error) {
	root, err := courseroot.Find()
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
	o.URL = os.Getenv("GRADER_URL")
	if c := os.Getenv("GRADER_COMMAND"); c != "" {
		if o.Command, err = SplitCommand(c); err != nil {
			return Options{}, fmt.Errorf("GRADER_COMMAND: %w", err)
		}
	}
	o.Stateless = os.Getenv("GRADER_STATELESS") == "1"
	o.AllowOrigins = SplitList(os.Getenv("GRADER_ALLOW_ORIGIN"))
	return o, o.checkExternal()
}

// checkExternal refuses external options that cannot work together.
func (o Options) checkExternal() error {
	switch {
	case !o.External() && (o.Stateless || len(o.AllowOrigins) > 0):
		return errors.New("the stateless and allow-origin options describe an external server: give its URL too")
	case o.External() && (o.Variant != "" || o.Pristine || o.Race):
		return errors.New("an external server is graded as it runs: a variant, the starter or the race detector only apply to the course's own servers")
	case o.URL != "":
		u, err := url.Parse(o.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("the URL %q is not an http:// or https:// address of an MCP endpoint, such as http://127.0.0.1:8080/mcp", o.URL)
		}
	}
	return nil
}

// SplitList splits a comma-separated list, dropping spaces and empty items.
func SplitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// SplitCommand splits a command line into words as a shell would, without
// running a shell: words are separated by spaces, and single quotes, double
// quotes and backslashes quote as usual. Nothing is expanded.
func SplitCommand(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range line {
		switch {
		case escaped:
			word.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("unterminated quote or escape in %q", line)
	}
	if inWord {
		words = append(words, word.String())
	}
	if len(words) == 0 {
		return nil, errors.New("the command is empty")
	}
	return words, nil
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
//
// For an external server it builds nothing: the target is the server at
// o.URL, or o.Command, whichever the lesson grades (see Options.Skips).
func Prepare(ctx context.Context, l *Lesson, o Options) (check.Target, error) {
	if o.External() {
		return prepareExternal(ctx, l, o)
	}
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
		var err error
		if req.Overlay, err = starterOverlay(o.Root, l); err != nil {
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

// prepareExternal describes the external server that lesson l grades.
func prepareExternal(ctx context.Context, l *Lesson, o Options) (check.Target, error) {
	if err := o.checkExternal(); err != nil {
		return check.Target{}, err
	}
	if why := o.Skips(l); why != "" {
		return check.Target{}, errors.New(why)
	}
	if l.Stdio {
		t := check.Target{Command: o.Command}
		t.Name = "the command " + t.Invocation()
		if _, err := exec.LookPath(o.Command[0]); err != nil {
			return check.Target{}, fmt.Errorf("cannot run %s: %w", t.Invocation(), err)
		}
		return t, nil
	}
	t := check.Target{Name: "the server at " + o.URL, URL: o.URL, Stateless: o.Stateless, AllowOrigins: o.AllowOrigins}
	if o.Stateless {
		t.Name += " (stateless)"
	}
	// Say at once when nothing listens there, rather than in every check.
	u, _ := url.Parse(o.URL)
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	var d net.Dialer
	dialCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := d.DialContext(dialCtx, "tcp", host)
	if err != nil {
		return check.Target{}, fmt.Errorf("nothing answers at %s: %w (start the server first)", o.URL, err)
	}
	conn.Close()
	return t, nil
}

// starterOverlay builds l's stage as shipped, on the reference of the
// stages before it, each pointed at the stage folders as catch-up writes it.
func starterOverlay(root string, l *Lesson) (string, error) {
	tmp, err := build.TempDir()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(tmp, "starter-"+l.Stage+"-")
	if err != nil {
		return "", err
	}
	replace, err := starters.Replacements(root, dir, []string{l.Stage})
	if err != nil {
		return "", err
	}
	earlier := map[string]stages.Files{}
	for _, x := range Lessons() {
		if x == l {
			break
		}
		if earlier[x.Stage], err = stages.Reference(root, x.Stage, false); err != nil {
			return "", err
		}
	}
	more, err := stages.Replacements(root, dir, earlier)
	if err != nil {
		return "", err
	}
	for k, v := range more {
		replace[k] = v
	}
	return stages.WriteOverlay(dir, replace)
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

// Statuses and rules of a check's result, for programs outside the grader
// (the compatibility table in bench/ grades servers through this package).
const (
	Pass       = check.Pass
	Fail       = check.Fail
	Warn       = check.Warn
	Skip       = check.Skip
	SpecRule   = check.SpecRule
	CourseRule = check.CourseRule
	Must       = check.Must
)

// Run runs one check of a lesson against target.
func Run(ctx context.Context, c *check.Check, target check.Target) check.Result {
	return check.Run(ctx, c, target)
}

// parallel is how many checks RunAll runs at once. Checks spend most of
// their time waiting on the target, so more than one per CPU is fine.
const parallel = 16

// commandParallel is how many checks RunAll runs at once on an external
// stdio command: each check starts it afresh, and a command may be an
// interpreter that takes CPU to start.
const commandParallel = 4

// RunAll runs every check of l against target, several at a time, and
// returns the results in the lesson's order.
func RunAll(ctx context.Context, l *Lesson, target check.Target) []check.Result {
	results := make([]check.Result, len(l.Checks))
	n := parallel
	if len(target.Command) > 0 {
		n = commandParallel
	}
	sem := make(chan struct{}, n)
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
