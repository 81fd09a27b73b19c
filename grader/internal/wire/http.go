package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/netns"
	"mcpcourse/grader/internal/proc"
)

// maxBody caps how much of one HTTP response body the grader keeps.
const maxBody = 16 << 20

// HTTP is a conversation with a Streamable HTTP server the grader started.
type HTTP struct {
	t      *check.T
	Proc   *proc.Process
	URL    string // the MCP endpoint, such as http://127.0.0.1:40123/mcp
	args   []string
	client *http.Client
	dial   func(ctx context.Context, network, addr string) (net.Conn, error) // how connections are made; nil: the grader's own network
	ns     *netns.NS                                                         // the network namespace the server runs in, or nil

	mu       sync.Mutex
	requests []curl // every request, as a command for the repro
}

// curl is one request as a curl command, and the session id its response
// issued, if any.
type curl struct {
	cmd    string
	issued string
}

// listening is the line a course server prints to stderr once it listens.
var listening = regexp.MustCompile(`listening on (http://\S+)`)

// StartHTTP starts the target as an HTTP server on a free loopback port,
// with extra command-line args (such as "-stateless"), and waits until it
// says where it listens. The server is killed when the check ends.
//
// When the target is an external server at a URL, StartHTTP starts nothing:
// it returns a conversation with that server. The args must then be ones
// the check declares in its Needs (and so ones the server is known to
// meet, or the check would have been skipped): an undeclared one is the
// grader's mistake, and fails the check saying so.
func StartHTTP(t *check.T, args ...string) *HTTP {
	if t.Target.URL != "" {
		return connectHTTP(t, args)
	}
	return startHTTP(t, nil, "127.0.0.1:0", args)
}

// StartHTTPIn is StartHTTP for a server that runs in the network
// namespace ns and listens on addr, one of ns's addresses with port 0
// (such as 10.213.0.1:0): an address that is not loopback, which the
// server and the check's requests reach inside ns only. The check must
// declare the args in its Needs as StartHTTP's; an external server cannot
// be moved into a namespace, so a check that calls this needs a restart.
func StartHTTPIn(t *check.T, ns *netns.NS, addr string, args ...string) *HTTP {
	if t.Target.URL != "" {
		t.Failf("grader bug: check %s runs the server in a network namespace, which a server at a URL cannot be: declare Needs.Restart", t.Check.ID)
	}
	return startHTTP(t, ns, addr, args)
}

// startHTTP starts the target with -addr addr and args, in ns when it is
// not nil.
func startHTTP(t *check.T, ns *netns.NS, addr string, args []string) *HTTP {
	all := append([]string{"-addr", addr}, args...)
	bin, argv := t.Target.Binary, all
	if ns != nil {
		bin, argv = ns.Command(bin, all...)
	}
	p, err := proc.Start(t.Context(), bin, argv...)
	if err != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("could not start %s: %v", t.Target.Package, err), Cause: check.CauseStart})
	}
	t.Cleanup(p.Kill)
	t.AttachStderr(p.Stderr)

	// The server prints its address once its socket is open; poll stderr
	// for it, but never for longer than T2, and stop early if it exits.
	deadline := time.NewTimer(T2)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var url string
	for url == "" {
		if m := listening.FindStringSubmatch(p.Stderr()); m != nil {
			url = m[1]
			break
		}
		select {
		case <-p.Done():
			t.Fail(check.Failure{What: fmt.Sprintf("the server exited (%s) before it said where it listens", p.Status()), Cause: check.CauseStart,
				Hint: `The grader runs your server with -addr ` + addr + ` and waits for "listening on http://ADDR/mcp" on stderr; the given main prints it.`})
		case <-deadline.C:
			t.Fail(check.Failure{What: fmt.Sprintf("the server did not print \"listening on http://…\" to stderr within %v", T2), Cause: check.CauseStart,
				Hint: "Keep the given main's log line: the grader reads the address from it."})
		case <-t.Context().Done():
			t.Failf("the check ran out of time")
		case <-tick.C:
		}
	}
	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	h := &HTTP{t: t, Proc: p, URL: url, args: args, client: &http.Client{Transport: transport}, ns: ns}
	if ns != nil {
		h.dial = ns.DialContext
		transport.DialContext = ns.DialContext // a connection made in ns stays in it
	}
	t.Cleanup(transport.CloseIdleConnections)
	t.SetRepro(h.repro)
	if ns != nil {
		t.Wire.Event("server listening at %s, in a network namespace of the grader's (%s)", url, ns.Name)
	} else {
		t.Wire.Event("server listening at %s", url)
	}
	return h
}

