package lesson04

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/netns"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step3 holds the checks of step 3: the Host header.
var step3 = check.Step{
	Checks: []*check.Check{origin11, origin26, origin27, origin28},
}

// hostCourse says what the course asks of the Host check: the spec names
// DNS rebinding as the threat, not the defence.
const hostCourse = "After DNS rebinding, the attacker's page is same-origin with this server and a GET carries no Origin at all; only Host still names the attacker's domain. " +
	"Only a DNS name can be rebound: the course requires 403 for a Host that is neither localhost, an IP address, nor a name -allow-host lists, on every connection, changing Host alone."

var origin11 = &check.Check{
	ID: "ORIGIN-11", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Title:  "on loopback (127.0.0.1 and [::1]), a Host that is a DNS name other than localhost gets 403, on every method, Origin or not",
	Spec:   rebindingRule,
	Course: hostCourse + " The official Go SDK refuses the same names on loopback. Host is the header the rule reads: X-Forwarded-Host, Forwarded and their kin are headers any page's fetch may add, so they neither excuse a rebound Host nor condemn a good one.",
	Hint: check.Hint{
		Report:   "Drop the port from r.Host (an IPv6 Host may come without one: [::1]); serve localhost and IP addresses (netip.ParseAddr), and refuse every other name unless -allow-host lists it. Read r.Host only, never X-Forwarded-Host or Forwarded. Call it first in guard.",
		Question: "After DNS rebinding, which header of a same-origin GET still names the attacker's domain, and which kinds of name can no DNS answer change?",
		Pointer:  "net.SplitHostPort, netip.ParseAddr; the Go SDK's DisableLocalhostProtection documents the same check, for loopback connections.",
		Near:     "hostAllowed: host := hostName(r.Host); return isLocalHost(host) || h.hosts.allows(host), where isLocalHost accepts \"localhost\" (EqualFold) or an address netip.ParseAddr reads without a zone. Call it first in guard.",
	},
	Claims: []check.Claim{
		{Claim: "a Host that is a DNS name other than localhost gets 403, on every method, with or without an allowed Origin; localhost and IP addresses are served", Where: "concept, step 3",
			How: "Host evil.example, localhost.evil.example, 127.0.0.1.nip.io; a GET, a DELETE, and an allowed Origin with a rebound Host; on 127.0.0.1 and on [::1]; localhost, 127.0.0.1 and [::1] with and without a port"},
		{Claim: "the Host rule reads Host, never X-Forwarded-Host, Forwarded or another header a client may add", Where: "step 3",
			How: "a rebound Host with X-Forwarded-Host, Forwarded, X-Original-Host or X-Host naming localhost gets 403; Host localhost with X-Forwarded-Host or Forwarded naming evil.example is served"},
	},
	Checklist: []string{"C4b"},
	Split:     &check.Split{Rule: "a rebound Host", Parts: "the spec names the defence, not the status: the course's"},
	Run:       checkHostHeader,
}

func checkHostHeader(t *check.T) {
	h := startOrigin(t)
	suspectNoGuard(t, h)
	port := portOf(t, h)
	for _, good := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "localhost", "127.0.0.1", "[::1]", "LOCALHOST:" + port} {
		expectServed(t, initializeFrom(h, "", "Host", good), "initialize with Host "+good, "it names this machine without DNS")
	}
	for _, bad := range []string{"evil.example:" + port, "localhost.evil.example:" + port, "127.0.0.1.nip.io:" + port, "evil.example"} {
		expectForbiddenHost(t, initializeFrom(h, "", "Host", bad), "initialize with Host "+bad+" (no Origin)",
			"a DNS name other than localhost: DNS rebinding could have produced it")
	}
	expectRebindingRefused(t, h, "evil.example:"+port)
	expectHostHeaderOnly(t, h, port)

	// [::1] is loopback too, and needs nothing of the machine but IPv6. A
	// server at a URL cannot be started again on it.
	if t.Target.External() {
		return
	}
	if !hasIPv6Loopback() {
		t.CannotRun("the checks on 127.0.0.1 pass; the same on a server listening on [::1] could not run: this machine has no IPv6 loopback address (::1)")
	}
	h6 := startOrigin(t, "-addr", "[::1]:0")
	port6 := portOf(t, h6)
	expectServed(t, initializeFrom(h6, ""), "initialize on [::1] with Host [::1]:"+port6, "an IP address cannot be rebound")
	expectServed(t, initializeFrom(h6, "", "Host", "localhost:"+port6), "initialize on [::1] with Host localhost:"+port6, "localhost is never a rebound name")
	expectRebindingRefused(t, h6, "evil.example:"+port6)
}

