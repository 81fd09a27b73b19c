package lesson02

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/source"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step2 holds the checks of step 2: sessions.
var step2 = check.Step{
	Checks: []*check.Check{http09, http10, http33, http11, http12, http13, http14, http15, http16, http36, http42, http17, http41, http29},
	Unchecked: []check.Claim{
		{Claim: "the reference logs session starts and DELETEs to stderr", Where: "step 2", How: "logging is the server's own business"},
	},
}

var http09 = &check.Check{
	ID: "HTTP-09", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title: "initialize's response sets MCP-Session-Id, in visible ASCII; an initialize that carries one gets 400",
	Spec:  spec.Session("The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)"),
	Course: "An initialize starts a new session; one that names a session already is a client's mistake. " +
		"The course requires 400 for it, rather than a second session or a silent restart of the first.",
	Hint: check.Hint{
		Report: "Set the header on the response that carries the InitializeResult, before writing the body. Hex or base64url encoding keeps the id to visible ASCII. " +
			"Refuse an initialize that carries MCP-Session-Id with 400 before creating anything.",
		Question: "Does the response that carries the InitializeResult have an MCP-Session-Id header? Is it set before the body is written?",
		Pointer:  "› Session Management: the server MAY assign a session id in MCP-Session-Id on the InitializeResult's response, and it MUST only contain visible ASCII (0x21 to 0x7E). net/http drops headers set after WriteHeader or the first Write.",
		Near: `In serveInitialize, stateful mode:

	sess, err := h.sessions.create(h.server, newSessionID())
	// … 503 on errTooManySessions
	resp := sess.Handle(h.requestContext(r), msg, nil)
	// … a failed initialize: h.sessions.remove(sess.ID()) and send resp
	w.Header().Set("MCP-Session-Id", sess.ID()) // before the body
	httpjson.Write(w, http.StatusOK, resp)`,
	},
	Claims: []check.Claim{
		{Claim: "session ids: MCP-Session-Id on the initialize response, visible ASCII", Where: "concept, step 2"},
		{Claim: "an initialize that carries MCP-Session-Id gets 400", Where: "step 2"},
	},
	Checklist: []string{"C30", "C32"},
	Split:     &check.Split{Rule: "session ids", Parts: "ids outside visible ASCII, repeated ids, a generator's pattern, the same ids every run break the spec; fewer than about 120 varying bits, and refusing an initialize that names a session, are the course's", Also: []string{"HTTP-10"}},
	Run:       checkHTTPSessionIssued,
}

func checkHTTPSessionIssued(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	if session == "" {
		t.Fail(check.Failure{What: "the initialize response has no MCP-Session-Id header", Want: "MCP-Session-Id: <an id of visible ASCII>"})
	}
	t.Case("the session id", func() {
		for i, c := range []byte(session) {
			if c < 0x21 || c > 0x7e {
				t.Fail(check.Failure{What: fmt.Sprintf("byte %d of the session id is 0x%02x, outside visible ASCII (0x21 to 0x7E)", i, c),
					Got: check.Quote(session), Spec: true})
			}
		}
		resp := h.Post(session, spec.Rev, wire.Request(`2`, "ping", nil), "ping with the new session id")
		probe.ExpectStatus(t, resp, http.StatusOK, "ping with the session id initialize returned")
	})
	t.Case("an initialize that names the session", func() {
		resp := h.Post(session, "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), "initialize that carries the live session's id")
		if resp.Status != http.StatusBadRequest {
			t.Fail(check.Failure{What: "an initialize that carries MCP-Session-Id was not refused", Got: resp.Summary(),
				Want: "HTTP 400: initialize starts a new session, and must be sent without the header"})
		}
		probe.ExpectStatus(t, h.Post(session, spec.Rev, wire.Request(`3`, "ping", nil), "ping after the refused initialize"), http.StatusOK,
			"a ping in the session, after an initialize that named it was refused")
	})
}

var http10 = &check.Check{
	ID: "HTTP-10", Step: 2, Severity: check.Must, Budget: 10 * time.Second,
	Title: "session ids look unguessable from outside: unique, ~128 varying bits, new each run, no math/rand pattern",
	Spec: check.Spec{Rev: spec.Rev, Section: "security best practices › Session Hijacking › Mitigation; basic/transports › Streamable HTTP › Session Management",
		Quote: "MCP servers MUST use secure, non-deterministic session IDs"},
	Course: "The course asks for about 128 random bits from crypto/rand (a random UUID's 122 pass). The grader sees only the ids, so it cannot prove " +
		"where they come from: it collects 320 of them and catches repeats, counters, timestamps and short ids, a generator seeded with a constant " +
		"(the first id is the same in two runs), and math/rand's own generator, whose every output is the sum of the outputs 273 and 607 places before it.",
	Hint: check.Hint{
		Report:   "Read 16 bytes with crypto/rand.Read and hex-encode them. Not a counter, not a timestamp, not math/rand however seeded: with those, anyone who sees some ids can work out the next.",
		Question: "If an attacker saw one of your session ids, could they guess the next one? Would a restarted server issue the same ids again?",
		Pointer:  "Security best practices › Session Hijacking: servers MUST use secure, non-deterministic session ids. crypto/rand.Read fills a byte slice from the operating system's cryptographic source; math/rand, counters and timestamps are predictable. encoding/hex keeps the id to visible ASCII.",
		Near: `	func newSessionID() string {
		b := make([]byte, 16) // 128 bits
		if _, err := rand.Read(b); err != nil { // crypto/rand
			panic(err)
		}
		return hex.EncodeToString(b)
	}`,
	},
	Claims: []check.Claim{
		{Claim: "session ids: 128 bits from crypto/rand, unique, not a counter, timestamp or math/rand", Where: "concept, step 2",
			How:  "from outside: 320 ids must not repeat, must vary in about 128 bits, must differ in a second run, and must not follow math/rand's lagged Fibonacci pattern; from the source (HTTP-33): newSessionID reaches crypto/rand and not math/rand",
			Also: []string{"HTTP-33"}},
	},
	Checklist: []string{"C31"},
	Run:       checkHTTPSessionIDsUnguessable,
}

func checkHTTPSessionIDsUnguessable(t *check.T) {
	h := wire.StartHTTP(t)
	seen := map[string]bool{}
	var ids []string
	// The ids are collected whole first, then judged; on the course's
	// servers in the order of old, the first 32 as soon as they are in.
	collect := func(n int) {
		for i := len(ids); i < n; i++ {
			// Hundreds of initializes in a row: one that waits for a
			// loaded machine is slow, not missing.
			resp := h.Do(wire.Req{Header: wire.Headers("", ""), Body: wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)),
				Purpose: "initialize", Within: wire.T2})
			id := resp.Header.Get("Mcp-Session-Id")
			if id == "" {
				t.Fail(check.Failure{What: fmt.Sprintf("the response to initialize %d has no MCP-Session-Id header", i+1), Got: resp.Summary(),
					Cause: map[bool]string{true: check.CauseSession}[i == 0]})
			}
			if seen[id] {
				t.Fail(check.Failure{What: fmt.Sprintf("initialize %d returned a session id already issued", i+1), Got: check.Quote(id), Spec: true})
			}
			seen[id] = true
			ids = append(ids, id)
		}
	}
	t.Case("no id issued twice", func() {
		collect(32)
		if t.Target.External() {
			collect(sessionSamples)
		}
	})
	if len(ids) < 32 {
		return // an external server's part above failed: too few ids to judge
	}
	t.Case("about 128 random bits", func() {
		// 32 ids are enough to see how many bits vary.
		// A random UUID scores 124 here (its version digit is fixed), and
		// 15 random bytes 120: the course asks for more than the latter.
		if bits := estimateRandomBits(ids[:32]); bits < 122 {
			t.Fail(check.Failure{What: fmt.Sprintf("the session ids look like about %.0f random bits; the course asks for 128 (at least a random UUID's 122)", bits),
				Got: strings.Join(ids[:4], "\n"), Want: "ids such as 32 random hex digits, every one of them different from run to run"})
		}
	})
	t.Case("no math/rand pattern", func() {
		collect(sessionSamples)
		if layout, ok := mathRandPattern(ids); ok {
			t.Fail(check.Failure{What: fmt.Sprintf("the session ids follow math/rand's generator (%s): each of its outputs is the sum of the ones 273 and 607 places before, "+
				"so whoever collects some ids can compute the next ones", layout),
				Got: strings.Join(ids[:4], "\n"), Want: "ids from crypto/rand, whose outputs follow no pattern", Spec: true})
		}
	})

	// A generator seeded with a constant gives every run the same ids. A
	// server at a URL cannot be run twice: that part is left out.
	if t.Target.URL != "" {
		return
	}
	t.Case("new ids every run", func() {
		other := wire.StartHTTP(t)
		resp := other.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), "initialize on a second server")
		if first := resp.Header.Get("Mcp-Session-Id"); first == ids[0] {
			t.Fail(check.Failure{What: "two fresh runs of the server issued the same first session id: anyone can predict the ids",
				Got: check.Quote(first), Want: "a different id on every run", Spec: true})
		}
	})
}

