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
// SIGTERM sent on that line stops it with status 0, every time. Over stdio
// they say nothing to wait for.
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
			stoptest.Prove(t, stoptest.Command{
				Name:  name,
				Argv:  append(append([]string(nil), argv...), "-http", "127.0.0.1:0"),
				Ready: "listening on http://",
			})
		})
	}
}