// forwardingHeaders are the headers a proxy may add to say which Host the
// client asked for. Any client can send them, a rebound page's fetch
// included: the Host rule judges r.Host, and none of these.
var forwardingHeaders = [][2]string{
	{"X-Forwarded-Host", "localhost"},
	{"Forwarded", "host=localhost"},
	{"X-Forwarded-Host", "127.0.0.1"},
	{"X-Original-Host", "localhost"},
	{"X-Host", "localhost"},
}

// expectHostHeaderOnly shows that the Host rule reads Host, and nothing a
// client could add beside it: a rebound Host with a header that claims
// localhost gets 403, and the Host localhost with a header that names a
// foreign name is served.
func expectHostHeaderOnly(t *check.T, h *wire.HTTP, port string) {
	rebound := "evil.example:" + port
	for _, fw := range forwardingHeaders {
		expectForbiddenHost(t, initializeFrom(h, "", "Host", rebound, fw[0], fw[1]), "initialize with Host "+rebound+" and "+fw[0]+": "+fw[1],
			"a page's fetch may add any header it likes: the Host rule judges Host, never a header that claims to be a proxy's")
	}
	for _, name := range []string{"X-Forwarded-Host", "Forwarded"} {
		value := "evil.example"
		if name == "Forwarded" {
			value = "host=evil.example"
		}
		expectServed(t, initializeFrom(h, "", "Host", "localhost:"+port, name, value), "initialize with Host localhost:"+port+" and "+name+": "+value,
			"the Host rule judges Host alone; a header beside it changes nothing either way")
	}
}

// expectRebindingRefused sends what a page whose DNS name was rebound to
// the server sends, under the name rebound (a Host with its port): a GET
// of the session's stream, which carries no Origin; a DELETE; and an
// initialize from an allowed Origin, which does not excuse the Host.
func expectRebindingRefused(t *check.T, h *wire.HTTP, rebound string) {
	expectForbiddenHost(t, initializeFrom(h, "", "Host", rebound), "initialize with Host "+rebound+" (no Origin)",
		"a DNS name other than localhost: DNS rebinding could have produced it")
	session, _ := h.Initialize(spec.Rev)
	get := h.Open(wire.Req{Method: http.MethodGet, Header: with(session, spec.Rev, "", "Accept", "text/event-stream", "Host", rebound), Purpose: "GET with Host " + rebound})
	if get.Status != http.StatusForbidden {
		t.Fail(check.Failure{What: fmt.Sprintf("a GET with Host %s got HTTP %d: a rebound page's GET carries no Origin, so Host is all there is to judge", rebound, get.Status),
			Got: probe.StreamSummary(get), Want: "HTTP 403 with a JSON-RPC error body, at once"})
	}
	get.End(wire.T1)
	expectForbiddenHost(t, h.Do(wire.Req{Method: http.MethodDelete, Header: with(session, spec.Rev, "", "Host", rebound), Purpose: "DELETE with Host " + rebound}),
		"a DELETE with Host "+rebound, "the Host check holds for every method")
	expectForbiddenHost(t, initializeFrom(h, "https://app.example.com", "Host", rebound), "initialize from an allowed Origin with Host "+rebound,
		"Host and Origin are checked separately: an allowed Origin does not excuse a rebound Host")
}

