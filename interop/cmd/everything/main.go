// Command everything serves the conformance fixtures of package everything
// over Streamable HTTP, with the transport of the course's newest stage
// (stage.go), so that the official MCP conformance suite can test that
// transport:
//
//	go run ./cmd/everything -addr 127.0.0.1:3001
//	npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp --spec-version 2025-11-25
//
// It runs like the course's own servers, on the same server loop
// (internal/serve): it prints "listening on URL (mode)" on stderr once it
// has caught SIGTERM and Ctrl-C, and on either it ends the streams, gives
// running requests a moment, ends every session and exits with status 0.
package main

import (
	"flag"
	"log"
	"net"
	"net/http"

	"mcpcourse/internal/serve"
	"mcpcourse/interop/everything"
)

func main() {
	flags := serve.Flags{}
	flag.StringVar(&flags.Addr, "addr", "127.0.0.1:3001", "address to listen on; keep it on loopback")
	stateless := flag.Bool("stateless", false, "serve without sessions: every request stands alone")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("everything-server: ")

	handler, err := newHandler(everything.New(), *stateless)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)

	ln, err := net.Listen("tcp", flags.Addr)
	if err != nil {
		log.Fatal(err)
	}
	mode := "stateful"
	if *stateless {
		mode = "stateless"
	}
	if err := flags.Run(ln, mux, mode, handler); err != nil {
		log.Fatal(err)
	}
	log.Print("stopped")
}
