package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The official TypeScript SDK client (@modelcontextprotocol/sdk, pinned in
// tsclient/package.json) runs tsclient/drive.mjs on the machine's Node.js.
// The script does the talking and reports what reached its transport; the
// tests here judge it.

const (
	// tsRunTimeout bounds one run of the client, process group and all.
	// The script has a deadline of its own (tsScriptDeadline), so that a
	// hang still yields a report.
	tsRunTimeout     = 40 * time.Second
	tsScriptDeadline = 30 * time.Second

	// echoText must come back from echo untouched: non-ASCII text and a
	// newline inside a JSON string.
	echoText = "héllo ✓ 😀\nsecond line"

	// tsMaxRetries is the SDK's default for reconnecting a stream whose GET
	// failed (reconnectionOptions.maxRetries in 1.32.2).
	tsMaxRetries = 2
)

// countdownSpec is the countdown a scenario runs.
type countdownSpec struct {
	From       int `json:"from"`
	IntervalMS int `json:"intervalMs"`
}

// tsConfig is the script's input (see drive.mjs).
type tsConfig struct {
	Transport  string         `json:"transport"` // "stdio", "http" or "websocket"
	Command    string         `json:"command,omitempty"`
	URL        string         `json:"url,omitempty"`
	Origin     string         `json:"origin,omitempty"` // an Origin header to send, as a web page would
	Scenario   string         `json:"scenario"`
	Echo       string         `json:"echo,omitempty"`
	Countdown  *countdownSpec `json:"countdown,omitempty"`
	WatchMS    int            `json:"watchMs,omitempty"`
	DeadlineMS int            `json:"deadlineMs"`
}

// tsReport is the script's output.
type tsReport struct {
	Steps []struct {
		Name  string          `json:"name"`
		OK    bool            `json:"ok"`
		MS    int             `json:"ms"`
		Value json.RawMessage `json:"value"`
		Error string          `json:"error"`
	} `json:"steps"`
	Wire []struct {
		Seq     int     `json:"seq"`
		T       int     `json:"t"`
		Dir     string  `json:"dir"`
		Message wireMsg `json:"message"`
	} `json:"wire"`
	HTTP []struct {
		Seq             int    `json:"seq"`
		T               int    `json:"t"`
		Method          string `json:"method"`
		RPC             string `json:"rpc"`
		SessionID       string `json:"sessionId"`
		LastEventID     string `json:"lastEventId"`
		ProtocolVersion string `json:"protocolVersion"`
		Origin          string `json:"origin"`
		Status          int    `json:"status"`
		ContentType     string `json:"contentType"`
		AllowOrigin     string `json:"allowOrigin"` // Access-Control-Allow-Origin
		Error           string `json:"error"`
	} `json:"http"`
	TransportErrors []struct {
		T     int    `json:"t"`
		Error string `json:"error"`
	} `json:"transportErrors"`
	ProgressCallback []float64 `json:"progressCallback"`
	Close            *struct {
		DeleteSent bool    `json:"deleteSent"`
		MS         int     `json:"ms"`
		ExitCode   *int    `json:"exitCode"`
		Signal     *string `json:"signal"`
	} `json:"close"`

	raw string // the whole report, for failure messages
}

// wireMsg is a JSON-RPC message as the transport saw it.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// step returns the outcome of the named step, failing the test if the
// step did not run or failed.
func (r *tsReport) step(t *testing.T, name string) json.RawMessage {
	t.Helper()
	for _, s := range r.Steps {
		if s.Name == name {
			require.True(t, s.OK, "step %q failed: %s", name, s.Error)
			return s.Value
		}
	}
	require.Failf(t, "step missing", "the client never ran step %q; steps: %+v", name, r.Steps)
	return nil
}

// tsClient is the client's script and the Node.js it runs on. A test finds
// it first of all, before it starts a server, so that a test that cannot
// run skips with nothing to stop.
type tsClient struct{ node, script string }

// findTSClient finds the client, to run on the machine's Node.js.
func findTSClient(t *testing.T) tsClient {
	t.Helper()
	return findTSClientOn(t, machineNode(t))
}

// findTSClientOn22 finds the client, to run on the Node.js 22 installed in
// interop/conformance.
func findTSClientOn22(t *testing.T) tsClient {
	t.Helper()
	return findTSClientOn(t, node22(t))
}

func findTSClientOn(t *testing.T, node string) tsClient {
	t.Helper()
	script := npmFile(t, "tsclient", "drive.mjs")
	npmFile(t, "tsclient", "node_modules/@modelcontextprotocol/sdk/package.json")
	return tsClient{node: node, script: script}
}

// run runs the script with cfg and returns its report. A run that fails on
// its own account (an error of the SDK's, a timeout) still has a report,
// and the failed step says why.
func (c tsClient) run(t *testing.T, cfg tsConfig) *tsReport {
	t.Helper()
	node, script := c.node, c.script
	cfg.DeadlineMS = int(tsScriptDeadline.Milliseconds())
	arg, err := json.Marshal(cfg)
	require.NoError(t, err)

	cmd := exec.Command(node, script, string(arg))
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	logOnFailure(t, "TypeScript client (and a stdio server's)", stderr)
	runErr := runBounded(t, cmd, tsRunTimeout)

	var r tsReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("the client printed no report (%v; exit: %v):\n%s", err, runErr, stdout.String())
	}
	r.raw = stdout.String()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("TypeScript client report:\n%s", r.raw)
		}
	})
	for _, s := range r.Steps {
		require.True(t, s.OK, "the TypeScript client failed at step %q: %s", s.Name, s.Error)
	}
	require.NoError(t, runErr, "the TypeScript client")
	return &r
}

