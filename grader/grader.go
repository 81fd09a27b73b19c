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
	"mcpcourse/grader/lesson01"
	"mcpcourse/grader/lesson02"
	"mcpcourse/grader/lesson03"
	"mcpcourse/grader/lesson04"
	"mcpcourse/grader/variants"
	"mcpcourse/tools/courseroot"
	"mcpcourse/tools/stages"
	"mcpcourse/tools/starters"
)

// Lessons returns every lesson, in course order.
func Lessons() []*check.Lesson {
	return []*check.Lesson{lesson01.Lesson, lesson02.Lesson, lesson03.Lesson, lesson04.Lesson}
}

// LessonByNumber returns the lesson numbered n ("01"), or nil.
func LessonByNumber(n string) *check.Lesson {
	for _, l := range Lessons() {
		if l.Number == n {
			return l
		}
	}
	return nil
}

// LessonsGrading returns the lessons that grade the code of a stage
// folder, such as "01-stdio": its own lesson and every later one built on
// it. A change to a stage, such as a mutation of its reference, is
// graded by each of them.
func LessonsGrading(stage string) []*check.Lesson {
	var out []*check.Lesson
	for _, l := range Lessons() {
		if l.Grades(stage) {
			out = append(out, l)
		}
	}
	return out
}

// Options chooses the code to grade.
type Options struct {
	Root    string // the course root (where go.mod is)
	Base    string // the folder holding the stage folders, relative to Root
	Variant string // the name of a known-bad variant of the solutions, or ""
	Race    bool   // build with the race detector

	// Overlay, when set, is a `go build -overlay` file whose replacements
	// the build uses on top of Base: the mutation sweep (tools/mutate)
	// grades each mutant of the reference this way. Label names it in
	// reports.
	Overlay string
	Label   string

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
// none of the lesson's transports), or "" when it is, or when o builds the
// course's own servers. A lesson of two transports grades a server of
// either; its checks of the other are skipped one by one (Run).
func (o Options) Skips(l *check.Lesson) string {
	if !o.External() {
		return ""
	}
	var why []string
	for _, tr := range l.Transports() {
		if why1 := o.lacks(tr); why1 == "" {
			return ""
		} else {
			why = append(why, why1)
		}
	}
	return fmt.Sprintf("lesson %s grades %s", l.Number, strings.Join(why, ", and "))
}

// lacks says what o does not give for grading over tr, or "".
func (o Options) lacks(tr check.Transport) string {
	switch {
	case tr == check.Stdio && len(o.Command) == 0:
		return "a stdio server, and no command was given (GRADER_COMMAND, or --command)"
	case tr == check.HTTP && o.URL == "":
		return "a Streamable HTTP server, and no URL was given (GRADER_URL, or --url)"
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
	case o.External() && (o.Variant != "" || o.Pristine || o.Race || o.Overlay != ""):
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
func (o Options) Package(l *check.Lesson) string {
	return "./" + filepath.ToSlash(filepath.Join(o.Base, l.Stage, filepath.FromSlash(l.Build.MainPackage())))
}

// notYet says why the grader cannot grade lesson l yet, or "": the
// description can say that a lesson grades a client, or builds a stage
// that is a module of its own, before the grader can do either.
func notYet(l *check.Lesson) error {
	switch {
	case l.Kind == check.Client:
		return fmt.Errorf("lesson %s grades a client: the grader would play the servers and run the client's command, which it cannot do yet", l.Number)
	case l.Build.Module:
		return fmt.Errorf("lesson %s's stage %s is a Go module of its own, built from its folder with a replace of mcpcourse: the grader cannot build such a stage yet", l.Number, l.Stage)
	}
	for _, tr := range l.Transports() {
		if tr != check.Stdio && tr != check.HTTP {
			return fmt.Errorf("lesson %s uses the transport %q, which the grader cannot speak yet", l.Number, tr)
		}
	}
	return nil
}

// buildTimeout bounds one go build, dependencies included.
const buildTimeout = 5 * time.Minute

// Prepare builds the lesson's server and describes it as a check target.
// A build failure comes back as a *build.Error holding the compiler output.
//
// For an external server it builds nothing: the target is the server at
// o.URL, or o.Command, whichever the lesson grades (see Options.Skips).
func Prepare(ctx context.Context, l *check.Lesson, o Options) (check.Target, error) {
	if err := notYet(l); err != nil {
		return check.Target{}, err
	}
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
	case o.Overlay != "":
		req.Overlay = o.Overlay
		target.Name = o.Label
		if target.Name == "" {
			target.Name = "a changed reference"
		}
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
	target.Sources = &check.Sources{Root: o.Root, Base: o.Base, Overlay: req.Overlay}
	return target, nil
}

// prepareExternal describes the external server that lesson l grades.
func prepareExternal(ctx context.Context, l *check.Lesson, o Options) (check.Target, error) {
	if err := o.checkExternal(); err != nil {
		return check.Target{}, err
	}
	if why := o.Skips(l); why != "" {
		return check.Target{}, errors.New(why)
	}
	var t check.Target
	var names []string
	for _, tr := range l.Transports() {
		switch {
		case o.lacks(tr) != "":
		case tr == check.Stdio:
			t.Command = o.Command
			names = append(names, "the command "+t.Invocation())
			if _, err := exec.LookPath(o.Command[0]); err != nil {
				return check.Target{}, fmt.Errorf("cannot run %s: %w", t.Invocation(), err)
			}
		case tr == check.HTTP:
			if err := dial(ctx, o.URL); err != nil {
				return check.Target{}, err
			}
			t.URL, t.Stateless, t.AllowOrigins = o.URL, o.Stateless, o.AllowOrigins
			name := "the server at " + o.URL
			if o.Stateless {
				name += " (stateless)"
			}
			names = append(names, name)
		}
	}
	t.Name = strings.Join(names, " and ")
	return t, nil
}

// dial says at once when nothing listens at the URL, rather than in every
// check.
func dial(ctx context.Context, rawURL string) error {
	u, _ := url.Parse(rawURL)
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	var d net.Dialer
	dialCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := d.DialContext(dialCtx, "tcp", host)
	if err != nil {
		return fmt.Errorf("nothing answers at %s: %w (start the server first)", rawURL, err)
	}
	conn.Close()
	return nil
}

// starterOverlay builds l's stage as shipped, on the reference of the
// stages before it, each pointed at the stage folders as catch-up writes it.
func starterOverlay(root string, l *check.Lesson) (string, error) {
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
	for _, stage := range l.Stages {
		if stage == l.Stage {
			break
		}
		if earlier[stage], err = stages.Reference(root, stage, false); err != nil {
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

// Run runs one check of lesson l against target. A check whose transport
// an external target does not offer (a lesson of two transports, graded on
// a URL alone) is skipped, saying why.
func Run(ctx context.Context, l *check.Lesson, c *check.Check, target check.Target) check.Result {
	if target.External() {
		tr := l.TransportOf(c)
		if (tr == check.Stdio && len(target.Command) == 0) || (tr == check.HTTP && target.URL == "") {
			why := "this check grades the server over " + string(tr) + ", and the grader was given no way to reach it so"
			return check.Result{Check: c, Status: check.Skip, Skipped: why, What: why, Report: check.SkipReport(c, why)}
		}
	}
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
func RunAll(ctx context.Context, l *check.Lesson, target check.Target) []check.Result {
	checks := l.Checks()
	results := make([]check.Result, len(checks))
	n := parallel
	if len(target.Command) > 0 {
		n = commandParallel
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func(i int, c *check.Check) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = Run(ctx, l, c, target)
		}(i, c)
	}
	wg.Wait()
	return results
}