var http33 = &check.Check{
	ID: "HTTP-33", Step: 2, Severity: check.Must, Budget: 30 * time.Second,
	Needs: check.Needs{Source: true},
	Title: "source check: newSessionID draws on crypto/rand, never on math/rand (its calls, followed with go/types)",
	Spec: check.Spec{Rev: spec.Rev, Section: "security best practices › Session Hijacking › Mitigation",
		Quote: "Generated session IDs (e.g., UUIDs) SHOULD use secure random number generators."},
	Course: "A source check, and a course rule: it reads your stage 02 code, not the wire. HTTP-10 sees only the ids, and math/rand/v2's generators " +
		"pass every test of their output; what makes an id unguessable is where it comes from. The grader type-checks the package (go/types) and " +
		"follows the calls from newSessionID through the package's own functions, methods and closures, and the package variables they use: " +
		"crypto/rand must be among what they use, and math/rand (v1 or v2) must not.",
	Hint: check.Hint{
		Report: "newSessionID must take its bytes from crypto/rand (rand.Read, or rand.Text), directly or through the package's own helpers, " +
			"and nothing it calls may use math/rand or math/rand/v2, however seeded: their output can be predicted from what an attacker sees.",
		Question: "Which package's rand does your newSessionID import: crypto/rand, or math/rand? Does anything it calls use the other?",
		Pointer:  "crypto/rand reads the operating system's cryptographic source; math/rand and math/rand/v2 are fast generators for simulations, whose state can be recovered from their output. Security best practices › Session Hijacking: session ids SHOULD come from a secure random number generator.",
		Near: `	import "crypto/rand" // not "math/rand", not "math/rand/v2"

	func newSessionID() string {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			panic(err)
		}
		return hex.EncodeToString(b[:])
	}`,
	},
	Claims: []check.Claim{
		{Claim: "newSessionID reads crypto/rand and never math/rand", Where: "concept, step 2", How: "a source check: the package type-checked with go/types, the calls from newSessionID followed through the package's own functions, methods, closures and package variables"},
	},
	Checklist: []string{"C31"},
	Run:       checkSessionIDSource,
}

// idFunc is the function of the stage that mints session ids, as the
// starter names it, and stage the stage's folder.
const idFunc, stage = "newSessionID", "02-streamable-http"

func checkSessionIDSource(t *check.T) {
	src := t.Target.Sources
	if src == nil {
		t.Failf("grader bug: the target %s says nothing of its sources", t.Target.Describe())
	}
	pkg := src.Package(stage)
	t.Wire.Event("reading %s as the build did (go list -export, go/types)", pkg)
	p, err := source.Load(t.Context(), src.Root, pkg, src.Overlay)
	if err != nil {
		t.Failf("could not read the stage's code: %v", err)
	}
	uses, err := p.Reach(idFunc)
	if err != nil {
		t.Fail(check.Failure{What: fmt.Sprintf("%s: the starter's %s, which mints the session ids, is gone", err, idFunc),
			Want: "func " + idFunc + "() string, in " + stage + "/sessions.go, as the starter has it"})
	}
	for _, weak := range []string{"math/rand", "math/rand/v2"} {
		if u, ok := uses[weak]; ok {
			t.Fail(check.Failure{What: fmt.Sprintf("%s uses %s: %s at %s:%d (%s)", idFunc, weak, u.Name, u.Pos.Filename, u.Pos.Line, strings.Join(u.Via, " → ")),
				Want: "session ids from crypto/rand only: whoever sees some of math/rand's output can predict the rest"})
		}
	}
	if _, ok := uses["crypto/rand"]; !ok {
		var used []string
		for path := range uses {
			used = append(used, path)
		}
		sort.Strings(used)
		got := "it uses no other package"
		if len(used) > 0 {
			got = "it uses " + strings.Join(used, ", ")
		}
		t.Fail(check.Failure{What: fmt.Sprintf("%s never reaches crypto/rand: the grader followed its calls through %s's own functions and found no use of it", idFunc, p.Types.Name()),
			Got: got, Want: "crypto/rand's Read (or Text), in " + idFunc + " or a function of the package it calls"})
	}
}

// sessionSamples is how many ids the grader collects to judge randomness:
// enough for math/rand's pattern, which spans 607 outputs, to show.
const sessionSamples = 320

