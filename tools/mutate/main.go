// Command mutate measures what the grader catches: it makes every
// single-point mutant of a stage's reference (package mutant: a negated
// condition, a shifted boundary, a dropped call, a constant off by one, …)
// and grades each with every lesson that exercises that stage. A mutant
// some check fails is killed; one that passes every check is a mistake the
// grader would let through, unless no client could ever see it (an
// equivalent mutant, triaged once in equivalent.txt with the reason).
//
//	go run ./tools/mutate -lesson 03             # sweep stage 03, print the survivors
//	go run ./tools/mutate -lesson 03 -write      # … and update grader/MUTATION.md
//	go run ./tools/mutate -all -write            # lessons 01 to 04 (tens of minutes)
//	go run ./tools/mutate -sample 12             # CI: a fixed sample, each kill graded twice
//	go run ./tools/mutate -report                # render grader/MUTATION.md again from the stored results
//	go run ./tools/mutate -lesson 03 -survivors -write  # grade the stored survivors again, after new checks
//
// Scope: the files a learner writes, the reference's stage folder
// (solutions/NN-…/*.go and its cmd/server, tests left out); the given code
// is not mutated. A mutant that does not compile is not counted; one that
// makes a check run out of time counts as killed (a timeout is how a hang
// shows). The score is killed / (mutants − not compiled − equivalent).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/tools/courseroot"
	"mcpcourse/tools/mutate/mutant"
)

