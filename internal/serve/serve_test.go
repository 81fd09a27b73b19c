package serve

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a Streams that notes what the shutdown called, in order, and
// ends its one stream (served at /stream) when CloseStreams is called.
type recorder struct {
	addr string // where the server listens

	mu      sync.Mutex
	calls   []string
	closing chan struct{} // closed by CloseStreams
}

func newRecorder(addr string) *recorder { return &recorder{addr: addr, closing: make(chan struct{})} }

// CloseStreams notes whether the server still listens: Shutdown closes the
// listener first of all, so a connection that gets through shows that
// CloseStreams ran before Shutdown began.
func (r *recorder) CloseStreams() {
	call := "CloseStreams (listener closed)"
	if conn, err := net.DialTimeout("tcp", r.addr, time.Second); err == nil {
		conn.Close()
		call = "CloseStreams"
	}
	r.note(call)
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.closing:
	default:
		close(r.closing)
	}
}

func (r *recorder) Close() { r.note("Close") }

func (r *recorder) note(call string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call)
}

func (r *recorder) called() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// TestRunServesUntilSIGTERM serves a handler and /debug/vars, opens a
// stream that ends only when CloseStreams is called, then sends the test
// process SIGTERM, which Run has caught: Run must end the stream at once
// (well within the grace period, which Shutdown would otherwise wait out),
// close the sessions after it, and return nil, as a requested stop is not
// a failure.
func TestRunServesUntilSIGTERM(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	streams := newRecorder(ln.Addr().String())
	streaming := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		close(streaming)
		<-streams.closing
	})
	done := make(chan error, 1)
	go func() { done <- Flags{Debug: true}.Run(ln, mux, "test", streams) }()

	client := &http.Client{Timeout: 5 * time.Second}
	base := "http://" + ln.Addr().String()
	resp, err := client.Get(base + "/mcp")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "ok", string(body))

	resp, err = client.Get(base + "/debug/vars")
	require.NoError(t, err)
	var vars map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&vars))
	resp.Body.Close()
	assert.Contains(t, vars, "goroutines")
	assert.Contains(t, vars, "heap_live")

	stream, err := client.Get(base + "/stream")
	require.NoError(t, err)
	defer stream.Body.Close()
	<-streaming
	client.CloseIdleConnections()

	start := time.Now()
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of SIGTERM")
	}
	assert.Less(t, time.Since(start), grace, "Run waited for a stream that CloseStreams should have ended")
	_, err = io.Copy(io.Discard, stream.Body)
	assert.NoError(t, err, "the stream ends cleanly")
	assert.Equal(t, []string{"CloseStreams", "Close"}, streams.called(),
		"CloseStreams once, before Shutdown closes the listener; Close once, after the requests had their grace period")
}

// TestRunReturnsServeErrors returns the error of a listener that fails,
// without waiting for a signal.
func TestRunReturnsServeErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln.Close() // Serve fails at its first Accept
	done := make(chan error, 1)
	go func() { done <- Flags{}.Run(ln, http.NewServeMux(), "test", newRecorder(ln.Addr().String())) }()
	select {
	case err := <-done:
		assert.Error(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return when its listener failed")
	}
}
