// Command server runs the course's notes server over Streamable HTTP, at
// http://ADDR/mcp.
//
//	go run ./solutions/02-streamable-http/cmd/server -addr 127.0.0.1:8080 [-stateless]
//
// It binds to loopback unless told otherwise, as the spec recommends for a
// server running locally, and prints the address it listens on to stderr
// (useful with -addr 127.0.0.1:0, which picks a free port). SIGTERM or Ctrl-C
// stop it gracefully.
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

	streamable "mcpcourse/solutions/02-streamable-http"

	"mcpcourse/internal/mcp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on; keep it on loopback unless you add authentication")
	stateless := flag.Bool("stateless", false, "serve without sessions: every request stands alone")
	sessionTimeout := flag.Duration("session-timeout", streamable.DefaultSessionTimeout, "end sessions idle for this long")
	maxSessions := flag.Int("max-sessions", streamable.DefaultMaxSessions, "most sessions alive at once")
	maxBody := flag.Int64("max-body", streamable.DefaultMaxBodyBytes, "largest POST body, in bytes")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("notes-server: ")

	handler := streamable.NewHandler(mcp.NewServer(), streamable.Options{
		Stateless:      *stateless,
		SessionTimeout: *sessionTimeout,
		MaxSessions:    *maxSessions,
		MaxBodyBytes:   *maxBody,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		log.Printf("warning: listening on %s, beyond this machine; the spec says a local server SHOULD bind only to 127.0.0.1", ip)
	}
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // the whole request, body included; replies may stream for longer
		IdleTimeout:       2 * time.Minute,
	}
	mode := "stateful"
	if *stateless {
		mode = "stateless"
	}
	// Catch SIGTERM before saying where the server listens: a supervisor
	// (or the grader) may send it as soon as it reads that line.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Printf("listening on http://%s/mcp (%s)", ln.Addr(), mode)
	go func() {
		<-ctx.Done()
		// Stop taking connections and give the requests running a moment
		// to finish; then end every session, which cancels what is left.
		shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			handler.Close()
			srv.Close()
		}
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	handler.Close()
	log.Print("stopped")
}
