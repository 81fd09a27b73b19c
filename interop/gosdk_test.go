package interop

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notesTools are the tools of the course's notes server (internal/mcp).
var notesTools = []string{"echo", "add_note", "list_notes", "clear_notes", "countdown", "history"}

// callTool calls a tool that is expected to succeed, and returns the text of
// the single text item in its result. It does not depend on the transport,
// so every interop test can use it.
func callTool(ctx context.Context, t testing.TB, cs *mcp.ClientSession, params *mcp.CallToolParams) string {
	t.Helper()
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err, "tools/call %s", params.Name)
	require.False(t, res.IsError, "tool %s reported an error: %+v", params.Name, res.Content)
	require.Len(t, res.Content, 1, "tool %s result content", params.Name)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "tool %s returned %T, not text", params.Name, res.Content[0])
	return text.Text
}

// progressTimeout bounds the wait for progress notifications that the SDK
// delivers after the response they belong to.
const progressTimeout = 5 * time.Second

// checkCountdown calls countdown with a progress token. The server sends the
// progress notifications before the response (on HTTP, on the request's SSE
// stream). Exactly three notifications must reach the handler.
func checkCountdown(ctx context.Context, t *testing.T, cs *mcp.ClientSession, progress <-chan *mcp.ProgressNotificationParams) {
	t.Helper()
	const token = "interop-countdown"
	params := &mcp.CallToolParams{
		Name:      "countdown",
		Arguments: map[string]any{"from": 3, "interval_ms": 20},
	}
	params.SetProgressToken(token)
	got := callTool(ctx, t, cs, params)
	assert.Equal(t, "Liftoff! Counted down from 3.", got, "countdown")

	// The SDK runs notification handlers on another goroutine, so the
	// response can overtake them. Wait for them, but not forever.
	wait, cancel := context.WithTimeout(ctx, progressTimeout)
	defer cancel()
	var steps []float64
	for len(steps) < 3 {
		select {
		case p := <-progress:
			assert.Equal(t, token, p.ProgressToken, "progressToken must echo the request's token")
			assert.Equal(t, 3.0, p.Total, "total")
			steps = append(steps, p.Progress)
		case <-wait.Done():
			t.Fatalf("got %d progress notifications within %v, want 3", len(steps), progressTimeout)
		}
	}
	// Progress MUST increase with each notification (utilities/progress).
	for i := 1; i < len(steps); i++ {
		assert.Greater(t, steps[i], steps[i-1], "progress must increase: %v", steps)
	}
	assert.Equal(t, 3.0, steps[len(steps)-1], "the last notification reports the whole countdown")
}

// assertNoMoreProgress checks, after Close, that no progress notification
// beyond the three expected arrived. Close waits for queued notification
// handlers to finish, so a surplus would be in the channel by now.
func assertNoMoreProgress(t *testing.T, progress <-chan *mcp.ProgressNotificationParams) {
	t.Helper()
	select {
	case p := <-progress:
		t.Errorf("more progress notifications than countdown steps; extra: %+v", p)
	default:
	}
}
