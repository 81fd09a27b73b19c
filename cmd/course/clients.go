package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"mcpcourse/grader/check"
)

// clientTests picks, per lesson, the interop tests that drive that lesson's
// server with real clients (go test -run patterns; see interop/README.md).
// Every interop test names its first level of subtests after the stage
// folder, so one pattern per stage picks them all.
var clientTests = map[string]string{
	"01": "/01-stdio",
	"02": "/02-streamable-http",
	"03": "/03-sse-resume",
	"04": "/04-origin",
}

// browserTests picks, per lesson, the grader's real-browser tests (go test
// -run patterns in ./grader), which drive the learner's server from a
// headless Chromium.
var browserTests = map[string]string{
	"04": "Browser04",
}

// clientNames says which real client each interop test runs, for the
// summary a learner reads. A test missing here is named by its Go name.
var clientNames = map[string]string{
	"TestGoSDKClientStdio":          "the official Go SDK client over stdio",
	"TestGoSDKClientHTTP":           "the official Go SDK client over Streamable HTTP",
	"TestGoSDKClientServerRequests": "the official Go SDK client answering the server's requests (sampling, elicitation, roots)",
	"TestTSClient":                  "the official TypeScript SDK client",
	"TestInspectorCLI":              "both MCP Inspector CLIs (1.x and 2.x)",
	"TestConformanceNotesServer":    "the official MCP conformance suite on the notes server",
	"TestConformanceSuite":          "the official MCP conformance suite, every server scenario",
	"TestBrowser04":                 "a real browser (headless Chromium)",
}

// npmFolders are the interop folders whose clients come from npm, in the
// order they install: conformance first, since it also brings the Node.js
// 22 the others run on. Only conformance needs its install scripts (they
// fetch that Node.js).
var npmFolders = []struct{ dir, flags string }{
	{"conformance", ""},
	{"tsclient", "--ignore-scripts"},
	{"inspector-v1", "--ignore-scripts"},
	{"inspector-v2", "--ignore-scripts"},
}

// interopTargetVar is how the interop tests are told whose servers to
// build: "." for the learner's stage folders, "solutions" (their default)
// for the reference.
const interopTargetVar = "INTEROP_TARGET"

func (a *app) clients(args []string) error {
	fs := a.flags("clients", "NN [--install]")
	install := fs.Bool("install", false, "install the npm clients that are missing (npm ci in interop/) before running them")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError("name the lesson whose server to try, for example: %s clients 01", self)
	}
	l, err := lessonArg(rest[0])
	if err != nil {
		return err
	}
	pattern, ok := clientTests[l.Number]
	browser, inBrowser := browserTests[l.Number]
	if !ok && !inBrowser {
		return fmt.Errorf("lesson %s has no real-client tests yet", l.Number)
	}
	var runs []clientRun
	if ok {
		r, err := a.interopClients(l, pattern, *install)
		if err != nil {
			return err
		}
		runs = append(runs, r...)
	}
	if inBrowser {
		r, err := a.browserClients(l, browser)
		if err != nil {
			return err
		}
		runs = append(runs, r...)
	}
	return a.clientSummary(l, runs)
}