func main() {
	lesson := flag.String("lesson", "", "sweep the stage of this lesson (01, 02, …)")
	all := flag.Bool("all", false, "sweep the stage of every lesson")
	sample := flag.Int("sample", 0, "grade only this many mutants, spread over every stage (a fixed choice), and grade each kill twice")
	match := flag.String("match", "", "grade only the mutants whose id contains this text")
	write := flag.Bool("write", false, "update "+reportPath+" with the results")
	parallel := flag.Int("parallel", max(2, runtime.NumCPU()), "mutants graded at once")
	confirm := flag.Bool("confirm", false, "grade each kill a second time with the check that killed it (and, if that passes, the whole lessons once more and the new killer alone); a kill that does not repeat counts as a survivor, reported as flaky (a check that kills only by timing, or a loaded machine)")
	report := flag.Bool("report", false, "grade nothing: render "+reportPath+" again from the stored results")
	survivors := flag.Bool("survivors", false, "grade only the mutants the stored results list as survivors; with -write, update those results (the stored kills stand: a full sweep is what grades them again)")
	flag.Parse()

	root, err := courseroot.Find()
	if err != nil {
		fail(err)
	}
	if *report {
		if err := renderStored(filepath.Join(root, reportPath)); err != nil {
			fail(err)
		}
		fmt.Println("wrote", reportPath)
		return
	}
	var lessons []*check.Lesson
	switch {
	case *all || *sample > 0:
		lessons = grader.Lessons()
	case *lesson != "":
		l := grader.LessonByNumber(*lesson)
		if l == nil {
			fail(fmt.Errorf("no lesson %q", *lesson))
		}
		lessons = []*check.Lesson{l}
	default:
		fail(errors.New("say which stage to sweep: -lesson NN, -all, or -sample N"))
	}
	triage, err := readTriage(filepath.Join(root, triagePath))
	if err != nil {
		fail(err)
	}

	var jobs []*job
	for _, l := range lessons {
		ms, err := stageMutants(root, l.Stage)
		if err != nil {
			fail(err)
		}
		for _, m := range ms {
			if *match == "" || strings.Contains(m.ID, *match) {
				jobs = append(jobs, &job{lesson: l, m: m})
			}
		}
	}
	storedDir := filepath.Join(root, filepath.Dir(reportPath), "mutation")
	if *survivors {
		known, err := storedSurvivors(storedDir)
		if err != nil {
			fail(err)
		}
		jobs = slices.DeleteFunc(jobs, func(j *job) bool { return !known[j.m.ID] })
	}
	if *sample > 0 {
		// The sample proves the sweep still works and that what it
		// killed stays killed: it is taken from the mutants the stored
		// results say were killed, never from the survivors or the
		// equivalent ones.
		known, err := storedSurvivors(storedDir)
		if err != nil {
			fail(err)
		}
		var killable []*job
		for _, j := range jobs {
			if _, eq := triage[j.m.ID]; !eq && !known[j.m.ID] {
				killable = append(killable, j)
			}
		}
		jobs = pick(killable, *sample)
		*confirm = true
	}
	fmt.Printf("mutate: %d mutants of %s, %d at a time\n", len(jobs), stagesOf(lessons), *parallel)

	s := &sweep{root: root, confirm: *confirm}
	start := time.Now()
	s.run(jobs, *parallel)
	fmt.Printf("\nmutate: graded %d mutants in %s\n", len(jobs), time.Since(start).Round(time.Second))

	sum := summarize(jobs, triage)
	printReport(os.Stdout, sum, jobs, triage)
	switch {
	case *write && *survivors:
		if err := updateSurvivors(filepath.Join(root, reportPath), sum); err != nil {
			fail(err)
		}
		fmt.Println("updated the stored results, and wrote", reportPath)
	case *write && *sample == 0:
		if err := writeReport(filepath.Join(root, reportPath), sum, lessons, *match != ""); err != nil {
			fail(err)
		}
		fmt.Println("wrote", reportPath)
	}
	switch {
	case sum.errors > 0:
		os.Exit(2)
	case *sample > 0 && (sum.flaky > 0 || sum.survived() > 0):
		// In CI the sample must be killed, and killed the same way twice:
		// a survivor there is a check the grader lost, a kill that does
		// not repeat is a check that kills by timing.
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(2)
}

// Where the sweep keeps what it knows.
const (
	reportPath = "grader/MUTATION.md"
	triagePath = "tools/mutate/equivalent.txt"
)

// stageMutants makes every mutant of the learner-written files of a stage's
// reference.
func stageMutants(root, stage string) ([]mutant.Mutant, error) {
	dir := filepath.Join(root, "solutions", stage)
	var files []string
	for _, pattern := range []string{"*.go", "cmd/server/*.go"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	var out []mutant.Mutant
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		ms, err := mutant.Generate(filepath.ToSlash(rel), src)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

// pick chooses n jobs spread evenly over the list: the same n every time
// for the same code, so that CI's sample is stable.
func pick(jobs []*job, n int) []*job {
	if n >= len(jobs) {
		return jobs
	}
	out := make([]*job, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, jobs[i*len(jobs)/n])
	}
	return out
}

func stagesOf(lessons []*check.Lesson) string {
	var names []string
	for _, l := range lessons {
		names = append(names, l.Stage)
	}
	return strings.Join(names, ", ")
}

// Outcome is what grading did to one mutant.
type Outcome string

// The outcomes.
const (
	Killed     Outcome = "killed"
	TimedOut   Outcome = "timed out" // killed, by a check that ran out of time
	Survived   Outcome = "survived"
	NoCompile  Outcome = "did not compile"
	Equivalent Outcome = "equivalent" // survived, and triaged as invisible from outside
)

// job is one mutant and what became of it.
type job struct {
	lesson  *check.Lesson // whose stage it mutates
	m       mutant.Mutant
	outcome Outcome
	by      string // the lesson and check that killed it: "03/SSE-21"
	flaky   bool   // killed once, then not again (with -confirm)
	err     error  // a failure of the sweep itself (not the mutant's)
}

type sweep struct {
	root    string
	confirm bool

	mu   sync.Mutex
	done int
}

func (s *sweep) run(jobs []*job, parallel int) {
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func(j *job) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			s.grade(j, "")
			if s.confirm {
				s.confirmKill(j)
			}
			s.mu.Lock()
			s.done++
			fmt.Printf("[%d/%d] %-9s %s  %s%s\n", s.done, len(jobs), j.outcome, j.m.ID, j.m.Edit, suffix(j))
			s.mu.Unlock()
		}(j)
	}
	wg.Wait()
}

