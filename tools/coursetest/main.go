// Command coursetest runs the course's own tests: the gates every change must
// pass before it lands, and exactly what CI runs (.ci/run calls it).
//
//	go run ./tools/coursetest
//
// In order: that git tracks no built executable (tools/binaries), gofmt, go
// vet, the unit tests of the given code, the course's tools (tools/stoptest
// among them: every command that says it listens stops cleanly on SIGTERM
// sent right after it says so, 200 times each), the reference solutions and
// the course command (cmd/course, whose classroom test checks its HTML report
// in a headless Chromium) under the race detector, the grader against the
// reference, the proofs that the grader works (grader/proof), the check that
// the grader output quoted in the lessons is current (tools/capture), and the
// interop tests, in which real clients drive the reference servers (interop/,
// a module of its own; see interop/README.md): the official Go SDK and
// TypeScript SDK clients, both MCP Inspector CLIs, and the official MCP
// conformance suite. Last, the benchmark (bench/, a module of its own): its
// peer servers through the whole tool contract, a smoke run of every row with
// tiny counts, and a smoke run of the compatibility table (cmd/compat, which
// grades the peers with the grader's external mode). The npm steps need npm
// and Node.js 18 or newer (the TypeScript SDK client and peer run on it);
// they install the Node.js 22 that the suite and the Inspectors run on from
// the npm registry.
//
// It also works on a learner's clone, where the stage folders hold the
// learner's code: the proofs then grade the starters as shipped (read back
// from git), and gofmt and go vet skip the learner's folders, saying so.
// CI sets COURSE_CI=1, which makes a starter folder that differs from its
// manifest (grader/starters.sum) an error instead.
//
// The starters are generated from the regions of the reference (see
// tools/stages), and a unit test fails when they are stale. A course change
// that changes a starter changes the reference's regions, then regenerates
// the starter folders and their manifest with
//
//	go run ./tools/coursetest -write-starters
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"mcpcourse/grader"
	"mcpcourse/tools/binaries"
	"mcpcourse/tools/courseroot"
	"mcpcourse/tools/stages"
	"mcpcourse/tools/starters"
)

// step is one gate: a command, run from a folder of the course, or a
// function of this program's own.
type step struct {
	name string
	dir  string // relative to the course root
	env  []string
	args []string
	// check, when set, judges the command's output instead of its exit
	// status alone (gofmt -l exits 0 even when files need formatting).
	check func(out string) error
	// do, when set, is the gate itself, instead of a command.
	do func(root string) error
}

// noBinaries refuses an executable that git tracks: nothing built is
// committed.
func noBinaries(root string) error {
	found, err := binaries.Committed(root)
	if err != nil {
		return err
	}
	if len(found) > 0 {
		return fmt.Errorf("git tracks built executables; remove them (git rm --cached) and let .gitignore keep them out:\n%s", strings.Join(found, "\n"))
	}
	return nil
}

