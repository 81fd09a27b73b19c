package netns

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newNS(t *testing.T) *NS {
	t.Helper()
	n, err := New(context.Background())
	if errors.Is(err, ErrUnavailable) {
		t.Skip(err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	return n
}

func TestAServerInTheNamespaceIsReachableOnlyFromIt(t *testing.T) {
	n := newNS(t)
	for _, addr := range []string{IPv4.String(), IPv6.String()} {
		var ln net.Listener
		var err error
		require.NoError(t, n.Do(func() { ln, err = net.Listen("tcp", net.JoinHostPort(addr, "0")) }))
		require.NoError(t, err, "listening on %s in %s (%s)", addr, n.Name, n.Interface())
		srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, r.Context().Value(http.LocalAddrContextKey))
		})}
		go srv.Serve(ln)
		defer srv.Close()

		resp, err := n.Client(2 * time.Second).Get("http://" + ln.Addr().String() + "/")
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, ln.Addr().String(), string(body))

		// From the grader's own namespace the address does not exist.
		c := &http.Client{Timeout: 500 * time.Millisecond}
		if resp, err := c.Get("http://" + ln.Addr().String() + "/"); err == nil {
			resp.Body.Close()
			t.Fatalf("%s answered from outside its namespace", ln.Addr())
		}
	}
}

func TestCommandRunsAProgramInTheNamespace(t *testing.T) {
	n := newNS(t)
	name, args := n.Command("ip", "-4", "-o", "addr", "show")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), IPv4.String())
}

func TestCloseRemovesTheNamespace(t *testing.T) {
	n := newNS(t)
	require.NoError(t, n.Close())
	assert.Error(t, n.Do(func() {}), "the namespace is gone")
}

// TestScriptMakesSuchANamespace runs the commands a failure report gives
// (without sudo: the test runs as root, or is skipped) and finds the
// addresses New gives.
func TestScriptMakesSuchANamespace(t *testing.T) {
	n := newNS(t) // root and ip are here; the script makes a namespace of its own
	name := n.Name + "s"
	t.Cleanup(func() { exec.Command("ip", "netns", "delete", name).Run() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, line := range strings.Split(Script(name), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		words := strings.Fields(strings.TrimPrefix(line, "sudo "))
		out, err := exec.CommandContext(ctx, words[0], words[1:]...).CombinedOutput()
		if err != nil && strings.Contains(string(out), "Unknown device type") {
			t.Skipf("this kernel has no dummy interfaces (New falls back to veth; the script does not): %s", out)
		}
		require.NoError(t, err, "%s: %s", line, out)
	}
	out, err := exec.CommandContext(ctx, "ip", "-n", name, "addr", "show").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), IPv4.String())
	assert.Contains(t, string(out), IPv6.String())
	assert.Contains(t, Script(name), "ip netns delete "+name)
}