// connectHTTP is StartHTTP for a server at a URL, which someone else
// started.
func connectHTTP(t *check.T, args []string) *HTTP {
	if undeclared := undeclaredArgs(t, args); undeclared != "" {
		t.Failf("grader bug: check %s starts the server with %s, which its Needs do not declare, so it cannot be graded on an external server", t.Check.ID, undeclared)
	}
	if t.Count("server") > 1 {
		t.Failf("grader bug: check %s starts a second server, which its Needs do not declare (Restart)", t.Check.ID)
	}
	transport := &http.Transport{MaxIdleConnsPerHost: 64}
	h := &HTTP{t: t, URL: t.Target.URL, args: args, client: &http.Client{Transport: transport}}
	t.Cleanup(transport.CloseIdleConnections)
	t.SetRepro(h.repro)
	t.Wire.Event("the server at %s (external)", h.URL)
	return h
}

// undeclaredArgs returns the first of args that the running check's Needs
// do not account for, or "".
func undeclaredArgs(t *check.T, args []string) string {
	n := t.Check.Needs
	stateless := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-stateless":
			stateless = true
		case a == "-allow-origin":
			i++ // an allowlist the check relies on is in Needs.Allowlist; others only refuse foreign origins
		case strings.HasPrefix(a, "-") && !slices.Contains(n.Flags, a):
			return a
		case strings.HasPrefix(a, "-"):
			i++ // the flag's value
		}
	}
	switch {
	case stateless && n.Mode != check.Stateless:
		return "-stateless"
	case !stateless && n.Mode == check.Stateless:
		return "no -stateless"
	}
	return ""
}

// Req is one HTTP request to the MCP endpoint.
type Req struct {
	Method string      // POST when empty
	Header http.Header // sent as is
	Body   string
	// BodyReader, when set, is sent instead of Body, as it is read, with
	// no Content-Length (chunked): for bodies too large to hold, or whose
	// size the server must not learn in advance.
	BodyReader io.Reader
	Within     time.Duration // for the whole exchange, body included; T1 when zero
	Purpose    string        // what the request is for, in failure reports
	// Path, when set, is sent to instead of the endpoint's path, on the
	// same server (such as "/other", or "/mcp?x=1" with a query).
	Path string
}

// Response is a complete HTTP response: the grader always reads the body to
// its end, under the request's deadline.
type Response struct {
	Status      int
	Header      http.Header
	Body        []byte
	ContentType string  // media type without parameters
	Events      []Event // when the body is text/event-stream
}

// Headers returns the standard headers of a well-behaved client: Accept
// with both types, Content-Type for a body, and the session and version
// headers when given.
func Headers(session, version string) http.Header {
	h := http.Header{}
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Content-Type", "application/json")
	if session != "" {
		h.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		h.Set("Mcp-Protocol-Version", version)
	}
	return h
}

