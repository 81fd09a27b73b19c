package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/tools/procgroup"
)

// Limits on grading one checkout in classroom mode.
const (
	defaultCheckoutTimeout = 5 * time.Minute
	killGrace              = 3 * time.Second // from SIGTERM to SIGKILL
	stderrLimit            = 16 << 10        // bytes of a child's stderr kept
)

// outputLimit is how many bytes of results a child may print: far more
// than the failure reports of every check, each of which is bounded.
var outputLimit = 32 << 20

// What became of one checkout.
const (
	outcomeGraded  = "graded"
	outcomeTimeout = "timed out"
	outcomeCrashed = "crashed"
	outcomeTooMuch = "output limit"
)

// studentResult is one checkout's results.
type studentResult struct {
	Name     string         `json:"name"`
	Path     string         `json:"path"`
	Outcome  string         `json:"outcome"`
	Detail   string         `json:"detail,omitempty"` // why it crashed: the grader's stderr
	Seconds  float64        `json:"seconds"`
	Warnings []string       `json:"warnings,omitempty"`
	Lessons  []lessonResult `json:"lessons"`
}

// AllDone reports whether the checkout passes every lesson graded.
func (s studentResult) AllDone() bool {
	for _, l := range s.Lessons {
		if !l.Done() {
			return false
		}
	}
	return len(s.Lessons) > 0
}

// classReport is the whole room's results.
type classReport struct {
	Generated time.Time       `json:"generated"`
	Course    string          `json:"course"` // the instructor's course, whose grader graded
	Lessons   []lessonInfo    `json:"lessons"`
	Students  []studentResult `json:"students"`

	// CopiedNote says what a lesson's "copied" mark means.
	CopiedNote string `json:"copied_note"`
}

type lessonInfo struct {
	Number string `json:"lesson"`
	Stage  string `json:"stage"`
	Title  string `json:"title"`
	Checks int    `json:"checks"`
}

// checkout is one learner's copy of the course.
type checkout struct{ name, path string }

func (a *app) classroom(args []string) error {
	fs := a.flags("classroom", "DIR|PATH... [--out DIR] [--lessons 01,02] [--jobs N] [--timeout D]")
	out := fs.String("out", "classroom-results", "the folder for results.csv, results.json and report.html")
	only := fs.String("lessons", "", "the lessons to grade, such as 01 (default: all)")
	jobs := fs.Int("jobs", max(1, runtime.NumCPU()/2), "how many checkouts to grade at once")
	limit := fs.Duration("timeout", defaultCheckoutTimeout, "the time limit for grading one checkout")
	paths, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageError("name a folder of checkouts, or the checkouts: %s classroom ~/class-of-2025", self)
	}
	if *jobs < 1 || *limit <= 0 {
		return usageError("--jobs and --timeout must be positive")
	}
	lessons, err := lessonsArg(*only)
	if err != nil {
		return err
	}
	checkouts, err := findCheckouts(paths)
	if err != nil {
		return err
	}
	copies, err := newCopyIndex(a.root, lessons)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	fmt.Fprintf(a.stderr, "Grading %d checkout(s), %d at a time, at most %v each, with the grader of %s\n", len(checkouts), *jobs, *limit, a.root)
	results := make([]studentResult, len(checkouts))
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		sem = make(chan struct{}, *jobs)
	)
	for i, c := range checkouts {
		wg.Add(1)
		go func(i int, c checkout) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = a.gradeCheckout(ctx, c, lessons, *limit)
			copies.markCopied(c.path, results[i].Lessons)
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(a.stderr, "  %-24s %s\n", c.name, studentLine(results[i]))
		}(i, c)
	}
	wg.Wait()

	report := classReport{Generated: time.Now(), Course: a.root, Students: results, CopiedNote: copiedNote}
	for _, l := range lessons {
		report.Lessons = append(report.Lessons, lessonInfo{Number: l.Number, Stage: l.Stage, Title: l.Title, Checks: len(l.Checks())})
	}
	dir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	if err := writeReports(dir, report); err != nil {
		return err
	}
	done := 0
	for _, s := range results {
		if s.AllDone() {
			done++
		}
	}
	fmt.Fprintf(a.stdout, "%d of %d checkouts pass every lesson graded (%s). Graded in %.0fs.\n", done, len(results), lessonNumbers(lessons), time.Since(start).Seconds())
	fmt.Fprintf(a.stdout, "Results: %s, %s and %s\n", filepath.Join(dir, "report.html"), filepath.Join(dir, "results.csv"), filepath.Join(dir, "results.json"))
	if done < len(results) {
		return &exitError{code: 1}
	}
	return nil
}

