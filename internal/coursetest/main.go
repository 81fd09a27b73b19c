// Command coursetest runs the course's own tests: the gates every change must
// pass before it lands, and exactly what CI runs (.ci/run calls it).
//
//	go run ./internal/coursetest
//
// In order: gofmt, go vet, the unit tests of the given code and the reference
// solutions under the race detector, the grader against the reference, the
// proofs that the grader works (grader/proof), and the interop tests, in which
// real clients drive the reference servers: the official Go SDK client, and
// the official MCP conformance suite from npm (interop/, a module of its
// own). The conformance step needs npm (Node.js 18 or newer), and installs
// the Node.js 22 the suite runs on from the npm registry.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// step is one gate: a command, run from a folder of the course.
type step struct {
	name string
	dir  string // relative to the course root
	env  []string
	args []string
	// check, when set, judges the command's output instead of its exit
	// status alone (gofmt -l exits 0 even when files need formatting).
	check func(out string) error
}

func steps() []step {
	gofmtClean := func(out string) error {
		if strings.TrimSpace(out) != "" {
			return fmt.Errorf("these files need gofmt -w:\n%s", out)
		}
		return nil
	}
	return []step{
		{name: "gofmt", args: []string{"gofmt", "-l", "."}, check: gofmtClean},
		{name: "go vet", args: []string{"go", "vet", "./..."}},
		{name: "go vet (interop)", dir: "interop", args: []string{"go", "vet", "./..."}},
		{name: "unit tests, race detector", args: []string{"go", "test", "-race", "-count=1", "./internal/...", "./solutions/...", "./grader/internal/..."}},
		{name: "grader on the reference, race detector", env: []string{"GRADER_TARGET=solutions", "GRADER_RACE=1"},
			args: []string{"go", "test", "-race", "-count=1", "./grader"}},
		{name: "proofs that the grader works", args: []string{"go", "test", "-count=1", "-timeout=30m", "./grader/proof"}},
		{name: "install the MCP conformance suite (npm)", dir: "interop/conformance",
			args: []string{"npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"}},
		{name: "interop: the official Go SDK client and the MCP conformance suite vs the reference", dir: "interop",
			env: []string{"MCP_CONFORMANCE=required"}, args: []string{"go", "test", "-race", "-count=1", "./..."}},
	}
}

func main() {
	root, err := courseRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "coursetest:", err)
		os.Exit(2)
	}
	start := time.Now()
	var failed []string
	for _, s := range steps() {
		fmt.Printf("==> %s: %s\n", s.name, strings.Join(append(append([]string(nil), s.env...), s.args...), " "))
		began := time.Now()
		if err := run(root, s); err != nil {
			fmt.Printf("FAIL %s (%.1fs): %v\n\n", s.name, time.Since(began).Seconds(), err)
			failed = append(failed, s.name)
			continue
		}
		fmt.Printf("ok   %s (%.1fs)\n\n", s.name, time.Since(began).Seconds())
	}
	if len(failed) > 0 {
		fmt.Printf("coursetest: %d step(s) failed in %.0fs: %s\n", len(failed), time.Since(start).Seconds(), strings.Join(failed, "; "))
		os.Exit(1)
	}
	fmt.Printf("coursetest: all steps passed in %.0fs\n", time.Since(start).Seconds())
}

func run(root string, s step) error {
	cmd := exec.Command(s.args[0], s.args[1:]...)
	cmd.Dir = filepath.Join(root, s.dir)
	cmd.Env = append(os.Environ(), s.env...)
	if s.check != nil {
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v\n%s", err, out)
		}
		return s.check(string(out))
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// courseRoot finds the folder of the course's go.mod.
func courseRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run this from inside the course folder")
	}
	return filepath.Dir(gomod), nil
}