// Do sends req and reads the whole response. If the response does not end
// within the deadline, the check fails: a status code says how a response
// begins, not that it ends.
func (h *HTTP) Do(req Req) *Response {
	if req.Method == "" {
		req.Method = http.MethodPost
	}
	if req.Within == 0 {
		req.Within = T1
	}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	n := h.record(req)
	ctx, cancel := context.WithTimeout(h.t.Context(), req.Within)
	defer cancel()
	hr := h.newRequest(ctx, req)

	started := time.Now()
	resp, err := h.client.Do(hr)
	if err != nil {
		h.fail(req, err, nil, started)
	}
	defer resp.Body.Close()
	h.t.Wire.Received(fmt.Sprintf("HTTP %d %s", resp.StatusCode, headerSummary(resp.Header)))
	h.noteStatus(resp.StatusCode)
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		if len(body) > 0 {
			h.t.Wire.Received(string(body))
		}
		h.fail(req, err, resp, started)
	}
	if len(body) > 0 {
		h.t.Wire.Received(string(body))
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: body, ContentType: mediaType(resp.Header.Get("Content-Type"))}
	if out.ContentType == "text/event-stream" {
		out.Events = ParseSSE(body)
	}
	h.noteIssued(n, resp.Header.Get("Mcp-Session-Id"))
	return out
}

// newRequest builds the HTTP request for req.
func (h *HTTP) newRequest(ctx context.Context, req Req) *http.Request {
	var body io.Reader = strings.NewReader(req.Body)
	if req.BodyReader != nil {
		body = req.BodyReader
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, h.urlOf(req), body)
	if err != nil {
		h.t.Failf("building the request: %v", err)
	}
	hr.Header = req.Header.Clone()
	hr.Host = req.Header.Get("Host") // Go sends r.Host, never a Host in Header; "" keeps the URL's
	switch {
	case req.BodyReader != nil:
		hr.Body, hr.ContentLength = io.NopCloser(req.BodyReader), -1 // chunked
	case req.Body == "":
		hr.Body = http.NoBody
	}
	return hr
}

// urlOf is the URL req goes to: the endpoint, or req.Path on its server.
func (h *HTTP) urlOf(req Req) string {
	if req.Path == "" {
		return h.URL
	}
	u, err := url.Parse(h.URL)
	if err != nil {
		return h.URL
	}
	return u.Scheme + "://" + u.Host + req.Path
}

// noteStatus suspects an unwritten handler behind a 501 Not Implemented.
func (h *HTTP) noteStatus(status int) {
	if status == http.StatusNotImplemented {
		h.t.Suspect(check.CauseUnimplemented)
	}
}

// Abandon sends req and hangs up after the given time, whether or not an
// answer has begun, as a client that goes away does. It returns at once;
// the request runs on until then in the background.
func (h *HTTP) Abandon(req Req, after time.Duration) {
	if req.Method == "" {
		req.Method = http.MethodPost
	}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	h.record(req)
	ctx, cancel := context.WithTimeout(h.t.Context(), after)
	hr := h.newRequest(ctx, req)
	done := make(chan struct{})
	h.t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		defer cancel()
		resp, err := h.client.Do(hr)
		if err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
			resp.Body.Close()
		}
		h.t.Wire.Event("hung up %v after sending %s %s", after, req.Method, purposeOf(req))
	}()
}

// noteIssued remembers that the answer to request n issued a session id, so
// that the repro command can capture it in a shell variable.
func (h *HTTP) noteIssued(n int, id string) {
	if id == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests[n].issued = id
}

func (h *HTTP) fail(req Req, err error, resp *http.Response, started time.Time) {
	what := fmt.Sprintf("%s %s: %v", req.Method, purposeOf(req), err)
	hint := ""
	switch {
	case resp != nil && errors.Is(err, context.DeadlineExceeded):
		what = fmt.Sprintf("%s %s: the response began (HTTP %d, Content-Type %q) but its body did not end within %v",
			req.Method, purposeOf(req), resp.StatusCode, resp.Header.Get("Content-Type"), req.Within)
		hint = "A status code says how a response begins, not that it ends. Every response must finish: write the body and return from the handler. A handler that opens a stream and then waits holds the connection until something kills it."
	case errors.Is(err, context.DeadlineExceeded):
		what = fmt.Sprintf("%s %s: no response headers within %v", req.Method, purposeOf(req), req.Within)
		hint = "The handler neither answered nor returned. Answer at once, even when the answer is an error."
	case h.Proc != nil && h.Proc.Exited():
		what = fmt.Sprintf("%s %s: the server has exited (%s)", req.Method, purposeOf(req), h.Proc.Status())
		hint = "Your server stopped. Look at its stderr below for a panic or a fatal error."
	}
	h.t.Fail(check.Failure{What: what, Hint: hint})
}

