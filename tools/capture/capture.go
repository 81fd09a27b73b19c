// Command capture keeps the texts of the course true to the grader. It
// does two things:
//
//   - It writes the parts of the texts that list or count checks (the
//     tables of grader/CLAIMS.md and of the lessons' deep dives, the lists
//     of EXTERNAL.md, each step's "make it pass" list, the counts in the
//     prose) from the lessons' descriptions, between <!-- gen:… --> markers
//     (see tools/docgen). These need no grader run.
//
//   - It finds every marked block of grader output in lessons/*.md, runs
//     the grader command the marker describes, and compares the block with
//     what the grader printed.
//
//     go run ./tools/capture          # check: exit 1 if a part or a block is stale (CI runs this)
//     go run ./tools/capture -write   # regenerate every stale part and block
//     go run ./tools/capture -docs    # the generated parts only, which take no grader run (add -write to write them)
//
// go test ./tools/capture checks the generated parts, in a second.
//
// # Markers of grader output
//
// A marker is an HTML comment on a line of its own, right before a fenced
// code block, whose content the command owns:
//
//	<!-- capture lesson=01 target=starter summary=full -->
//	```
//	…the output, written by the command…
//	```
//
// The words after "capture", each key=value, say what to run and what to
// keep of its output:
//
//	lesson=NN       required: run go test -count=1 ./grader -run LessonNN, as a
//	                learner would (NN must be a lesson of grader.Lessons())
//	target=T        what to grade: starter (GRADER_TARGET=starter: the
//	                lesson's starter as shipped, whatever a learner's clone
//	                holds, on the reference of the stages before it, as a
//	                learner who finished them has it; the output names it
//	                "your code", as the learner sees it), solutions (the
//	                reference), or variant:NAME (GRADER_VARIANT=NAME);
//	                default starter
//	run=ID          grade only this check: -run LessonNN/ID
//	show=ID,ID      keep only the reports of these checks; default: all
//	drop=F,F        drop these fields from the reports (what, got, want, spec,
//	                course, hint, repro, target, wire, stderr, blocks); each
//	                dropped run of lines becomes one "…" line
//	summary=S       full (default), last (only its last line, after "…"), or
//	                none
//	gotest=yes|no   keep go test's own lines after the summary (--- FAIL …,
//	                FAIL, ok …); default yes
//
// # Comparing
//
// Timings, ports, temporary paths and random ids differ from run to run, so
// the check compares both texts after normalising them: durations become
// <t>, loopback ports <port>, 32-digit hex ids <id>, paths under /tmp
// <tmp>, the grader's nonces (p-123456789) and the counts of a leak <n>,
// and the lines of each report's wire field are sorted, since events
// that happen at the same moment may be logged in either order. -write
// rewrites only the blocks whose normalised text changed, and in those it
// keeps every line (or wire field) whose normalised text is unchanged as it
// was, so that a change to one check changes only the lines it changed.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"mcpcourse/grader"
	"mcpcourse/tools/courseroot"
	"mcpcourse/tools/docgen"
)

