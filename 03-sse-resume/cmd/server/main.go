// Command server runs the course's notes server over Streamable HTTP with
// resumable SSE streams, at http://ADDR/mcp.
//
//	go run ./03-sse-resume/cmd/server -addr 127.0.0.1:8080 [-stateless] [-keepalive 15s] [-replay-buffer 1000] [-tick 0]
//
// It prints the address it listens on to stderr, and stops on SIGTERM or
// Ctrl-C: it ends the GET streams at once, gives running requests a moment,
// then ends every session. With -debug it also serves /debug/vars (expvar),
// where "goroutines" counts the goroutines alive and "heap_live" the bytes
// the heap holds after a garbage collection: how a test sees, from outside,
// that nothing leaks.
package main

import (
	"context"
	"errors"
	"expvar"
	"flag"
	"log"
	"net"
	"net/http"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	resume "mcpcourse/03-sse-resume"

	"mcpcourse/internal/mcp"
)

func main() {
	var opts resume.Options
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on; keep it on loopback unless you add authentication")
	flag.BoolVar(&opts.Stateless, "stateless", false, "serve without sessions, streams or resumption")
	flag.DurationVar(&opts.KeepAlive, "keepalive", resume.DefaultKeepAlive, "send a comment on an idle GET stream this often")
	flag.IntVar(&opts.ReplayBuffer, "replay-buffer", resume.DefaultReplayBuffer, "events each session keeps for clients that resume")
	flag.DurationVar(&opts.Tick, "tick", 0, "send each standalone stream a log message this often (0: never)")
	flag.DurationVar(&opts.SessionTimeout, "session-timeout", 30*time.Minute, "end sessions idle for this long")
	flag.IntVar(&opts.MaxSessions, "max-sessions", 1000, "most sessions alive at once")
	flag.Int64Var(&opts.MaxBodyBytes, "max-body", 4<<20, "largest POST body, in bytes")
	debug := flag.Bool("debug", false, "serve /debug/vars with goroutine and heap counts")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("notes-server: ")

	handler := resume.NewHandler(mcp.NewServer(), opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	if *debug {
		expvar.Publish("goroutines", expvar.Func(func() any { return runtime.NumGoroutine() }))
		expvar.Publish("heap_live", expvar.Func(func() any {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}))
		mux.Handle("/debug/vars", expvar.Handler())
	}
	if err := serve(*addr, mux, handler, opts.Stateless); err != nil {
		log.Fatal(err)
	}
	log.Print("stopped")
}

// serve listens on addr until SIGTERM or Ctrl-C, then shuts down.
func serve(addr string, mux *http.ServeMux, handler *resume.Handler, stateless bool) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		log.Printf("warning: listening on %s, beyond this machine; the spec says a local server SHOULD bind only to 127.0.0.1", ip)
	}
	// No WriteTimeout: a stream may rightly last for hours. Each write of
	// an event has a deadline of its own instead. (ReadTimeout bounds
	// reading the request; net/http lifts it once the body is read.)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	srv.RegisterOnShutdown(handler.CloseStreams)
	mode := "stateful, resumable streams"
	if stateless {
		mode = "stateless"
	}
	log.Printf("listening on http://%s/mcp (%s)", ln.Addr(), mode)

	stopped := make(chan error, 1)
	go func() { stopped <- srv.Serve(ln) }()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	select {
	case err := <-stopped:
		return err
	case <-ctx.Done():
	}
	// Shutdown closes the listener, ends the GET streams (CloseStreams),
	// and waits for the POSTs still running; past the grace period, ending
	// every session cancels them.
	grace, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err = srv.Shutdown(grace)
	handler.Close()
	if err != nil {
		srv.Close()
	}
	if err := <-stopped; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
