// Package serve runs the HTTP server of a course stage's cmd/server, from
// stage 02 on: the line that says where it listens (which the grader reads),
// the expvar page of -debug, and a graceful stop on SIGTERM or Ctrl-C. It is
// given code: it knows nothing of MCP.
package serve

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
)

// Streams is what a stage's handler offers a graceful shutdown.
type Streams interface {
	// CloseStreams ends the streams that never end by themselves (GET
	// streams, WebSockets) and refuses new ones. Run calls it first, before
	// it waits for the requests still running.
	CloseStreams()
	// Close ends every session, which cancels the requests still running.
	Close()
}

// Flags are the flags every HTTP stage's server has.
type Flags struct {
	Addr  string // -addr: where to listen
	Debug bool   // -debug: serve /debug/vars too
}

// Parse defines -addr and -debug on the command line, and the stage's own
// flags with register, then parses it, and names the server in log lines.
func Parse(register func(*flag.FlagSet)) Flags {
	var f Flags
	flag.StringVar(&f.Addr, "addr", "127.0.0.1:8080", "address to listen on; keep it on loopback unless you add authentication")
	flag.BoolVar(&f.Debug, "debug", false, "serve /debug/vars with goroutine and heap counts")
	register(flag.CommandLine)
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("notes-server: ")
	return f
}

// grace is how long requests still running get to finish after SIGTERM.
const grace = 3 * time.Second

// publishDebugVars serves /debug/vars (expvar) on mux, where "goroutines"
// counts the goroutines alive and "heap_live" the bytes the heap holds after
// a garbage collection: how a test sees, from outside, that nothing leaks.
func publishDebugVars(mux *http.ServeMux) {
	mux.Handle("/debug/vars", expvar.Handler())
	if expvar.Get("goroutines") != nil {
		return // published by an earlier Run in this process; expvar panics on a second Publish
	}
	expvar.Publish("goroutines", expvar.Func(func() any { return runtime.NumGoroutine() }))
	expvar.Publish("heap_live", expvar.Func(func() any {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}))
}

// Run serves mux on ln until SIGTERM or Ctrl-C, then shuts down: it ends
// the streams at once (streams.CloseStreams), closes the listener and waits
// for the requests still running (http.Server.Shutdown), and past the grace
// period ends every session (streams.Close), which cancels them. Before
// serving it prints "listening on http://ADDR/mcp (mode)" to the standard
// logger. With -debug, mux serves /debug/vars too.
func (f Flags) Run(ln net.Listener, mux *http.ServeMux, mode string, streams Streams) error {
	// Catch the signals before saying where the server listens: a client
	// that reads that line may stop the server at once.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if f.Debug {
		publishDebugVars(mux)
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		log.Printf("warning: listening on %s, beyond this machine; the spec says a local server SHOULD bind only to 127.0.0.1", ip)
	}
	// No WriteTimeout: a stream may rightly last for hours. Each write of
	// an event has a deadline of its own instead. (ReadTimeout bounds
	// reading the request; net/http lifts it once the body is read.)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	log.Printf("listening on http://%s/mcp (%s)", ln.Addr(), mode)

	stopped := make(chan error, 1)
	go func() { stopped <- srv.Serve(ln) }()
	select {
	case err := <-stopped:
		return err
	case <-ctx.Done():
	}
	// The streams first, here and not in srv.RegisterOnShutdown: net/http
	// runs such a hook on a goroutine of its own, which may not have run
	// yet when Shutdown returns, or even when the process exits. Shutdown
	// waits for every request to end, and a GET stream never ends by
	// itself.
	streams.CloseStreams()
	shutdown, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(shutdown)
	streams.Close()
	if err != nil {
		srv.Close()
	}
	if err := <-stopped; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
