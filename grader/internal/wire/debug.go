package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// Vars reads the server's expvar page, /debug/vars beside the MCP endpoint,
// which a course server serves when it runs with -debug. It fails the check
// when the page cannot be read within T1.
func (h *HTTP) Vars() map[string]json.RawMessage {
	url := strings.TrimSuffix(h.URL, "/mcp") + "/debug/vars"
	ctx, cancel := context.WithTimeout(h.t.Context(), T1)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		h.t.Failf("building the request: %v", err)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Failf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var vars map[string]json.RawMessage
	if err == nil && resp.StatusCode == http.StatusOK {
		err = json.Unmarshal(body, &vars)
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		h.t.Failf("GET %s (the server runs with -debug) gave HTTP %d, not the expvar JSON: %v", url, resp.StatusCode, err)
	}
	return vars
}

// VarInt reads one integer from the server's expvar page.
func (h *HTTP) VarInt(name string) int64 {
	raw, ok := h.Vars()[name]
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if !ok || err != nil {
		h.t.Failf("the server's /debug/vars has no integer %q (got %s); the given cmd/server publishes it with -debug", name, raw)
	}
	return n
}

// OpenFiles counts the server's open file descriptors, sockets included,
// from /proc/PID/fd. It reports false where there is no /proc (not Linux).
func (h *HTTP) OpenFiles() (int, bool) {
	if h.Proc == nil {
		return 0, false // an external server: not the grader's child
	}
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", h.Proc.PID()))
	if err != nil {
		return 0, false
	}
	return len(entries), true
}

// CloseIdleConnections closes the connections the grader keeps for reuse,
// so that a count of the server's sockets sees only those a check holds
// open and those the server failed to let go of.
func (h *HTTP) CloseIdleConnections() { h.client.CloseIdleConnections() }