// mathRandPattern reports whether ids carry the outputs of math/rand's
// generator (rand.New(rand.NewSource(seed)), however seeded): an additive
// lagged Fibonacci generator, whose every 64-bit output is the sum of the
// outputs 607 and 273 places before it. The ids are read as hex (dashes
// dropped) and split into outputs the ways Go code turns them into ids:
// 8 bytes each, as fmt's %016x or encoding/binary write them, or 7 bytes
// each, little-endian, as Rand.Read fills a byte slice. Outputs of a
// cryptographic source match the sum by chance with odds of 2^-56 each.
func mathRandPattern(ids []string) (layout string, found bool) {
	var stream []byte
	for _, id := range ids {
		b, err := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
		if err != nil || len(b) == 0 {
			return "", false
		}
		stream = append(stream, b...)
	}
	const mask = 1<<56 - 1
	hits := func(values []uint64) int {
		n := 0
		for k := 607; k < len(values); k++ {
			if (values[k]-values[k-607]-values[k-273])&mask == 0 {
				n++
			}
		}
		return n
	}
	chunks := func(offset, size int, value func([]byte) uint64) []uint64 {
		var out []uint64
		for i := offset; i+size <= len(stream); i += size {
			out = append(out, value(stream[i:i+size]))
		}
		return out
	}
	le := func(b []byte) uint64 {
		var v uint64
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	be := func(b []byte) uint64 {
		var v uint64
		for _, c := range b {
			v = v<<8 | uint64(c)
		}
		return v
	}
	if hits(chunks(0, 8, be)) >= 3 {
		return "8 bytes per output, big-endian, as fmt.Sprintf(\"%016x\", r.Uint64()) writes them", true
	}
	if hits(chunks(0, 8, le)) >= 3 {
		return "8 bytes per output, little-endian", true
	}
	for offset := 0; offset < 7; offset++ {
		if hits(chunks(offset, 7, le)) >= 3 {
			return "7 bytes per output, as math/rand's Rand.Read fills a slice", true
		}
	}
	return "", false
}

// estimateRandomBits judges how many random bits a set of ids carries. A
// position of the id counts only if it varies across the samples, and
// then for as many bits as one character of the id's alphabet holds.
// Counters, timestamps and short ids score low; 128 random bits in any
// common encoding score about 128.
func estimateRandomBits(ids []string) float64 {
	longest := 0
	for _, id := range ids {
		longest = max(longest, len(id))
	}
	varying := 0
	alphabet := map[byte]bool{}
	for pos := 0; pos < longest; pos++ {
		values := map[byte]bool{}
		for _, id := range ids {
			if pos < len(id) {
				values[id[pos]] = true
			}
		}
		if len(values) >= 4 {
			varying++
			for c := range values {
				alphabet[c] = true
			}
		}
	}
	size := 0
	switch {
	case len(alphabet) <= 10:
		size = 10
	case len(alphabet) <= 16:
		size = 16
	case len(alphabet) <= 32:
		size = 32
	case len(alphabet) <= 64:
		size = 64
	default:
		size = 94
	}
	return float64(varying) * math.Log2(float64(size))
}

var http11 = &check.Check{
	ID: "HTTP-11", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title:  "without MCP-Session-Id, a request, a notification, a response or a batch gets 400",
	Spec:   spec.Session("Servers that require a session ID SHOULD respond to requests without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request"),
	Course: "The spec says SHOULD; the course requires 400. A 200 with an error inside tells a client's HTTP layer that all went well.",
	Hint: check.Hint{
		Report:   "Every message except initialize must carry the header, notifications too: they need no answer, but they still belong to a session. Without it, answer 400 before anything else happens.",
		Question: "What does your server do with a request that carries no MCP-Session-Id once sessions exist: serve it, or refuse it, and with which status?",
		Pointer:  "› Session Management: servers that require a session id SHOULD answer a request without it (other than initialize) with 400 Bad Request; the course requires it. r.Header.Get(\"Mcp-Session-Id\") is \"\" when the header is absent (header names are case-insensitive).",
		Near: `In Session, stateful mode:

	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest, "missing MCP-Session-Id header")
		return nil, nil, false
	}`,
	},
	Claims: []check.Claim{
		{Claim: "every message but initialize needs the header: 400 without it", Where: "concept, step 2", How: "a request, a notification, a response and a batch"},
	},
	Checklist: []string{"C34"},
	Run:       checkHTTPMissingSession,
}

func checkHTTPMissingSession(t *check.T) {
	h := wire.StartHTTP(t)
	h.Initialize(spec.Rev)
	for _, m := range []struct{ body, what string }{
		{wire.Request(`2`, "tools/list", nil), "a request"},
		{wire.Notification("notifications/grader-unknown", nil), "a notification"},
		{`{"jsonrpc":"2.0","id":"srv-1","result":{}}`, "a response"},
		{"[" + wire.Request(`3`, "ping", nil) + "]", "a batch"},
	} {
		resp := h.Post("", spec.Rev, m.body, m.what+" without MCP-Session-Id")
		if resp.Status != http.StatusBadRequest {
			t.Fail(check.Failure{What: m.what + " without MCP-Session-Id, after a session was set up, did not get 400", Got: resp.Summary(), Want: "HTTP 400"})
		}
	}
}

var http12 = &check.Check{
	ID: "HTTP-12", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title: "an unknown session id gets 404, for requests, notifications and DELETE, and is never adopted",
	Spec:  spec.Ended,
	Course: "The spec's words are about a session that has ended: its id MUST get 404. The course requires the same for an id the server never issued, " +
		"as the SDKs and the conformance suite answer it, and that such an id is never adopted: session ids come from the server only.",
	Hint: check.Hint{
		Report:   "Look the id up in your session map, for every message; if it is not there, answer 404 (a notification too: it cannot be delivered). Never create a session for an id the client made up: session ids come from the server only.",
		Question: "What happens when a client sends a session id your server never issued? Could it ever end up with a session under that id?",
		Pointer:  "› Session Management: for a session that has ended, or never existed, the server MUST answer 404 Not Found, and the client starts over with initialize. Session ids come only from the server (a client-chosen id is session fixation).",
		Near: `In Session, after the header check:

	sess, release, ok := h.sessions.acquire(id)
	if !ok {
		httpjson.Error(w, http.StatusNotFound, codeSessionNotFound, "session not found: initialize again")
		return nil, nil, false
	}
	return sess, release, true

Only serveInitialize calls create, and always with newSessionID().`,
	},
	Claims: []check.Claim{
		{Claim: "an unknown, expired or deleted id gets 404, and is never adopted", Where: "concept, step 2", How: "a request twice, a notification, DELETE", Also: []string{"HTTP-13", "HTTP-16"}},
	},
	Checklist: []string{"C35"},
	Run:       checkHTTPUnknownSession,
}

func checkHTTPUnknownSession(t *check.T) {
	h := wire.StartHTTP(t)
	h.Initialize(spec.Rev)
	t.Case("an id the server never issued", func() {
		madeUp := "grader-made-up-session-id"
		for i := 1; i <= 2; i++ {
			resp := h.Post(madeUp, spec.Rev, wire.Request(`2`, "ping", nil), "ping with a session id the server never issued")
			if resp.Status != http.StatusNotFound {
				what := "a request with a session id the server never issued did not get 404"
				if i == 2 {
					what = "the made-up session id was refused once, then accepted: the server adopted an id the client chose"
				}
				t.Fail(check.Failure{What: what, Got: resp.Summary(), Want: "HTTP 404, every time"})
			}
		}
		resp := h.Post(madeUp, spec.Rev, wire.Notification("notifications/grader-unknown", nil), "a notification with a session id the server never issued")
		if resp.Status != http.StatusNotFound {
			t.Fail(check.Failure{What: "a notification with a session id the server never issued did not get 404", Got: resp.Summary(),
				Want: "HTTP 404: there is no session to deliver it to"})
		}
		resp = h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(madeUp, spec.Rev), Purpose: "DELETE of a session that never existed"})
		if resp.Status != http.StatusNotFound {
			t.Fail(check.Failure{What: "DELETE of a session that never existed did not get 404", Got: resp.Summary(), Want: "HTTP 404"})
		}
	})
	if !t.Target.External() {
		return // the course's servers: HTTP-13 grades the ids of ended sessions
	}
	// An external server is graded on the spec's own words too: the id of a
	// session it has ended, here with DELETE.
	t.Case("a session that has ended", func() {
		session := initializeSession(t, h)
		resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, spec.Rev), Purpose: "DELETE the session, to end it"})
		if resp.Status < 200 || resp.Status > 299 {
			t.Wire.Event("the server did not end the session with DELETE (HTTP %d), which the spec allows (405): no ended session to ask about", resp.Status)
			return
		}
		defer t.SpecRule()()
		resp = h.Post(session, spec.Rev, wire.Request(`2`, "ping", nil), "ping with the ended session's id")
		if resp.Status != http.StatusNotFound {
			t.Fail(check.Failure{What: "a request with the id of a session that DELETE ended did not get 404", Got: resp.Summary(), Want: "HTTP 404"})
		}
		resp = h.Post(session, spec.Rev, wire.Notification("notifications/grader-unknown", nil), "a notification with the ended session's id")
		if resp.Status != http.StatusNotFound {
			t.Fail(check.Failure{What: "a notification with the id of a session that DELETE ended did not get 404", Got: resp.Summary(), Want: "HTTP 404"})
		}
		resp = h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, spec.Rev), Purpose: "a second DELETE of the ended session"})
		if resp.Status != http.StatusNotFound {
			t.Fail(check.Failure{What: "a second DELETE of a session the first one ended did not get 404", Got: resp.Summary(), Want: "HTTP 404: the session has ended"})
		}
	})
}