// TestTSClient drives every stage's server with the official TypeScript
// SDK client: a whole session over stdio, and over Streamable HTTP stateful
// and stateless; on HTTP, what the client does after an error on an SSE
// stream; from stage 03 on, its resumption of a stream cut mid-way; from
// stage 04 on, a whole session over the WebSocket at /ws, and web origins
// the server allows and refuses.
func TestTSClient(t *testing.T) {
	eachStage(t, allStages, func(t *testing.T, s stage) {
		if !s.http {
			testTSClientStdio(t, s)
			return
		}
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				client := findTSClient(t)
				endpoint := startStage(t, s, m.stateless)
				r := client.run(t, tsConfig{
					Transport: "http",
					URL:       endpoint,
					Scenario:  "session",
					Echo:      echoText,
					Countdown: &countdownSpec{From: 3, IntervalMS: 20},
				})
				checkTSSession(t, r)
				checkTSHTTP(t, s, r, m.stateless)
			})
		}
		t.Run("tool-error", func(t *testing.T) { testTSToolError(t, s) })
		if s.resumable {
			t.Run("resume", func(t *testing.T) { testTSResume(t, s) })
		}
		if s.guarded {
			t.Run("websocket", func(t *testing.T) { testTSWebSocket(t, s) })
			t.Run("origin", func(t *testing.T) { testTSOrigin(t, s) })
		}
	})
}

func testTSClientStdio(t *testing.T, s stage) {
	client := findTSClient(t)
	r := client.run(t, tsConfig{
		Transport: "stdio",
		Command:   buildServer(t, s.pkg()),
		Scenario:  "session",
		Echo:      echoText,
		Countdown: &countdownSpec{From: 3, IntervalMS: 20},
	})
	checkTSSession(t, r)

	// StdioClientTransport.close ends the server's stdin, gives it 2 s to
	// exit, then sends SIGTERM. The server must have left on end of input
	// by itself: status 0, no signal.
	require.NotNil(t, r.Close)
	require.NotNil(t, r.Close.ExitCode, "the server was killed by signal %v, not ended by end of input", r.Close.Signal)
	assert.Equal(t, 0, *r.Close.ExitCode, "the server's exit status")
	assert.Less(t, r.Close.MS, 2000, "close took %d ms: the server did not exit on end of input", r.Close.MS)
}

