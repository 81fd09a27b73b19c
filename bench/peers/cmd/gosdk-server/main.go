// Command gosdk-server serves the peer contract (bench/peers/contract) with
// the official MCP Go SDK, github.com/modelcontextprotocol/go-sdk v1.8.0, over
// stdio or Streamable HTTP, with the SDK's defaults (every response on an SSE
// stream).
//
//	gosdk-server                                  stdio
//	gosdk-server -http 127.0.0.1:0 [-stateless]   Streamable HTTP at /mcp
//	gosdk-server -http 127.0.0.1:0 -resumable     with the SDK's MemoryEventStore
package main

import (
	"context"
	"encoding/json"
	"log"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpcourse/bench/peers/contract"
	"mcpcourse/bench/peers/peerflag"
)

func main() {
	flags := peerflag.Parse("gosdk-server")
	server := newServer()
	if flags.HTTP == "" {
		ctx, stop := peerflag.Context()
		defer stop()
		if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
			log.Fatal(err)
		}
		return
	}
	opts := &mcp.StreamableHTTPOptions{Stateless: flags.Stateless}
	if flags.Resumable {
		opts.EventStore = mcp.NewMemoryEventStore(nil)
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
	if err := peerflag.ServeHTTP(flags.HTTP, handler); err != nil {
		log.Fatal(err)
	}
}

func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk-peer", Version: "1.8.0"}, nil)
	var notes contract.Sessions
	run := map[string]func(ctx context.Context, req *mcp.CallToolRequest) (string, error){
		"echo": func(_ context.Context, req *mcp.CallToolRequest) (string, error) {
			return contract.Echo(req.Params.Arguments)
		},
		"add_note": func(_ context.Context, req *mcp.CallToolRequest) (string, error) {
			n, made := notes.Make(req.Session)
			if made {
				go func() { req.Session.Wait(); notes.Drop(req.Session) }()
			}
			return n.Add(req.Params.Arguments)
		},
		"list_notes": func(_ context.Context, req *mcp.CallToolRequest) (string, error) {
			return notes.Get(req.Session).List(), nil
		},
		"countdown": func(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
			token := req.Params.GetProgressToken()
			return contract.Countdown(ctx, req.Params.Arguments, func(step, total int, message string) {
				if token != nil {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(step), Total: float64(total), Message: message,
					})
				}
			})
		},
	}
	for _, t := range contract.Tools() {
		tool := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: json.RawMessage(t.InputSchema)}
		do := run[t.Name]
		server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := do(ctx, req)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				text = err.Error()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: err != nil}, nil
		})
	}
	return server
}
