package grader_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
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
// second must be refused at every one of those steps. It grades the same
// server as TestLesson04 (GRADER_TARGET), and is skipped without a
// Chromium, except in CI (COURSE_CI=1):
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
	// hosts, so the same port serves an allowed and a foreign page.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	pages := &http.Server{Handler: &browserdemo.Pages{Hold: 20 * time.Second}, ReadHeaderTimeout: 5 * time.Second}
	go pages.Serve(ln)
	defer pages.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	allowed := fmt.Sprintf("http://localhost:%d", port)
	foreign := fmt.Sprintf("http://127.0.0.1:%d", port)

	server := startServer(t, ctx, target.Binary, "-addr", "127.0.0.1:0", "-allow-origin", allowed)
	t.Logf("%s at %s, allowing %s only", target.Package, server, allowed)

	for _, page := range []struct {
		base string
		want string
	}{{allowed, "ok"}, {foreign, "refused"}} {
		started := time.Now()
		result, err := browserdemo.Visit(ctx, bin, page.base, server)
		require.NoError(t, err, "loading the page from %s", page.base)
		t.Logf("%s(%.1fs)", result, time.Since(started).Seconds())
		require.NotEmpty(t, result.Steps, "the page from %s tried nothing", page.base)
		names := map[string]bool{}
		for _, s := range result.Steps {
			names[s.Name] = true
			if s.Outcome != page.want {
				t.Errorf("from %s, %q was %s, want %s: %s", page.base, s.Name, s.Outcome, page.want, s.Detail)
			}
		}
		for _, step := range []string{"initialize (fetch POST)", "tools/call echo", "SSE stream (streaming fetch GET)", "WebSocket /ws"} {
			assert.True(t, names[step], "the page from %s did not try %s", page.base, step)
		}
	}
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