func main() {
	write := flag.Bool("write", false, "rewrite the stale parts and blocks instead of failing")
	docsOnly := flag.Bool("docs", false, "only the generated parts, which take no grader run")
	flag.Parse()
	root, err := courseroot.Find()
	if err != nil {
		fail(err)
	}
	staleParts := generated(root, *write)
	if *docsOnly {
		if staleParts > 0 && !*write {
			os.Exit(1)
		}
		return
	}
	files, err := filepath.Glob(filepath.Join(root, "lessons", "*.md"))
	if err != nil {
		fail(err)
	}
	var docs []*doc
	for _, f := range files {
		d, err := readDoc(f)
		if err != nil {
			fail(err)
		}
		docs = append(docs, d)
	}

	// Run each distinct command once, two at a time.
	outputs := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	var errs []error
	for _, d := range docs {
		for _, b := range d.blocks {
			key := b.marker.command()
			mu.Lock()
			_, seen := outputs[key]
			outputs[key] = ""
			mu.Unlock()
			if seen {
				continue
			}
			wg.Add(1)
			go func(m marker) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				out, err := m.run(root)
				mu.Lock()
				defer mu.Unlock()
				outputs[m.command()] = out
				if err != nil {
					errs = append(errs, err)
				}
			}(b.marker)
		}
	}
	wg.Wait()
	if len(errs) > 0 {
		fail(errs[0])
	}

	stale := 0
	for _, d := range docs {
		changed := false
		for _, b := range d.blocks {
			fresh := b.marker.render(outputs[b.marker.command()])
			if normalise(fresh) == normalise(b.content) {
				continue
			}
			stale++
			rel, _ := filepath.Rel(root, d.path)
			if *write {
				b.content = merge(b.content, fresh)
				changed = true
				fmt.Printf("updated %s:%d (%s)\n", rel, b.line, b.marker.raw)
				continue
			}
			fmt.Printf("%s:%d: the captured output is stale (%s)\n%s\n", rel, b.line, b.marker.raw, docgen.FirstDifference(normalise(b.content), normalise(fresh)))
		}
		if changed {
			if err := os.WriteFile(d.path, []byte(d.text()), 0o644); err != nil {
				fail(err)
			}
		}
	}
	switch {
	case stale > 0 && !*write:
		fmt.Printf("%d captured blocks no longer match the grader's output. Regenerate them with: go run ./tools/capture -write\n", stale)
		os.Exit(1)
	case *write:
		fmt.Printf("%d blocks updated\n", stale)
	default:
		fmt.Println("every captured block matches the grader's output")
	}
	if staleParts > 0 && !*write {
		os.Exit(1)
	}
}

// generated checks the generated parts of the texts, or with write
// rewrites the stale ones, and returns how many files were stale.
func generated(root string, write bool) int {
	check := docgen.Check
	if write {
		check = docgen.Write
	}
	stale, err := check(root)
	if err != nil {
		fail(err)
	}
	for _, s := range stale {
		if write {
			fmt.Printf("updated the generated parts of %s\n", s.File.Path)
			continue
		}
		fmt.Println(strings.Join(s.Diffs, "\n"))
	}
	switch {
	case len(stale) > 0 && !write:
		fmt.Printf("%d files have stale generated parts. Regenerate them with: go run ./tools/capture -write (or -docs -write, without the grader runs)\n", len(stale))
	case len(stale) == 0:
		fmt.Println("every generated part is current")
	}
	return len(stale)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "capture:", err)
	os.Exit(2)
}

// ---- lessons and their blocks ----

// doc is a lesson file cut into plain text and owned blocks.
type doc struct {
	path   string
	parts  []string // the text around the blocks: len(parts) == len(blocks)+1
	blocks []*block
}

type block struct {
	marker  marker
	line    int    // of the marker, 1-based
	content string // between the fences, with its final newline
}

var markerLine = regexp.MustCompile(`^<!-- capture( [^>]*)? -->$`)

func readDoc(path string) (*doc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	d := &doc{path: path}
	var text strings.Builder
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\n")
		text.WriteString(lines[i])
		if !markerLine.MatchString(line) {
			continue
		}
		m, err := parseMarker(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return nil, fmt.Errorf("%s:%d: a capture marker must be followed by a fenced code block", path, i+1)
		}
		text.WriteString(lines[i+1]) // the opening fence
		end := i + 2
		for end < len(lines) && strings.TrimRight(lines[end], "\n") != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s:%d: the code block after the capture marker never closes", path, i+1)
		}
		d.parts = append(d.parts, text.String())
		text.Reset()
		d.blocks = append(d.blocks, &block{marker: m, line: i + 1, content: strings.Join(lines[i+2:end], "")})
		i = end - 1 // the closing fence goes to the next part
	}
	d.parts = append(d.parts, text.String())
	return d, nil
}

func (d *doc) text() string {
	var b strings.Builder
	for i, p := range d.parts {
		b.WriteString(p)
		if i < len(d.blocks) {
			b.WriteString(d.blocks[i].content)
		}
	}
	return b.String()
}

// ---- markers ----

type marker struct {
	raw     string
	lesson  string
	target  string // starter, solutions, variant:NAME
	one     string // the check to run alone, or ""
	show    []string
	drop    map[string]bool
	summary string
	gotest  bool
}

