package lesson04

import (
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/netns"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step6 holds the checks of step 6: secure defaults.
var step6 = check.Step{
	Checks: []*check.Check{origin23},
}

var origin23 = &check.Check{
	ID: "ORIGIN-23", Step: 6, Severity: check.Must, Budget: 15 * time.Second, // a dozen starts, slow under the race detector
	Needs: check.Needs{Restart: true},
	Title: "without -allow-origin, the server refuses to listen beyond loopback, saying why; loopback works",
	Spec:  bindRule,
	Course: "The loopback default trusts pages from this machine, which is wrong for a server others can reach. The course requires a non-zero exit and a message that names -allow-origin, before binding, " +
		"for every address that is not loopback: every interface (0.0.0.0, [::], an empty host) and one network address (10.213.0.1, [fd13::1], in a network namespace the grader makes, as root). " +
		"-allow-host names what Host may carry, not which pages to trust: alone it changes nothing. Every loopback address still works without a flag: localhost, 127.0.0.1, 127.0.0.2, [::1].",
	Hint: check.Hint{
		Report:   "Before net.Listen, split -addr: unless its host is localhost or a loopback IP (netip.Addr.IsLoopback, not a list of strings), and -allow-origin was given, return an error that says to pass -allow-origin.",
		Question: "Who can reach a server listening on 0.0.0.0, [::] or the machine's network address, and which pages does the default allowlist trust?",
		Pointer:  "basic/transports › Security Warning: local servers SHOULD bind only to 127.0.0.1; net.SplitHostPort, netip.Addr.IsLoopback (all of 127.0.0.0/8, and ::1).",
		Near:     "In Listen, unless allowlisted (len(opts.AllowOrigins) > 0, -allow-origin alone): host, _, _ := net.SplitHostPort(addr); unless host is \"localhost\" or netip.ParseAddr(host) is loopback, return an error that says to pass -allow-origin, before net.Listen.",
	},
	Claims: []check.Claim{
		{Claim: "without -allow-origin the server refuses to listen beyond loopback, naming -allow-origin", Where: "step 6",
			How: "-addr 0.0.0.0:0, [::]:0, :0, and with -allow-host alone; 10.213.0.1 and [fd13::1] in a network namespace (root only): a non-zero exit before anything listens"},
		{Claim: "every loopback address is served without -allow-origin", Where: "step 6", How: "localhost, 127.0.0.2 and [::1]"},
	},
	Checklist: []string{"C3"},
	Run:       checkRefusesWideBind,
}

func checkRefusesWideBind(t *check.T) {
	// A server that does not refuse these listens in the namespace only,
	// when the grader can make one; otherwise on the machine, for as long
	// as the check waits for it to exit.
	ns, nsErr := netns.New(t.Context())
	if nsErr == nil {
		t.Cleanup(func() { ns.Close() })
	}
	for _, wide := range []string{"0.0.0.0:0", "[::]:0", ":0", "[0:0:0:0:0:0:0:0]:0"} {
		if stderr := expectRefusedStartIn(t, ns, "-allow-origin", "-addr", wide); !strings.Contains(stderr, "every network interface") {
			t.Fail(check.Failure{What: "the refusal of -addr " + wide + " does not say it would have listened on every network interface", Got: check.Quote(stderr),
				Want: "a message that says where: \"every network interface\""})
		}
	}
	expectRefusedStartIn(t, ns, "port", "-addr", "127.0.0.1") // no port: the address is malformed, whatever the allowlist
	expectRefusedStartIn(t, ns, "-allow-origin", "-addr", "0.0.0.0:0", "-allow-host", "mcp.test")
	for _, addr := range []string{"localhost:0", "127.0.0.2:0"} {
		h := wire.StartHTTP(t, "-addr", addr)
		h.Initialize(spec.Rev)
	}
	if hasIPv6Loopback() {
		h := wire.StartHTTP(t, "-addr", "[::1]:0")
		h.Initialize(spec.Rev)
	}
	if nsErr != nil {
		t.CannotRun("the refusals of every interface pass, and loopback is served; the refusal of one network address (10.213.0.1, [fd13::1]) could not run: " + nsErr.Error() +
			". It needs the server on an address that is not loopback, which the grader makes in a network namespace of its own. As root: sudo \"$(command -v go)\" test ./grader -run 'Lesson04/ORIGIN-23'")
	}
	for _, addr := range []string{netns.IPv4.String() + ":0", "[" + netns.IPv6.String() + "]:0"} {
		if stderr := expectRefusedStartIn(t, ns, "-allow-origin", "-addr", addr); strings.Contains(stderr, "every network interface") {
			t.Fail(check.Failure{What: "the refusal of -addr " + addr + ", one network address, says it would have listened on every network interface", Got: check.Quote(stderr),
				Want: "a message that names the address"})
		}
		expectRefusedStartIn(t, ns, "-allow-origin", "-addr", addr, "-allow-host", "mcp.test")
		// One pattern is an allowlist as much as several.
		h := wire.StartHTTPIn(t, ns, addr, "-allow-origin", "https://app.example.com")
		expectServed(t, initializeFrom(h, "https://app.example.com"), "on "+addr+", with -allow-origin https://app.example.com, initialize from that origin", "one pattern is an allowlist")
	}
}
