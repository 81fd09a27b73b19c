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
	Checks: []*check.Check{origin11, origin26, origin27},
}

// hostCourse says what the course asks of the Host check: the spec names
// DNS rebinding as the threat, not the defence.
const hostCourse = "After DNS rebinding, the attacker's page is same-origin with this server and a GET carries no Origin at all; only Host still names the attacker's domain. " +
	"Only a DNS name can be rebound: the course requires 403 for a Host that is neither localhost, an IP address, nor a name -allow-host lists, on every connection, changing Host alone."

var origin11 = &check.Check{
	ID: "ORIGIN-11", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Title:  "on loopback (127.0.0.1 and [::1]), a Host that is a DNS name other than localhost gets 403, on every method, Origin or not",
	Spec:   rebindingRule,
	Course: hostCourse + " The official Go SDK refuses the same names on loopback.",
	Hint: check.Hint{
		Report:   "Drop the port from r.Host; serve localhost and IP addresses (netip.ParseAddr), and refuse every other name unless -allow-host lists it. Call it first in guard.",
		Question: "After DNS rebinding, which header of a same-origin GET still names the attacker's domain, and which kinds of name can no DNS answer change?",
		Pointer:  "net.SplitHostPort, netip.ParseAddr; the Go SDK's DisableLocalhostProtection documents the same check, for loopback connections.",
		Near:     "hostAllowed: host := hostName(r.Host); return isLocalHost(host) || h.hosts.allows(host), where isLocalHost accepts \"localhost\" (EqualFold) or an address netip.ParseAddr reads without a zone. Call it first in guard.",
	},
	Claims: []check.Claim{
		{Claim: "a Host that is a DNS name other than localhost gets 403, on every method, with or without an allowed Origin; localhost and IP addresses are served", Where: "concept, step 3",
			How: "Host evil.example, localhost.evil.example, 127.0.0.1.nip.io; a GET, a DELETE, and an allowed Origin with a rebound Host; on 127.0.0.1 and on [::1]"},
	},
	Checklist: []string{"C4b"},
	Split:     &check.Split{Rule: "a rebound Host", Parts: "the spec names the defence, not the status: the course's"},
	Run:       checkHostHeader,
}

func checkHostHeader(t *check.T) {
	h := startOrigin(t)
	suspectNoGuard(t, h)
	port := portOf(t, h)
	for _, good := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "localhost"} {
		expectServed(t, initializeFrom(h, "", "Host", good), "initialize with Host "+good, "it names this machine without DNS")
	}
	for _, bad := range []string{"evil.example:" + port, "localhost.evil.example:" + port, "127.0.0.1.nip.io:" + port, "evil.example"} {
		expectForbiddenHost(t, initializeFrom(h, "", "Host", bad), "initialize with Host "+bad+" (no Origin)",
			"a DNS name other than localhost: DNS rebinding could have produced it")
	}
	expectRebindingRefused(t, h, "evil.example:"+port)

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