func steps(learnerFolders []string) []step {
	gofmtClean := func(out string) error {
		var bad []string
		for _, file := range strings.Fields(out) {
			// .course holds the course command's backups of a learner's
			// files, which are the learner's own.
			if !inFolders(file, learnerFolders) && !inFolders(file, []string{".course"}) {
				bad = append(bad, file)
			}
		}
		if len(bad) > 0 {
			return fmt.Errorf("these files need gofmt -w:\n%s", strings.Join(bad, "\n"))
		}
		return nil
	}
	vet := []string{"go", "vet"}
	if len(learnerFolders) == 0 {
		vet = append(vet, "./...")
	} else {
		vet = append(vet, "./internal/...", "./tools/...", "./solutions/...", "./grader/...", "./cmd/...")
	}
	return []step{
		{name: "no built binary is committed", do: noBinaries},
		{name: "gofmt", args: []string{"gofmt", "-l", "."}, check: gofmtClean},
		{name: "go vet", args: vet},
		{name: "go vet (interop)", dir: "interop", args: []string{"go", "vet", "./..."}},
		{name: "go vet (bench)", dir: "bench", args: []string{"go", "vet", "./..."}},
		{name: "unit tests, race detector", args: []string{"go", "test", "-race", "-count=1", "./internal/...", "./solutions/...", "./grader/check/...", "./grader/internal/...", "./grader/variants/...", "./tools/...", "./cmd/..."}},
		{name: "grader on the reference, race detector", env: []string{"GRADER_TARGET=solutions", "GRADER_RACE=1"},
			args: []string{"go", "test", "-race", "-count=1", "./grader"}},
		{name: "proofs that the grader works", args: []string{"go", "test", "-count=1", "-timeout=30m", "./grader/proof"}},
		{name: "the grader output quoted in the lessons is current", args: []string{"go", "run", "./tools/capture"}},
		// The full mutation sweep (grader/MUTATION.md) takes about an hour
		// here: go run ./tools/mutate -all -write. CI grades a fixed sample of
		// the mutants the stored sweep killed, each twice, so that the tool
		// cannot rot and a kill that happens only by timing is found.
		{name: "mutation sweep: a fixed sample of 16 mutants the stored sweep killed, each graded twice", args: []string{"go", "run", "./tools/mutate", "-sample", "16", "-parallel", "2"}},
		// The npm packages the interop tests run, each pinned by its lockfile.
		// The conformance folder also pins the Node.js 22 that the suite and
		// both Inspectors need: the npm package "node" installs it with an
		// install script. The other folders need no install scripts, so none
		// run.
		npmCI("the MCP conformance suite and Node.js 22", "interop/conformance"),
		npmCI("the TypeScript SDK client", "interop/tsclient", "--ignore-scripts"),
		npmCI("MCP Inspector 1.x", "interop/inspector-v1", "--ignore-scripts"),
		npmCI("MCP Inspector 2.x", "interop/inspector-v2", "--ignore-scripts"),
		{name: "interop: the Go SDK and TypeScript SDK clients, both MCP Inspector CLIs and the MCP conformance suite vs the reference",
			dir: "interop", env: []string{"INTEROP_REQUIRE_NPM=1"},
			args: []string{"go", "test", "-race", "-count=1", "-timeout=15m", "./..."}},
		// The benchmark (bench/, a module of its own; see bench/README.md):
		// its peer servers must serve the whole tool contract, and every
		// row must still run. The smoke run uses tiny counts and asserts
		// nothing about speed.
		npmCI("the TypeScript SDK peer server", "bench/peers/ts", "--ignore-scripts"),
		{name: "bench: unit tests, and every peer server through the tool contract", dir: "bench", env: []string{"BENCH_REQUIRE_NPM=1"},
			args: []string{"go", "test", "-count=1", "-timeout=5m", "./..."}},
		{name: "bench: every row once, tiny counts (a smoke run, not a measurement)", dir: "bench",
			args: []string{"go", "run", "./cmd/bench", "-smoke"}},
		// The compatibility table (COMPATIBILITY.md) comes from a full run of
		// cmd/compat; CI checks that the command still runs: every server,
		// every way of running it, two checks of each lesson.
		{name: "compat: every server graded on two checks of each lesson (a smoke run of the compatibility table)", dir: "bench",
			args: []string{"go", "run", "./cmd/compat", "-smoke"}},
	}
}

// npmCI installs the npm packages pinned in dir, exactly as its lockfile says.
func npmCI(what, dir string, flags ...string) step {
	return step{name: "install " + what + " (npm)", dir: dir,
		args: append([]string{"npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"}, flags...)}
}

