package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"mcpcourse/tools/chromium"
)

// doctorEnv is what the doctor looks at. Tests replace its functions to
// stage a machine with something missing.
type doctorEnv struct {
	root     string
	lookPath func(file string) (string, error)
	output   func(name string, args ...string) (string, error) // a command's stdout
	listen   func(network, address string) (net.Listener, error)
	exists   func(path string) bool
}

// realEnv is this machine.
func realEnv(root string) doctorEnv {
	return doctorEnv{
		root:     root,
		lookPath: exec.LookPath,
		output: func(name string, args ...string) (string, error) {
			out, err := exec.Command(name, args...).Output()
			return strings.TrimSpace(string(out)), err
		},
		listen: net.Listen,
		exists: func(path string) bool { _, err := os.Stat(path); return err == nil },
	}
}

// finding is one thing the doctor checked.
type finding struct {
	ok      bool
	blocker bool   // without it the course's core path fails (else only some optional step)
	what    string // what was checked and found
	fix     string // how to fix it, when not ok
}

func (a *app) doctor(args []string) error {
	fs := a.flags("doctor", "")
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError("doctor takes no arguments")
	}
	findings := diagnose(realEnv(a.root))
	if printFindings(a.stdout, newStyle(a.stdout), findings) {
		return &exitError{code: 1, msg: "this machine is not ready for the course yet: see the fixes above"}
	}
	return nil
}

// printFindings prints every finding, and reports whether any blocks the course.
func printFindings(w io.Writer, st style, findings []finding) (blocked bool) {
	problems, warnings := 0, 0
	for _, f := range findings {
		mark := st.green("ok  ")
		switch {
		case f.ok:
		case f.blocker:
			mark, blocked = st.red("FAIL"), true
			problems++
		default:
			mark = st.yellow("warn")
			warnings++
		}
		fmt.Fprintf(w, "%s %s\n", mark, f.what)
		if !f.ok && f.fix != "" {
			fmt.Fprintln(w, wrap("fix: "+f.fix, "       "))
		}
	}
	fmt.Fprintln(w)
	switch {
	case blocked:
		fmt.Fprintf(w, "%d problem(s) block the course, and %d warning(s) affect optional steps.\n", problems, warnings)
	case warnings > 0:
		fmt.Fprintf(w, "Ready for the course. %d warning(s) affect optional steps only.\n", warnings)
	default:
		fmt.Fprintln(w, "Everything the course uses is here. Start with: "+self)
	}
	return blocked
}

// nodeForInspector is the Node.js major version the MCP Inspector CLI and
// the conformance suite need.
const nodeForInspector = 22

// diagnose checks everything the course uses, in the order a learner meets it.
func diagnose(env doctorEnv) []finding {
	var out []finding
	out = append(out, checkGo(env)...)
	out = append(out, checkPorts(env)...)
	for _, tool := range []struct{ name, why, fix string }{
		{"bash", "for the lessons' \"try it by hand\" commands", "install bash (on Windows, use WSL or Git Bash; on macOS, type bash first)"},
		{"curl", "for lesson 02's \"try it by hand\" HTTP requests", "install curl (apt-get install curl, brew install curl; Windows 10 and later ship curl.exe)"},
		{"git", "for `course reset`, which reads the starters from the clone's history", "install git, and work in a git clone of the course rather than a downloaded archive"},
	} {
		if _, err := env.lookPath(tool.name); err != nil {
			out = append(out, finding{what: tool.name + " is not on the PATH; it is used " + tool.why, fix: tool.fix})
		} else {
			out = append(out, finding{ok: true, what: tool.name + " found, " + tool.why})
		}
	}
	if tool, err := env.lookPath("git"); err == nil && tool != "" && !env.exists(filepath.Join(env.root, ".git")) {
		out = append(out, finding{what: "the course folder is not a git clone", fix: "clone the course with git, so that `course reset` can restore a starter"})
	}
	out = append(out, checkCgo(env))
	out = append(out, checkNode(env)...)
	out = append(out, checkChromium(env))
	return out
}

// checkChromium looks for the browser of lesson 04's real-browser test.
func checkChromium(env doctorEnv) finding {
	for _, name := range chromium.Names {
		if _, err := env.lookPath(name); err == nil {
			return finding{ok: true, what: name + " found, for lesson 04's real-browser test (course clients 04)"}
		}
	}
	return finding{what: "no Chromium or Chrome on the PATH; lesson 04's real-browser test (course clients 04) needs one",
		fix: "install Chromium (apt-get install chromium, brew install --cask chromium), or set $CHROMIUM to a Chrome binary"}
}

