package peers_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"mcpcourse/tools/stoptest"
)

// TestServersStopOnSIGTERMRightAfterReady proves that every HTTP server the
// benchmark and the compatibility table start (each peer, and the canned
// ceiling) installs its signal handler before it says it listens, so that
// SIGTERM sent on that line stops it with status 0, every time (200 runs
// each; the TypeScript peer, when installed, fewer). Over stdio they say
// nothing to wait for.
func TestServersStopOnSIGTERMRightAfterReady(t *testing.T) {
	if testing.Short() {
		t.Skip("runs each server 200 times")
	}
	servers := peers(t)
	canned := filepath.Join(t.TempDir(), "canned")
	build := exec.Command("go", "build", "-o", canned, "./cmd/canned")
	build.Dir = ".." // the bench module's folder
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	servers["canned"] = []string{canned}

	for name, argv := range servers {
		t.Run(name, func(t *testing.T) {
			c := stoptest.Command{
				Name:  name,
				Argv:  append(append([]string(nil), argv...), "-http", "127.0.0.1:0"),
				Ready: "listening on http://",
			}
			if name == "ts" {
				// Node.js takes about a second of CPU to start the SDK,
				// so 200 runs would take minutes; and it cannot lose
				// this race: the script registers its handlers before
				// it listens, and the listen callback that prints the
				// line runs later on the same thread. A few runs show
				// it stops with status 0.
				c.Runs = 16
			}
			stoptest.Prove(t, c)
		})
	}
}