// checkTSSession checks the answers of a "session" run.
func checkTSSession(t *testing.T, r *tsReport) {
	t.Helper()
	var connect struct {
		Server struct{ Name, Version string }
	}
	require.NoError(t, json.Unmarshal(r.step(t, "connect"), &connect))
	assert.Equal(t, "mcp-course-notes", connect.Server.Name, "serverInfo.name")
	assert.NotEmpty(t, connect.Server.Version, "serverInfo.version")
	// The SDK's newest revision is 2025-11-25, which the server speaks.
	init := r.response(t, "initialize")
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	require.NoError(t, json.Unmarshal(init.Result, &res))
	assert.Equal(t, "2025-11-25", res.ProtocolVersion, "negotiated version")

	assert.JSONEq(t, `{}`, string(r.step(t, "ping")), "ping answers an empty result")
	var tools []string
	require.NoError(t, json.Unmarshal(r.step(t, "tools/list"), &tools))
	assert.ElementsMatch(t, notesTools, tools)
	var echoed string
	require.NoError(t, json.Unmarshal(r.step(t, "echo"), &echoed))
	assert.Equal(t, echoText, echoed, "echo")
	var liftoff string
	require.NoError(t, json.Unmarshal(r.step(t, "countdown"), &liftoff))
	assert.Equal(t, "Liftoff! Counted down from 3.", liftoff)
	checkTSProgress(t, r, 3)
	r.step(t, "close")
	assert.Empty(t, r.TransportErrors, "the transport reported errors")
}

// request returns the id of the client's request for method (the last one,
// if it sent several).
func (r *tsReport) request(t *testing.T, method string) string {
	t.Helper()
	id := ""
	for _, w := range r.Wire {
		if w.Dir == "out" && w.Message.Method == method && len(w.Message.ID) > 0 {
			id = string(w.Message.ID)
		}
	}
	require.NotEmpty(t, id, "the client sent no %s request", method)
	return id
}

// response returns the response to the client's request for method.
func (r *tsReport) response(t *testing.T, method string) wireMsg {
	t.Helper()
	id := r.request(t, method)
	for _, w := range r.Wire {
		if w.Dir == "in" && w.Message.Method == "" && string(w.Message.ID) == id {
			return w.Message
		}
	}
	require.Failf(t, "no response", "no response to %s (id %s) reached the transport", method, id)
	return wireMsg{}
}

// checkTSProgress checks the progress of the countdown (the last tools/call)
// as it reached the transport: steps 1..n, each exactly once, in order,
// all before the response.
//
// It judges the transport, not the SDK's onprogress callback, because
// 1.32.2 can drop the last notification when it arrives in the same read
// as the response (typescript-sdk #2580): the protocol layer resolves the
// request, and forgets its progress handler, before the queued notification
// reaches it. The callback is checked too, allowing exactly that.
func checkTSProgress(t *testing.T, r *tsReport, n int) {
	t.Helper()
	token := r.request(t, "tools/call") // the SDK uses the request id as the token
	var steps []float64
	response := -1
	for _, w := range r.Wire {
		switch {
		case w.Dir != "in":
		case w.Message.Method == "notifications/progress":
			var p struct {
				ProgressToken json.RawMessage `json:"progressToken"`
				Progress      float64         `json:"progress"`
				Total         float64         `json:"total"`
			}
			require.NoError(t, json.Unmarshal(w.Message.Params, &p))
			if string(p.ProgressToken) != token {
				continue
			}
			assert.Equal(t, -1, response, "progress %v arrived after the response", p.Progress)
			assert.Equal(t, float64(n), p.Total, "total")
			steps = append(steps, p.Progress)
		case w.Message.Method == "" && string(w.Message.ID) == token:
			response = w.Seq
		}
	}
	require.NotEqual(t, -1, response, "the countdown's response never reached the transport")
	want := make([]float64, n)
	for i := range want {
		want[i] = float64(i + 1)
	}
	assert.Equal(t, want, steps, "progress at the transport: every step once, strictly increasing")

	cb := r.ProgressCallback
	switch {
	case len(cb) == n-1 && assert.ObjectsAreEqual(want[:n-1], cb):
		t.Logf("known SDK quirk (typescript-sdk #2580): onprogress missed the last notification, which reached the transport: %v", cb)
	default:
		assert.Equal(t, want, cb, "progress handed to onprogress")
	}
}