// checkGo compares the go command's version with the course's go.mod, and
// with the interop module's (the real-client steps need that newer Go, which
// the go command downloads by itself unless GOTOOLCHAIN=local).
func checkGo(env doctorEnv) []finding {
	if _, err := env.lookPath("go"); err != nil {
		return []finding{{blocker: true, what: "the go command is not on the PATH", fix: "install Go from https://go.dev/dl/ and open a new terminal"}}
	}
	have, err := env.output("go", "env", "GOVERSION")
	if err != nil || have == "" {
		return []finding{{blocker: true, what: "`go env GOVERSION` failed", fix: "reinstall Go from https://go.dev/dl/"}}
	}
	var out []finding
	want := goDirective(filepath.Join(env.root, "go.mod"))
	if want != "" && versionLess(have, want) {
		out = append(out, finding{blocker: true, what: fmt.Sprintf("Go %s is older than the go %s the course's go.mod asks for", strings.TrimPrefix(have, "go"), want),
			fix: "install Go " + want + " or newer from https://go.dev/dl/"})
	} else {
		out = append(out, finding{ok: true, what: fmt.Sprintf("Go %s (the course needs %s or newer)", strings.TrimPrefix(have, "go"), firstNonEmpty(want, "?"))})
	}
	interop := goDirective(filepath.Join(env.root, "interop", "go.mod"))
	if interop != "" && versionLess(have, interop) {
		toolchain, _ := env.output("go", "env", "GOTOOLCHAIN")
		if strings.HasPrefix(toolchain, "local") {
			out = append(out, finding{what: fmt.Sprintf("the real-client steps (interop/) need Go %s, and GOTOOLCHAIN=local stops the go command from fetching it", interop),
				fix: "go env -w GOTOOLCHAIN=auto, or install Go " + interop + " or newer"})
		} else {
			out = append(out, finding{ok: true, what: fmt.Sprintf("the real-client steps need Go %s, which the go command will download the first time (GOTOOLCHAIN=%s)", interop, firstNonEmpty(toolchain, "auto"))})
		}
	}
	return out
}

// checkPorts checks that the grader can listen on loopback, and that the
// lessons' port 8080 is free for the "try it by hand" servers.
func checkPorts(env doctorEnv) []finding {
	l, err := env.listen("tcp", "127.0.0.1:0")
	if err != nil {
		return []finding{{blocker: true, what: "cannot listen on a loopback port (127.0.0.1): " + err.Error(),
			fix: "the grader runs your HTTP server on 127.0.0.1; allow loopback connections in your firewall or sandbox"}}
	}
	l.Close()
	out := []finding{{ok: true, what: "a free loopback port, for the grader's servers"}}
	if l, err := env.listen("tcp", "127.0.0.1:8080"); err != nil {
		out = append(out, finding{what: "port 8080, which lesson 02's commands use, is taken on 127.0.0.1",
			fix: "stop what uses it (ss -ltnp | grep :8080, or lsof -i :8080), or use -addr 127.0.0.1:8081 and that port in the commands"})
	} else {
		l.Close()
		out = append(out, finding{ok: true, what: "port 8080 is free, for lesson 02's \"try it by hand\" server"})
	}
	return out
}

// checkCgo checks what GRADER_RACE=1 needs: the race detector needs cgo,
// and cgo a C compiler.
func checkCgo(env doctorEnv) finding {
	const what = "for GRADER_RACE=1, the race detector"
	if cgo, _ := env.output("go", "env", "CGO_ENABLED"); cgo != "1" {
		return finding{what: "cgo is off (CGO_ENABLED=" + cgo + "), which the race detector needs " + what,
			fix: "install a C compiler (gcc or clang; on Debian apt-get install gcc, on macOS xcode-select --install) and go env -w CGO_ENABLED=1"}
	}
	cc, _ := env.output("go", "env", "CC")
	if name := strings.Fields(cc); len(name) > 0 {
		if _, err := env.lookPath(name[0]); err != nil {
			return finding{what: "cgo is on, but its C compiler " + name[0] + " is missing " + what,
				fix: "install a C compiler (apt-get install gcc, or xcode-select --install on macOS)"}
		}
	}
	return finding{ok: true, what: "cgo and a C compiler, " + what}
}

// checkNode checks what the real-client steps need: npm, which installs the
// conformance suite and a Node.js 22 of its own (the npm package "node"),
// and a Node new enough for the MCP Inspector CLI.
func checkNode(env doctorEnv) []finding {
	if _, err := env.lookPath("npm"); err != nil {
		return []finding{{what: "npm is not on the PATH; the real-client steps (MCP Inspector, conformance suite) need it",
			fix: fmt.Sprintf("install Node.js with npm (https://nodejs.org, or apt-get install npm); npm then installs the Node %d the suite needs", nodeForInspector)}}
	}
	out := []finding{{ok: true, what: "npm found, for the real-client steps"}}
	pinned := filepath.Join(env.root, "interop", "conformance", "node_modules", ".bin", "node")
	if env.exists(pinned) {
		return append(out, finding{ok: true, what: fmt.Sprintf("Node %d for the conformance suite and the Inspector CLI, installed in interop/conformance", nodeForInspector)})
	}
	version, err := env.output("node", "--version")
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(version, "v"), ".", 2)[0])
	if err == nil && major >= nodeForInspector {
		return append(out, finding{ok: true, what: "Node " + version + ", new enough for the MCP Inspector CLI"})
	}
	found := "no node on the PATH"
	if err == nil {
		found = "node " + version
	}
	return append(out, finding{what: fmt.Sprintf("the MCP Inspector CLI and the conformance suite need Node %d or newer (%s)", nodeForInspector, found),
		fix: fmt.Sprintf("npm ci --prefix interop/conformance installs the suite with a Node %d of its own, from the npm package \"node\"", nodeForInspector)})
}

// goDirective returns the version in a go.mod's go line, or "".
func goDirective(gomod string) string {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "go" {
			return f[1]
		}
	}
	return ""
}

// versionLess compares Go versions such as "go1.22.3" and "1.25.0".
func versionLess(a, b string) bool {
	pa, pb := versionParts(a), versionParts(b)
	for i := 0; i < 3; i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return false
}

func versionParts(v string) [3]int {
	v = strings.TrimPrefix(v, "go")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	var out [3]int
	for i, part := range strings.SplitN(v, ".", 3) {
		// "1.26rc1": the digits before the letters.
		end := 0
		for end < len(part) && part[end] >= '0' && part[end] <= '9' {
			end++
		}
		out[i], _ = strconv.Atoi(part[:end])
	}
	return out
}
