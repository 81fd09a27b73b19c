package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A server is one implementation in the table: the course's reference, or
// a peer built on an SDK, each serving the tool contract
// (peers/contract).
type server struct {
	key     string // short name, for -servers and the notes
	name    string // as the table shows it, with its version
	about   string // what it is, in a sentence
	stdio   []string
	http    func(stateless, resumable bool) []string
	resumes bool     // it has an event store to try (-resumable)
	allow   []string // the Origin allowlist it claims (the reference only)
}

// A row is one way of running a server: stdio, or Streamable HTTP with
// sessions (with or without an event store), or without sessions.
type row struct {
	server *server
	mode   string // modeStdio, modeHTTP, modeResumable or modeStateless
}

const (
	modeStdio     = "stdio"
	modeHTTP      = "HTTP"
	modeResumable = "HTTP, event store"
	modeStateless = "HTTP, stateless"
)

// argv is the command that starts the row's server.
func (r row) argv() []string {
	switch r.mode {
	case modeStdio:
		return r.server.stdio
	case modeStateless:
		return r.server.http(true, false)
	case modeResumable:
		return r.server.http(false, true)
	}
	return r.server.http(false, false)
}

func (r row) String() string { return r.server.name + " (" + r.mode + ")" }

// rows lists the ways to run each server, in the table's order.
func rows(servers []*server) []row {
	var out []row
	for _, s := range servers {
		out = append(out, row{s, modeStdio}, row{s, modeHTTP})
		if s.resumes {
			out = append(out, row{s, modeResumable})
		}
		out = append(out, row{s, modeStateless})
	}
	return out
}

// courseAllowlist is the allowlist lesson 04's checks start the course's
// servers with; the reference claims it, so that every check of it runs.
var courseAllowlist = []string{"https://*.example.com", "http://localhost:*", "vscode-webview://*", "https://mcp.test:8443"}

// build compiles the reference (stage 01 for stdio, stage 04, the whole
// HTTP server, for the rest) and the Go peers at the versions bench/go.mod
// pins, and checks that the TypeScript peer is installed as its lockfile
// says (running npm ci when it is not). It returns the servers and the
// versions it found, for the report.
func build(courseRoot, benchRoot, dir string) ([]*server, map[string]string, error) {
	goBuild := func(root, pkg, out string) (string, error) {
		path := filepath.Join(dir, out)
		cmd := exec.Command("go", "build", "-mod=readonly", "-o", path, pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
		return path, nil
	}
	versions := map[string]string{}
	for _, mod := range []string{"github.com/modelcontextprotocol/go-sdk", "github.com/mark3labs/mcp-go"} {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", mod).Output()
		if err != nil {
			return nil, nil, fmt.Errorf("go list -m %s: %w", mod, err)
		}
		versions[mod] = strings.TrimSpace(string(out))
	}

	ref01, err := goBuild(courseRoot, "./solutions/01-stdio/cmd/server", "ref-01")
	if err != nil {
		return nil, nil, err
	}
	ref04, err := goBuild(courseRoot, "./solutions/04-origin/cmd/server", "ref-04")
	if err != nil {
		return nil, nil, err
	}
	reference := &server{
		key: "reference", name: "Course reference",
		about: "solutions/01-stdio over stdio; solutions/04-origin (stages 02-04: sessions, resumable streams, the Origin allowlist) over HTTP, " +
			"with -allow-origin set to the allowlist lesson 04 grades",
		stdio: []string{ref01},
		http: func(stateless, _ bool) []string {
			argv := []string{ref04, "-addr", "127.0.0.1:0"}
			for _, p := range []string{"https://*.example.com,http://localhost:*", "vscode-webview://*,https://mcp.test:8443"} {
				argv = append(argv, "-allow-origin", p)
			}
			if stateless {
				argv = append(argv, "-stateless")
			}
			return argv
		},
		allow: courseAllowlist,
	}
	peerHTTP := func(argv ...string) func(stateless, resumable bool) []string {
		return func(stateless, resumable bool) []string {
			out := append(append([]string(nil), argv...), "-http", "127.0.0.1:0")
			if stateless {
				out = append(out, "-stateless")
			}
			if resumable {
				out = append(out, "-resumable")
			}
			return out
		}
	}
	servers := []*server{reference}

	gosdk, err := goBuild(benchRoot, "./peers/cmd/gosdk-server", "gosdk-server")
	if err != nil {
		return nil, nil, err
	}
	servers = append(servers, &server{
		key: "gosdk", name: "go-sdk " + versions["github.com/modelcontextprotocol/go-sdk"],
		about: "the official Go SDK, github.com/modelcontextprotocol/go-sdk, with its defaults (peers/cmd/gosdk-server); " +
			"the event-store row adds its MemoryEventStore",
		stdio: []string{gosdk}, http: peerHTTP(gosdk), resumes: true,
	})

	mcpgo, err := goBuild(benchRoot, "./peers/cmd/mcpgo-server", "mcpgo-server")
	if err != nil {
		return nil, nil, err
	}
	servers = append(servers, &server{
		key: "mcpgo", name: "mcp-go " + versions["github.com/mark3labs/mcp-go"],
		about: "the community SDK github.com/mark3labs/mcp-go, with session ids validated (server.WithStateful) (peers/cmd/mcpgo-server); it has no event store",
		stdio: []string{mcpgo}, http: peerHTTP(mcpgo),
	})

	tsDir := filepath.Join(benchRoot, "peers", "ts")
	version, err := tsInstalled(tsDir)
	if err != nil {
		return nil, nil, err
	}
	versions["@modelcontextprotocol/sdk"] = version
	script := filepath.Join(tsDir, "server.mjs")
	servers = append(servers, &server{
		key: "ts", name: "TypeScript SDK " + version,
		about: "the official TypeScript SDK, @modelcontextprotocol/sdk, low-level Server, served over HTTP as its examples serve it " +
			"(createMcpExpressApp, which refuses a foreign Host on loopback and reads JSON bodies with express.json, 100 KiB at most; " +
			"one transport per session; the examples' routes and answers) (peers/ts/server.mjs); the event-store row adds the InMemoryEventStore of its examples",
		stdio: []string{"node", script}, http: peerHTTP("node", script), resumes: true,
	})
	return servers, versions, nil
}

// tsInstalled makes sure the TypeScript peer's packages are installed as
// its lockfile pins them, and returns the SDK's version.
func tsInstalled(dir string) (string, error) {
	installed := func() (string, error) {
		var pkg struct{ Version string }
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
		if err == nil {
			err = json.Unmarshal(b, &pkg)
		}
		return pkg.Version, err
	}
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err == nil {
		err = json.Unmarshal(b, &lock)
	}
	if err != nil {
		return "", fmt.Errorf("reading the TypeScript peer's lockfile: %w", err)
	}
	pinned := lock.Packages["node_modules/@modelcontextprotocol/sdk"].Version
	if v, err := installed(); err == nil && v == pinned {
		return v, nil
	}
	cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci in %s (the TypeScript peer needs npm and Node.js 18 or newer): %v\n%s", dir, err, b)
	}
	v, err := installed()
	if err != nil || v != pinned {
		return "", fmt.Errorf("after npm ci, @modelcontextprotocol/sdk is %q, not the %q its lockfile pins (%v)", v, pinned, err)
	}
	return v, nil
}
