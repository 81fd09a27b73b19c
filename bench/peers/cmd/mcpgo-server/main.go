// Command mcpgo-server serves the peer contract (bench/peers/contract) with
// github.com/mark3labs/mcp-go v1.2.1, over stdio or Streamable HTTP. In
// stateful mode it validates session ids (server.WithStateful): the
// library's default issues ids but accepts any id it is sent.
//
//	mcpgo-server                                  stdio
//	mcpgo-server -http 127.0.0.1:0 [-stateless]   Streamable HTTP at /mcp
package main

import (
	"context"
	"encoding/json"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"mcpcourse/bench/peers/contract"
	"mcpcourse/bench/peers/peerflag"
)

func main() {
	flags := peerflag.Parse("mcpgo-server")
	s := newServer(flags.Stateless)
	if flags.HTTP == "" {
		if err := server.ServeStdio(s); err != nil {
			log.Fatal(err)
		}
		return
	}
	if flags.Resumable {
		log.Fatal("mcp-go v1.2.1 keeps no events to resume streams from: -resumable is not supported")
	}
	var opts []server.StreamableHTTPOption
	if flags.Stateless {
		opts = append(opts, server.WithStateLess(true))
	} else {
		opts = append(opts, server.WithStateful(true))
	}
	if err := peerflag.ServeHTTP(flags.HTTP, server.NewStreamableHTTPServer(s, opts...)); err != nil {
		log.Fatal(err)
	}
}

// newServer returns the server. Without sessions, every request is a
// session of its own, as in the other peers: mcp-go gives all stateless
// requests one session id, so no note is kept there.
func newServer(stateless bool) *server.MCPServer {
	var notes contract.Sessions
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		notes.Drop(session.SessionID())
	})
	s := server.NewMCPServer("mcpgo-peer", "1.2.1", server.WithToolCapabilities(false), server.WithHooks(hooks))
	sessionKey := func(ctx context.Context) any {
		if session := server.ClientSessionFromContext(ctx); session != nil {
			return session.SessionID()
		}
		return ""
	}
	run := map[string]func(ctx context.Context, req mcp.CallToolRequest, args json.RawMessage) (string, error){
		"echo": func(_ context.Context, _ mcp.CallToolRequest, args json.RawMessage) (string, error) {
			return contract.Echo(args)
		},
		"add_note": func(ctx context.Context, _ mcp.CallToolRequest, args json.RawMessage) (string, error) {
			if stateless {
				return new(contract.Notes).Add(args) // kept by no session
			}
			n, _ := notes.Make(sessionKey(ctx))
			return n.Add(args)
		},
		"list_notes": func(ctx context.Context, _ mcp.CallToolRequest, _ json.RawMessage) (string, error) {
			if stateless {
				return new(contract.Notes).List(), nil
			}
			return notes.Get(sessionKey(ctx)).List(), nil
		},
		"countdown": func(ctx context.Context, req mcp.CallToolRequest, args json.RawMessage) (string, error) {
			var token mcp.ProgressToken
			if req.Params.Meta != nil {
				token = req.Params.Meta.ProgressToken
			}
			return contract.Countdown(ctx, args, func(step, total int, message string) {
				if token != nil {
					s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
						"progressToken": token, "progress": step, "total": total, "message": message,
					})
				}
			})
		},
	}
	for _, t := range contract.Tools() {
		tool := mcp.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema)
		tool.Title = t.Title
		do := run[t.Name]
		s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, err := rawArguments(req)
			var text string
			if err == nil {
				text, err = do(ctx, req, args)
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(text), nil
		})
	}
	return s
}

// rawArguments returns a call's arguments as the JSON the client sent.
func rawArguments(req mcp.CallToolRequest) (json.RawMessage, error) {
	switch args := req.GetRawArguments().(type) {
	case json.RawMessage:
		return args, nil
	case nil:
		return nil, nil
	default:
		return json.Marshal(args)
	}
}