// checkTSHTTP checks the HTTP requests of a "session" run.
func checkTSHTTP(t *testing.T, s stage, r *tsReport, stateless bool) {
	t.Helper()
	require.NotEmpty(t, r.HTTP)
	// The session id the server issued on initialize, as the client sent it
	// back; none in stateless mode.
	var sessionID string
	if !stateless {
		var connect struct {
			SessionID string `json:"sessionId"`
		}
		require.NoError(t, json.Unmarshal(r.step(t, "connect"), &connect))
		sessionID = connect.SessionID
		require.NotEmpty(t, sessionID, "a stateful server issues a session id")
	}
	var gets, deletes int
	for _, h := range r.HTTP {
		label := fmt.Sprintf("%s %s", h.Method, h.RPC)
		assert.Empty(t, h.Error, "%s failed", label)
		if h.RPC == "initialize" {
			assert.Equal(t, http.StatusOK, h.Status, label)
			continue
		}
		assert.Equal(t, sessionID, h.SessionID, "Mcp-Session-Id of %s", label)
		assert.Equal(t, "2025-11-25", h.ProtocolVersion, "MCP-Protocol-Version of %s", label)
		switch h.Method {
		case http.MethodGet:
			gets++
			// The SDK opens the standalone stream after initialized.
			if s.resumable && !stateless {
				assert.Equal(t, http.StatusOK, h.Status, "standalone GET")
				assert.Equal(t, "text/event-stream", h.ContentType, "standalone GET")
			} else {
				assert.Equal(t, http.StatusMethodNotAllowed, h.Status, "standalone GET: this stage or mode has none")
			}
		case http.MethodDelete:
			deletes++
			assert.Equal(t, http.StatusNoContent, h.Status, "DELETE of a live session")
		case http.MethodPost:
			if h.RPC == "notifications/initialized" {
				assert.Equal(t, http.StatusAccepted, h.Status, label)
			} else {
				assert.Equal(t, http.StatusOK, h.Status, label)
			}
		}
	}
	// One standalone GET: more would mean the SDK had to reconnect it.
	assert.Equal(t, 1, gets, "GET requests")
	if stateless {
		assert.Zero(t, deletes, "no DELETE without a session")
	} else {
		assert.Equal(t, 1, deletes, "close sends one DELETE")
	}
}

// testTSToolError makes the server answer a request on an SSE stream with a
// JSON-RPC error, then watches the SDK for a while. 1.32.2 takes only a
// result as the end of a request's stream: after an error on a stream that
// had an event id (a priming event, from 2025-11-25), it tries to resume
// the stream with a GET and Last-Event-ID, and it retries a GET stream that
// the server ends with no limit. Whatever the server answers must stop
// that: the SDK must neither loop nor hang.
func testTSToolError(t *testing.T, s stage) {
	client := findTSClient(t)
	endpoint := startStage(t, s, false)
	const watch = 3 * time.Second
	r := client.run(t, tsConfig{Transport: "http", URL: endpoint, Scenario: "tool-error", WatchMS: int(watch.Milliseconds())})

	var outcome struct {
		Rejected bool `json:"rejected"`
		Code     int  `json:"code"`
	}
	require.NoError(t, json.Unmarshal(r.step(t, "unknown tool"), &outcome))
	assert.True(t, outcome.Rejected, "calling an unknown tool must fail")
	assert.Equal(t, -32602, outcome.Code, "an unknown tool is invalid params (server/tools, \"Error Handling\")")
	r.step(t, "close")

	// Every resumption attempt is a GET with Last-Event-ID. A bounded number
	// is the SDK giving up; more, within the watch, is a loop.
	var resumes []string
	for _, h := range r.HTTP {
		if h.Method == http.MethodGet && h.LastEventID != "" {
			resumes = append(resumes, fmt.Sprintf("t=%dms Last-Event-ID %s -> %d %s", h.T, h.LastEventID, h.Status, h.ContentType))
		}
	}
	t.Logf("resumption attempts after the error: %d\n%s", len(resumes), strings.Join(resumes, "\n"))
	assert.LessOrEqual(t, len(resumes), 1+tsMaxRetries,
		"the client kept resuming a stream whose request had ended with an error: the server's answer lets 1.32.2 loop")
}