var origin26 = &check.Check{
	ID: "ORIGIN-26", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Flags: []string{"-allow-host"}, Restart: true},
	Title:  "-allow-host names the DNS names Host may carry: an exact name and the names below *.domain are served, look-alikes get 403, a malformed or too-wide pattern stops the server",
	Spec:   rebindingRule,
	Course: hostCourse + " A server that clients reach by a name of its own lists it with -allow-host, matched as an origin's host is (one label or more below a wildcard's domain, on a label boundary); a pattern with a port, a scheme, or a * that is not \"*.\" before a domain of two labels stops the server.",
	Hint: check.Hint{
		Report:   "Parse each -allow-host pattern at start (canonicalHost, an optional \"*.\"), refusing the malformed; in hostAllowed, a name that is not localhost or an address is served when a pattern matches it.",
		Question: "How does an origin's wildcard match its host, and which patterns would let every rebound name in?",
		Pointer:  "strings.CutPrefix(s, \"*.\"), then canonicalHost; strings.HasSuffix(host, \".\"+domain) keeps the match on a label boundary.",
		Near:     "parseHostPattern: name, subs := strings.CutPrefix(s, \"*.\"); host, ok := canonicalHost(name); refuse !ok, and subs without a dot in host. matches: p.subs && strings.HasSuffix(host, \".\"+p.host) || host == p.host.",
	},
	Claims: []check.Claim{
		{Claim: "-allow-host lists the names Host may carry beyond localhost and IP addresses: exact names, *.domain below a domain on a label boundary, any port", Where: "step 3",
			How: "mcp.test and *.dev.example.com: case and port do not matter; dev.example.com, xdev.example.com and mcp.test.evil.example get 403"},
		{Claim: "a malformed or too-wide -allow-host stops the server at start, quoting it", Where: "step 3", How: "a port, *, *.com, a scheme"},
	},
	Checklist: []string{"C4b"},
	Run:       checkAllowHost,
}

func checkAllowHost(t *check.T) {
	h := startOrigin(t, "-allow-host", "mcp.test,*.dev.example.com")
	suspectNoGuard(t, h)
	port := portOf(t, h)
	for _, good := range []string{"mcp.test:" + port, "MCP.Test:" + port, "mcp.test", "app.dev.example.com:" + port, "a.b.dev.example.com:" + port, "localhost:" + port} {
		expectServed(t, initializeFrom(h, "", "Host", good), "with -allow-host 'mcp.test,*.dev.example.com', initialize with Host "+good,
			"the list names it (any port, any case), and localhost stays allowed")
	}
	for _, bad := range []string{"dev.example.com:" + port, "xdev.example.com:" + port, "mcp.test.evil.example:" + port, "app.dev.example.com.evil.example:" + port, "mcp.tes:" + port, "evil.example:" + port} {
		expectForbiddenHost(t, initializeFrom(h, "", "Host", bad), "with -allow-host 'mcp.test,*.dev.example.com', initialize with Host "+bad,
			"a look-alike of a listed name, or a name the list does not hold: DNS rebinding could have produced it")
	}
	for _, bad := range []string{"mcp.test:8080", "*", "*.com", "https://mcp.test"} {
		expectRefusedStart(t, bad, "-addr", "127.0.0.1:0", "-allow-host", "mcp.test,"+bad)
	}
}

