package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"mcpcourse/grader"
	"mcpcourse/grader/check"
)

// pollInterval is how often watch looks for changed files. Polling, rather
// than file-system notifications, works on every file system, NFS and
// network shares included.
const pollInterval = time.Second

// settle is how long watch waits after it sees a change, so that an editor
// that writes a file in several steps is graded once, on the last.
const settle = 300 * time.Millisecond

func (a *app) watch(args []string) error {
	fs := a.flags("watch", "[NN] [--manual]")
	manual := fs.Bool("manual", false, "never re-grade on a file change, only when you press r")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	g, err := a.newGrading(false)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var lesson *check.Lesson
	switch len(rest) {
	case 0:
		fmt.Fprintln(a.stdout, "Finding the lesson you are on…")
		p := g.collect(ctx, grader.Lessons())
		lesson = grader.Lessons()[len(grader.Lessons())-1]
		if p.current >= 0 {
			lesson = grader.Lessons()[p.current]
		}
	case 1:
		if lesson, err = lessonArg(rest[0]); err != nil {
			return err
		}
	default:
		return usageError("watch takes at most one lesson number")
	}

	in, restore := openKeys(a.stdin)
	defer restore()
	w := &watcher{
		app:      a,
		lesson:   lesson,
		grade:    func(ctx context.Context, l *check.Lesson) lessonResult { return g.grade(ctx, l) },
		earlier:  func(l *check.Lesson) []lessonResult { return g.earlierCached(l) },
		interval: pollInterval,
		manual:   *manual,
		keyHelp:  in.help,
	}
	w.keys = readKeys(in.r, &w.busy)
	return w.loop(ctx)
}

// watcher re-grades one lesson when its files change or a key asks.
type watcher struct {
	app      *app
	lesson   *check.Lesson
	grade    func(context.Context, *check.Lesson) lessonResult
	earlier  func(*check.Lesson) []lessonResult // the lessons before it, as far as known; nil in tests
	interval time.Duration
	manual   bool
	keys     <-chan byte
	keyHelp  string // how to press a key: "press" or "type … and Enter"

	busy atomic.Bool // set while grading: keys pressed then are dropped
	last lessonResult
}

// loop grades, shows the result, and waits for a change or a key, until q,
// the end of input, or ctx ends.
func (w *watcher) loop(ctx context.Context) error {
	out := w.app.stdout
	st := newStyle(out)
	for {
		seen := fingerprint(w.app.root, lessonInputs(w.lesson))
		w.busy.Store(true)
		fmt.Fprintf(out, "\n%s\n", st.bold(fmt.Sprintf("Checking lesson %s (%s/)…", w.lesson.Number, w.lesson.Stage)))
		start := time.Now()
		w.last = w.grade(ctx, w.lesson)
		w.busy.Store(false)
		if ctx.Err() != nil {
			return nil
		}
		w.show(out, st, time.Since(start))

	wait:
		for {
			var tick <-chan time.Time
			if !w.manual {
				tick = time.After(w.interval)
			}
			select {
			case <-ctx.Done():
				return nil
			case k, ok := <-w.keys:
				if !ok {
					return nil // input ended: nothing can ask for another run
				}
				switch k {
				case 'q', 'Q':
					return nil
				case 'r', 'R':
					break wait
				case 'h', 'H':
					w.hint(out)
				case 'n', 'N':
					if next := w.next(); next != nil {
						w.lesson = next
						break wait
					}
					fmt.Fprintln(out, "n moves on once this lesson is done.")
				case '\n', '\r', ' ':
				default:
					fmt.Fprintln(out, w.legend())
				}
			case <-tick:
				if fingerprint(w.app.root, lessonInputs(w.lesson)) != seen {
					time.Sleep(settle)
					break wait
				}
			}
		}
	}
}

// show prints one run's result: the counts, the checks, the first failure
// and what to do next.
func (w *watcher) show(out io.Writer, st style, took time.Duration) {
	r := w.last
	t := r.tally()
	fmt.Fprintf(out, "Lesson %s · %s: %s %d  %s %d  %s %d   (%.1fs, %s)\n", r.Number, r.Title,
		st.green("✓"), t.pass, st.red("✗"), t.fail, st.yellow("!"), t.warn, took.Seconds(), time.Now().Format("15:04:05"))
	fmt.Fprintf(out, "Progress: %s %d/%d\n\n", bar(st, t, len(r.Checks)), t.passed(), len(r.Checks))
	if r.Done() {
		renderPassed(out, r)
		if next := w.next(); next != nil {
			fmt.Fprintf(out, "\nPress n for lesson %s.\n", next.Number)
		}
	} else {
		renderChecks(out, st, r)
		fmt.Fprintln(out)
		if w.earlier != nil {
			r.Reports = stagesKnown(w.lesson, r.Reports, w.earlier(w.lesson))
		}
		renderNext(out, st, w.app.root, progress{lessons: []lessonResult{r}, current: 0})
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, w.legend())
}

func (w *watcher) legend() string {
	what := "Watching " + w.lesson.Stage + "/ and the stages it imports; saving a file re-grades."
	if w.manual {
		what = "Re-grading only when you ask (--manual)."
	}
	return fmt.Sprintf("%s Keys (%s): r re-grade · h hint for the first failure · n next lesson when done · q quit", what, w.keyHelp)
}

// hint shows the next level of the first failing check's hint.
func (w *watcher) hint(out io.Writer) {
	if w.last.State == stateBuildError {
		fmt.Fprintln(out, "The stage does not build, so no check ran: fix the compiler's errors above first.")
		return
	}
	f := w.last.firstFailure()
	if f == nil {
		fmt.Fprintln(out, "No check fails, so there is no hint to give.")
		return
	}
	if err := showHint(out, w.app.root, f.ID, 0); err != nil {
		fmt.Fprintln(out, "hint:", err)
	}
}

// next returns the lesson after the current one, once the current one is done.
func (w *watcher) next() *check.Lesson {
	if !w.last.Done() {
		return nil
	}
	lessons := grader.Lessons()
	if i := lessonIndex(w.lesson); i >= 0 && i+1 < len(lessons) {
		return lessons[i+1]
	}
	return nil
}

// readKeys sends each byte read from r, except those read while busy is
// set: a key pressed while a check runs must not queue up a second run.
// The channel is closed when r ends.
func readKeys(r io.Reader, busy *atomic.Bool) <-chan byte {
	keys := make(chan byte, 8)
	go func() {
		defer close(keys)
		buf := make([]byte, 1)
		for {
			n, err := r.Read(buf)
			if n == 1 && !busy.Load() {
				select {
				case keys <- buf[0]:
				default: // keys pressed faster than they are handled
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return keys
}
