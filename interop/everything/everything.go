// Package everything is the "everything" server that the official MCP
// conformance suite (npm @modelcontextprotocol/conformance) expects to find
// behind the URL it tests: tools, resources and prompts of fixed names, such
// as the tool test_simple_text or the resource test://static-text, each
// doing what the suite's scenario for it describes.
//
// The fixtures are not course material. They are built on the course's own
// given server (mcpcourse/internal/mcp: mcp.New, Server.AddTool,
// Server.HandleMethod) so that the suite, served by a stage's reference
// transport (cmd/everything), tests that transport: its sessions, its SSE
// streams, and the requests a server sends to its client (sampling,
// elicitation) and the answers the client POSTs back.
package everything

import (
	"mcpcourse/internal/mcp"
)

// New returns the everything server. Its sessions are independent: what one
// client subscribes to, another does not see.
func New() *mcp.Server {
	s := mcp.New(mcp.Options{
		Info: mcp.Implementation{
			Name:    "mcp-course-everything",
			Title:   "MCP course conformance fixtures",
			Version: "1.0.0",
		},
		Instructions: "Fixtures for the official MCP conformance suite, served by the course's reference transport.",
		// tools and logging are declared by every mcp.Server.
		Capabilities: map[string]any{
			"resources":   map[string]any{"subscribe": true, "listChanged": false},
			"prompts":     map[string]any{"listChanged": false},
			"completions": map[string]any{},
		},
	})
	for _, t := range tools() {
		s.AddTool(t)
	}
	subs := newSubscriptions()
	s.HandleMethod("resources/list", listResources)
	s.HandleMethod("resources/templates/list", listResourceTemplates)
	s.HandleMethod("resources/read", readResource)
	s.HandleMethod("resources/subscribe", subs.subscribe)
	s.HandleMethod("resources/unsubscribe", subs.unsubscribe)
	s.HandleMethod("prompts/list", listPrompts)
	s.HandleMethod("prompts/get", getPrompt)
	s.HandleMethod("completion/complete", complete)
	return s
}
