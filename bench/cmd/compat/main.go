// Command compat grades the MCP servers people use with the course's grader
// and writes the compatibility table, COMPATIBILITY.md at the course root:
//
//	cd bench && go run ./cmd/compat
//
// It builds the course's reference and the peer servers (peers/) at the
// versions bench/go.mod and peers/ts/package-lock.json pin, starts each one
// over stdio, and over Streamable HTTP with sessions (and an event store,
// where the SDK has one) and without, and grades each with the grader's
// external-server mode (grader/EXTERNAL.md): lesson 01 over stdio, lessons
// 02-04 over HTTP, every check that applies to that server. A check that
// fails is graded once more, on a fresh server, and counts as failed only
// if it fails again (the table notes a check that passed the second time).
//
// Each server's failures are sorted into the spec rules it breaks, with the
// section and the words of the spec, what the server did, and an
// explanation of who reads the spec right (notes.go, written by hand after
// checking the spec's text), and the course rules it does not meet.
//
//	-smoke        grade only the first checks of each lesson, and write to a
//	              temporary file unless -out is given: that the command runs
//	-servers LIST grade only these servers (reference,gosdk,mcpgo,ts)
//	-out FILE     where to write the table (default ../COMPATIBILITY.md)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"mcpcourse/bench/load"
	"mcpcourse/grader"
	"mcpcourse/grader/check"
	"mcpcourse/tools/courseroot"
)

func main() {
	smoke := flag.Bool("smoke", false, "grade the first checks of each lesson only: that the command runs, not the table")
	only := flag.String("servers", "", "grade only these servers, comma-separated: reference, gosdk, mcpgo, ts (default: all)")
	out := flag.String("out", "", "write the table here (default: COMPATIBILITY.md at the course root; with -smoke, a temporary file)")
	flag.Parse()

	benchRoot, courseRoot, err := roots()
	if err != nil {
		fatal(err)
	}
	dir, err := os.MkdirTemp("", "compat-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)

	began := time.Now()
	servers, versions, err := build(courseRoot, benchRoot, dir)
	if err != nil {
		fatal(err)
	}
	if *only != "" {
		keep := strings.Split(*only, ",")
		servers = slices.DeleteFunc(servers, func(s *server) bool { return !slices.Contains(keep, s.key) })
	}
	fmt.Fprintf(os.Stderr, "compat: built the servers in %v\n", time.Since(began).Round(time.Second))

	var table []*graded
	for _, r := range rows(servers) {
		for _, l := range grader.Lessons() {
			if (l.Transport == check.Stdio) != (r.mode == modeStdio) {
				continue
			}
			g, err := gradeRow(r, l, *smoke)
			if err != nil {
				fatal(fmt.Errorf("%s, lesson %s: %w", r, l.Number, err))
			}
			fmt.Fprintf(os.Stderr, "compat: %-45s lesson %s: %s\n", r, l.Number, g.cell())
			table = append(table, g)
		}
	}

	path := *out
	switch {
	case path == "" && *smoke:
		path = filepath.Join(dir, "COMPATIBILITY.md")
	case path == "":
		path = filepath.Join(courseRoot, "COMPATIBILITY.md")
	}
	text := report(servers, table, versions, *smoke)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		fatal(err)
	}
	if missing := unexplained(table); len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "compat: no explanation in notes.go for these spec findings yet: %s\n", strings.Join(missing, ", "))
	}
	fmt.Fprintf(os.Stderr, "compat: wrote %s in %v\n", path, time.Since(began).Round(time.Second))
}

// graded is one lesson's grade of one row.
type graded struct {
	row     row
	lesson  *check.Lesson
	outcome *grader.Outcome
	flaky   []string // checks that failed once, then passed on a fresh server
}

// smokeChecks is how many checks of each lesson a smoke run grades.
const smokeChecks = 2

// gradeRow starts the row's server (over HTTP, a fresh one for the lesson)
// and grades lesson l on it; a failed check is graded again on a fresh
// server.
func gradeRow(r row, l *check.Lesson, smoke bool) (*graded, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lesson := l
	if smoke {
		cut := *l
		checks := l.Checks()
		cut.Steps = []check.Step{{Checks: checks[:min(smokeChecks, len(checks))]}}
		lesson = &cut
	}
	opts := grader.Options{}
	stop := func() {}
	start := func() error {
		if r.mode == modeStdio {
			opts.Command = r.argv()
			return nil
		}
		s, err := load.Start(r.String(), load.StartOptions{Argv: r.argv(), CPU: -1})
		if err != nil {
			return err
		}
		stop = func() { s.Stop() }
		opts.URL, opts.Stateless = s.URL, r.mode == modeStateless
		if r.server.allow != nil {
			opts.AllowOrigins = r.server.allow
		}
		return nil
	}
	if err := start(); err != nil {
		return nil, err
	}
	target, err := grader.Prepare(ctx, lesson, opts)
	if err != nil {
		stop()
		return nil, err
	}
	results := grader.RunAll(ctx, lesson, target)
	stop()

	g := &graded{row: r, lesson: lesson}
	var again []int
	for i, res := range results {
		if res.Status == check.Fail {
			again = append(again, i)
		}
	}
	if len(again) > 0 && !smoke {
		if err := start(); err != nil {
			return nil, err
		}
		target, err = grader.Prepare(ctx, lesson, opts)
		if err != nil {
			stop()
			return nil, err
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		sem := make(chan struct{}, 4) // as many at once as the grader runs on a command
		for _, i := range again {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				if res := grader.Run(ctx, lesson, lesson.Checks()[i], target); res.Status != check.Fail {
					mu.Lock()
					defer mu.Unlock()
					results[i] = res
					g.flaky = append(g.flaky, res.Check.ID)
				}
			}(i)
		}
		wg.Wait()
		stop()
	}
	// The outcome names the target by its URL, which changes each run.
	target.Name = r.String()
	g.outcome = grader.NewOutcome(lesson, target, results)
	slices.Sort(g.flaky)
	return g, nil
}

// roots finds the course's folder, and the bench module's inside it.
func roots() (bench, course string, err error) {
	course, err = courseroot.Find()
	if err != nil {
		return "", "", err
	}
	return filepath.Join(course, "bench"), course, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "compat:", err)
	os.Exit(1)
}
