// Package peerflag gives every peer server the same command line, so that
// the benchmark and the grader start them all alike:
//
//	SERVER                                   stdio
//	SERVER -http 127.0.0.1:0 [-stateless]    Streamable HTTP at /mcp
//	SERVER -http 127.0.0.1:0 -resumable      with the SDK's in-memory event store
//
// Over HTTP a peer prints "listening on http://ADDR/mcp" to stderr, as the
// course's own servers do, and stops on SIGTERM or Ctrl-C.
package peerflag

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
)

// Flags is a peer's command line.
type Flags struct {
	HTTP      string // address to serve Streamable HTTP on; "" for stdio
	Stateless bool
	// Resumable gives the stateful HTTP server its SDK's in-memory event
	// store, so that streams carry event ids and resume with Last-Event-ID
	// (the grader's lesson 03); without it, a peer runs with its SDK's
	// defaults, which keep no events.
	Resumable bool
}

// Parse reads the command line.
func Parse(name string) Flags {
	var f Flags
	flag.StringVar(&f.HTTP, "http", "", "serve Streamable HTTP at http://ADDR/mcp instead of stdio (keep it on loopback)")
	flag.BoolVar(&f.Stateless, "stateless", false, "over HTTP, serve without sessions")
	flag.BoolVar(&f.Resumable, "resumable", false, "over HTTP, keep events in the SDK's in-memory event store, so that streams can be resumed")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix(name + ": ")
	return f
}

// Context is cancelled on SIGTERM or Ctrl-C.
func Context() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// ServeHTTP serves h at /mcp on addr until SIGTERM or Ctrl-C.
func ServeHTTP(addr string, h http.Handler) error {
	// Catch the signals before saying where the server listens: whoever
	// reads that line may stop the server at once.
	ctx, stop := Context()
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening on http://%s/mcp", ln.Addr())
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Serve(ln) }()
	select {
	case err := <-stopped:
		return err
	case <-ctx.Done():
	}
	// Shutdown runs here, not on a goroutine beside Serve: Serve returns
	// as soon as Shutdown begins, and main would then exit while requests
	// still run.
	shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if srv.Shutdown(shutdown) != nil {
		srv.Close()
	}
	if err := <-stopped; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
