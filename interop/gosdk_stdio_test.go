package interop

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/tools/procgroup"
)

// testTimeout bounds a whole interop test. Every SDK call takes a context
// derived from it, so a server that stops answering fails the test instead
// of hanging it.
const testTimeout = 20 * time.Second

// closeTimeout bounds ClientSession.Close over stdio. CommandTransport closes
// the server's stdin and only sends SIGTERM after its TerminateDuration (5 s
// by default), so a Close that returns well before that shows the server
// exited by itself on end of input, as the stdio transport asks.
const closeTimeout = 3 * time.Second

// TestGoSDKClientStdio runs each stdio stage's server as a child process of
// the official Go SDK client and goes through one whole session: initialize,
// tools/list, three kinds of tool call, progress notifications and shutdown.
func TestGoSDKClientStdio(t *testing.T) {
	eachStage(t, stdioStages, testGoSDKClientStdio)
}

func testGoSDKClientStdio(t *testing.T, s stage) {
	bin := buildServer(t, s.pkg())

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	// The SDK calls ProgressNotificationHandler for every notifications/progress
	// the server sends, whatever request it belongs to. It runs notification
	// handlers one at a time in the order they arrived, so the channel sees
	// them in the server's order. The send never blocks: a handler that
	// blocked would hold up Close, and any surplus is caught below anyway.
	progress := make(chan *mcp.ProgressNotificationParams, 16)
	client := mcp.NewClient(
		&mcp.Implementation{Name: "mcpcourse-interop", Version: "1.0.0"},
		&mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				select {
				case progress <- req.Params:
				default:
				}
			},
		},
	)

	cmd := exec.Command(bin)
	procgroup.Isolate(cmd)
	t.Cleanup(func() {
		if cmd.Process != nil {
			checkNoLeftovers(t, "the stdio server", cmd)
		}
	})
	stderr := &syncBuffer{}
	cmd.Stderr = stderr // the server logs here; stdout carries only JSON-RPC
	logOnFailure(t, "stdio server", stderr)

	// Connect starts the process and runs the handshake. The SDK's newest
	// revision is 2026-07-28, which it offers first through server/discover,
	// and the given code serves it on stdio: a process whose first request
	// is server/discover speaks 2026-07-28. This test is about the session
	// era, so it pins the client to 2025-11-25, which starts with initialize.
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err, "connect and initialize")
	// If the test stops early, still end the child process. Close is
	// idempotent, so this is harmless after the Close checked below.
	t.Cleanup(func() { _ = cs.Close() })

	initRes := cs.InitializeResult()
	require.NotNil(t, initRes)
	assert.Equal(t, "2025-11-25", initRes.ProtocolVersion)
	require.NotNil(t, initRes.ServerInfo, "serverInfo")
	assert.NotEmpty(t, initRes.ServerInfo.Name, "serverInfo.name")
	assert.NotEmpty(t, initRes.ServerInfo.Version, "serverInfo.version")
	require.NotNil(t, initRes.Capabilities, "capabilities")
	assert.NotNil(t, initRes.Capabilities.Tools, "the server must declare the tools capability")

	checkTools(ctx, t, cs)
	// Non-ASCII text and a newline inside a string survive the trip through
	// newline-delimited JSON untouched.
	checkEcho(ctx, t, cs)

	// The two calls share one session: the one process behind this
	// connection.
	checkNotesKept(ctx, t, cs)

	// countdown with a progress token: three notifications, then the result.
	checkCountdown(ctx, t, cs, progress)

	// Shut down. Close waits for the connection to go idle, closes the
	// server's stdin and waits for the process to exit. Run it on its own
	// goroutine so that the test, not the SDK, decides how long is too long.
	start := time.Now()
	closed := make(chan error, 1)
	go func() { closed <- cs.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err, "close")
	case <-time.After(closeTimeout):
		t.Fatalf("Close did not return within %v: the server did not exit on stdin EOF", closeTimeout)
	}
	t.Logf("Close took %v", time.Since(start).Round(time.Millisecond))

	// CommandTransport's Close reaped the process, so its state is known.
	require.NotNil(t, cmd.ProcessState, "the server process was not waited for")
	assert.True(t, cmd.ProcessState.Success(), "server exit: %v", cmd.ProcessState)

	assertNoMoreProgress(t, progress)
}