var http13 = &check.Check{
	ID: "HTTP-13", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title:  "DELETE ends the session: what runs in it stops, and its id then gets 404",
	Spec:   spec.Session("Clients that no longer need a particular session SHOULD send an HTTP DELETE to the MCP endpoint with the MCP-Session-Id header"),
	Course: "The spec lets a server refuse DELETE with 405. The course requires it to end the session (2xx; on the course's servers 204 No Content), and 400 when the header is missing.",
	Hint: check.Hint{
		Report:   "On DELETE, remove the session from the map, cancel what runs in it (session.Close, which endLocked calls), and answer 204. Later requests with that id, and a second DELETE, then get 404.",
		Question: "Does DELETE reach your handler? After it, what does a request with the deleted id get?",
		Pointer:  "› Session Management: clients SHOULD send DELETE with MCP-Session-Id when done; once a session has ended, its id MUST get 404. 204 No Content is http.StatusNoContent.",
		Near: `Route DELETE to serveDELETE in stateful mode, and there:

	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		// 400
	}
	if !h.sessions.remove(id) {
		// 404
	}
	w.WriteHeader(http.StatusNoContent)

remove calls endLocked, which closes the mcp.Session.`,
	},
	Claims: []check.Claim{
		{Claim: "DELETE ends the session (204), 400 without the header, 404 after", Where: "concept, step 2"},
		{Claim: "DELETE cancels what runs in the session (session.Close)", Where: "step 2", How: "a 3 s countdown in the session must end within 1 s of the DELETE, without its result"},
	},
	Checklist: []string{"C34", "C35", "C38", "D8"},
	Split: &check.Split{Rule: "an ended session", Parts: "404 for the id of a session that has ended is the spec's MUST; 404 for an id never issued, ending a session with DELETE, " +
		"cancelling what runs in it, and 400 without the header are the course's", Also: []string{"HTTP-12", "SSE-02"}},
	Run: checkHTTPDelete,
}

func checkHTTPDelete(t *check.T) {
	h := wire.StartHTTP(t)
	session, _ := h.Initialize(spec.Rev)
	t.Case("DELETE without MCP-Session-Id", func() {
		resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers("", spec.Rev), Purpose: "DELETE without MCP-Session-Id"})
		if resp.Status != http.StatusBadRequest {
			t.Fail(check.Failure{What: "DELETE without MCP-Session-Id did not get 400", Got: resp.Summary(), Want: "HTTP 400"})
		}
	})

	// A 3 s countdown runs in the session when it is deleted: it must stop.
	running := make(chan *wire.Response, 1)
	go func() {
		defer close(running)
		running <- h.Do(wire.Req{Header: wire.Headers(session, spec.Rev), Within: 5 * time.Second, Purpose: "a 3 s countdown, running when its session is deleted",
			Body: wire.Request(`"running"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 30, "interval_ms": 100}, nil))})
	}()
	probe.Pause(t, 200*time.Millisecond)
	var deleted time.Time
	t.Case("DELETE of a live session", func() {
		resp := h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, spec.Rev), Purpose: "DELETE of the session"})
		if resp.Status < 200 || resp.Status > 299 {
			t.Fail(check.Failure{What: "DELETE of a live session did not succeed", Got: resp.Summary(), Want: "a 2xx status, such as 204"})
		}
		if !t.Target.External() && (resp.Status != http.StatusNoContent || len(resp.Body) != 0) {
			t.Fail(check.Failure{What: "DELETE of a live session did not get 204 No Content", Got: resp.Summary(), Want: "HTTP 204, empty body: the session is ended and there is nothing to say"})
		}
		deleted = time.Now()
	})
	if deleted.IsZero() {
		return // an external server's DELETE did not end the session: nothing more to judge
	}
	t.Case("the deleted session's id", func() {
		// The session has ended: the spec's MUST.
		resp := h.Post(session, spec.Rev, wire.Request(`2`, "ping", nil), "ping with the deleted session id")
		if resp.Status != http.StatusNotFound {
			t.Fail(check.Failure{What: "after DELETE, a request with the session's id did not get 404", Got: resp.Summary(), Want: "HTTP 404",
				Cites: &spec.Ended})
		}
		resp = h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, spec.Rev), Purpose: "a second DELETE of the same session"})
		if resp.Status != http.StatusNotFound {
			t.Fail(check.Failure{What: "a second DELETE of the same session did not get 404", Got: resp.Summary(), Want: "HTTP 404: the session is gone",
				Cites: &spec.Ended})
		}
	})
	t.Case("what ran in the session", func() {
		countdown, ok := <-running
		if !ok {
			t.FailNow() // the countdown's request failed; its report says why
		}
		if m := countdown.Find(`"running"`); m != nil && m.Error == nil {
			t.Fail(check.Failure{What: "the countdown running in the deleted session ran on to its end, and got its result", Got: countdown.Summary(),
				Want: "the request stops when its session ends (session.Close cancels it)"})
		}
		if waited := time.Since(deleted); waited > time.Second {
			t.Fail(check.Failure{What: fmt.Sprintf("the countdown running in the deleted session took %v more to end", waited.Round(time.Millisecond)),
				Want: "the request stops within moments of the DELETE"})
		}
	})
}

var http14 = &check.Check{
	ID: "HTTP-14", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Title: "sessions are isolated: one session's notes are not another's",
	Spec:  spec.Session(`An MCP "session" consists of logically related interactions between a client and a server`),
	Course: "Each MCP-Session-Id names one conversation. The course requires each to have its own mcp.Session, so that " +
		"state such as notes never crosses from one client to another.",
	Hint: check.Hint{
		Report:   "Keep one *mcp.Session per session id (server.NewSession() at initialize), and route every request to the session its header names.",
		Question: "Do two clients with different session ids talk to two different mcp.Session values, or to one shared session?",
		Pointer:  "› Session Management: a session is one client's logically related interactions. mcp.Server.NewSession returns a fresh session with its own notes; keep one per id in a map.",
		Near: `One *mcp.Session per id, created once:

	func (s *sessionStore) create(server *mcp.Server, id string) (*Session, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		// … the cap
		sess := &Session{Session: server.NewSession(), id: id, lastUsed: time.Now()}
		s.byID[id] = sess
		return sess, nil
	}

Each request uses the session acquire returns for its own header, never a field of the Handler.`,
	},
	Claims: []check.Claim{
		{Claim: "each session has its own mcp.Session: notes never cross", Where: "concept, step 2"},
	},
	Run: checkHTTPIsolation,
}

func checkHTTPIsolation(t *check.T) {
	h := wire.StartHTTP(t)
	a, _ := h.Initialize(spec.Rev)
	b, _ := h.Initialize(spec.Rev)
	if a == b {
		t.Fail(check.Failure{What: "two initializes returned the same session id", Got: check.Quote(a)})
	}
	note := fmt.Sprintf("alpha-%d", time.Now().UnixNano()%1e6)
	probe.CallTool(t, h, a, `2`, "add_note", map[string]any{"text": note})
	if got := probe.CallTool(t, h, b, `3`, "list_notes", nil); strings.Contains(got, note) {
		t.Fail(check.Failure{What: "session B lists a note that session A saved", Got: check.Quote(got), Want: "no notes from another session"})
	}
	if got := probe.CallTool(t, h, a, `4`, "list_notes", nil); !strings.Contains(got, note) {
		t.Fail(check.Failure{What: "session A does not list the note it saved", Got: check.Quote(got), Want: "a list holding " + check.Quote(note)})
	}
}

var http15 = &check.Check{
	ID: "HTTP-15", Step: 2, Severity: check.Must, Budget: 10 * time.Second,
	Title: "many sessions at once stay correct, and a slow request holds up no one",
	Spec:  spec.HTTP("", "the server operates as an independent process that can handle multiple client connections"),
	Course: "The spec describes a server that handles many clients without saying how well. The course requires 16 clients at once to be served correctly, " +
		"each in its own session, while a slow request in another session runs.",
	Hint: check.Hint{
		Report:   "net/http runs each request on its own goroutine. Guard the session map with a sync.Mutex held only while you touch the map, never while a request runs, and keep per-request state in local variables, not in fields of the handler. Run the grader with GRADER_RACE=1 to let the race detector look too.",
		Question: "net/http serves each request on its own goroutine: what in your handler is shared between them, and is every access to it guarded? Is a lock ever held while a request runs?",
		Pointer:  "sync.Mutex around the session map and each session's bookkeeping (lastUsed, active); hold it only while you touch the map. Run the grader with GRADER_RACE=1 so the race detector looks too. basic/transports: one server, many client connections.",
		Near: `Lock only around the map and the bookkeeping; the request runs unlocked:

	func (s *sessionStore) acquire(id string) (*Session, func(), bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		sess, ok := s.byID[id]
		if !ok {
			return nil, nil, false
		}
		sess.active++
		return sess, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			sess.active--
			sess.lastUsed = time.Now()
		}, true
	}`,
	},
	Claims: []check.Claim{
		{Claim: "the session map is guarded by a mutex held only for the map; no lock across a request", Where: "step 2", How: "16 clients at once must finish while a 4 s countdown runs in another session; the race detector runs with GRADER_RACE=1"},
	},
	Run: checkHTTPConcurrentSessions,
}

func checkHTTPConcurrentSessions(t *check.T) {
	h := wire.StartHTTP(t)

	// A slow request in one session must not hold up the others: every
	// client below must be done before it could have ended. The grader
	// hangs up on it at the end rather than wait for it: how a server ends
	// a cancelled request is HTTP-23's business.
	slow, _ := h.Initialize(spec.Rev)
	const slowFor = 4 * time.Second
	slowSent := time.Now()
	h.Abandon(wire.Req{Header: wire.Headers(slow, spec.Rev), Purpose: "a 4 s countdown in another session",
		Body: wire.Request(`"slow"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 40, "interval_ms": 100}, nil))}, 6*time.Second)
	probe.Pause(t, 100*time.Millisecond) // let the countdown start

	const n = 16
	var clients []func()
	for i := 0; i < n; i++ {
		i := i
		clients = append(clients, func() {
			session, _ := h.Initialize(spec.Rev)
			note := fmt.Sprintf("note of client %d", i)
			probe.CallTool(t, h, session, `2`, "add_note", map[string]any{"text": note})
			probe.CallTool(t, h, session, `3`, "countdown", map[string]any{"from": 2, "interval_ms": 20})
			if got, want := probe.CallTool(t, h, session, `4`, "list_notes", nil), "1. "+note; got != want {
				t.Fail(check.Failure{What: fmt.Sprintf("with %d clients at once, client %d's session lists the wrong notes", n, i),
					Got: check.Quote(got), Want: check.Quote(want)})
			}
			if took := time.Since(slowSent); took >= slowFor {
				t.Fail(check.Failure{What: fmt.Sprintf("client %d finished its four short requests %v after a 4 s countdown began in another session, only once it could have ended: the slow request held it up",
					i, took.Round(time.Millisecond)), Want: "every client served while the countdown runs"})
			}
		})
	}
	t.Parallel(clients...)
	h.Post(slow, spec.Rev, wire.Notification("notifications/cancelled", map[string]any{"requestId": "slow"}), "cancel the slow countdown")
}