// testTSResume cuts the POST stream of a countdown mid-way, with a proxy
// between client and server. The SDK must resume the stream on its own,
// with GET and Last-Event-ID, and get the rest: every progress step exactly
// once, then the result.
func testTSResume(t *testing.T, s stage) {
	client := findTSClient(t)
	endpoint := startStage(t, s, false)
	const from, cutAfter = 10, 3
	proxy := startCutProxy(t, endpoint, cutAfter)
	r := client.run(t, tsConfig{
		Transport: "http",
		URL:       proxy.endpoint,
		Scenario:  "resume",
		Countdown: &countdownSpec{From: from, IntervalMS: 150},
	})
	require.True(t, proxy.cut(), "the proxy never cut the countdown's stream")

	var liftoff string
	require.NoError(t, json.Unmarshal(r.step(t, "countdown"), &liftoff))
	assert.Equal(t, fmt.Sprintf("Liftoff! Counted down from %d.", from), liftoff)
	checkTSProgress(t, r, from)

	var resumes int
	for _, h := range r.HTTP {
		if h.Method == http.MethodGet && h.LastEventID != "" {
			resumes++
			t.Logf("the proxy cut the stream after %d progress events; the client resumed at t=%dms with Last-Event-ID %s",
				cutAfter, h.T, h.LastEventID)
			assert.Equal(t, http.StatusOK, h.Status, "the resuming GET (Last-Event-ID %s)", h.LastEventID)
			assert.Equal(t, "text/event-stream", h.ContentType, "the resuming GET")
		}
	}
	assert.Equal(t, 1, resumes, "the client resumes the cut stream once")
	r.step(t, "close")
}

// webSocketURL returns the URL of the WebSocket entry point of the server
// whose MCP endpoint is endpoint: ws://HOST/ws beside http://HOST/mcp.
func webSocketURL(t *testing.T, endpoint string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	require.NoError(t, err)
	u.Scheme, u.Path = "ws", "/ws"
	return u.String()
}

// testTSWebSocket drives the WebSocket at /ws with the SDK's
// WebSocketClientTransport: a whole session, one JSON-RPC message per text
// frame, under the subprotocol "mcp" that the transport asks for and
// without which it gives up. WebSocket is no standard MCP transport; this
// is the one MCP WebSocket client an official SDK ships. It runs on
// Node.js 22: the transport needs the global WebSocket, which Node.js 20
// has only behind a flag.
func testTSWebSocket(t *testing.T, s stage) {
	client := findTSClientOn22(t)
	endpoint := startStage(t, s, false)
	r := client.run(t, tsConfig{
		Transport: "websocket",
		URL:       webSocketURL(t, endpoint),
		Scenario:  "session",
		Echo:      echoText,
		Countdown: &countdownSpec{From: 3, IntervalMS: 20},
	})
	checkTSSession(t, r)
	assert.Empty(t, r.HTTP, "a WebSocket session makes no HTTP requests of its own")
	require.NotNil(t, r.Close)
	assert.False(t, r.Close.DeleteSent, "a WebSocket session ends with its connection, not with a DELETE")
}

// Origins for testTSOrigin, against a server started with
// -allow-origin 'https://*.example.com'.
const (
	allowedOrigin = "https://app.example.com"
	// A look-alike: its host begins with an allowed one, and is not below
	// example.com.
	refusedOrigin = "https://app.example.com.evil.test"
)

