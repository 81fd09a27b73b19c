// Command server runs the course's notes server for browsers and for
// everything else: Streamable HTTP with resumable streams at
// http://ADDR/mcp, and a WebSocket at ws://ADDR/ws, both behind one Origin
// allowlist.
//
//	go run ./04-origin/cmd/server -addr 127.0.0.1:8080 -allow-origin 'https://*.example.com,http://localhost:*'
//
// Without -allow-origin it trusts web pages served from this machine only
// (http://localhost:*, http://127.0.0.1:*, http://[::1]:*), and it refuses
// to listen beyond loopback. Requests must name the server in Host by
// localhost or an IP address, or by a name that -allow-host lists
// (-allow-host mcp.example.com, for a server that clients reach by name):
// any other name may be a rebound one. It takes stage 03's flags too
// (-stateless, -keepalive, -replay-buffer, -tick, -session-timeout,
// -max-sessions, -max-body, -debug), and -ws-ping, how often a WebSocket
// client is pinged (30s). It prints the address it listens on to stderr,
// and stops on SIGTERM or Ctrl-C, ending the GET streams and WebSockets at
// once.
package main

import (
	"log"
	"net/http"

	origin "mcpcourse/04-origin"

	"mcpcourse/internal/mcp"
	"mcpcourse/internal/serve"
)

func main() {
	var opts origin.Options
	flags := serve.Parse(opts.RegisterFlags) // -addr, -debug, stage 03's flags, -allow-origin
	handler, err := origin.NewHandler(mcp.NewServer(), opts)
	if err != nil {
		log.Fatal(err) // a malformed -allow-origin
	}
	ln, err := origin.Listen(flags.Addr, len(opts.AllowOrigins) > 0)
	if err != nil {
		log.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)            // Host, Origin and CORS, then stage 03
	mux.Handle("/ws", handler.WebSocket()) // Host, then the handshake's own Origin check
	mode := "stateful, resumable streams"
	if opts.Stateless {
		mode = "stateless"
	}
	if err := flags.Run(ln, mux, mode+"; WebSocket at /ws", handler); err != nil {
		log.Fatal(err)
	}
	log.Print("stopped")
}