func parseMarker(line string) (marker, error) {
	m := marker{raw: strings.TrimSuffix(strings.TrimPrefix(line, "<!-- "), " -->"), target: "starter", summary: "full", gotest: true, drop: map[string]bool{}}
	for _, word := range strings.Fields(m.raw)[1:] {
		key, value, ok := strings.Cut(word, "=")
		if !ok {
			return m, fmt.Errorf("capture marker: %q is not key=value", word)
		}
		switch key {
		case "lesson":
			m.lesson = value
		case "target":
			m.target = value
		case "run":
			m.one = value
		case "show":
			m.show = strings.Split(value, ",")
		case "drop":
			for _, f := range strings.Split(value, ",") {
				m.drop[f] = true
			}
		case "summary":
			m.summary = value
		case "gotest":
			m.gotest = value == "yes"
		default:
			return m, fmt.Errorf("capture marker: unknown key %q", key)
		}
	}
	if grader.LessonByNumber(m.lesson) == nil {
		return m, fmt.Errorf("capture marker: lesson=%q is not one of the course's lessons", m.lesson)
	}
	if m.target != "starter" && m.target != "solutions" && !strings.HasPrefix(m.target, "variant:") {
		return m, fmt.Errorf("capture marker: target=%q is not starter, solutions or variant:NAME", m.target)
	}
	if m.summary != "full" && m.summary != "last" && m.summary != "none" {
		return m, fmt.Errorf("capture marker: summary=%q is not full, last or none", m.summary)
	}
	return m, nil
}

// env and args of the grader command the marker describes.
func (m marker) env() []string {
	switch {
	case m.target == "starter":
		return []string{"GRADER_TARGET=starter"}
	case m.target == "solutions":
		return []string{"GRADER_TARGET=solutions"}
	default:
		return []string{"GRADER_VARIANT=" + strings.TrimPrefix(m.target, "variant:")}
	}
}

func (m marker) args() []string {
	pattern := "Lesson" + m.lesson
	if m.one != "" {
		pattern += "/" + m.one
	}
	return []string{"go", "test", "-count=1", "./grader", "-run", pattern}
}

// command identifies the run, so that blocks sharing one run it once.
func (m marker) command() string {
	return strings.Join(append(m.env(), m.args()...), " ")
}

// run runs the grader. A failing lesson is the usual case, not an error;
// only output that holds no summary at all is.
func (m marker) run(root string) (string, error) {
	args := m.args()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GRADER_VERBOSE=", "GRADER_RACE=")
	cmd.Env = append(cmd.Env, m.env()...)
	out, _ := cmd.CombinedOutput()
	if !bytes.Contains(out, []byte(" checks pass.")) {
		return "", fmt.Errorf("%s printed no summary:\n%s", m.command(), out)
	}
	return string(out), nil
}

// ---- output ----

var (
	reportStart  = regexp.MustCompile(`^(FAIL|WARN|PASS) [A-Z]+-\d+ `)
	summaryStart = regexp.MustCompile(`^Lesson \d+ · `)
	fieldLine    = regexp.MustCompile(`^  ([a-z]+) +\S`)
)

// output is the grader's output, cut into its parts.
type output struct {
	reports [][]string // each report's lines
	summary []string
	tail    []string // go test's own lines
}

func parseOutput(text string) output {
	var o output
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	i := 0
	for i < len(lines) && !summaryStart.MatchString(lines[i]) {
		if reportStart.MatchString(lines[i]) {
			j := i
			for j < len(lines) && lines[j] != "" {
				j++
			}
			o.reports = append(o.reports, lines[i:j])
			i = j
			continue
		}
		i++
	}
	for i < len(lines) {
		o.summary = append(o.summary, lines[i])
		i++
		if strings.Contains(o.summary[len(o.summary)-1], " checks pass.") {
			break
		}
	}
	o.tail = lines[i:]
	return o
}

