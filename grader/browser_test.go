package grader_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/internal/proc"
	"mcpcourse/grader/lesson04"
	"mcpcourse/tools/browserdemo"
	"mcpcourse/tools/chromium"
)

// TestBrowser04 is lesson 04 in a real browser: a headless Chromium loads
// the same page from an origin the server allows (http://localhost:PORT)
// and from one it does not (http://127.0.0.1:PORT), both on loopback. The
// first must initialize over fetch, read Mcp-Session-Id, call a tool, read
// the SSE stream with a streaming fetch and talk over the WebSocket; the
// second must be refused at every one of those steps.
//
// Then a page the server allows too, served from a third port, once as it
// is, and once as if it came from the internet: Chromium's
// --ip-address-space-overrides puts its address in the public address
// space. As it is, every step works. From the public address space,
// Chromium's Local Network Access holds back every request to a loopback
// server until the user allows it, and headless there is no one to ask:
// no byte of any request reaches the server, which the test counts through
// a relay in front of it. That is the browser's defence, not the server's,
// and the user can lift it: the Origin check is still what the spec asks.
//
// It grades the same server as TestLesson04 (GRADER_TARGET), and is
// skipped without a Chromium, except in CI (COURSE_CI=1):
//
//	go test ./grader -run Browser04 -v
func TestBrowser04(t *testing.T) {
	bin, err := chromium.Find()
	if errors.Is(err, chromium.ErrNotFound) && os.Getenv("COURSE_CI") != "1" {
		t.Skip(err)
	}
	require.NoError(t, err)
	opts, err := grader.OptionsFromEnv()
	require.NoError(t, err)
	if opts.External() {
		t.Skip("the browser test starts lesson 04's server itself, with an allowlist of its own: it does not grade an external server")
	}
	target, err := grader.Prepare(context.Background(), lesson04.Lesson, opts)
	var buildErr *build.Error
	if errors.As(err, &buildErr) {
		t.Fatalf("%s does not build:\n%s", buildErr.Request.Package, buildErr.Output)
	}
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// One page server, two origins: localhost and 127.0.0.1 are different
	// hosts, so the same port serves an allowed and a foreign page. A
	// second page server, on a port of its own, is the page that the
	// browser is told came from the internet.
	port := servePages(t)
	allowed := fmt.Sprintf("http://localhost:%d", port)
	foreign := fmt.Sprintf("http://127.0.0.1:%d", port)
	publicPort := servePages(t)
	public := fmt.Sprintf("http://127.0.0.1:%d", publicPort)

	server := startServer(t, ctx, target.Binary, "-addr", "127.0.0.1:0", "-allow-origin", allowed+","+public)
	t.Logf("%s at %s, allowing %s and %s", target.Package, server, allowed, public)
	relay := startRelay(t, strings.TrimPrefix(server, "http://"))

	visit(t, ctx, bin, allowed, server, "ok")
	visit(t, ctx, bin, foreign, server, "refused")

	// The same allowed page from the loopback address space, then from
	// the public one, through the relay that counts what reaches the
	// server.
	visit(t, ctx, bin, public, relay.url, "ok")
	require.Positive(t, relay.settled(t), "the page's requests went through the relay")
	relay.bytes.Store(0)
	visit(t, ctx, bin, public, relay.url, "refused", fmt.Sprintf("--ip-address-space-overrides=127.0.0.1:%d=public", publicPort))
	assert.Zero(t, relay.settled(t), "a page from the public address space got bytes through to a loopback server: "+
		"Chromium's Local Network Access should hold back every request until the user allows it")
}

// visit loads the demo page from base against server in a fresh headless
// Chromium, with more browser flags, and fails t unless every step the
// page tries has the outcome want.
func visit(t *testing.T, ctx context.Context, bin, base, server, want string, flags ...string) {
	t.Helper()
	started := time.Now()
	result, err := browserdemo.Visit(ctx, bin, base, server, flags...)
	require.NoError(t, err, "loading the page from %s", base)
	label := ""
	if len(flags) > 0 {
		label = "with " + strings.Join(flags, " ") + ": "
	}
	t.Logf("%s%s(%.1fs)", label, result, time.Since(started).Seconds())
	require.NotEmpty(t, result.Steps, "the page from %s tried nothing", base)
	names := map[string]bool{}
	for _, s := range result.Steps {
		names[s.Name] = true
		if s.Outcome != want {
			t.Errorf("from %s %s, %q was %s, want %s: %s", base, strings.Join(flags, " "), s.Name, s.Outcome, want, s.Detail)
		}
	}
	for _, step := range []string{"initialize (fetch POST)", "tools/call echo", "SSE stream (streaming fetch GET)", "WebSocket /ws"} {
		assert.True(t, names[step], "the page from %s did not try %s", base, step)
	}
}

// servePages serves the demo page on a loopback port of its own until the
// test ends, and returns the port.
func servePages(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	pages := &http.Server{Handler: &browserdemo.Pages{Hold: 20 * time.Second}, ReadHeaderTimeout: 5 * time.Second}
	go pages.Serve(ln)
	t.Cleanup(func() { pages.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// relay passes TCP connections on to a server and counts the bytes that
// clients send through it: what reaches the server.
type relay struct {
	url   string       // where clients connect, such as http://127.0.0.1:40123
	bytes atomic.Int64 // sent by clients, counted as they are read
	open  atomic.Int64 // connections being relayed
}

// settled waits until every connection has ended (the browser has exited,
// so its sockets are closed, and what it sent has been read to the end),
// and returns the bytes counted.
func (r *relay) settled(t *testing.T) int64 {
	t.Helper()
	require.Eventually(t, func() bool { return r.open.Load() == 0 }, 5*time.Second, 10*time.Millisecond,
		"the relay still has %d connections open after the browser exited", r.open.Load())
	return r.bytes.Load()
}

// counted counts the bytes read from a connection as they come.
type counted struct {
	net.Conn
	n *atomic.Int64
}

func (c counted) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// startRelay relays a loopback port to target (host:port) until the test
// ends. Each connection is closed when either side ends it, or when the
// test does.
func startRelay(t *testing.T, target string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &relay{url: "http://" + ln.Addr().String()}
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			r.open.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.pass(in, target, done)
			}()
		}
	}()
	return r
}

// pass relays one client connection to target until either side closes,
// or done is closed.
func (r *relay) pass(in net.Conn, target string, done <-chan struct{}) {
	defer r.open.Add(-1)
	defer in.Close()
	out, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		return
	}
	defer out.Close()
	ended := make(chan struct{}, 2)
	go func() {
		io.Copy(out, counted{in, &r.bytes})
		ended <- struct{}{}
	}()
	go func() {
		io.Copy(in, out)
		ended <- struct{}{}
	}()
	select {
	case <-ended:
	case <-done:
	}
	in.Close() // ends the other copy
	out.Close()
	<-ended
}

// listeningLine is how the course's servers say where they listen.
var listeningLine = regexp.MustCompile(`listening on (http://[^/\s]+)/mcp`)

// startServer runs bin with args until the test ends, and returns its base
// URL once it says where it listens.
func startServer(t *testing.T, ctx context.Context, bin string, args ...string) string {
	t.Helper()
	p, err := proc.Start(ctx, bin, args...)
	require.NoError(t, err)
	t.Cleanup(p.Kill)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if m := listeningLine.FindStringSubmatch(p.Stderr()); m != nil {
			return m[1]
		}
		if p.Exited() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the server did not say where it listens (%s):\n%s", p.Status(), p.Stderr())
	return ""
}