func main() {
	writeStarters := flag.Bool("write-starters", false, "generate the starter folders from the reference's regions, rewrite "+starters.ManifestPath+" from them, and exit")
	force := flag.Bool("force", false, "with -write-starters: overwrite starter folders that differ from "+starters.ManifestPath)
	flag.Parse()
	root, err := courseroot.Find()
	if err != nil {
		fmt.Fprintln(os.Stderr, "coursetest:", err)
		os.Exit(2)
	}
	if *writeStarters {
		if err := writeStartersAndManifest(root, *force); err != nil {
			fmt.Fprintln(os.Stderr, "coursetest:", err)
			os.Exit(1)
		}
		fmt.Println("generated the starter folders, and wrote", starters.ManifestPath)
		return
	}
	learnerFolders, err := checkStarters(root, os.Getenv("COURSE_CI") == "1")
	if err != nil {
		fmt.Fprintln(os.Stderr, "coursetest:", err)
		os.Exit(1)
	}
	start := time.Now()
	var failed []string
	for _, s := range steps(learnerFolders) {
		if s.do != nil {
			fmt.Printf("==> %s\n", s.name)
		} else {
			fmt.Printf("==> %s: %s\n", s.name, strings.Join(append(append([]string(nil), s.env...), s.args...), " "))
		}
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
	if s.do != nil {
		return s.do(root)
	}
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

// stageFolders are the starter folders of every lesson.
func stageFolders() []string {
	var folders []string
	for _, l := range grader.Lessons() {
		folders = append(folders, l.Stage)
	}
	return folders
}

// writeStartersAndManifest generates every starter folder from the
// reference, then the manifest from the folders. It will not overwrite
// folders that differ from the manifest (a learner's work, or a starter
// edited by hand) unless forced.
func writeStartersAndManifest(root string, force bool) error {
	if changes, err := starters.Changes(root); err == nil && len(changes) > 0 && !force {
		var b strings.Builder
		for _, c := range changes {
			fmt.Fprintf(&b, "  %s %s\n", c.Kind, c.Path)
		}
		return fmt.Errorf("the starter folders differ from %s, and generating them would overwrite that:\n%s"+
			"The starters are generated from the regions of solutions/ (tools/stages): make the change there. "+
			"To overwrite the folders anyway, add -force", starters.ManifestPath, b.String())
	}
	if err := stages.WriteStarters(root, stageFolders()); err != nil {
		return err
	}
	files, err := starters.Scan(root, stageFolders())
	if err != nil {
		return err
	}
	return starters.Write(root, files)
}

// checkStarters compares the starter folders with the manifest. It returns
// the folders a learner has changed. In strict mode (CI) any change, or a
// stage the manifest does not cover, is an error.
func checkStarters(root string, strict bool) ([]string, error) {
	files, err := starters.Read(root)
	if err != nil {
		return nil, fmt.Errorf("reading the starter manifest: %w (write it with -write-starters)", err)
	}
	covered := map[string]bool{}
	for _, f := range starters.Folders(files) {
		covered[f] = true
	}
	for _, f := range stageFolders() {
		if !covered[f] {
			return nil, fmt.Errorf("%s does not list the starter folder %s: run go run ./tools/coursetest -write-starters", starters.ManifestPath, f)
		}
	}
	changes, err := starters.Changes(root)
	if err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return nil, nil
	}
	if strict {
		var b strings.Builder
		for _, c := range changes {
			fmt.Fprintf(&b, "  %s %s\n", c.Kind, c.Path)
		}
		return nil, fmt.Errorf("the starter folders differ from %s:\n%sThe starters are generated from the reference's regions: change those, then run go run ./tools/coursetest -write-starters and commit the folders and the manifest",
			starters.ManifestPath, b.String())
	}
	seen := map[string]bool{}
	var folders []string
	for _, c := range changes {
		top, _, _ := strings.Cut(c.Path, "/")
		if !seen[top] {
			seen[top] = true
			folders = append(folders, top)
		}
	}
	fmt.Printf("Note: the stage folders %s hold your own work (%d files differ from the starters).\n"+
		"The proofs grade the starters as shipped, read back from git; gofmt and go vet skip your folders.\n\n",
		strings.Join(folders, ", "), len(changes))
	return folders, nil
}

func inFolders(path string, folders []string) bool {
	path = filepath.ToSlash(path)
	for _, f := range folders {
		if strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return false
}
