// Command browser-demo serves lesson 04's demo page, so that you can watch
// a real browser use your MCP server from an origin it allows, and be
// refused from one it does not.
//
//	go run ./cmd/browser-demo [-addr 127.0.0.1:8081] [-server http://127.0.0.1:8080]
//
// The page is served on one port under two names, http://localhost:PORT
// and http://127.0.0.1:PORT: to a browser those are two origins. Start your
// server so that it allows the first only, then open both.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"mcpcourse/tools/browserdemo"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "where to serve the page (keep it on loopback)")
	server := flag.String("server", "http://127.0.0.1:8080", "the base URL of the MCP server the page talks to")
	flag.Parse()
	log.SetFlags(0)
	// Catch Ctrl-C and SIGTERM before saying where the page is: whoever
	// reads that may stop this server at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	query := "/?server=" + *server
	fmt.Printf(`The demo page, on port %d under two names, which a browser treats as two origins:

  allowed  http://localhost:%d%s
  foreign  http://127.0.0.1:%d%s

Start your server so that it allows the first one only:

  go run ./04-origin/cmd/server -addr %s -allow-origin http://localhost:%d

(or ./solutions/04-origin/cmd/server), then open both addresses in a browser, with
its developer tools on the Network tab. Ctrl-C stops this page server.
`, port, port, query, port, query, hostPort(*server), port)
	srv := &http.Server{Handler: &browserdemo.Pages{}, ReadHeaderTimeout: 10 * time.Second}
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Serve(ln) }()
	select {
	case err := <-stopped:
		log.Fatal(err)
	case <-ctx.Done():
	}
	// Give the requests running a second; a page loaded by hand holds
	// none open.
	shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if srv.Shutdown(shutdown) != nil {
		srv.Close()
	}
}

// hostPort returns the host:port of a base URL, for the command it prints.
func hostPort(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "127.0.0.1:8080"
	}
	return u.Host
}