// render keeps what the marker asks for. The starter graded with
// GRADER_TARGET=starter is what a learner grades as "your code".
func (m marker) render(text string) string {
	if m.target == "starter" {
		text = starterName.ReplaceAllString(text, "your code (")
	}
	o := parseOutput(text)
	var parts []string
	for _, r := range o.reports {
		id := strings.Fields(r[0])[1]
		if len(m.show) > 0 && !contains(m.show, id) {
			continue
		}
		parts = append(parts, strings.Join(m.dropFields(r), "\n"))
	}
	var last []string
	switch m.summary {
	case "full":
		last = append(last, o.summary...)
	case "last":
		if len(o.summary) > 0 {
			last = append(last, "…", o.summary[len(o.summary)-1])
		}
	}
	if m.gotest {
		last = append(last, o.tail...)
	}
	if len(last) > 0 {
		parts = append(parts, strings.Join(last, "\n"))
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// dropFields removes the marker's fields from a report, leaving one "…"
// line where a run of them was.
func (m marker) dropFields(report []string) []string {
	var out []string
	field, cut := "", false
	for _, line := range report {
		if f := fieldLine.FindStringSubmatch(line); f != nil {
			field = f[1]
		}
		if line == report[0] || !m.drop[field] {
			out = append(out, line)
			cut = false
			continue
		}
		if !cut {
			out = append(out, "…")
			cut = true
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ---- comparing ----

var normalisers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:<port>"},
	{regexp.MustCompile(`\b[0-9a-f]{32}\b`), "<id>"},
	{regexp.MustCompile(`\b[0-9a-f]{8}…`), "<id>…"}, // a session id, shortened in a log line
	{regexp.MustCompile(`/tmp/\S+`), "<tmp>"},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|s)\b`), "<t>"},
	{starterName, "your code ("},                                                             // GRADER_TARGET=starter
	{regexp.MustCompile(`\b([a-z]+)-\d{6,9}\b`), "$1-<n>"},                                   // the grader's nonces, such as progress tokens
	{regexp.MustCompile(`\b\d+ (goroutines|open files) \(\d+ before`), "<n> $1 (<n> before"}, // counts of a leak
}

var starterName = regexp.MustCompile(`the starter as shipped \(`)

// segment is a line of output, or a group of lines whose order may differ
// between runs (a report's wire field, go test's lines for subtests): raw
// is its text as printed, key its normalised form, which two runs share.
type segment struct {
	raw, key string
}

// segments cuts text into segments, each raw text ending in a newline
// unless text does not.
func segments(text string) []segment {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	norm := func(line string) string {
		for _, n := range normalisers {
			line = n.re.ReplaceAllString(line, n.with)
		}
		return strings.TrimSuffix(line, "\n")
	}
	var out []segment
	for i := 0; i < len(lines); i++ {
		var cont func(string) bool
		switch {
		case strings.HasPrefix(lines[i], "  wire    "):
			// A report's wire field: its first line and its continuations.
			cont = func(l string) bool { return strings.HasPrefix(l, "          ") }
		case strings.HasPrefix(lines[i], "    --- "):
			// go test's lines for subtests, in the order they finished.
			cont = func(l string) bool { return strings.HasPrefix(l, "    --- ") }
		default:
			out = append(out, segment{raw: lines[i], key: norm(lines[i])})
			continue
		}
		raw := lines[i]
		keys := []string{norm(strings.Replace(lines[i], "  wire    ", "          ", 1))}
		for i+1 < len(lines) && cont(lines[i+1]) {
			i++
			raw += lines[i]
			keys = append(keys, norm(lines[i]))
		}
		sort.Strings(keys)
		head := ""
		if strings.HasPrefix(raw, "  wire") {
			head = "  wire\n"
		}
		out = append(out, segment{raw: raw, key: head + strings.Join(keys, "\n")})
	}
	return out
}

// normalise makes two runs' outputs comparable (see the package comment).
func normalise(text string) string {
	var keys []string
	for _, s := range segments(text) {
		keys = append(keys, s.key)
	}
	return strings.Join(keys, "\n")
}

// merge is fresh, written with old's bytes wherever a line (or a group of
// lines) of old is the same after normalising: a line-wise diff of the
// normalised texts, so that regenerating a block changes only what changed,
// not every port, id and timing in it.
func merge(old, fresh string) string {
	a, b := segments(old), segments(fresh)
	// lcs[i][j] is the length of the longest common run of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i].key == b[j].key {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	for i, j := 0, 0; j < len(b); {
		switch {
		case i < len(a) && a[i].key == b[j].key:
			raw := a[i].raw
			if !strings.HasSuffix(raw, "\n") && strings.HasSuffix(b[j].raw, "\n") {
				raw += "\n"
			}
			out.WriteString(raw)
			i, j = i+1, j+1
		case i < len(a) && lcs[i+1][j] >= lcs[i][j+1]:
			i++ // a line only old has
		default:
			out.WriteString(b[j].raw)
			j++
		}
	}
	return out.String()
}