func purposeOf(req Req) string {
	if req.Purpose != "" {
		return "(" + req.Purpose + ")"
	}
	return "/mcp"
}

// Post sends a JSON-RPC message body with the standard headers.
func (h *HTTP) Post(session, version, body, purpose string) *Response {
	return h.Do(Req{Header: Headers(session, version), Body: body, Purpose: purpose})
}

// Initialize runs the handshake at version: initialize, then
// notifications/initialized with the session id the server gave (if any).
// It returns that id ("" when the server gave none) and the initialize
// response. The check fails unless initialize succeeds.
func (h *HTTP) Initialize(version string) (string, *Response) {
	resp := h.Post("", "", Request(`1`, "initialize", InitializeParams(version)), "initialize")
	if resp.Status != http.StatusOK {
		h.t.Fail(check.Failure{What: fmt.Sprintf("initialize got HTTP %d", resp.Status), Got: check.Quote(string(resp.Body)),
			Want: "HTTP 200 with the InitializeResult", Cause: check.CauseInitialize})
	}
	if m := resp.Find(`1`); m == nil || m.Error != nil {
		h.t.Fail(check.Failure{What: "initialize did not succeed", Got: check.Quote(string(resp.Body)),
			Want: `a response with "id":1 and a "result"`, Cause: check.CauseInitialize})
	}
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" && h.Stateful() {
		h.t.Suspect(check.CauseSession)
	}
	h.Post(session, version, Notification("notifications/initialized", nil), "notifications/initialized")
	return session, resp
}

// Stateful reports whether the server was started with sessions (without
// -stateless), or, for an external server, whether it has them.
func (h *HTTP) Stateful() bool {
	if h.t.Target.URL != "" {
		return !h.t.Target.Stateless
	}
	for _, a := range h.args {
		if a == "-stateless" || a == "--stateless" {
			return false
		}
	}
	return true
}