// testTSOrigin sends the SDK client's requests with an Origin header, as a
// web page's would carry, to a server that allows https://*.example.com:
// an allowed origin gets a whole session, over HTTP and over the
// WebSocket; a refused one gets 403 on its first request, and the client
// gives up.
func testTSOrigin(t *testing.T, s stage) {
	// The HTTP cases run on the machine's Node.js: without it, nothing here
	// can run. The WebSocket cases need the Node.js 22 too, and skip on
	// their own without it.
	client := findTSClient(t)
	endpoint := startHTTPServer(t, buildServer(t, s.pkg()), false, "-allow-origin", "https://*.example.com")

	t.Run("http-allowed", func(t *testing.T) {
		r := client.run(t, tsConfig{
			Transport: "http",
			URL:       endpoint,
			Origin:    allowedOrigin,
			Scenario:  "session",
			Echo:      echoText,
			Countdown: &countdownSpec{From: 3, IntervalMS: 20},
		})
		checkTSSession(t, r)
		checkTSHTTP(t, s, r, false)
		// The server echoes an Origin it allows in its CORS grant, which
		// shows that the header reached it on every request.
		for _, h := range r.HTTP {
			assert.Equal(t, allowedOrigin, h.Origin, "Origin sent with %s %s", h.Method, h.RPC)
			assert.Equal(t, allowedOrigin, h.AllowOrigin, "Access-Control-Allow-Origin of %s %s", h.Method, h.RPC)
		}
	})

	t.Run("http-refused", func(t *testing.T) {
		r := client.run(t, tsConfig{Transport: "http", URL: endpoint, Origin: refusedOrigin, Scenario: "refused"})
		outcome := checkTSRefused(t, r)
		assert.Equal(t, http.StatusForbidden, outcome.Code, "the SDK's error for the refused initialize: %s", outcome.Message)
		require.Len(t, r.HTTP, 1, "the client gives up after its first request is refused")
		h := r.HTTP[0]
		assert.Equal(t, "POST initialize", h.Method+" "+h.RPC)
		assert.Equal(t, refusedOrigin, h.Origin, "Origin sent")
		assert.Equal(t, http.StatusForbidden, h.Status, "a present Origin the allowlist does not name (basic/transports, \"Security Warning\")")
		assert.Empty(t, h.AllowOrigin, "no CORS grant for a refused origin")
	})

	ws := webSocketURL(t, endpoint)
	t.Run("websocket-allowed", func(t *testing.T) {
		r := findTSClientOn22(t).run(t, tsConfig{
			Transport: "websocket",
			URL:       ws,
			Origin:    allowedOrigin,
			Scenario:  "session",
			Echo:      echoText,
			Countdown: &countdownSpec{From: 3, IntervalMS: 20},
		})
		checkTSSession(t, r)
	})

	t.Run("websocket-refused", func(t *testing.T) {
		// A browser's WebSocket, like Node's, does not tell a page the
		// status of a failed handshake (the server answers 403, which the
		// grader and the unit tests check): the client only learns that
		// the connection failed.
		r := findTSClientOn22(t).run(t, tsConfig{Transport: "websocket", URL: ws, Origin: refusedOrigin, Scenario: "refused"})
		outcome := checkTSRefused(t, r)
		t.Logf("the SDK's error for the refused handshake: %s", outcome.Message)
	})
}

// tsRefusal is how a "refused" run's connect failed.
type tsRefusal struct {
	Refused bool   `json:"refused"`
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// checkTSRefused checks that a "refused" run's connect failed, and that
// nothing of the server's reached the client's transport.
func checkTSRefused(t *testing.T, r *tsReport) tsRefusal {
	t.Helper()
	var outcome tsRefusal
	require.NoError(t, json.Unmarshal(r.step(t, "connect refused"), &outcome))
	require.True(t, outcome.Refused, "the server let the client in")
	for _, w := range r.Wire {
		assert.NotEqual(t, "in", w.Dir, "a message reached the refused client: %+v", w.Message)
	}
	return outcome
}
