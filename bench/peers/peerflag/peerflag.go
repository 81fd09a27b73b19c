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
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"mcpcourse/internal/serve"
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

// ServeHTTP serves h at /mcp on addr until SIGTERM or Ctrl-C, with the
// course's own serve loop (mcpcourse/internal/serve), so that a peer starts,
// says where it listens and stops exactly as the course's servers do.
func ServeHTTP(addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return serve.Flags{Addr: addr}.Run(ln, mux, "peer", sdkStreams{})
}

// sdkStreams is what a peer offers serve.Run at shutdown: nothing, since an
// SDK's handler has no hook to end its streams; a stream still open when
// the grace period ends is cut with the server.
type sdkStreams struct{}

func (sdkStreams) CloseStreams() {}
func (sdkStreams) Close()        {}
