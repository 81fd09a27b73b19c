package lesson04

import (
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step6 holds the checks of step 6: secure defaults.
var step6 = check.Step{
	Checks: []*check.Check{origin23},
}

var origin23 = &check.Check{
	ID: "ORIGIN-23", Step: 6, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Restart: true},
	Title:  "without -allow-origin, the server refuses to listen beyond loopback (-addr 0.0.0.0:0), saying why",
	Spec:   bindRule,
	Course: "The loopback default trusts pages from this machine, which is wrong for a server others can reach. The course requires a non-zero exit and a message that names -allow-origin, before binding; localhost still works.",
	Hint: check.Hint{
		Report:   "Before net.Listen, split -addr: unless its host is localhost or a loopback IP, and no origin was given, return an error that says to pass -allow-origin.",
		Question: "Who can reach a server listening on 0.0.0.0, and which pages does the default allowlist trust?",
		Pointer:  "basic/transports › Security Warning: local servers SHOULD bind only to 127.0.0.1; net.SplitHostPort, netip.Addr.IsLoopback.",
		Near:     "In Listen, unless allowlisted: host, _, _ := net.SplitHostPort(addr); unless host is \"localhost\" or a loopback IP, return an error that says to pass -allow-origin, before net.Listen.",
	},
	Claims: []check.Claim{
		{Claim: "without -allow-origin the server refuses to listen beyond loopback, naming -allow-origin", Where: "step 6", How: "-addr 0.0.0.0:0: a non-zero exit before anything listens"},
	},
	Checklist: []string{"C3"},
	Run:       checkRefusesWideBind,
}

func checkRefusesWideBind(t *check.T) {
	expectRefusedStart(t, "-allow-origin", "-addr", "0.0.0.0:0")
	h := wire.StartHTTP(t, "-addr", "localhost:0")
	h.Initialize(spec.Rev)
}