var origin27 = &check.Check{
	ID: "ORIGIN-27", Step: 3, Severity: check.Must, Budget: 10 * time.Second,
	Needs:  check.Needs{Flags: []string{"-allow-host"}, Restart: true},
	Title:  "beyond loopback too: on a server at a network address (10.213.0.1, [fd13::1]), a rebound Host gets 403 on every method; the address itself and -allow-host's names are served",
	Spec:   rebindingRule,
	Course: hostCourse + " A check made on loopback connections only (the official Go SDK's) leaves a server listening on every interface open to a page rebound to its network address. The grader gives the server one, in a network namespace of its own: it needs root.",
	Hint: check.Hint{
		Report:   "Judge Host on every request, whatever address it arrived on: no test of the connection's local address (http.LocalAddrContextKey) before it.",
		Question: "A server started with -addr 0.0.0.0 and a page rebound to the machine's network address: which of your checks does that page's GET meet?",
		Pointer:  "A rebound page names its own domain in Host on whichever address it reached; the Go SDK's check runs on loopback connections only.",
		Near:     "hostAllowed is isLocalHost(host) || h.hosts.allows(host) and nothing else: drop any !arrivedOnLoopback(r) || before it.",
	},
	Claims: []check.Claim{
		{Claim: "the Host rule holds on every connection: on a network address, a rebound Host gets 403 on every method, and the address itself and the -allow-host names are served", Where: "concept, step 3",
			How: "a server listening on 10.213.0.1 and on [fd13::1] in a network namespace the grader makes (root only; otherwise the check says it could not run)"},
		{Claim: "with -allow-origin the server listens beyond loopback", Where: "step 6", How: "it listens on 10.213.0.1 and [fd13::1], in the namespace"},
	},
	Checklist: []string{"C4b"},
	Run:       checkHostBeyondLoopback,
}

func checkHostBeyondLoopback(t *check.T) {
	ns, err := netns.New(t.Context())
	if err != nil {
		t.CannotRun("this machine cannot run it: " + err.Error() + ". The check needs the server on an address that is not loopback, " +
			"which the grader makes in a network namespace of its own, so that no packet reaches a real interface. As root: sudo \"$(command -v go)\" test ./grader -run 'Lesson04/ORIGIN-27'")
	}
	t.Cleanup(func() { ns.Close() }) // after the servers are killed: cleanups run last first
	for _, addr := range []string{netns.IPv4.String(), "[" + netns.IPv6.String() + "]"} {
		h := wire.StartHTTPIn(t, ns, addr+":0", append(append([]string(nil), allowArgs...), "-allow-host", "mcp.test")...)
		suspectNoGuard(t, h)
		port := portOf(t, h)
		expectServed(t, initializeFrom(h, ""), "initialize on "+addr+" with Host "+addr+":"+port, "an IP address cannot be rebound")
		expectServed(t, initializeFrom(h, "", "Host", "mcp.test:"+port), "on "+addr+", with -allow-host mcp.test, initialize with Host mcp.test:"+port, "the list names it")
		expectRebindingRefused(t, h, "evil.example:"+port)
	}
}

// portOf returns the port the server at h listens on.
func portOf(t *check.T, h *wire.HTTP) string {
	u, err := url.Parse(h.URL)
	if err != nil || u.Port() == "" {
		t.Failf("grader bug: the server's URL %q names no port", h.URL)
	}
	return u.Port()
}

