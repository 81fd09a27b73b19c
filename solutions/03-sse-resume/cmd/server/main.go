// Command server runs the course's notes server over Streamable HTTP with
// resumable SSE streams, at http://ADDR/mcp.
//
//	go run ./solutions/03-sse-resume/cmd/server -addr 127.0.0.1:8080 [-stateless] [-keepalive 15s] [-replay-buffer 1000] [-tick 0]
//
// It prints the address it listens on to stderr, and stops on SIGTERM or
// Ctrl-C: it ends the GET streams at once, gives running requests a moment,
// then ends every session. With -debug it also serves /debug/vars (expvar),
// where "goroutines" counts the goroutines alive and "heap_live" the bytes
// the heap holds after a garbage collection: how a test sees, from outside,
// that nothing leaks.
package main

import (
	"log"
	"net"
	"net/http"

	resume "mcpcourse/solutions/03-sse-resume"

	"mcpcourse/internal/mcp"
	"mcpcourse/internal/serve"
)

func main() {
	var opts resume.Options
	flags := serve.Parse(opts.RegisterFlags)
	ln, err := net.Listen("tcp", flags.Addr)
	if err != nil {
		log.Fatal(err)
	}
	handler := resume.NewHandler(mcp.NewServer(), opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mode := "stateful, resumable streams"
	if opts.Stateless {
		mode = "stateless"
	}
	if err := flags.Run(ln, mux, mode, handler); err != nil {
		log.Fatal(err)
	}
	log.Print("stopped")
}
