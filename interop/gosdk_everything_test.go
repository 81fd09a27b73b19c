package interop

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoSDKClientServerRequests has the fixtures of package everything,
// served by the newest stage's transport, send the Go SDK client requests
// of the server's own while a tool call runs: sampling, elicitation and
// roots. Each travels to the client on an SSE stream, and the client's
// answer comes back in a POST of its own, which the transport must route to
// the waiting tool. A tool's log messages travel the same way. Each travels
// on the tool call's own stream, so this holds from stage 02 on, where there
// is no GET stream at all.
func TestGoSDKClientServerRequests(t *testing.T) {
	eachStage(t, httpStages, func(t *testing.T, s stage) {
		testGoSDKClientServerRequests(t, s.dir)
	})
}

func testGoSDKClientServerRequests(t *testing.T, stageDir string) {
	endpoint := startHTTPServer(t, buildEverything(t, stageDir), false)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	// The handlers run on the SDK's goroutines; what they saw reaches the
	// test through the network, which the race detector cannot follow, so
	// a mutex orders it.
	var mu sync.Mutex
	var sampled, elicited string
	seen := func(v *string) string { mu.Lock(); defer mu.Unlock(); return *v }
	logs := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpcourse-interop", Version: "1.0.0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			if len(req.Params.Messages) > 0 {
				if text, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					mu.Lock()
					sampled = text.Text
					mu.Unlock()
				}
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: "interop-model", Content: &mcp.TextContent{Text: "forty-two"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			elicited = req.Params.Message
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "gopher", "email": "gopher@example.com"}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if text, ok := req.Params.Data.(string); ok {
				select {
				case logs <- text:
				default:
				}
			}
		},
	})
	client.AddRoots(&mcp.Root{URI: "file:///work/interop", Name: "interop"})

	transport := &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: newRecorder(t)},
		MaxRetries: -1, // a dropped stream is a bug to report here
	}
	cs, err := client.Connect(ctx, transport, nil)
	require.NoError(t, err, "connect")
	t.Cleanup(func() { _ = cs.Close() })

	got := callTool(ctx, t, cs, &mcp.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": "What is six times seven?"}})
	assert.Equal(t, "LLM response: forty-two", got, "the tool got the client's sampling result")
	assert.Equal(t, "What is six times seven?", seen(&sampled), "the client got the tool's prompt")

	got = callTool(ctx, t, cs, &mcp.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": "Who are you?"}})
	assert.Equal(t, `User response: action=accept, content={"email":"gopher@example.com","username":"gopher"}`, got)
	assert.Equal(t, "Who are you?", seen(&elicited))

	got = callTool(ctx, t, cs, &mcp.CallToolParams{Name: "test_list_roots"})
	assert.Equal(t, "Roots: file:///work/interop", got)

	callTool(ctx, t, cs, &mcp.CallToolParams{Name: "test_tool_with_logging"})
	want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
	var gotLogs []string
	wait := time.After(progressTimeout)
	for len(gotLogs) < len(want) {
		select {
		case l := <-logs:
			gotLogs = append(gotLogs, l)
		case <-wait:
			t.Fatalf("got log messages %q within %v, want %q", gotLogs, progressTimeout, want)
		}
	}
	assert.Equal(t, want, gotLogs, "the tool's log messages, in order")

	closeSession(t, cs)
}
