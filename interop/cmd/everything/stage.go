package main

import (
	"fmt"
	"net/http"

	"mcpcourse/internal/mcp"
	"mcpcourse/internal/serve"

	// The newest stage's reference transport: the one line to change when
	// a stage lands (TestEverythingServesNewestStage checks it). The interop
	// tests rewrite this import with a build overlay to serve the fixtures
	// with every other stage, and with a learner's own (INTEROP_TARGET=.).
	stage "mcpcourse/solutions/04-origin"
)

// handler is what every stage's Handler is, from stage 02 on: the MCP
// endpoint, and the two steps of a graceful shutdown (serve.Streams).
type handler interface {
	http.Handler
	serve.Streams
}

// newHandler serves server at one MCP endpoint with the stage's transport.
func newHandler(server *mcp.Server, stateless bool) (handler, error) {
	// Set through the field, not a composite literal, so that this compiles
	// whether Stateless is a field of the stage's Options or one promoted
	// from an embedded Options of an earlier stage. The other options keep
	// their defaults: from stage 04 on, that is an Origin allowlist of
	// loopback origins and the Host check, which the suite's
	// dns-rebinding-protection scenario tests.
	var opts stage.Options
	opts.Stateless = stateless

	// Stages 02 and 03 build their handler without fail; from stage 04 on,
	// NewHandler can refuse its options (a malformed allowed origin), so
	// it returns an error too. Switching on the constructor's type lets
	// one file compile against every stage's package.
	switch newStageHandler := any(stage.NewHandler).(type) {
	case func(*mcp.Server, stage.Options) *stage.Handler:
		return newStageHandler(server, opts), nil
	case func(*mcp.Server, stage.Options) (*stage.Handler, error):
		return newStageHandler(server, opts)
	default:
		return nil, fmt.Errorf("the stage's NewHandler has a shape this command does not know: %T", stage.NewHandler)
	}
}
