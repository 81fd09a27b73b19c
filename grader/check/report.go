package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Wire records what a check sent and received, for the failure report.
// It keeps the start and the end of a long conversation and drops the middle,
// so that its memory stays bounded whatever the target sends.
type Wire struct {
	mu      sync.Mutex
	start   time.Time
	head    []wireEntry
	tail    []wireEntry
	dropped int
}

type wireEntry struct {
	at   time.Duration
	mark string // ">" sent, "<" received, "·" an event
	text string
}

const (
	wireHead  = 12  // entries kept from the start of a conversation
	wireTail  = 40  // and from its end
	shownText = 240 // bytes of one entry shown in a report
)

func newWire(start time.Time) *Wire { return &Wire{start: start} }

// Sent records bytes sent to the target.
func (w *Wire) Sent(text string) { w.add(">", text) }

// Received records bytes received from the target.
func (w *Wire) Received(text string) { w.add("<", text) }

// Event records something that happened, such as "closed stdin".
func (w *Wire) Event(format string, args ...any) { w.add("·", fmt.Sprintf(format, args...)) }

func (w *Wire) add(mark, text string) {
	e := wireEntry{at: time.Since(w.start), mark: mark, text: Show(text)}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.head) < wireHead {
		w.head = append(w.head, e)
		return
	}
	w.tail = append(w.tail, e)
	if len(w.tail) > wireTail {
		w.tail = w.tail[1:]
		w.dropped++
	}
}

func (w *Wire) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	format := func(e wireEntry) string {
		return fmt.Sprintf("+%.3fs %s %s", e.at.Seconds(), e.mark, e.text)
	}
	for _, e := range w.head {
		out = append(out, format(e))
	}
	if w.dropped > 0 {
		out = append(out, fmt.Sprintf("… %d more lines …", w.dropped))
	}
	for _, e := range w.tail {
		out = append(out, format(e))
	}
	return out
}

// Show makes text printable in a report: it is cut to a readable length, and
// quoted (Go syntax) when it holds anything a terminal would hide, such as a
// trailing "\r" or a control character.
func Show(text string) string {
	text, cut := shorten(text)
	if needsQuotes(text) {
		return strconv.Quote(text) + cut
	}
	return text + cut
}

// Quote is Show, but always quoted, so that an empty or blank value is seen.
func Quote(text string) string {
	text, cut := shorten(text)
	return strconv.Quote(text) + cut
}

// shorten cuts text to shownText bytes, on a rune boundary, and says so.
func shorten(text string) (short, cut string) {
	if len(text) <= shownText {
		return text, ""
	}
	n := shownText
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	// Clone the prefix, so that a report never keeps a huge line alive.
	return strings.Clone(text[:n]), fmt.Sprintf(" … (%d bytes in all)", len(text))
}

func needsQuotes(s string) bool {
	if s == "" || strings.TrimSpace(s) != s {
		return true
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// report formats the recorded failures: one, the check's first, on the
// course's own servers; on an external server, every part of the check
// that failed (T.Case), each with whose rule it breaks. It reads t's
// fields; the caller holds t.mu.
func (t *T) report(c *Check, status Status, fails []*caseRun) string {
	var b strings.Builder
	field := func(name, value string) {
		if value == "" {
			return
		}
		for i, line := range strings.Split(strings.TrimRight(value, "\n"), "\n") {
			if i == 0 {
				fmt.Fprintf(&b, "  %-7s %s\n", name, line)
			} else {
				fmt.Fprintf(&b, "  %-7s %s\n", "", line)
			}
		}
	}
	// An external server is judged against the spec first: say whether
	// each failure breaks it, or only what the course asks beyond it.
	rule := func(f *Failure) {
		if !t.Target.External() {
			return
		}
		switch {
		case f.Cites != nil:
			field("rule", "spec: the server breaks "+f.Cites.String())
		case c.Course == "" || f.Spec:
			field("rule", fmt.Sprintf("spec (%s): the server breaks the MCP rule cited above", c.Severity))
		default:
			field("rule", "course: the server may meet the spec here; it misses what the course asks beyond it (see course above)")
		}
	}

	fmt.Fprintf(&b, "%s %s [%s] %s\n", status, c.ID, c.Severity, c.Title)
	first := fails[0].failure
	var hints []string
	if len(fails) == 1 && fails[0].name == "" {
		field("what", first.What)
		field("got", first.Got)
		field("want", first.Want)
		field("spec", c.Spec.String())
		field("course", c.Course)
		rule(first)
		if first.Hint != "" {
			hints = append(hints, first.Hint)
		}
	} else {
		for _, p := range fails {
			name := p.name
			if name == "" {
				name = "(outside the check's parts)"
			}
			field("part", name)
			field("what", p.failure.What)
			field("got", p.failure.Got)
			field("want", p.failure.Want)
			rule(p.failure)
			if p.failure.Hint != "" && !slices.Contains(hints, p.failure.Hint) {
				hints = append(hints, p.failure.Hint)
			}
		}
		field("spec", c.Spec.String())
		field("course", c.Course)
	}
	field("hint", strings.Join(append(hints, c.Hint.Report), "\n"))
	repro := first.Repro
	if repro == "" && t.repro != nil {
		repro = t.repro()
	}
	if repro != "" && t.Target.Variant != "" {
		repro = "# GRADER_VARIANT=" + t.Target.Variant + " applies its mistake only inside the grader;\n" +
			"# this command runs the reference as it is, for comparison:\n" + repro
	}
	field("repro", repro)
	field("target", t.Target.Describe())
	field("wire", strings.Join(t.Wire.lines(), "\n"))
	var stderr []string
	for _, tail := range t.stderr {
		if s := strings.TrimRight(tail(), "\n"); s != "" {
			stderr = append(stderr, s)
		}
	}
	field("stderr", strings.Join(stderr, "\n"))
	return b.String()
}