// studentLine sums a checkout up for the progress log.
func studentLine(s studentResult) string {
	var parts []string
	for _, l := range s.Lessons {
		t := l.tally()
		switch l.State {
		case stateGraded:
			parts = append(parts, fmt.Sprintf("%s %d/%d", l.Number, t.passed(), len(l.Checks)))
		default:
			parts = append(parts, l.Number+" "+l.State)
		}
	}
	line := fmt.Sprintf("%-10s %5.1fs  %s", s.Outcome, s.Seconds, strings.Join(parts, " · "))
	if len(s.Warnings) > 0 {
		line += fmt.Sprintf("  (%d warning(s))", len(s.Warnings))
	}
	var copied []string
	for _, l := range s.Lessons {
		if l.Copied != "" {
			copied = append(copied, l.Number+" "+l.Copied)
		}
	}
	if len(copied) > 0 {
		line += "  (copied: " + strings.Join(copied, ", ") + ")"
	}
	return line
}

func lessonNumbers(lessons []*check.Lesson) string {
	var n []string
	for _, l := range lessons {
		n = append(n, l.Number)
	}
	return strings.Join(n, ", ")
}

// findCheckouts turns the command line into checkouts: a folder with a
// go.mod is a checkout; any other folder holds checkouts, one per
// subfolder with a go.mod.
func findCheckouts(paths []string) ([]checkout, error) {
	var out []checkout
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, usageError("%s is not a folder", p)
		}
		if hasGoMod(abs) {
			out = append(out, checkout{name: filepath.Base(abs), path: abs})
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return nil, err
		}
		found := 0
		for _, e := range entries {
			if sub := filepath.Join(abs, e.Name()); e.IsDir() && hasGoMod(sub) {
				out = append(out, checkout{name: e.Name(), path: sub})
				found++
			}
		}
		if found == 0 {
			return nil, usageError("%s is neither a checkout of the course nor a folder of checkouts (no go.mod in it or its subfolders)", p)
		}
	}
	// Two checkouts of the same name (alice/mcp-course, bob/mcp-course)
	// are told apart by their parent folders.
	count := map[string]int{}
	for _, c := range out {
		count[c.name]++
	}
	for i, c := range out {
		if count[c.name] > 1 {
			out[i].name = filepath.Base(filepath.Dir(c.path)) + "/" + c.name
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func hasGoMod(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// gradeCheckout grades one checkout in a child process (this program,
// `grade --json`), so that nothing a learner's code does can reach the
// others: the child runs in a process group of its own, with a temporary
// folder of its own, under a time limit and an output limit. At the limit
// it gets SIGTERM, to stop the learner's servers and report what it has,
// and killGrace later its whole process group is killed.
func (a *app) gradeCheckout(ctx context.Context, c checkout, lessons []*check.Lesson, limit time.Duration) (res studentResult) {
	start := time.Now()
	res = studentResult{Name: c.name, Path: c.path, Outcome: outcomeGraded, Warnings: integrity(a.root, c.path)}
	defer func() { res.Seconds = time.Since(start).Seconds() }()

	tmp, err := os.MkdirTemp("", "mcp-course-classroom-")
	if err != nil {
		res.Outcome, res.Detail = outcomeCrashed, err.Error()
		res.Lessons = missingLessons(lessons, nil, stateError)
		return res
	}
	defer os.RemoveAll(tmp)

	kill, cancelKill := context.WithCancel(ctx)
	defer cancelKill()
	args := append(append([]string(nil), a.exe[1:]...), "grade", "--json", "--root", c.path,
		"--lessons", strings.ReplaceAll(lessonNumbers(lessons), " ", ""), "--timeout", childLimit(limit).String())
	cmd := exec.CommandContext(kill, a.exe[0], args...)
	cmd.Dir = a.root
	cmd.Env = childEnv(a.exeEnv, tmp)
	procgroup.Isolate(cmd)
	cmd.WaitDelay = killGrace
	lines := &lineCollector{max: outputLimit, over: cancelKill}
	stderr := &lineCollector{max: stderrLimit}
	cmd.Stdout, cmd.Stderr = lines, stderr

	if err := cmd.Start(); err != nil {
		res.Outcome, res.Detail = outcomeCrashed, err.Error()
		res.Lessons = missingLessons(lessons, nil, stateError)
		return res
	}
	var timedOut atomic.Bool
	timer := time.AfterFunc(limit, func() {
		timedOut.Store(true)
		procgroup.Terminate(cmd)
		time.AfterFunc(killGrace, cancelKill)
	})
	err = cmd.Wait()
	timer.Stop()

	got := map[string]lessonResult{}
	for _, line := range lines.lines() {
		var r lessonResult
		if json.Unmarshal(line, &r) == nil && r.Number != "" {
			got[r.Number] = r
		}
	}
	var exit *exec.ExitError
	switch {
	case lines.exceeded:
		res.Outcome, res.Detail = outcomeTooMuch, fmt.Sprintf("the grader printed more than %d bytes of results and was stopped", outputLimit)
	case timedOut.Load():
		res.Outcome = outcomeTimeout
	case err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1):
		res.Outcome, res.Detail = outcomeCrashed, strings.TrimSpace(err.Error()+"\n"+stderr.text())
	case len(got) < len(lessons):
		res.Outcome, res.Detail = outcomeCrashed, "the grader stopped before it reported every lesson\n"+stderr.text()
	}
	missing := stateError
	if res.Outcome == outcomeTimeout {
		missing = stateTimedOut
	}
	res.Lessons = missingLessons(lessons, got, missing)
	for _, l := range res.Lessons {
		if l.State == stateTimedOut {
			res.Outcome = outcomeTimeout
		}
	}
	return res
}

// missingLessons returns the lessons in order: those in got as they are,
// the others as not graded, in the given state.
func missingLessons(lessons []*check.Lesson, got map[string]lessonResult, state string) []lessonResult {
	var out []lessonResult
	for _, l := range lessons {
		if r, ok := got[l.Number]; ok {
			out = append(out, r)
		} else {
			out = append(out, newLessonResult(l, state))
		}
	}
	return out
}

// childEnv is the environment of a child grading one checkout: this one,
// without the variables that would make it grade something else, with a
// temporary folder of its own (which the parent removes, whatever happens
// to the child) and no go.work above the checkout in play.
func childEnv(extra []string, tmp string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "GRADER_TARGET", "GRADER_VARIANT", "TMPDIR", "GOWORK":
		default:
			env = append(env, kv)
		}
	}
	return append(append(env, extra...), "TMPDIR="+tmp, "GOWORK=off")
}

// lineCollector keeps what a child writes, up to max bytes. Past that it
// calls over (which kills the child) and refuses further writes.
type lineCollector struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	max      int
	over     func()
	exceeded bool
}

func (c *lineCollector) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf.Len()+len(p) > c.max {
		if c.over == nil {
			// Keep the first max bytes and drop the rest, silently:
			// this is a log, not results.
			c.buf.Write(p[:max(0, c.max-c.buf.Len())])
			return len(p), nil
		}
		if !c.exceeded {
			c.exceeded = true
			c.over()
		}
		return 0, errors.New("output limit exceeded")
	}
	return c.buf.Write(p)
}

func (c *lineCollector) lines() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Split(bytes.TrimSpace(c.buf.Bytes()), []byte("\n"))
}

func (c *lineCollector) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.TrimSpace(c.buf.String())
}
