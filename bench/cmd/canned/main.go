// Command canned is the benchmark's ceiling: a server that answers MCP
// requests with canned bytes, without parsing JSON, on the same net/http
// server settings as the reference. It copies a request's
// id into a fixed answer: the initialize result for initialize, an echo
// result carrying load.EchoText for anything else. Whatever an MCP server
// does beyond this is the cost of doing it properly.
//
//	canned                          stdio: one line in, one line out
//	canned -http 127.0.0.1:0        Streamable HTTP at /mcp, with net/http
//	canned -http ADDR -stateless    the same, without a session id
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"

	"mcpcourse/bench/load"
	"mcpcourse/internal/serve"
)

const sessionID = "0123456789abcdef0123456789abcdef"

// stateless leaves out the session id (-stateless).
var stateless bool

var (
	initAnswer = []byte(`,"result":{"protocolVersion":"` + load.ProtocolVersion +
		`","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}}`)
	echoAnswer = []byte(`,"result":{"content":[{"type":"text","text":"` + load.EchoText + `"}]}}`)
	prefix     = []byte(`{"jsonrpc":"2.0","id":`)
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at http://ADDR/mcp instead of stdio")
	flag.BoolVar(&stateless, "stateless", false, "with -http, give no session id, as a stateless server does")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("canned: ")
	if *addr == "" {
		if err := serveStdio(os.Stdin, os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", serveHTTP)
	// The reference's own server loop, with its timeouts: they cost a
	// little on every request (a read deadline), and are no MCP work, so
	// the ceiling pays them too. It says "listening on http://ADDR/mcp
	// (canned)" once it has caught SIGTERM, and stops on it with status 0.
	if err := (serve.Flags{Addr: *addr}).Run(ln, mux, "canned", nothing{}); err != nil {
		log.Fatal(err)
	}
	log.Print("stopped")
}

// nothing is what the canned server has to end when it stops: no streams,
// no sessions.
type nothing struct{}

func (nothing) CloseStreams() {}
func (nothing) Close()        {}

// answer appends the canned answer to msg, or nothing for a message
// without an id (a notification).
func answer(b, msg []byte) []byte {
	id := idOf(msg)
	if id == nil {
		return b
	}
	b = append(append(b, prefix...), id...)
	if bytes.Contains(msg, []byte(`"method":"initialize"`)) {
		return append(b, initAnswer...)
	}
	return append(b, echoAnswer...)
}

// idOf returns the text of a message's "id" member, or nil.
func idOf(msg []byte) []byte {
	i := bytes.Index(msg, []byte(`"id":`))
	if i < 0 {
		return nil
	}
	rest := msg[i+5:]
	end := bytes.IndexAny(rest, ",}")
	if end <= 0 {
		return nil
	}
	return rest[:end]
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(body)
	body.Reset()
	if _, err := body.ReadFrom(r.Body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var out [256]byte
	resp := answer(out[:0], body.Bytes())
	if len(resp) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	if !stateless && r.Header.Get("Mcp-Session-Id") == "" {
		h["Mcp-Session-Id"] = []string{sessionID}
	}
	w.Write(resp)
}

// serveStdio answers each line with one write of its own, as the reference
// does (and as any server must that answers requests concurrently without
// a writer goroutine): the ceiling for handling messages, not for
// coalescing writes.
func serveStdio(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var b []byte
	for {
		line, err := r.ReadSlice('\n')
		if len(line) > 0 {
			if b = answer(b[:0], line); len(b) > 0 {
				if _, err := out.Write(append(b, '\n')); err != nil {
					return err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}