var http16 = &check.Check{
	ID: "HTTP-16", Step: 2, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Flags: []string{"-session-timeout", "-max-sessions"}},
	Title: "an idle session expires: it then gets 404, and no longer takes a place under the session cap",
	Spec: check.Spec{Rev: spec.Rev, Section: "basic/transports › Streamable HTTP › Session Management; security best practices › Session Hijacking › Mitigation",
		Quote: "Rotating or expiring session IDs can also reduce the risk"},
	Course: "Clients vanish without sending DELETE. The course requires idle sessions to expire after a timeout " +
		"(-session-timeout; the grader sets 1s), so abandoned sessions do not pile up in memory.",
	Hint: check.Hint{
		Report: "Record when each session was last used; when a lookup finds it idle for longer than the timeout, end it and answer 404. " +
			"Sweep the map now and then too, and before refusing an initialize at the cap: expired sessions must not keep their places.",
		Question: "A client that vanishes never sends DELETE: when does its session end in your server? How do you know how long a session has been idle?",
		Pointer:  "› Session Management and security best practices › Session Hijacking: expiring session ids reduces the risk. time.Since(sess.lastUsed) > s.timeout tells you a session is idle; the grader starts your server with -session-timeout 1s.",
		Near: `In acquire, under the lock, before counting the session busy:

	if sess.active == 0 && time.Since(sess.lastUsed) > s.timeout {
		s.endLocked(sess)
		return nil, nil, false
	}

And in sweepLocked(now):

{{quote 1}}`,
		Quotes: []check.Source{{File: "solutions/02-streamable-http/sessions.go", Func: "acquire"}, {File: "solutions/02-streamable-http/sessions.go", Func: "sweepLocked"}},
	},
	Claims: []check.Claim{
		{Claim: "an idle session expires, then gets 404", Where: "concept, step 2", How: "-session-timeout 1s, 1.6 s idle"},
		{Claim: "expired sessions are swept, and free their places under the cap", Where: "step 2", How: "cap 2, both expired, a third initialize must succeed"},
	},
	Checklist: []string{"C35"},
	Run:       checkHTTPSessionExpiry,
}

func checkHTTPSessionExpiry(t *check.T) {
	h := wire.StartHTTP(t, "-session-timeout", "1s", "-max-sessions", "2")
	session, _ := h.Initialize(spec.Rev)
	h.Initialize(spec.Rev) // the second and last place
	probe.ExpectStatus(t, h.Post(session, spec.Rev, wire.Request(`2`, "ping", nil), "ping while the session is fresh"), http.StatusOK, "ping while the session is fresh")
	t.Wire.Event("waiting 1.6 s: both sessions are idle past their 1 s timeout")
	probe.Pause(t, 1600*time.Millisecond)
	resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), "initialize, with -max-sessions 2 and both sessions expired")
	if resp.Status != http.StatusOK {
		t.Fail(check.Failure{What: "with -max-sessions 2 and both sessions idle past their timeout, a new initialize was refused: expired sessions still take places",
			Got: resp.Summary(), Want: "HTTP 200: sweep expired sessions before counting them against the cap"})
	}
	resp = h.Post(session, spec.Rev, wire.Request(`3`, "ping", nil), "ping after 1.6 s idle")
	if resp.Status != http.StatusNotFound {
		t.Fail(check.Failure{What: "a session idle for 1.6 s, with -session-timeout 1s, still answers", Got: resp.Summary(), Want: "HTTP 404"})
	}
}

var http36 = &check.Check{
	ID: "HTTP-36", Step: 2, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Flags: []string{"-session-timeout", "-max-sessions"}},
	Title: "a session expires the moment its timeout passes: the first request or DELETE after it gets 404, and an initialize at the cap finds its place, whenever the sweeper runs",
	Spec:  spec.Ended,
	Course: "The course's sessions end once they have been idle for -session-timeout; a sweeper that runs now and then only tidies up. " +
		"The grader asks eight sessions (-session-timeout 2s), started an eighth of the sweeper's half-timeout period apart, again just after their timeout, " +
		"four with a ping and four with DELETE: a server that leaves expiry to its sweeper serves at least one of each, and makes it young again.",
	Hint: check.Hint{
		Report: "Judge expiry where a session is looked up, not only in the sweeper: in acquire (and in remove, for DELETE), a session with no request running " +
			"that has been idle longer than the timeout has ended: end it there and answer 404.",
		Question: "Between the moment a session's timeout passes and the next run of your sweeper, what does a request with its id get? And a DELETE?",
		Pointer:  "› Session Management: once the server has ended a session, requests with its id MUST get 404. A timeout ends a session when it passes, not when a sweeper notices.",
		Near: `In acquire, under the lock:

	if sess.active == 0 && time.Since(sess.lastUsed) > s.timeout {
		s.endLocked(sess)
		return nil, nil, false
	}

and in remove, the same test decides whether the DELETE found a live session.`,
	},
	Claims: []check.Claim{
		{Claim: "a session ends when its timeout passes, not at the next sweep: a request or a DELETE just after it gets 404", Where: "step 2",
			How: "-session-timeout 2s; eight sessions started 125 ms apart, each asked 2.04 s after its last request (four with a ping, four with DELETE): all must get 404"},
		{Claim: "at the cap, an expired session's place is free at once: the store sweeps before it counts", Where: "step 2",
			How: "two servers with -session-timeout 1s -max-sessions 1: an initialize 1.04 s after the only session's last request must succeed"},
	},
	Checklist: []string{"C35"},
	Run:       checkHTTPExpiryAtOnce,
}

