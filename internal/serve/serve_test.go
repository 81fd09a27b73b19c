package serve

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a Streams that counts what the shutdown called.
type recorder struct{ closeStreams, close atomic.Int32 }

func (r *recorder) CloseStreams() { r.closeStreams.Add(1) }
func (r *recorder) Close()        { r.close.Add(1) }

// TestRunServesUntilSIGTERM serves a handler and /debug/vars, then sends
// the test process SIGTERM, which Run has caught: Run must end the streams,
// close the sessions and return nil, as a requested stop is not a failure.
func TestRunServesUntilSIGTERM(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	streams := &recorder{}
	done := make(chan error, 1)
	go func() { done <- Flags{Debug: true}.Run(ln, mux, "test", streams) }()

	client := &http.Client{Timeout: 2 * time.Second}
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
	client.CloseIdleConnections()

	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of SIGTERM")
	}
	assert.Equal(t, int32(1), streams.closeStreams.Load(), "CloseStreams runs once, when the shutdown begins")
	assert.Equal(t, int32(1), streams.close.Load(), "Close runs once, after the requests had their grace period")
}

// TestRunReturnsServeErrors returns the error of a listener that fails,
// without waiting for a signal.
func TestRunReturnsServeErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln.Close() // Serve fails at its first Accept
	done := make(chan error, 1)
	go func() { done <- Flags{}.Run(ln, http.NewServeMux(), "test", &recorder{}) }()
	select {
	case err := <-done:
		assert.Error(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return when its listener failed")
	}
}
