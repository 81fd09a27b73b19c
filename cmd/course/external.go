package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
)

// externalOptions are grade's flags for a server the grader did not build
// (grader/EXTERNAL.md): its URL or its command, and what it claims.
type externalOptions struct {
	url, command, allow *string
	stateless           *bool
}

func externalFlags(fs *flag.FlagSet) externalOptions {
	return externalOptions{
		url:       fs.String("url", "", "grade the Streamable HTTP server at this URL, as it runs (lessons 02-04), instead of a checkout"),
		command:   fs.String("command", "", "grade this stdio server command (lesson 01), which the grader runs afresh for each check"),
		stateless: fs.Bool("stateless", false, "the server at --url has no sessions"),
		allow:     fs.String("allow-origin", "", "the Origin patterns the server at --url allows, comma-separated (https://*.example.com,http://localhost:*)"),
	}
}

func (e externalOptions) given() bool { return *e.url != "" || *e.command != "" }

// options turns the flags into the grader's options.
func (e externalOptions) options() (grader.Options, error) {
	o := grader.Options{URL: *e.url, Stateless: *e.stateless, AllowOrigins: grader.SplitList(*e.allow)}
	if *e.command != "" {
		words, err := grader.SplitCommand(*e.command)
		if err != nil {
			return grader.Options{}, usageError("--command: %v", err)
		}
		o.Command = words
	}
	if o.URL == "" && (o.Stateless || len(o.AllowOrigins) > 0) {
		return grader.Options{}, usageError("--stateless and --allow-origin describe the server at --url: give its URL too")
	}
	return o, nil
}

// gradeExternal grades an external server on every lesson that applies to
// it (lesson 01 to a command, lessons 02-04 to a URL), or on the lessons
// asked for, and prints each lesson's reports, its summary and its verdict:
// the spec rules the server breaks, with the spec's words, the course
// rules it does not meet, and the checks that do not apply to it, and why.
// It exits 0 when no check that applies fails.
func (a *app) gradeExternal(e externalOptions, lessons []*check.Lesson, chosen, asJSON bool, limit time.Duration) error {
	opts, err := e.options()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	enc := json.NewEncoder(a.stdout)
	failed, graded := false, 0
	for _, l := range lessons {
		if why := opts.Skips(l); why != "" {
			if chosen {
				fmt.Fprintf(a.stderr, "course: %s\n", why)
			}
			continue
		}
		graded++
		target, err := grader.Prepare(ctx, l, opts)
		if err != nil {
			return err
		}
		results := grader.RunAll(ctx, l, target)
		outcome := grader.NewOutcome(l, target, results)
		r := newLessonResult(l, stateGraded)
		r.GradedAt = time.Now()
		for i, res := range results {
			c := &r.Checks[i]
			c.Status, c.Seconds, c.Report = string(res.Status), res.Duration.Seconds(), res.Report
			c.Rule, c.Skipped = string(res.Rule), res.Skipped
		}
		if ctx.Err() != nil {
			r.State = stateTimedOut
		}
		failed = failed || r.tally().fail > 0 || r.State != stateGraded
		if asJSON {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		fmt.Fprint(a.stdout, outcome.Reports(false)+outcome.Summary()+"\n\n"+outcome.Verdict()+"\n")
	}
	if graded == 0 {
		return usageError("no lesson grades this server: --command is graded by lesson 01, --url by lessons 02-04")
	}
	if failed {
		return &exitError{code: 1}
	}
	return nil
}