func checkHTTPExpiryAtOnce(t *check.T) {
	h := wire.StartHTTP(t, "-session-timeout", "2s")
	// The sweeper of the reference runs every half timeout, 1 s. Eight
	// sessions an eighth of that apart are asked in eight windows spread
	// over the period, pings and DELETEs in turn, so that the four of each
	// kind are 250 ms apart. A window lasts from the timeout to the
	// request's arrival: a few tens of milliseconds, more on a busy
	// machine. A server that leaves expiry to its sweeper serves at least
	// one ping and one DELETE unless every window is longer than 750 ms.
	// The reference ends each session where it looks it up: 404 whatever
	// the timing.
	const timeout, spacing, after = 2 * time.Second, 125 * time.Millisecond, 40 * time.Millisecond
	ask := func(i int) func() {
		return func() {
			probe.Pause(t, time.Duration(i)*spacing)
			session := initializeSession(t, h)
			last := time.Now() // the server saw the session's last request before this
			probe.Pause(t, time.Until(last.Add(timeout+after)))
			var resp *wire.Response
			what := "a ping"
			if i%2 == 0 {
				resp = h.Post(session, spec.Rev, wire.Request(`2`, "ping", nil), "ping, just after the session's 2 s timeout")
			} else {
				what = "a DELETE"
				resp = h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(session, spec.Rev), Purpose: "DELETE, just after the session's 2 s timeout"})
			}
			if resp.Status != http.StatusNotFound {
				t.Fail(check.Failure{What: fmt.Sprintf("%s in a session idle for just over its 2 s timeout got HTTP %d: the session had expired, but was still served", what, resp.Status),
					Got: resp.Summary(), Want: "HTTP 404: a session ends when its timeout passes, whenever the sweeper runs next"})
			}
		}
	}
	// At the cap, an initialize just after the only session's timeout must
	// find its place free: the store sweeps before it counts. Two servers,
	// whose sweepers tick at phases of their own, so that a tick falling
	// in the window of both is most unlikely.
	atCap := func(n int) func() {
		return func() {
			other := wire.StartHTTP(t, "-session-timeout", "1s", "-max-sessions", "1")
			other.Initialize(spec.Rev)
			last := time.Now()
			probe.Pause(t, time.Until(last.Add(timeout+after)))
			resp := other.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)),
				fmt.Sprintf("initialize on server %d, with -max-sessions 1, just after its only session's 1 s timeout", n))
			if resp.Status != http.StatusOK {
				t.Fail(check.Failure{What: "with -max-sessions 1, an initialize just after the only session's 1 s timeout was refused: the expired session still held its place",
					Got: resp.Summary(), Want: "HTTP 200: sweep the expired sessions before counting them against the cap, whenever the sweeper runs next"})
			}
		}
	}
	t.Parallel(ask(0), ask(1), ask(2), ask(3), ask(4), ask(5), ask(6), ask(7), atCap(1), atCap(2))
}

var http42 = &check.Check{
	ID: "HTTP-42", Step: 2, Severity: check.Must, Budget: 10 * time.Second,
	Needs: check.Needs{Flags: []string{"-session-timeout", "-debug"}},
	Title: "expired sessions are freed though nobody names them again: their memory comes back (heap via -debug's /debug/vars)",
	Spec: check.Spec{Rev: spec.Rev, Section: "basic/transports › Streamable HTTP › Session Management; security best practices › Session Hijacking › Mitigation",
		Quote: "Rotating or expiring session IDs can also reduce the risk"},
	Course: "Clients vanish without DELETE, and never send their session id again. The course requires their sessions to be ended by the server itself " +
		"(a sweeper), so that what they hold goes back to the runtime. The grader fills eight sessions with 40 notes of 4000 bytes each (-session-timeout 2s), " +
		"then never names them again, and wants the server's live heap (-debug's heap_live, after a GC) back near where it was within 3.5 s of the last request.",
	Hint: check.Hint{
		Report: "Start a sweeper with the store (go s.sweepEvery(...)), which ticks every half timeout and ends every idle session past its timeout; " +
			"ending a session deletes it from the map, so nothing holds it any more.",
		Question: "A client that vanishes never sends its session id again: what ends its session in your server, and when is its memory freed?",
		Pointer:  "Lesson 02, step 2: newSessionStore starts sweepEvery, whose ticker runs sweepLocked, which calls endLocked for each idle session past the timeout. A time.Ticker's channel delivers a tick per interval.",
		Near: `In sweepEvery:

	for {
		select {
		case <-s.stop:
			return
		case now := <-ticker.C:
			s.mu.Lock()
			s.sweepLocked(now)
			s.mu.Unlock()
		}
	}`,
		Quotes: []check.Source{{File: "solutions/02-streamable-http/sessions.go", Func: "sweepEvery"}},
	},
	Claims: []check.Claim{
		{Claim: "expired sessions are ended by the server itself, and their memory freed, though no request names them again", Where: "step 2",
			How: "-session-timeout 2s -debug: eight sessions of 40 notes of 4000 bytes, eight clients at once; heap_live must grow by 0.9 MB, then be back within 0.45 MB of the start 3.5 s after the last request"},
	},
	Run: checkExpiredSessionsFreed,
}

func checkExpiredSessionsFreed(t *check.T) {
	// A timeout of 2 s: long enough that a loaded machine's pause between
	// two add_note calls of one session does not end it.
	h := wire.StartHTTP(t, "-session-timeout", "2s", "-debug")
	h.CloseIdleConnections()
	base := h.VarInt("heap_live")
	t.Wire.Event("baseline: heap_live %d bytes", base)
	// Eight sessions of 40 notes of 4000 bytes, written by eight clients
	// at once, one add_note each time.
	const sessions, notes, size = 8, 40, 4000
	var fill []func()
	for i := 0; i < sessions; i++ {
		i := i
		fill = append(fill, func() {
			session := initializeSession(t, h)
			for n := 0; n < notes; n++ {
				text := fmt.Sprintf("%d-%d-", i, n) + strings.Repeat("m", size-10)
				resp := h.Do(wire.Req{Header: wire.Headers(session, spec.Rev), Within: wire.T2, Purpose: "add_note, 4000 bytes",
					Body: wire.Request(fmt.Sprint(n+2), "tools/call", wire.ToolCall("add_note", map[string]any{"text": text}, nil))})
				if m := resp.Find(fmt.Sprint(n + 2)); m == nil || m.Error != nil {
					t.Fail(check.Failure{What: "add_note did not get its result", Got: resp.Summary(), Want: "its result (HTTP-14)"})
				}
			}
		})
	}
	t.Parallel(fill...)
	last := time.Now()
	h.CloseIdleConnections()
	full := h.VarInt("heap_live")
	t.Wire.Event("with eight sessions of notes: heap_live %d bytes", full)
	if full < base+900<<10 {
		t.Fail(check.Failure{What: fmt.Sprintf("320 notes of 4000 bytes grew the server's live heap by only %d bytes", full-base),
			Want: "notes kept in their sessions (HTTP-14), about 1.3 MB"})
	}
	var now int64
	// Expired 2 s after the last request, swept within half a timeout
	// more: 3 s, and a margin.
	if probe.Settle(t, time.Until(last.Add(3500*time.Millisecond)), func() bool {
		now = h.VarInt("heap_live")
		return now <= base+450<<10
	}) {
		return
	}
	t.Fail(check.Failure{What: fmt.Sprintf("3.5 s after the last request of eight sessions with a 2 s timeout, the server's live heap is still %d bytes above where it began (%d with them full)", now-base, full-base),
		Want: "the expired sessions ended by the server itself and their notes freed, though no request names them again"})
}

