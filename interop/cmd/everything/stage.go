package main

import (
	"net/http"

	"mcpcourse/internal/mcp"

	// The newest stage's reference transport: the one line to change when
	// a stage lands (TestEverythingServesNewestStage checks it). The interop
	// tests rewrite this import with a build overlay to serve the fixtures
	// with every other stage, and with a learner's own (INTEROP_TARGET=.).
	stage "mcpcourse/solutions/03-sse-resume"
)

// newHandler serves server at one MCP endpoint with the stage's transport,
// and returns the function that ends its sessions.
func newHandler(server *mcp.Server, stateless bool) (http.Handler, func()) {
	// Set through the field, not a composite literal, so that this compiles
	// whether Stateless is a field of the stage's Options or one promoted
	// from an embedded stage 02 Options.
	var opts stage.Options
	opts.Stateless = stateless
	h := stage.NewHandler(server, opts)
	return h, h.Close
}
