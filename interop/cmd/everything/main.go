// Command everything serves the conformance fixtures of package everything
// over Streamable HTTP, with the transport of the course's newest stage
// (stage.go), so that the official MCP conformance suite can test that
// transport:
//
//	go run ./cmd/everything -addr 127.0.0.1:3001
//	npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp --spec-version 2025-11-25
//
// It prints "listening on URL (mode)" on stderr once it accepts connections,
// and stops cleanly on SIGTERM or Ctrl-C.
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"mcpcourse/interop/everything"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3001", "address to listen on; keep it on loopback")
	stateless := flag.Bool("stateless", false, "serve without sessions: every request stands alone")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("everything-server: ")

	handler, closeSessions, err := newHandler(everything.New(), *stateless)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	mode := "stateful"
	if *stateless {
		mode = "stateless"
	}
	log.Printf("listening on http://%s/mcp (%s)", ln.Addr(), mode)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		// Ending the sessions first ends their open streams, which
		// Shutdown would otherwise wait for.
		closeSessions()
		shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			srv.Close()
		}
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	<-stopped // Serve returns as soon as Shutdown begins; wait for it to end
	log.Print("stopped")
}
