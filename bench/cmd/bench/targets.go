package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A target is one server the benchmark measures.
type target struct {
	name  string
	kind  string // "reference", "peer" or "ceiling"
	stage string // the reference's stage folder, such as "03-sse-resume"

	stdio []string                      // its stdio command, or nil
	http  func(stateless bool) []string // its HTTP command, or nil
}

// stages are the reference's stages, oldest first. A stage whose folder is
// not in the checkout (stage 04, until it lands) is left out.
var stages = []string{"01-stdio", "02-streamable-http", "03-sse-resume", "04-origin"}

// build compiles every target into dir and returns them, the newest
// reference stage first, then the peers, then the ceiling.
func build(courseRoot, benchRoot, dir string, withTS bool, baseline string) ([]*target, error) {
	goBuild := func(root, pkg, out string) error {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, out), pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
		return nil
	}
	var refs []*target
	for _, stage := range stages {
		if _, err := os.Stat(filepath.Join(courseRoot, "solutions", stage, "cmd", "server")); err != nil {
			continue
		}
		bin := "ref-" + stage[:2]
		if err := goBuild(courseRoot, "./solutions/"+stage+"/cmd/server", bin); err != nil {
			return nil, err
		}
		t := &target{name: "reference " + stage[:2], kind: "reference", stage: stage}
		path := filepath.Join(dir, bin)
		if stage == "01-stdio" {
			t.stdio = []string{path}
		} else {
			t.http = referenceHTTP(path)
		}
		refs = append([]*target{t}, refs...) // newest first
	}
	targets := refs
	if baseline != "" {
		old, err := buildBaseline(courseRoot, dir, baseline, refs)
		if err != nil {
			return nil, err
		}
		targets = append(targets, old...)
	}
	peer := func(name, kind string, argv ...string) *target {
		return &target{name: name, kind: kind, stdio: argv, http: func(stateless bool) []string {
			a := append(append([]string(nil), argv...), "-http", "127.0.0.1:0")
			if stateless {
				a = append(a, "-stateless")
			}
			return a
		}}
	}
	for _, p := range []struct{ name, pkg, bin string }{
		{"go-sdk v1.8.0", "./peers/cmd/gosdk-server", "gosdk-server"},
		{"mcp-go v1.2.1", "./peers/cmd/mcpgo-server", "mcpgo-server"},
	} {
		if err := goBuild(benchRoot, p.pkg, p.bin); err != nil {
			return nil, err
		}
		targets = append(targets, peer(p.name, "peer", filepath.Join(dir, p.bin)))
	}
	if withTS {
		script := filepath.Join(benchRoot, "peers", "ts", "server.mjs")
		if _, err := os.Stat(filepath.Join(benchRoot, "peers", "ts", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
			return nil, fmt.Errorf("the TypeScript peer is not installed: run npm ci --prefix peers/ts (or pass -ts=false)")
		}
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, fmt.Errorf("the TypeScript peer needs node on PATH (or pass -ts=false)")
		}
		targets = append(targets, peer("TS SDK 1.32.2", "peer", node, script))
	}
	if err := goBuild(benchRoot, "./cmd/canned", "canned"); err != nil {
		return nil, err
	}
	targets = append(targets, peer("canned", "ceiling", filepath.Join(dir, "canned")))
	return targets, nil
}

// referenceHTTP is the command line of a reference HTTP stage: on a free
// loopback port, and a session cap no row reaches.
func referenceHTTP(bin string) func(stateless bool) []string {
	return func(stateless bool) []string {
		argv := []string{bin, "-addr", "127.0.0.1:0", "-max-sessions", "1000000"}
		if stateless {
			argv = append(argv, "-stateless")
		}
		return argv
	}
}

// buildBaseline builds stage 01 and the newest HTTP stage as they are at a
// git revision of the course (such as main), to measure beside the working
// tree: a before and an after in one run.
func buildBaseline(courseRoot, dir, rev string, refs []*target) ([]*target, error) {
	src := filepath.Join(dir, "baseline")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	archive := exec.Command("sh", "-c", `git archive "$1" -- go.mod go.sum internal solutions | tar -x -C "$2"`, "sh", rev, src)
	archive.Dir = courseRoot
	if b, err := archive.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git archive %s: %v\n%s", rev, err, b)
	}
	var out []*target
	for _, stage := range []*target{find(refs, func(t *target) bool { return hasStage(t, "01") }), newestHTTP(refs)} {
		if stage == nil {
			continue
		}
		bin := filepath.Join(dir, "baseline-"+stage.stage[:2])
		cmd := exec.Command("go", "build", "-o", bin, "./solutions/"+stage.stage+"/cmd/server")
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building %s at %s: %v\n%s", stage.stage, rev, err, b)
		}
		t := &target{name: stage.name + " @" + rev, kind: "baseline", stage: stage.stage}
		if stage.stdio != nil {
			t.stdio = []string{bin}
		} else {
			t.http = referenceHTTP(bin)
		}
		out = append(out, t)
	}
	return out, nil
}

// newestHTTP returns the newest reference stage served over HTTP.
func newestHTTP(targets []*target) *target {
	for _, t := range targets {
		if t.kind == "reference" && t.http != nil {
			return t
		}
	}
	return nil
}

func find(targets []*target, match func(*target) bool) *target {
	for _, t := range targets {
		if match(t) {
			return t
		}
	}
	return nil
}

func hasStage(t *target, prefix string) bool {
	return t.kind == "reference" && strings.HasPrefix(t.stage, prefix)
}
