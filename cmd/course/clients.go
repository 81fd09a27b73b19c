package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// interopTargetVar is how the interop tests are told whose servers to
// build: "." for the learner's stage folders, "solutions" (their default)
// for the reference.
const interopTargetVar = "INTEROP_TARGET"

func (a *app) clients(args []string) error {
	fs := a.flags("clients", "NN")
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
	if ok {
		if err := a.interopClients(l, pattern); err != nil {
			return err
		}
	}
	if inBrowser {
		return a.browserClients(l, browser)
	}
	return nil
}

// interopClients runs the interop tests of one stage against the learner's
// server.
func (a *app) interopClients(l *check.Lesson, pattern string) error {
	dir := filepath.Join(a.root, "interop")
	if !mentions(dir, interopTargetVar) {
		return fmt.Errorf("the interop tests of this checkout always test the reference (they do not read %s yet), "+
			"so they cannot drive your server; update the course, or run them on the reference: cd interop && go test ./...", interopTargetVar)
	}
	var missing []string
	for _, folder := range []string{"conformance", "tsclient", "inspector-v1", "inspector-v2"} {
		if _, err := os.Stat(filepath.Join(dir, folder, "node_modules")); err != nil {
			missing = append(missing, folder)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(a.stdout, "Note: the npm clients in interop/ (%s) are not installed, so their tests will be skipped. Install them (and the Node they run on) with:\n"+
			"  for d in %s; do npm ci --prefix interop/$d; done\n", strings.Join(missing, ", "), strings.Join(missing, " "))
	}
	fmt.Fprintf(a.stdout, "Real MCP clients against your %s/ (the interop tests, with %s=.):\n", l.Stage, interopTargetVar)
	cmd := exec.Command("go", "test", "-count=1", "-v", "-run", pattern, "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), interopTargetVar+"=.")
	cmd.Stdout, cmd.Stderr = a.stdout, a.stderr
	fmt.Fprintf(a.stdout, "  (cd interop && %s=. go test -count=1 -v -run '%s' ./...)\n\n", interopTargetVar, pattern)
	if err := cmd.Run(); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("a real client had trouble with your server (above); the grader's report may say why: %s", self)}
	}
	fmt.Fprintf(a.stdout, "\nReal clients work with your lesson %s server.\n", l.Number)
	return nil
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

// browserClients runs a lesson's real-browser test against the learner's
// server: the grader's test, which builds it as the grader does.
func (a *app) browserClients(l *check.Lesson, pattern string) error {
	fmt.Fprintf(a.stdout, "A real browser (headless Chromium) against your %s/:\n  go test -count=1 -v -run %s ./grader\n\n", l.Stage, pattern)
	cmd := exec.Command("go", "test", "-count=1", "-v", "-run", pattern, "./grader")
	cmd.Dir = a.root
	cmd.Env = append(os.Environ(), "GRADER_TARGET=.")
	cmd.Stdout, cmd.Stderr = a.stdout, a.stderr
	if err := cmd.Run(); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("the browser had trouble with your server (above); the grader's report may say why: %s", self)}
	}
	fmt.Fprintf(a.stdout, "\nA real browser works with your lesson %s server, and is refused from an origin it does not allow.\n"+
		"To watch it yourself: go run ./cmd/browser-demo (%s says how).\n", l.Number, l.Guide)
	return nil
}
