package lesson04

import (
	"fmt"
	"net/http"
	"strings"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/netns"
	"mcpcourse/grader/internal/proc"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// startOrigin starts the server with the standard allowlist and args.
func startOrigin(t *check.T, args ...string) *wire.HTTP {
	return wire.StartHTTP(t, append(append([]string(nil), allowArgs...), args...)...)
}

// with returns the standard client headers for a session and version, plus
// Origin (when not "") and the extra headers given as name, value pairs.
func with(session, version, origin string, extra ...string) http.Header {
	h := wire.Headers(session, version)
	if origin != "" {
		h.Set("Origin", origin)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

// initializeFrom sends initialize with an Origin ("" for none) and extra
// headers, and returns the answer.
func initializeFrom(h *wire.HTTP, origin string, extra ...string) *wire.Response {
	return h.Do(wire.Req{Header: with("", "", origin, extra...), Body: wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)),
		Purpose: "initialize" + from(origin)})
}

func from(origin string) string {
	if origin == "" {
		return " without an Origin"
	}
	return " from Origin " + origin
}

// expectForeignRefused fails the check unless resp is 403 with a JSON-RPC
// error response without an id as its body. The request carried an Origin
// the server does not allow: any other status breaks the spec's MUST; a 403
// without the error body misses only the course's rule (the spec: MAY). One
// that goes through means there is no guard (causeOriginGuard), unless
// ORIGIN-01 passes. A 501 is an unwritten earlier stage's, which the wire
// already suspects (check.CauseUnimplemented).
func expectForeignRefused(t *check.T, resp *wire.Response, what, why string) {
	cause := causeOriginGuard
	if resp.Status == http.StatusNotImplemented {
		cause = ""
	}
	expectRefused(t, resp, what, why, cause, true)
}

// expectRefused fails the check unless resp is 403 with a JSON-RPC error
// body, naming cause when the request was not refused; spec says whether
// another status breaks the spec's rule or only the course's.
func expectRefused(t *check.T, resp *wire.Response, what, why, cause string, spec bool) {
	want := `HTTP 403, Content-Type: application/json, body {"jsonrpc":"2.0","error":{"code":-32000,"message":"..."}}`
	if resp.Status != http.StatusForbidden {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d: %s", what, resp.Status, why), Got: resp.Summary(), Want: want, Cause: cause, Spec: spec})
	}
	m := resp.ErrorBody()
	if m == nil || !m.HasNoID() {
		t.Fail(check.Failure{What: what + " got 403, but its body is not a JSON-RPC error response without an id", Got: resp.Summary(), Want: want})
	}
	code, ok := m.ErrorCode()
	if !ok {
		t.Fail(check.Failure{What: what + " got 403, but its error has no integer code", Got: resp.Summary(), Want: want})
	}
	// The course's servers use -32000, the first of JSON-RPC's server
	// errors, as stage 02 does; another server may pick another.
	if code != codeServerError && !t.Target.External() {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got 403 with error code %d", what, code), Got: resp.Summary(), Want: want + ": code -32000, the server error the course's stages use"})
	}
}

// codeServerError is the JSON-RPC error code of the course's HTTP errors.
const codeServerError = -32000

// expectServed fails the check unless resp is a successful initialize.
func expectServed(t *check.T, resp *wire.Response, what, why string) {
	if resp.Status != http.StatusOK || resp.Find(`1`) == nil || resp.Find(`1`).Error != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("%s got HTTP %d: %s", what, resp.Status, why), Got: resp.Summary(), Want: "HTTP 200 and the InitializeResult"})
	}
}

// expectRefusedStart runs the server with args and fails the check unless it
// exits non-zero within wire.EXIT, without saying it listens, with a message
// on stderr that contains mention.
func expectRefusedStart(t *check.T, mention string, args ...string) {
	expectRefusedStartIn(t, nil, mention, args...)
}

// expectRefusedStartIn is expectRefusedStart for a server run in the
// network namespace ns (none when ns is nil): a server that should have
// refused an address beyond loopback, and did not, then listens in the
// namespace only.
func expectRefusedStartIn(t *check.T, ns *netns.NS, mention string, args ...string) (stderr string) {
	return expectRefusedStarts(t, ns, []refusedStart{{mention, args}})[0]
}

// refusedStart is one start of the server that must be refused: its
// arguments, and what the refusal must mention.
type refusedStart struct {
	mention string
	args    []string
}

// expectRefusedStarts is expectRefusedStartIn for many starts at once: it
// starts every process first, so that they run side by side, then judges
// each in turn, and returns their stderr.
func expectRefusedStarts(t *check.T, ns *netns.NS, starts []refusedStart) (stderrs []string) {
	procs := make([]*proc.Process, len(starts))
	for i, s := range starts {
		bin, argv := t.Target.Binary, s.args
		if ns != nil {
			bin, argv = ns.Command(bin, s.args...)
		}
		p, err := proc.Start(t.Context(), bin, argv...)
		if err != nil {
			t.Failf("could not start %s: %v", t.Target.Package, err)
		}
		t.Cleanup(p.Kill)
		t.AttachStderr(p.Stderr)
		procs[i] = p
	}
	for i, s := range starts {
		p, args := procs[i], s.args
		cmd := "go run " + t.Target.Package + " " + strings.Join(quoteArgs(args), " ")
		t.Wire.Sent(cmd)
		if !p.WaitExit(wire.EXIT) {
			t.Fail(check.Failure{What: fmt.Sprintf("the server was still running %v after starting with %s", wire.EXIT, strings.Join(quoteArgs(args), " ")),
				Got: check.Quote(p.Stderr()), Want: "a non-zero exit, at once, with a message that says why", Repro: cmd})
		}
		stderr := p.Stderr()
		switch {
		case p.ExitCode() == 0:
			t.Fail(check.Failure{What: "the server exited with status 0", Got: check.Quote(stderr), Want: "a non-zero exit", Repro: cmd})
		case strings.Contains(stderr, "listening on"):
			t.Fail(check.Failure{What: "the server said it was listening before it gave up", Got: check.Quote(stderr), Want: "a refusal before anything listens", Repro: cmd})
		case !strings.Contains(stderr, s.mention):
			t.Fail(check.Failure{What: "the server exited, but its message does not mention " + check.Quote(s.mention), Got: check.Quote(stderr),
				Want: "a message that says what to change", Repro: cmd})
		}
		stderrs = append(stderrs, stderr)
	}
	return stderrs
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, "*,:/ ") {
			out[i] = "'" + a + "'"
		}
	}
	return out
}
