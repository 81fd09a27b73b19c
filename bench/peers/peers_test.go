// Package peers_test drives every peer server through the whole tool
// contract (bench/peers/contract), over stdio and Streamable HTTP, stateful
// and stateless: the benchmark measures echo alone, and the compatibility
// table relies on the rest.
package peers_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/bench/load"
)

// peers returns the command of every peer, building the Go ones.
func peers(t *testing.T) map[string][]string {
	dir := t.TempDir()
	out := map[string][]string{}
	for _, name := range []string{"gosdk-server", "mcpgo-server"} {
		bin := filepath.Join(dir, name)
		b, err := exec.Command("go", "build", "-o", bin, "./cmd/"+name).CombinedOutput()
		require.NoError(t, err, "%s", b)
		out[name] = []string{bin}
	}
	if _, err := os.Stat("ts/node_modules/@modelcontextprotocol/sdk"); err == nil {
		out["ts"] = []string{"node", "ts/server.mjs"}
	} else if os.Getenv("BENCH_REQUIRE_NPM") == "1" {
		t.Fatal("the TypeScript peer is not installed: npm ci --prefix bench/peers/ts")
	} else {
		t.Log("skipping the TypeScript peer: npm ci --prefix bench/peers/ts installs it")
	}
	return out
}

// message is a JSON-RPC message as the test reads it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool              `json:"isError"`
		Tools   []json.RawMessage `json:"tools"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (m message) text() string {
	if len(m.Result.Content) == 0 {
		return ""
	}
	return m.Result.Content[0].Text
}

// A conn sends one request and returns every message that answered it:
// notifications, then the response.
type conn func(t *testing.T, id int, method, params string) []message

func call(id int, method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

const initParams = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peers-test","version":"1"}}`

// exercise runs the contract on c; notes says whether the session keeps
// notes between requests (not in stateless mode). lossy allows progress
// notifications to arrive after the response, or never, as with mcp-go:
// it queues notifications for a goroutine of their own, which over stdio
// can write the last one after the response, and over HTTP can take it
// from the queue and drop it when the response is written first
// (server/streamable_http.go, handlePost).
func exercise(t *testing.T, c conn, notes, lossy bool) {
	last := func(msgs []message) message {
		require.NotEmpty(t, msgs)
		return msgs[len(msgs)-1]
	}
	list := last(c(t, 2, "tools/list", ""))
	var names []string
	for _, raw := range list.Result.Tools {
		var tool struct{ Name string }
		json.Unmarshal(raw, &tool)
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, []string{"echo", "add_note", "list_notes", "countdown"}, names)

	echo := last(c(t, 3, "tools/call", `{"name":"echo","arguments":{"text":"héllo\nworld"}}`))
	assert.Equal(t, "héllo\nworld", echo.text())
	bad := last(c(t, 4, "tools/call", `{"name":"echo","arguments":{}}`))
	assert.True(t, bad.Result.IsError || bad.Error != nil, "echo without text is an error")

	if notes {
		assert.Equal(t, "Saved note 1.", last(c(t, 5, "tools/call", `{"name":"add_note","arguments":{"text":"milk"}}`)).text())
		assert.Equal(t, "Saved note 2.", last(c(t, 6, "tools/call", `{"name":"add_note","arguments":{"text":"eggs"}}`)).text())
		assert.Equal(t, "1. milk\n2. eggs", last(c(t, 7, "tools/call", `{"name":"list_notes","arguments":{}}`)).text())
	}

	msgs := c(t, 8, "tools/call", `{"name":"countdown","arguments":{"from":3,"interval_ms":5},"_meta":{"progressToken":"cd"}}`)
	assert.Equal(t, "Liftoff! Counted down from 3.", last(msgs).text())
	var progress []float64
	for _, m := range msgs[:len(msgs)-1] {
		if m.Method == "notifications/progress" {
			var p struct{ Progress float64 }
			json.Unmarshal(m.Params, &p)
			progress = append(progress, p.Progress)
		}
	}
	if lossy && len(progress) < 3 {
		t.Logf("%d of 3 progress notifications arrived before the result (a known behaviour of this SDK)", len(progress))
		assert.Subset(t, []float64{1, 2, 3}, progress)
		assert.IsIncreasing(t, progress)
		return
	}
	assert.Equal(t, []float64{1, 2, 3}, progress, "one progress notification per step, before the result")
}

func TestPeersStdio(t *testing.T) {
	for name, argv := range peers(t) {
		t.Run(name, func(t *testing.T) {
			srv, err := load.Start(name, load.StartOptions{Argv: argv, Stdio: true, CPU: -1})
			require.NoError(t, err)
			defer srv.Stop()
			lines := make(chan message, 64)
			go func() {
				sc := bufio.NewScanner(srv.Stdout)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					var m message
					if json.Unmarshal(sc.Bytes(), &m) == nil {
						lines <- m
					}
				}
				close(lines)
			}()
			c := func(t *testing.T, id int, method, params string) []message {
				_, err := io.WriteString(srv.Stdin, call(id, method, params)+"\n")
				require.NoError(t, err)
				var got []message
				for {
					select {
					case m, ok := <-lines:
						require.True(t, ok, "the server closed stdout: %s", srv.Stderr())
						got = append(got, m)
						if string(m.ID) == fmt.Sprint(id) && m.Method == "" {
							return got
						}
					case <-time.After(5 * time.Second):
						t.Fatalf("no answer to %s within 5s", method)
					}
				}
			}
			c(t, 1, "initialize", initParams)
			io.WriteString(srv.Stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			exercise(t, c, true, name == "mcpgo-server")
		})
	}
}

func TestPeersHTTP(t *testing.T) {
	for name, argv := range peers(t) {
		for _, stateless := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stateless=%v", name, stateless), func(t *testing.T) {
				args := append(append([]string(nil), argv...), "-http", "127.0.0.1:0")
				if stateless {
					args = append(args, "-stateless")
				}
				srv, err := load.Start(name, load.StartOptions{Argv: args, CPU: -1})
				require.NoError(t, err)
				defer srv.Stop()
				client := &http.Client{Timeout: 5 * time.Second}
				session := ""
				post := func(body string) (*http.Response, []byte) {
					req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
					if session != "" {
						req.Header.Set("Mcp-Session-Id", session)
					}
					resp, err := client.Do(req)
					require.NoError(t, err)
					defer resp.Body.Close()
					b, err := io.ReadAll(resp.Body)
					require.NoError(t, err)
					return resp, b
				}
				c := func(t *testing.T, id int, method, params string) []message {
					resp, body := post(call(id, method, params))
					require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
					var msgs []message
					if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
						for _, line := range bytes.Split(body, []byte("\n")) {
							if data, ok := bytes.CutPrefix(line, []byte("data:")); ok && len(bytes.TrimSpace(data)) > 0 {
								var m message
								require.NoError(t, json.Unmarshal(data, &m), "%s", data)
								msgs = append(msgs, m)
							}
						}
					} else {
						var m message
						require.NoError(t, json.Unmarshal(body, &m), "%s", body)
						msgs = append(msgs, m)
					}
					return msgs
				}
				resp, body := post(call(1, "initialize", initParams))
				require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
				session = resp.Header.Get("Mcp-Session-Id")
				assert.Equal(t, stateless, session == "", "a session id in stateful mode only")
				resp, _ = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				assert.Equal(t, http.StatusAccepted, resp.StatusCode)
				exercise(t, c, !stateless, name == "mcpgo-server")
			})
		}
	}
}