var http17 = &check.Check{
	ID: "HTTP-17", Step: 2, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Flags: []string{"-max-sessions"}},
	Title: "at the session cap, initialize gets 503 with Retry-After and the rest keeps working; a failed or refused initialize takes no place",
	Spec:  spec.NoLimit,
	Course: "A flood of initialize requests must not exhaust memory. The course requires a cap on live sessions " +
		"(-max-sessions; the grader sets 3) and a clear refusal beyond it: 503 Service Unavailable (429 also passes).",
	Hint: check.Hint{
		Report: "Before creating a session, count the live ones; at the cap, answer 503 with a Retry-After header. Sessions that exist keep working, and ending one frees a place. " +
			"An initialize that fails (an error response) starts nothing: remove its session again, and send no MCP-Session-Id.",
		Question: "What stops a client from opening sessions until your server runs out of memory? What does the next initialize get when the cap is reached?",
		Pointer:  "The spec sets no limit; the course asks for -max-sessions and 503 Service Unavailable (http.StatusServiceUnavailable) with a Retry-After header beyond it. Ending a session (DELETE, expiry) must free its place.",
		Near: `In create, under the lock:

	if len(s.byID) >= s.max {
		s.sweepLocked(time.Now())
	}
	if len(s.byID) >= s.max {
		return nil, errTooManySessions
	}

In serveInitialize:

	if errors.Is(err, errTooManySessions) {
		w.Header().Set("Retry-After", "30")
		httpjson.Error(w, http.StatusServiceUnavailable, codeServerError, "too many sessions; try again later")
		return
	}`,
	},
	Claims: []check.Claim{
		{Claim: "at the cap, initialize gets 503 (or 429) with Retry-After; live sessions keep working; DELETE frees a place", Where: "step 2"},
		{Claim: "a failed or refused initialize starts nothing: no id, no place", Where: "step 2", How: "two failing initializes and two refused ones (they carry MCP-Session-Id; their 400 must be one JSON-RPC error), then three good ones under a cap of 3"},
	},
	Run: checkHTTPSessionCap,
}

func checkHTTPSessionCap(t *check.T) {
	h := wire.StartHTTP(t, "-max-sessions", "3")
	// Failed initializes first: they start nothing, so they take no place.
	for i := 0; i < 2; i++ {
		resp := h.Post("", "", wire.Request(`1`, "initialize", map[string]any{"capabilities": map[string]any{}}), "an initialize without protocolVersion, which fails")
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			t.Fail(check.Failure{What: "an initialize that failed (it had no protocolVersion) was given a session id", Got: resp.Summary(),
				Want: "no MCP-Session-Id: a failed initialize starts no session"})
		}
		if m := resp.Find(`1`); m == nil || m.Error == nil {
			t.Fail(check.Failure{What: "the answer to an initialize that failed (it had no protocolVersion) is not its one error response", Got: resp.Summary(),
				Want: `one JSON-RPC error response with "id":1, written once`})
		}
	}
	// Refused initializes too: one that names a session gets 400, and a
	// refusal starts nothing either.
	for i := 0; i < 2; i++ {
		resp := h.Post("grader-made-up-session-id", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), "an initialize that carries MCP-Session-Id, which is refused")
		if resp.Status != http.StatusBadRequest {
			t.Fail(check.Failure{What: "an initialize that carries MCP-Session-Id was not refused", Got: resp.Summary(), Want: "HTTP 400 (HTTP-09)"})
		}
		if resp.ErrorBody() == nil {
			t.Fail(check.Failure{What: "the 400 to an initialize that carries MCP-Session-Id is not one JSON-RPC error: something was written after the refusal, so the initialize ran on",
				Got: resp.Summary(), Want: "one JSON-RPC error body, and nothing after it: return once the 400 is written"})
		}
	}
	var sessions []string
	for i := 0; i < 3; i++ {
		resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), fmt.Sprintf("initialize %d of 3, with -max-sessions 3", i+1))
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: fmt.Sprintf("with -max-sessions 3, initialize %d of 3 was refused, after two initializes that failed and two that were refused", i+1), Got: resp.Summary(),
				Want: "HTTP 200: failed and refused initializes take no place"})
		}
		sessions = append(sessions, resp.Header.Get("Mcp-Session-Id"))
	}
	resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), "a 4th initialize, with -max-sessions 3")
	if resp.Status != http.StatusServiceUnavailable && resp.Status != http.StatusTooManyRequests {
		t.Fail(check.Failure{What: "with -max-sessions 3, a 4th session was not refused", Got: resp.Summary(), Want: "HTTP 503 (or 429)"})
	}
	if resp.Header.Get("Retry-After") == "" {
		t.Fail(check.Failure{What: "the refusal of a 4th session does not say when to try again", Got: resp.Summary(), Want: "a Retry-After header, such as Retry-After: 30"})
	}
	for i, s := range sessions {
		probe.ExpectStatus(t, h.Post(s, spec.Rev, wire.Request(`2`, "ping", nil), fmt.Sprintf("ping in session %d while full", i+1)), http.StatusOK,
			"a ping in an existing session while the server is full")
	}
	h.Do(wire.Req{Method: http.MethodDelete, Header: wire.Headers(sessions[0], spec.Rev), Purpose: "DELETE one session"})
	resp = h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), "initialize after a DELETE freed a place")
	probe.ExpectStatus(t, resp, http.StatusOK, "an initialize once a DELETE has freed a place")
}

var http41 = &check.Check{
	ID: "HTTP-41", Step: 2, Severity: check.Must, Budget: 6 * time.Second,
	Needs: check.Needs{Flags: []string{"-max-sessions", "-max-body", "-session-timeout"}},
	Title: "the limits' flags at their edges: -max-sessions 1, -max-body 1 and -session-timeout 1ns mean one; 0 means the default, the one -help states",
	Spec:  spec.NoLimit,
	Course: "The spec sets no limits; the course's flags set them. A limit of one is a limit of one (a second session gets 503, a body of two bytes 413), " +
		"and zero means the default (Options: \"the zero value gives ... the defaults\"): -max-sessions 0, -max-body 0 and -session-timeout 0 " +
		"must serve as 1000 sessions, 4 MiB and 30 minutes do, not refuse everything or end every session at once.",
	Hint: check.Hint{
		Report: "Keep the given NewHandler's defaults: a zero (or negative) SessionTimeout, MaxSessions or MaxBodyBytes becomes DefaultSessionTimeout, DefaultMaxSessions " +
			"or DefaultMaxBodyBytes, and any other value is used as it is, 1 included.",
		Question: "What does your server do with -max-sessions 0, or -max-body 0? And with -max-sessions 1?",
		Pointer:  "NewHandler (given) turns Options' zero values into the defaults. The store compares len(s.byID) >= s.max, so a cap of 1 holds one session.",
		Near: `	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}`,
	},
	Claims: []check.Claim{
		{Claim: "-max-sessions 1 and -max-body 1 are honoured; 0 for -max-sessions, -max-body and -session-timeout means the default", Where: "step 2",
			How: "-max-sessions 1: a second initialize gets 503; -max-body 1: a ping gets 413; -session-timeout 1ns: a ping after initialize gets 404; all three at 0: three sessions, a 3000-byte body served, a session alive after a pause; -h states the defaults 30m0s, 1000 and 4194304"},
	},
	Run: checkLimitFlagsAtTheirEdges,
}

