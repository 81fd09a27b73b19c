package interop

import (
	"os"
	"path"
	"path/filepath"
	"testing"

	"mcpcourse/tools/courseroot"
)

// stage is one stage of the course, as the interop tests drive it. Every
// test runs over this list, so a new stage is one more entry here: each
// test picks the stages whose features it needs.
type stage struct {
	dir string // the stage folder, such as "02-streamable-http"

	// http: the server speaks Streamable HTTP (flags -addr and
	// -stateless, and a "listening on URL (mode)" line on stderr);
	// otherwise it speaks stdio.
	http bool

	// resumable: the server has the standalone GET stream, event ids,
	// priming events and Last-Event-ID replay (stage 03 on).
	resumable bool

	// guarded: the server refuses web origins it does not trust (flag
	// -allow-origin; by default it trusts loopback origins only), checks
	// Host against DNS rebinding, and serves a WebSocket at /ws beside
	// /mcp, one JSON-RPC message per text frame (stage 04 on).
	guarded bool
}

var stages = []stage{
	{dir: "01-stdio"},
	{dir: "02-streamable-http", http: true},
	{dir: "03-sse-resume", http: true, resumable: true},
	{dir: "04-origin", http: true, resumable: true, guarded: true},
}

// targetEnv names the folder that holds the stage folders the tests drive,
// relative to the course root, like the grader's GRADER_TARGET:
// "solutions" (the default) for the reference, "." for a learner's own.
const targetEnv = "INTEROP_TARGET"

// target returns the folder the stages are taken from.
func target() string {
	if t := os.Getenv(targetEnv); t != "" {
		return path.Clean(filepath.ToSlash(t))
	}
	return "solutions"
}

// pkg is the import path, relative to the course root, of the stage's
// server command.
func (s stage) pkg() string { return "./" + path.Join(target(), s.dir, "cmd", "server") }

// require skips the test when the stage is not in this checkout: a stage
// entry may be listed before its folder lands.
func (s stage) require(t *testing.T) {
	t.Helper()
	root, err := courseroot.Find()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target()), s.dir)); err != nil {
		t.Skipf("%s/%s is not in this checkout", target(), s.dir)
	}
}

// eachStage runs test as a subtest, named after the stage folder, for
// every stage that keep accepts. Every interop test names its first level
// of subtests after the stage folder, so that -run '/02-streamable-http'
// runs every client against one stage (the course command's "clients"
// does that).
func eachStage(t *testing.T, keep func(stage) bool, test func(t *testing.T, s stage)) {
	for _, s := range stages {
		if !keep(s) {
			continue
		}
		t.Run(s.dir, func(t *testing.T) {
			s.require(t)
			test(t, s)
		})
	}
}

// Stage filters for eachStage.
func allStages(stage) bool         { return true }
func stdioStages(s stage) bool     { return !s.http }
func httpStages(s stage) bool      { return s.http }
func resumableStages(s stage) bool { return s.resumable }
func guardedStages(s stage) bool   { return s.guarded }

// modes are the two ways an HTTP stage runs.
var modes = []struct {
	name      string
	stateless bool
}{{"stateful", false}, {"stateless", true}}
