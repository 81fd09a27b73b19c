// Command server runs the course's notes server over Streamable HTTP, at
// http://ADDR/mcp.
//
//	go run ./solutions/02-streamable-http/cmd/server -addr 127.0.0.1:8080 [-stateless] [-session-timeout 30m] [-max-sessions 1000] [-max-body 4194304]
//
// It binds to loopback unless told otherwise, as the spec recommends for a
// server running locally, and prints the address it listens on to stderr
// (useful with -addr 127.0.0.1:0, which picks a free port). SIGTERM or Ctrl-C
// stop it gracefully: running requests get a moment to finish, then every
// session ends. With -debug it also serves /debug/vars (expvar).
package main

import (
	"log"
	"net"
	"net/http"

	streamable "mcpcourse/solutions/02-streamable-http"

	"mcpcourse/internal/mcp"
	"mcpcourse/internal/serve"
)

func main() {
	var opts streamable.Options
	flags := serve.Parse(opts.RegisterFlags) // -addr, -debug, and this stage's flags
	ln, err := net.Listen("tcp", flags.Addr)
	if err != nil {
		log.Fatal(err)
	}
	handler := streamable.NewHandler(mcp.NewServer(), opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mode := "stateful"
	if opts.Stateless {
		mode = "stateless"
	}
	if err := flags.Run(ln, mux, mode, handler); err != nil {
		log.Fatal(err)
	}
	log.Print("stopped")
}
