package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The clients written in TypeScript come from npm, each pinned with a
// lockfile in a folder of its own (install them with npm ci --prefix
// interop/FOLDER):
//
//	tsclient      @modelcontextprotocol/sdk, run on the machine's Node.js
//	inspector-v1  @modelcontextprotocol/inspector 1.x
//	inspector-v2  @modelcontextprotocol/inspector 2.x (its bin names clash with 1.x)
//	conformance   @modelcontextprotocol/conformance, and the Node.js 22 that it
//	              and both Inspectors need, as the npm package "node"
//
// A test whose client is not installed is skipped, unless requireNPMEnv is
// set to 1 (CI sets it): then it fails.
const requireNPMEnv = "INTEROP_REQUIRE_NPM"

// npmFile returns the path of rel inside the npm folder, or skips (fails,
// when required) the test if npm has not installed it.
func npmFile(t *testing.T, folder, rel string) string {
	t.Helper()
	p := filepath.Join(folder, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(t, folder+" is not installed; run: npm ci --prefix interop/"+folder)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// missing skips the test, or fails it when npm clients are required.
func missing(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv(requireNPMEnv) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// node22 is the Node.js 22 installed from npm in interop/conformance.
func node22(t *testing.T) string {
	return npmFile(t, "conformance", "node_modules/node/bin/node")
}

// minMachineNode is the oldest Node.js the TypeScript SDK supports (its
// package.json: engines.node >= 18).
const minMachineNode = 18

// machineNode returns the node on the PATH, which the TypeScript SDK client
// runs on, after checking its version.
func machineNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "Node.js is not on the PATH; the TypeScript SDK client needs Node.js 18 or newer")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	version := strings.TrimSpace(string(out)) // "v20.20.2"
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(version, "v"), ".", 2)[0])
	if major < minMachineNode {
		missing(t, "the TypeScript SDK client needs Node.js 18 or newer; the PATH has "+version)
	}
	return node
}