// interopClients runs the interop tests of one stage against the learner's
// server, and returns what each client did.
func (a *app) interopClients(l *check.Lesson, pattern string, install bool) ([]clientRun, error) {
	dir := filepath.Join(a.root, "interop")
	if !mentions(dir, interopTargetVar) {
		return nil, fmt.Errorf("the interop tests of this checkout always test the reference (they do not read %s yet), "+
			"so they cannot drive your server; update the course, or run them on the reference: cd interop && go test ./...", interopTargetVar)
	}
	if install {
		if err := a.installNPMClients(dir); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(a.stdout, "Real MCP clients against your %s/ (the interop tests, with %s=.):\n", l.Stage, interopTargetVar)
	fmt.Fprintf(a.stdout, "  (cd interop && %s=. go test -count=1 -v -run '%s' ./...)\n\n", interopTargetVar, pattern)
	cmd := exec.Command("go", "test", "-count=1", "-json", "-run", pattern, "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), interopTargetVar+"=.")
	return a.runClientTests(cmd, l.Stage)
}

// missingNPMClients lists the npm folders of interop/ that are not
// installed.
func missingNPMClients(interop string) []string {
	var missing []string
	for _, f := range npmFolders {
		if _, err := os.Stat(filepath.Join(interop, f.dir, "node_modules")); err != nil {
			missing = append(missing, f.dir)
		}
	}
	return missing
}

// installNPMClients runs npm ci in every npm folder of interop/ that is not
// installed yet, exactly as its lockfile says.
func (a *app) installNPMClients(interop string) error {
	missing := map[string]bool{}
	for _, d := range missingNPMClients(interop) {
		missing[d] = true
	}
	if len(missing) == 0 {
		fmt.Fprintln(a.stdout, "The npm clients are installed already.")
		return nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("installing the npm clients needs npm (and Node.js 18 or newer), which this machine lacks: %s doctor says how to get them", self)
	}
	for _, f := range npmFolders {
		if !missing[f.dir] {
			continue
		}
		args := []string{"ci", "--no-audit", "--no-fund", "--loglevel=error"}
		if f.flags != "" {
			args = append(args, f.flags)
		}
		fmt.Fprintf(a.stdout, "Installing interop/%s: npm %s\n", f.dir, strings.Join(args, " "))
		cmd := exec.Command("npm", args...)
		cmd.Dir = filepath.Join(interop, f.dir)
		cmd.Stdout, cmd.Stderr = a.stdout, a.stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm ci in interop/%s failed (above): %w", f.dir, err)
		}
	}
	fmt.Fprintln(a.stdout)
	return nil
}

// browserClients runs a lesson's real-browser test against the learner's
// server: the grader's test, which builds it as the grader does.
func (a *app) browserClients(l *check.Lesson, pattern string) ([]clientRun, error) {
	fmt.Fprintf(a.stdout, "A real browser (headless Chromium) against your %s/:\n  GRADER_TARGET=. go test -count=1 -v -run %s ./grader\n\n", l.Stage, pattern)
	cmd := exec.Command("go", "test", "-count=1", "-json", "-run", pattern, "./grader")
	cmd.Dir = a.root
	cmd.Env = append(os.Environ(), "GRADER_TARGET=.")
	return a.runClientTests(cmd, "")
}

// clientRun is what one real client did against the learner's server: one
// top-level interop (or browser) test, on the lesson's stage.
type clientRun struct {
	test    string // the Go test, such as "TestTSClient"
	status  string // "pass", "fail" or "skip"
	why     string // for a skip: the test's own words, which say how to install what it needs
	skipped []string
	output  []string // the test's output, shown when it failed
}

// name is how a learner knows the client.
func (r clientRun) name() string {
	if n, ok := clientNames[r.test]; ok {
		return n
	}
	return r.test
}

// testEvent is one line of go test -json.
type testEvent struct {
	Action string
	Test   string
	Output string
}

// runClientTests runs cmd, a go test -json, and turns its events into one
// clientRun per top-level test. stage is the subtest level that names the
// lesson's stage ("" when the top-level test is the client itself); a
// top-level test that has no subtest for the stage and did not skip does
// not cover the lesson, and is left out.
func (a *app) runClientTests(cmd *exec.Cmd, stage string) ([]clientRun, error) {
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, a.stderr
	runErr := cmd.Run()
	runs, err := parseClientEvents(&stdout, stage)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 && runErr != nil {
		// The tests did not run at all: a build failure, whose output
		// go test printed as plain lines among the events.
		return nil, &exitError{code: 1, msg: fmt.Sprintf("the real-client tests did not run: %v\n%s", runErr, nonEvents(stdout.Bytes()))}
	}
	return runs, nil
}

// parseClientEvents reads go test -json output; see runClientTests.
func parseClientEvents(r io.Reader, stage string) ([]clientRun, error) {
	type record struct {
		status string
		output []string
	}
	tests := map[string]*record{}
	var order []string
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64<<10), 16<<20)
	for lines.Scan() {
		var e testEvent
		if json.Unmarshal(lines.Bytes(), &e) != nil || e.Test == "" {
			continue // a line that is not an event (a build error), or a package's own
		}
		rec := tests[e.Test]
		if rec == nil {
			rec = &record{}
			tests[e.Test] = rec
			order = append(order, e.Test)
		}
		switch e.Action {
		case "pass", "fail", "skip":
			rec.status = e.Action
		case "output":
			rec.output = append(rec.output, strings.TrimRight(e.Output, "\n"))
		}
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}

	var runs []clientRun
	for _, name := range order {
		if strings.Contains(name, "/") {
			continue
		}
		top := tests[name]
		run := clientRun{test: name, status: top.status}
		scope := name
		if stage != "" {
			sub, ok := tests[name+"/"+stage]
			switch {
			case ok:
				run.status, scope = sub.status, name+"/"+stage
			case top.status != "skip":
				continue // not a client of this stage
			}
		}
		// Judge by the leaves: a client passed only if some part of it
		// ran and passed, and none failed. A test whose every part was
		// skipped did not run, whatever go test says of its parent.
		var leaves []string
		for _, t := range order {
			if t != scope && !strings.HasPrefix(t, scope+"/") {
				continue
			}
			if !hasChild(order, t) {
				leaves = append(leaves, t)
			}
		}
		passes, fails := 0, 0
		var reasons []string
		for _, leaf := range leaves {
			switch tests[leaf].status {
			case "pass":
				passes++
			case "fail":
				fails++
			case "skip":
				why := skipReason(tests[leaf].output)
				if leaf != scope {
					run.skipped = append(run.skipped, strings.TrimPrefix(leaf, scope+"/")+": "+why)
				}
				if !slices.Contains(reasons, why) {
					reasons = append(reasons, why)
				}
			}
		}
		switch {
		case fails > 0 || run.status == "fail":
			run.status = "fail"
		case passes == 0:
			run.status, run.why, run.skipped = "skip", strings.Join(reasons, "; "), nil
		default:
			run.status = "pass"
		}
		if run.status == "fail" {
			for _, t := range order {
				if t == scope || strings.HasPrefix(t, scope+"/") {
					run.output = append(run.output, tests[t].output...)
				}
			}
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// hasChild reports whether any test in order is a subtest of name.
func hasChild(order []string, name string) bool {
	for _, t := range order {
		if strings.HasPrefix(t, name+"/") {
			return true
		}
	}
	return false
}

// skipReason picks the words of t.Skip out of a skipped test's output: the
// lines that are neither go test's own (=== RUN, --- SKIP) nor empty, with
// the file:line prefix go test puts before them.
func skipReason(output []string) string {
	var words []string
	for _, line := range output {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- ") {
			continue
		}
		if i := strings.Index(line, ".go:"); i > 0 {
			if j := strings.Index(line[i:], ": "); j > 0 {
				line = line[i+j+2:]
			}
		}
		words = append(words, line)
	}
	if len(words) == 0 {
		return "skipped (the test said no more)"
	}
	return strings.Join(words, " ")
}

// nonEvents returns the lines of go test -json output that are not events.
func nonEvents(out []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "{") && strings.TrimSpace(line) != "" {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// clientSummary says which clients ran and passed, which failed, and which
// were skipped and how to run them; it prints a success line only for
// clients that ran and passed, and fails when any failed.
func (a *app) clientSummary(l *check.Lesson, runs []clientRun) error {
	sort.SliceStable(runs, func(i, j int) bool { return statusOrder(runs[i].status) < statusOrder(runs[j].status) })
	var passed, failed, skipped []clientRun
	for _, r := range runs {
		switch r.status {
		case "pass":
			passed = append(passed, r)
		case "fail":
			failed = append(failed, r)
		default:
			skipped = append(skipped, r)
		}
	}
	for _, r := range failed {
		fmt.Fprintf(a.stdout, "--- %s (%s) failed:\n", r.name(), r.test)
		for _, line := range r.output {
			fmt.Fprintln(a.stdout, "  "+line)
		}
		fmt.Fprintln(a.stdout)
	}
	fmt.Fprintf(a.stdout, "Real clients against your lesson %s server:\n", l.Number)
	for _, r := range passed {
		fmt.Fprintf(a.stdout, "  ✓ ran and passed: %s\n", r.name())
		for _, s := range r.skipped {
			fmt.Fprintf(a.stdout, "      (one part skipped: %s)\n", s)
		}
	}
	for _, r := range failed {
		fmt.Fprintf(a.stdout, "  ✗ ran and FAILED: %s (its output is above)\n", r.name())
	}
	for _, r := range skipped {
		fmt.Fprintf(a.stdout, "  - skipped, did not run: %s: %s\n", r.name(), r.why)
	}
	if len(runs) == 0 {
		fmt.Fprintln(a.stdout, "  none ran: no real-client test covers this lesson's stage in this checkout")
	}
	if missing := missingNPMClients(filepath.Join(a.root, "interop")); len(missing) > 0 && hasNPMSkip(skipped) {
		fmt.Fprintf(a.stdout, "\nThe npm clients (%s) are not installed. Install them and run again with:\n  %s clients %s --install\n",
			strings.Join(missing, ", "), self, l.Number)
	}
	for _, r := range skipped {
		if r.test == "TestBrowser04" {
			fmt.Fprintf(a.stdout, "\nThe browser test needs Chromium: on Debian or Ubuntu, sudo apt-get install chromium "+
				"(or set CHROMIUM to a Chrome or Chromium binary), then run %s clients %s again.\n", self, l.Number)
		}
	}
	switch {
	case len(failed) > 0:
		return &exitError{code: 1, msg: fmt.Sprintf("%d of the real clients that ran had trouble with your server (above); the grader's report may say why: %s", len(failed), self)}
	case len(passed) == 0:
		fmt.Fprintf(a.stdout, "\nNo real client ran, so this says nothing yet about your lesson %s server.\n", l.Number)
		return &exitError{code: 1, msg: "no real client ran (see above for how to install them)"}
	}
	var names []string
	for _, r := range passed {
		names = append(names, r.name())
	}
	fmt.Fprintf(a.stdout, "\nRan and passed against your lesson %s server: %s", l.Number, strings.Join(names, "; "))
	if len(skipped) > 0 {
		fmt.Fprintf(a.stdout, " (%d more skipped, listed above)", len(skipped))
	}
	fmt.Fprintln(a.stdout, ".")
	for _, r := range passed {
		if r.test == "TestBrowser04" {
			fmt.Fprintf(a.stdout, "The browser was served from an origin your server allows, and refused from one it does not; "+
				"a page it was told came from the internet never reached your server (Chromium's Local Network Access).\n"+
				"To watch it yourself: go run ./cmd/browser-demo (%s says how).\n", l.DeepDives())
		}
	}
	return nil
}

func statusOrder(s string) int {
	switch s {
	case "pass":
		return 0
	case "fail":
		return 1
	}
	return 2
}

// hasNPMSkip reports whether a skip names an npm install.
func hasNPMSkip(skipped []clientRun) bool {
	for _, r := range skipped {
		if strings.Contains(r.why, "npm ci") {
			return true
		}
	}
	return false
}

// mentions reports whether any Go file directly in dir contains text.
func mentions(dir, text string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil && bytes.Contains(data, []byte(text)) {
			return true
		}
	}
	return false
}