func checkLimitFlagsAtTheirEdges(t *check.T) {
	if t.Target.URL == "" {
		t.Case("the defaults -help states", func() {
			// The command's usage is part of its interface: it says what
			// the limits are when no flag sets them.
			ctx, cancel := context.WithTimeout(t.Context(), wire.T1)
			defer cancel()
			out, _ := exec.CommandContext(ctx, t.Target.Binary, "-h").CombinedOutput()
			t.Wire.Event("the server's -h output:\n%s", out)
			for _, want := range []struct{ flag, value string }{{"-session-timeout", "30m0s"}, {"-max-sessions", "1000"}, {"-max-body", "4194304"}} {
				_, usage, _ := strings.Cut(string(out), "  "+want.flag+" ")
				usage, _, _ = strings.Cut(usage, "\n  -")
				if !strings.Contains(usage, "(default "+want.value+")") {
					t.Fail(check.Failure{What: fmt.Sprintf("the server's -h does not give %s the default %s", want.flag, want.value), Got: check.Quote(string(out)),
						Want: fmt.Sprintf("%s with (default %s): the course's defaults, DefaultSessionTimeout, DefaultMaxSessions and DefaultMaxBodyBytes", want.flag, want.value)})
				}
			}
		})
	}
	t.Parallel(func() {
		h := wire.StartHTTP(t, "-max-sessions", "1")
		h.Initialize(spec.Rev)
		resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), "a second initialize, with -max-sessions 1")
		if resp.Status != http.StatusServiceUnavailable && resp.Status != http.StatusTooManyRequests {
			t.Fail(check.Failure{What: "with -max-sessions 1, a second session was not refused", Got: resp.Summary(), Want: "HTTP 503 (or 429): a cap of 1 holds one session"})
		}
	}, func() {
		// A session of 1 ns may end before its initialize has even been
		// answered (the sweeper runs every millisecond); if it got an id,
		// the id must be dead by the next request.
		h := wire.StartHTTP(t, "-session-timeout", "1ns")
		resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), "initialize, with -session-timeout 1ns")
		session := resp.Header.Get("Mcp-Session-Id")
		if session == "" {
			return
		}
		resp = h.Post(session, spec.Rev, wire.Request(`2`, "ping", nil), "ping, with -session-timeout 1ns")
		if resp.Status != http.StatusNotFound {
			t.Fail(check.Failure{What: "with -session-timeout 1ns, a session still answered after its initialize", Got: resp.Summary(), Want: "HTTP 404: a timeout of 1 ns is 1 ns, not the default"})
		}
	}, func() {
		h := wire.StartHTTP(t, "-max-body", "1")
		resp := h.Post("", "", wire.Request(`1`, "ping", nil), "a ping, with -max-body 1")
		if resp.Status != http.StatusRequestEntityTooLarge {
			t.Fail(check.Failure{What: "with -max-body 1, a body of many bytes was not refused with 413", Got: resp.Summary(), Want: "HTTP 413: a limit of 1 byte is 1 byte"})
		}
	}, func() {
		h := wire.StartHTTP(t, "-max-sessions", "0", "-max-body", "0", "-session-timeout", "0")
		var sessions []string
		for i := 0; i < 3; i++ {
			resp := h.Post("", "", wire.Request(`1`, "initialize", wire.InitializeParams(spec.Rev)), fmt.Sprintf("initialize %d, with -max-sessions 0 (the default)", i+1))
			if resp.Status != http.StatusOK {
				t.Fail(check.Failure{What: fmt.Sprintf("with -max-sessions 0, which means the default of 1000, initialize %d was refused", i+1), Got: resp.Summary(),
					Want: "HTTP 200: zero means the default"})
			}
			sessions = append(sessions, resp.Header.Get("Mcp-Session-Id"))
		}
		resp := h.Do(wire.Req{Header: wire.Headers(sessions[0], spec.Rev), Body: sizedEcho(`2`, 3000), Purpose: "echo, a body of 3000 bytes, with -max-body 0 (the default)"})
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: "with -max-body 0, which means the default of 4 MiB, a body of 3000 bytes was refused", Got: resp.Summary(), Want: "HTTP 200: zero means the default"})
		}
		probe.Pause(t, 100*time.Millisecond)
		resp = h.Post(sessions[1], spec.Rev, wire.Request(`3`, "ping", nil), "ping 0.1 s later, with -session-timeout 0 (the default)")
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: "with -session-timeout 0, which means the default of 30 minutes, a session was gone 0.1 s after it began", Got: resp.Summary(), Want: "HTTP 200: zero means the default"})
		}
	})
}

var http29 = &check.Check{
	ID: "HTTP-29", Step: 2, Severity: check.Must, Budget: 8 * time.Second,
	Needs: check.Needs{Flags: []string{"-session-timeout"}},
	Title: "a session in use never expires: steady requests, or one request longer than the timeout, keep it alive",
	Spec: check.Spec{Rev: spec.Rev, Section: "basic/transports › Streamable HTTP › Session Management",
		Quote: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found"},
	Course: "Expiry is for sessions nobody uses. The course requires a session to live while requests keep coming (the grader pings every 200 ms, " +
		"with -session-timeout 1s) and while a request runs longer than the timeout, and to start its idle time again when that request ends.",
	Hint: check.Hint{
		Report: "Refresh lastUsed whenever a request of the session ends (in the release function acquire returns), and never expire a session with a request " +
			"running (active > 0), neither in acquire nor in the sweep.",
		Question: "When does a session's idle time start again: when it is created, when a request starts, or when a request ends? And can the sweeper end a session whose request is still running?",
		Pointer:  "Lesson 02, step 2: acquire counts a session busy (active++), release takes the lock, does active-- and sets lastUsed = time.Now(); acquire and sweepLocked end a session only when active == 0 and it has been idle longer than the timeout.",
		Near: `	return sess, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		sess.active--
		sess.lastUsed = time.Now() // idle from now on
	}, true

and in acquire and sweepLocked:

	if sess.active == 0 && now.Sub(sess.lastUsed) > s.timeout {
		s.endLocked(sess)
	}`,
	},
	Claims: []check.Claim{
		{Claim: "a busy session never expires; each request that ends starts its idle time again", Where: "step 2", How: "pings every 200 ms for 1.6 s; a 1.5 s countdown, then a ping at once"},
	},
	Run: checkHTTPSessionInUse,
}

func checkHTTPSessionInUse(t *check.T) {
	h := wire.StartHTTP(t, "-session-timeout", "1s")
	t.Parallel(func() {
		// Steady use: a ping every 200 ms for 1.6 s, with a 1 s timeout.
		session := initializeSession(t, h)
		for i := 0; i < 8; i++ {
			probe.Pause(t, 200*time.Millisecond)
			resp := h.Post(session, spec.Rev, wire.Request(fmt.Sprint(10+i), "ping", nil), "ping in a session used every 200 ms")
			if resp.Status != http.StatusOK {
				t.Fail(check.Failure{What: fmt.Sprintf("a session used every 250 ms, with -session-timeout 1s, expired after %v", time.Duration(i+1)*200*time.Millisecond),
					Got: resp.Summary(), Want: "HTTP 200 for as long as the session is in use: each request starts its idle time again"})
			}
		}
	}, func() {
		// One request longer than the timeout, then a request right after.
		session := initializeSession(t, h)
		resp := h.Do(wire.Req{Header: wire.Headers(session, spec.Rev), Within: 4 * time.Second, Purpose: "a 1.5 s countdown, with -session-timeout 1s",
			Body: wire.Request(`"long"`, "tools/call", wire.ToolCall("countdown", map[string]any{"from": 15, "interval_ms": 100}, nil))})
		if m := resp.Find(`"long"`); m == nil || m.Error != nil {
			t.Fail(check.Failure{What: "a 1.5 s countdown, in a session with a 1 s timeout, did not get its result: the session expired while the request ran",
				Got: resp.Summary(), Want: "the countdown's result: a session with a request running never expires"})
		}
		resp = h.Post(session, spec.Rev, wire.Request(`"after"`, "ping", nil), "ping right after the 1.5 s countdown")
		if resp.Status != http.StatusOK {
			t.Fail(check.Failure{What: "right after a 1.5 s request ended, its session (timeout 1 s) was gone: its idle time counted from before the request",
				Got: resp.Summary(), Want: "HTTP 200: the idle time starts when the last request ends"})
		}
	})
}

// initializeSession runs the handshake and returns the session id it
// issued; without one, the check cannot test what it is about.
func initializeSession(t *check.T, h *wire.HTTP) string {
	session, _ := h.Initialize(spec.Rev)
	if session == "" {
		t.Fail(check.Failure{What: "initialize issued no MCP-Session-Id, and this check needs a session", Cause: check.CauseSession,
			Want: "MCP-Session-Id: <an id> on the response to initialize"})
	}
	return session
}
