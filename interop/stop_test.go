package interop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"mcpcourse/tools/stoptest"
)

// TestEverythingStopsOnSIGTERMRightAfterReady proves that cmd/everything,
// on the newest stage's transport, installs its signal handler before it
// says it listens: the conformance tests stop it with SIGTERM as soon as
// they read that line, and must see it exit with status 0 every time.
//
// Its one subtest is named after no stage folder: the course command's
// "clients NN" runs the interop tests with -run '/NN-stage' to drive a
// learner's stage with real clients, and this test is no client.
func TestEverythingStopsOnSIGTERMRightAfterReady(t *testing.T) {
	t.Run("newest-stage", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs the server 200 times")
		}
		newest, err := everythingStage()
		require.NoError(t, err)
		bin := buildEverything(t, newest)
		stoptest.Prove(t, stoptest.Command{Name: "cmd/everything", Argv: []string{bin, "-addr", "127.0.0.1:0"}, Ready: "listening on http://"})
	})
}