// Messages returns the JSON-RPC messages a response carried: the JSON body
// (one object, or each element of an array), or the data of each SSE event.
func (r *Response) Messages() []*Msg {
	var texts [][]byte
	switch r.ContentType {
	case "text/event-stream":
		for _, e := range r.Events {
			if e.Data != "" {
				texts = append(texts, []byte(e.Data))
			}
		}
	default:
		texts = append(texts, r.Body)
	}
	var out []*Msg
	for _, text := range texts {
		text = bytes.TrimSpace(text)
		if len(text) > 0 && text[0] == '[' {
			var elems []json.RawMessage
			if json.Unmarshal(text, &elems) == nil {
				for _, e := range elems {
					if m, err := Parse(e); err == nil {
						out = append(out, m)
					}
				}
			}
			continue
		}
		if m, err := Parse(text); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// Find returns the response with the given id (its JSON text), or nil.
func (r *Response) Find(id string) *Msg {
	for _, m := range r.Messages() {
		if m.IsResponseTo(id) {
			return m
		}
	}
	return nil
}

// ErrorBody returns the JSON-RPC error response in a JSON body, or nil.
func (r *Response) ErrorBody() *Msg {
	if r.ContentType != "application/json" {
		return nil
	}
	m, err := Parse(r.Body)
	if err != nil || m.Error == nil {
		return nil
	}
	return m
}

// Summary describes the response in one line for failure reports.
func (r *Response) Summary() string {
	s := fmt.Sprintf("HTTP %d", r.Status)
	if ct := r.Header.Get("Content-Type"); ct != "" {
		s += ", Content-Type: " + ct
	}
	if len(r.Body) > 0 {
		s += ", body " + check.Quote(string(r.Body))
	} else {
		s += ", empty body"
	}
	return s
}

func mediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// headerSummary lists the headers a learner cares about, in a stable order.
func headerSummary(h http.Header) string {
	var parts []string
	for _, name := range []string{"Content-Type", "Mcp-Session-Id", "Allow", "Retry-After", "Www-Authenticate", "Content-Length"} {
		if v := h.Values(name); len(v) > 0 {
			parts = append(parts, name+": "+strings.Join(v, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// record logs a request on the wire and keeps it as a curl command. It
// returns the request's number.
func (h *HTTP) record(req Req) int {
	var names []string
	for name := range req.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	var hdrs []string
	cmd := []string{"curl -sS -N -i --max-time 5 -X " + req.Method}
	for _, name := range names {
		for _, v := range req.Header.Values(name) {
			hdrs = append(hdrs, name+": "+v)
			cmd = append(cmd, shellQuote("-H", name+": "+v))
		}
	}
	line := req.Method + " /mcp"
	if req.Path != "" {
		line = req.Method + " " + req.Path
	}
	if len(hdrs) > 0 {
		line += " (" + strings.Join(hdrs, "; ") + ")"
	}
	h.t.Wire.Sent(line)
	if req.Body != "" {
		h.t.Wire.Sent(req.Body)
		if len(req.Body) <= 400 {
			cmd = append(cmd, shellQuote("-d", req.Body))
		} else {
			cmd = append(cmd, fmt.Sprintf("--data-binary @big.json   # a %d-byte body", len(req.Body)))
		}
	}
	switch {
	case req.Path != "" && h.Proc == nil:
		cmd = append(cmd, h.urlOf(req))
	case req.Path != "":
		cmd = append(cmd, "http://"+h.reproAddr()+req.Path)
	default:
		cmd = append(cmd, h.reproURL())
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests = append(h.requests, curl{cmd: strings.Join(cmd, " ")})
	return len(h.requests) - 1
}

// reproURL is the endpoint the repro's commands talk to: the external
// server's own, or the port the repro starts a course server on.
func (h *HTTP) reproURL() string {
	if h.Proc == nil {
		return h.URL
	}
	return "http://" + h.reproAddr() + "/mcp"
}

// reproAddr is the address the repro starts a course server on: port 8080
// of the host the grader's server listened on, 127.0.0.1 unless it ran in
// a namespace.
func (h *HTTP) reproAddr() string {
	if h.ns != nil {
		if u, err := url.Parse(h.URL); err == nil {
			return net.JoinHostPort(u.Hostname(), "8080")
		}
	}
	return "127.0.0.1:8080"
}

// reproShown caps how many requests the repro replays.
const reproShown = 10

// repro shows how to run the server and replay the requests. A request whose
// response issued a session id becomes a shell assignment (SESSION=…), and
// later requests use the variable, so the commands work as pasted.
func (h *HTTP) repro() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var b strings.Builder
	var args []string
	for _, a := range h.args {
		if strings.ContainsAny(a, "*?[]{}$&;|<>()'\" ") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'" // for the shell: -allow-origin 'https://*.example.com'
		}
		args = append(args, a)
	}
	inNS := ""
	switch {
	case h.Proc == nil:
		fmt.Fprintf(&b, "# the server at %s, as it runs now\n", h.URL)
	case h.ns != nil:
		// The grader's namespace is gone: make one like it, as root, and
		// run the server and every request inside it.
		b.WriteString(netns.Script("mcp") + "\n")
		fmt.Fprintf(&b, "go build -o /tmp/mcp-server %s && sudo ip netns exec mcp /tmp/mcp-server -addr %s %s &\n", h.t.Target.Package, h.reproAddr(), strings.Join(args, " "))
		inNS = "sudo ip netns exec mcp "
	default:
		fmt.Fprintf(&b, "%s -addr 127.0.0.1:8080 %s &\n", h.t.Target.Invocation(), strings.Join(args, " "))
	}
	vars := map[string]string{} // session id → shell variable
	skipped := 0
	for i, r := range h.requests {
		cmd := r.cmd
		for id, v := range vars {
			cmd = strings.ReplaceAll(cmd, shellQuote("-H", "Mcp-Session-Id: "+id), `-H "Mcp-Session-Id: $`+v+`"`)
		}
		cmd = inNS + cmd
		if r.issued != "" {
			v := "SESSION"
			if len(vars) > 0 {
				v = fmt.Sprintf("SESSION%d", len(vars)+1)
			}
			vars[r.issued] = v
			cmd = v + "=$(" + strings.Replace(cmd, "curl -sS -N -i", "curl -sS -D - -o /dev/null", 1) +
				` | awk 'tolower($1)=="mcp-session-id:" {print $2}' | tr -d '\r')`
		} else if len(h.requests)-i > reproShown {
			skipped++ // keep the start of sessions, and the last requests
			continue
		}
		if skipped > 0 {
			fmt.Fprintf(&b, "# … %d requests left out …\n", skipped)
			skipped = 0
		}
		b.WriteString(cmd + "\n")
	}
	return b.String()
}

func shellQuote(flag, s string) string {
	return flag + " '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SendStreaming sends req with its BodyReader as a chunked body, over a
// connection of its own, and reads the answer while the body is still being
// sent: the answer is returned as soon as it has arrived whole, even if the
// server stopped reading the body long before (a client library may report
// only the failed write then). The connection is closed on return, which
// ends the sending. Every step has req.Within as its deadline.
func (h *HTTP) SendStreaming(req Req) *Response {
	if req.Method == "" {
		req.Method = http.MethodPost
	}
	if req.Within == 0 {
		req.Within = T1
	}
	h.record(req)
	u, err := url.Parse(h.URL)
	if err != nil {
		h.t.Failf("the server's URL %q: %v", h.URL, err)
	}
	deadline := time.Now().Add(req.Within)
	conn, err := net.DialTimeout("tcp", u.Host, req.Within)
	if err != nil {
		h.t.Fail(check.Failure{What: fmt.Sprintf("%s %s: %v", req.Method, purposeOf(req), err)})
	}
	conn.SetDeadline(deadline)

	var head strings.Builder
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n", req.Method, u.RequestURI(), u.Host)
	req.Header.Write(&head)
	head.WriteString("\r\n")
	sent := make(chan error, 1)
	finished := make(chan struct{})
	defer func() {
		conn.Close() // stops the sending, which must be over before req.BodyReader is free
		<-finished
	}()
	go func() {
		defer close(finished)
		w := bufio.NewWriterSize(conn, 64<<10)
		_, err := w.WriteString(head.String())
		buf := make([]byte, 32<<10)
		for err == nil {
			n, rerr := req.BodyReader.Read(buf)
			if n > 0 {
				if _, err = fmt.Fprintf(w, "%x\r\n", n); err == nil {
					if _, err = w.Write(buf[:n]); err == nil {
						_, err = w.WriteString("\r\n")
					}
				}
			}
			if rerr != nil {
				if err == nil {
					_, err = w.WriteString("0\r\n\r\n")
				}
				break
			}
		}
		if err == nil {
			err = w.Flush()
		}
		sent <- err
	}()

	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		what := fmt.Sprintf("%s %s: no answer: %v", req.Method, purposeOf(req), err)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			what = fmt.Sprintf("%s %s: no answer within %v", req.Method, purposeOf(req), req.Within)
		}
		h.t.Fail(check.Failure{What: what})
	}
	defer resp.Body.Close()
	h.t.Wire.Received(fmt.Sprintf("HTTP %d %s", resp.StatusCode, headerSummary(resp.Header)))
	h.noteStatus(resp.StatusCode)
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if len(body) > 0 {
		h.t.Wire.Received(string(body))
	}
	if err != nil {
		h.t.Fail(check.Failure{What: fmt.Sprintf("%s %s: the answer began (HTTP %d) but its body did not end: %v", req.Method, purposeOf(req), resp.StatusCode, err)})
	}
	select {
	case err := <-sent:
		if err != nil {
			h.t.Wire.Event("the server stopped reading the body: %v", err)
		}
	default:
		h.t.Wire.Event("the answer came while the body was still being sent")
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: body, ContentType: mediaType(resp.Header.Get("Content-Type"))}
	if out.ContentType == "text/event-stream" {
		out.Events = ParseSSE(body)
	}
	return out
}
