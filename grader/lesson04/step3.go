package lesson04

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step3 holds the checks of step 3: the Host header.
var step3 = check.Step{
	Checks: []*check.Check{origin11},
	Unchecked: []check.Claim{
		{Claim: "the Host check is judged per request (http.LocalAddrContextKey), so a server on every interface still guards its loopback requests", Where: "step 3", How: "the grader reaches the server over loopback only; another interface is not there to test from"},
	},
}

var origin11 = &check.Check{
	ID: "ORIGIN-11", Step: 3, Severity: check.Must, Budget: 5 * time.Second,
	Title:  "on loopback, a Host other than localhost, 127.0.0.1 or [::1] gets 403, on every method, Origin or not",
	Spec:   rebindingRule,
	Course: "After DNS rebinding, the attacker's page is same-origin with this server and a GET carries no Origin at all; only Host still names the attacker's domain. The course requires 403 for it (the official Go SDK does the same), changing Host alone.",
	Hint: check.Hint{
		Report:   "Read the local address (r.Context().Value(http.LocalAddrContextKey)); when it is loopback, r.Host without its port must be localhost or a loopback IP address.",
		Question: "After DNS rebinding, which header of a same-origin GET still names the attacker's domain?",
		Pointer:  "http.LocalAddrContextKey gives the connection's local address; the Go SDK's DisableLocalhostProtection documents the same check.",
		Near:     "hostAllowed: !arrivedOnLoopback(r) || isLoopbackHost(r.Host), where isLoopbackHost drops the port and accepts \"localhost\" (EqualFold) or a loopback netip.Addr. Call it first in guard.",
	},
	Claims: []check.Claim{
		{Claim: "on loopback, a Host other than localhost, 127.0.0.1 or [::1] gets 403, on every method, with or without an allowed Origin", Where: "concept, step 3", How: "Host evil.example, localhost.evil.example, 127.0.0.1.nip.io; a GET, a DELETE, and an allowed Origin with a rebound Host"},
	},
	Checklist: []string{"C4b"},
	Split:     &check.Split{Rule: "a rebound Host", Parts: "the spec names the defence, not the status: the course's"},
	Run:       checkHostHeader,
}

func checkHostHeader(t *check.T) {
	h := startOrigin(t)
	suspectNoGuard(t, h)
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(h.URL, "http://"), "/mcp"))
	for _, good := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "localhost"} {
		expectServed(t, initializeFrom(h, "", "Host", good), "initialize with Host "+good, "it names this machine without DNS")
	}
	for _, bad := range []string{"evil.example:" + port, "localhost.evil.example:" + port, "127.0.0.1.nip.io:" + port, "evil.example"} {
		expectForbiddenHost(t, initializeFrom(h, "", "Host", bad), "initialize with Host "+bad+" (no Origin)",
			"the request came in on loopback under a DNS name other than localhost: a rebound name")
	}
	session, _ := h.Initialize(spec.Rev)
	rebound := "evil.example:" + port
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

// expectForbiddenHost is expectForeignRefused for a request refused for its
// Host: the spec names the defence, not the status (a course rule).
func expectForbiddenHost(t *check.T, resp *wire.Response, what, why string) {
	expectRefused(t, resp, what, why, "", false)
}

// suspectNoGuard notes causeOriginGuard when the server serves a foreign
// Origin: it has no guard then, and the Host check lives in the guard. That
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