// hasIPv6Loopback reports whether this machine can listen on [::1].
func hasIPv6Loopback() bool {
	var lc net.ListenConfig
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ln, err := lc.Listen(ctx, "tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// expectForbiddenHost is expectForeignRefused for a request refused for its
// Host: the spec names the defence, not the status (a course rule).
func expectForbiddenHost(t *check.T, resp *wire.Response, what, why string) {
	expectRefused(t, resp, what, why, "", false)
}

// suspectNoGuard notes causeOriginGuard when the server serves a foreign
// Origin: it has no guard then, and the Host check lives in it. That
// holds for the course's stage, not for any server: an external server may
// check Host and Origin in separate places, so its failures stand alone.
func suspectNoGuard(t *check.T, h *wire.HTTP) {
	if t.Target.External() {
		return
	}
	if resp := initializeFrom(h, "http://evil.example"); resp.Status != http.StatusForbidden {
		t.Suspect(causeOriginGuard)
	}
}

var origin28 = &check.Check{
	ID: "ORIGIN-28", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Flags: []string{"-max-sessions"}, Restart: true},
	Title: "a refused request does no work: no session opened, no tool run",
	Spec:  forbiddenRule,
	Course: "A 403 that the handler writes and then goes on past serves the request all the same: the page cannot read the answer, but the session it opened, " +
		"or the note its tools/call saved, is there. The grader runs the server with -max-sessions 1: after refused initializes (a foreign Origin, " +
		"two Origins, a rebound Host), an allowed one must still find room; after refused calls of add_note, list_notes must find no note.",
	Hint: check.Hint{
		Report:   "After writing the 403 (forbidden, forbiddenHost), return: nothing after the refusal may reach stage 03. A switch whose cases each answer, or an if that returns, both do.",
		Question: "Once your guard has answered 403, what stops the request from reaching stage 03 anyway?",
		Pointer:  "net/http: writing a response does not end the handler; only returning does. The rest of the handler still runs, and stage 03 starts the session.",
		Near:     "In guard: switch { case !h.hostAllowed(r): forbiddenHost(w, r); case !h.originAllowed(r): forbidden(w, ...); default: next.ServeHTTP(w, r) }: each refusal ends the request.",
	},
	Claims: []check.Claim{
		{Claim: "a refused request does no work: no session started, no tool run", Where: "step 1, step 3",
			How: "with -max-sessions 1: refused initializes (a foreign Origin, two Origins, a rebound Host, a rebound Host from an allowed Origin) leave room for an allowed one; refused calls of add_note leave list_notes empty"},
	},
	Checklist: []string{"C2", "C4b"},
	Run:       checkRefusalDoesNoWork,
}

func checkRefusalDoesNoWork(t *check.T) {
	h := startOrigin(t, "-max-sessions", "1")
	port := portOf(t, h)
	const evil, app = "http://evil.example", "https://app.example.com"
	rebound := "evil.example:" + port
	expectForeignRefused(t, initializeFrom(h, evil), "initialize from Origin "+evil, "the allowlist does not name it")
	two := with("", "", "")
	two["Origin"] = []string{app, evil}
	expectRefused(t, h.Do(wire.Req{Header: two, Body: wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), Purpose: "initialize with two Origin headers"}),
		"initialize with two Origin headers", "two are one too many", "", false)
	expectForbiddenHost(t, initializeFrom(h, "", "Host", rebound), "initialize with Host "+rebound, "DNS rebinding could have produced it")
	expectForbiddenHost(t, initializeFrom(h, app, "Host", rebound), "initialize from an allowed Origin with Host "+rebound, "an allowed Origin does not excuse a rebound Host")

	resp := initializeFrom(h, "")
	if resp.Status != http.StatusOK || resp.Find(`1`) == nil || resp.Find(`1`).Error != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("with -max-sessions 1, after four refused initializes, an initialize without an Origin got HTTP %d: a refused initialize opened a session", resp.Status),
			Got: resp.Summary(), Want: "HTTP 200 and the InitializeResult: a refused request starts no session"})
	}
	session := resp.Header.Get("Mcp-Session-Id")
	h.Do(wire.Req{Header: with(session, spec.Rev, ""), Body: wire.Notification("notifications/initialized", nil), Purpose: "notifications/initialized"})
	note := wire.Request(`2`, "tools/call", wire.ToolCall("add_note", map[string]any{"text": "from a foreign page"}, nil))
	expectForeignRefused(t, h.Do(wire.Req{Header: with(session, spec.Rev, evil), Body: note, Purpose: "tools/call add_note in the session, from Origin " + evil}),
		"tools/call add_note from Origin "+evil, "the allowlist does not name it")
	expectForbiddenHost(t, h.Do(wire.Req{Header: with(session, spec.Rev, "", "Host", rebound), Body: note, Purpose: "tools/call add_note in the session, with Host " + rebound}),
		"tools/call add_note with Host "+rebound, "DNS rebinding could have produced it")
	if text := probe.CallTool(t, h, session, `3`, "list_notes", nil); text != "No notes yet." {
		t.Fail(check.Failure{What: "after two refused calls of add_note, list_notes answered " + check.Quote(text) + ": a refused tools/call ran its tool",
			Want: `"No notes yet.": a refused request runs nothing`})
	}
}
