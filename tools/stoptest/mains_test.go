package stoptest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"mcpcourse/tools/courseroot"
)

// courseMains are the course module's commands that say they are ready:
// the reference servers of every stage (the starters' mains are the same
// files) and the browser demo's page server. The interop and bench modules
// prove theirs in their own tests (interop/stop_test.go,
// bench/peers/stop_test.go).
var courseMains = []struct {
	pkg   string
	args  []string
	ready string
}{
	{"./solutions/01-stdio/cmd/server", nil, "serving MCP on stdin/stdout"},
	{"./solutions/02-streamable-http/cmd/server", []string{"-addr", "127.0.0.1:0"}, "listening on http://"},
	{"./solutions/03-sse-resume/cmd/server", []string{"-addr", "127.0.0.1:0"}, "listening on http://"},
	{"./solutions/04-origin/cmd/server", []string{"-addr", "127.0.0.1:0"}, "listening on http://"},
	{"./cmd/browser-demo", []string{"-addr", "127.0.0.1:0"}, "The demo page"},
}

// TestCourseMainsStopOnSIGTERMRightAfterReady proves every command of the
// course module: each installs its signal handler before it says it is
// ready, so each run exits with status 0.
func TestCourseMainsStopOnSIGTERMRightAfterReady(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs each command 200 times")
	}
	root, err := courseroot.Find()
	require.NoError(t, err)
	dir := t.TempDir()
	for _, m := range courseMains {
		t.Run(m.pkg, func(t *testing.T) {
			bin := filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(m.pkg, "./"), "/", "-"))
			build := exec.Command("go", "build", "-o", bin, m.pkg)
			build.Dir = root
			out, err := build.CombinedOutput()
			require.NoError(t, err, "go build %s:\n%s", m.pkg, out)
			Prove(t, Command{Name: m.pkg, Argv: append([]string{bin}, m.args...), Ready: m.ready})
		})
	}
}