// confirmKill grades a killed mutant again with the check that killed it
// alone: which of several failing checks fails first is timing, but a
// killer that fails only once kills by timing (or fell to a loaded
// machine). Then the whole lessons grade it once more, and a second killer
// gets the same test. A kill that repeats with neither counts as a
// survivor, marked flaky: a kill by timing is no kill.
func (s *sweep) confirmKill(j *job) {
	doubted := "" // the first killer that did not kill again alone
	for try := 0; try < 2 && (j.outcome == Killed || j.outcome == TimedOut); try++ {
		first := *j
		s.grade(j, first.by)
		if j.outcome != Survived {
			j.outcome, j.by = first.outcome, first.by
			return
		}
		if doubted == "" {
			doubted = first.by
		}
		if try == 0 {
			s.grade(j, "")
		}
	}
	if doubted != "" {
		j.flaky, j.outcome, j.by = true, Survived, doubted
	}
}

func suffix(j *job) string {
	switch {
	case j.err != nil:
		return "  (error: " + j.err.Error() + ")"
	case j.flaky:
		return "  (killed once by " + j.by + ", which did not kill it again)"
	case j.by != "":
		return "  by " + j.by
	}
	return ""
}

// grade builds the mutant for each lesson that exercises its stage, in
// course order, and grades it until one kills it. With only ("03/SSE-12")
// it runs that one check of that lesson, and nothing else.
func (s *sweep) grade(j *job, only string) {
	j.outcome, j.by, j.err = Survived, "", nil
	dir, err := os.MkdirTemp("", "mutant-")
	if err != nil {
		j.err = err
		return
	}
	defer os.RemoveAll(dir)
	overlay, err := writeOverlay(s.root, dir, j.m)
	if err != nil {
		j.err = err
		return
	}
	for _, l := range grader.LessonsGrading(j.lesson.Stage) {
		id, ok := strings.CutPrefix(only, l.Number+"/")
		if only != "" && !ok {
			continue
		}
		o := grader.Options{Root: s.root, Base: "solutions", Overlay: overlay, Label: "mutant " + j.m.ID}
		target, err := grader.Prepare(context.Background(), l, o)
		if _, ok := grader.BuildOutput(err); ok {
			j.outcome = NoCompile
			return
		}
		if err != nil {
			j.err = err
			return
		}
		by, timedOut := untilKilled(l, target, id)
		os.Remove(target.Binary)
		if by != "" {
			j.outcome, j.by = Killed, l.Number+"/"+by
			if timedOut {
				j.outcome = TimedOut
			}
			return
		}
	}
}

// writeOverlay writes the mutant's file and a go build -overlay file that
// swaps it in, into dir.
func writeOverlay(root, dir string, m mutant.Mutant) (string, error) {
	dst := filepath.Join(dir, filepath.Base(m.File))
	if err := os.WriteFile(dst, m.Source, 0o644); err != nil {
		return "", err
	}
	data, err := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(root, filepath.FromSlash(m.File)): dst}})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, data, 0o644)
}

// untilKilled runs every check of l against target (or only the check with
// id only, when it is not ""), several at a time, and stops them all at the
// first failure. It returns the id of the check that failed first ("" when
// every check passed), and whether that check failed by running out of time.
func untilKilled(l *check.Lesson, target check.Target, only string) (by string, timedOut bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		sem  = make(chan struct{}, 16)
		over bool
	)
	for _, c := range l.Checks() {
		if only != "" && c.ID != only {
			continue
		}
		wg.Add(1)
		go func(c *check.Check) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			mu.Lock()
			stop := over
			mu.Unlock()
			if stop {
				return
			}
			r := grader.Run(ctx, l, c, target)
			mu.Lock()
			defer mu.Unlock()
			if r.Status != check.Fail || over {
				return
			}
			over, by = true, c.ID
			timedOut = strings.Contains(r.What, "did not finish within")
			cancel()
		}(c)
	}
	wg.Wait()
	return by, timedOut
}
