// Command server runs the course's notes server over stdio: the client starts
// it as a child process and talks newline-delimited JSON-RPC on its stdin and
// stdout. Logs go to stderr, the one place the transport leaves for them.
//
//	go run ./solutions/01-stdio/cmd/server
package main

import (
	"context"
	"errors"
	"log"
	"os"
	"os/signal"
	"syscall"

	stdio "mcpcourse/solutions/01-stdio"

	"mcpcourse/internal/mcp"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("notes-server: ")

	// By default a Go program that writes to a closed stdout is killed by
	// SIGPIPE on the spot. Ignoring it turns that write into an ordinary
	// EPIPE error, which Serve returns, so the server can stop in order.
	signal.Ignore(syscall.SIGPIPE)

	// SIGTERM (and Ctrl-C) cancel ctx; Serve then cancels what is running
	// and returns. A second signal kills the process, as stop restores the
	// default behaviour.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// @step 1: the greeting goes to stderr, with the logs
	log.Print("serving MCP on stdin/stdout")
	// @starter
	// | // TODO(step 1): this greeting breaks the protocol. Find out why in
	// | // lessons/01-stdio.md, then move it where it belongs.
	// | fmt.Println("notes server: serving MCP on stdin/stdout")
	// @end
	err := stdio.Serve(ctx, os.Stdin, os.Stdout, mcp.NewServer())
	switch {
	case err == nil:
		log.Print("stdin closed; exiting")
	case errors.Is(err, context.Canceled):
		log.Print("signalled; exiting")
	case errors.Is(err, syscall.EPIPE):
		log.Print("the client closed stdout; exiting")
	default:
		log.Printf("stopped: %v", err)
		os.Exit(1)
	}
}
