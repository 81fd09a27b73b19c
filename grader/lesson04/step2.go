package lesson04

import (
	"net/http"
	"strings"
	"time"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// step2 holds the checks of step 2: the allowlist.
var step2 = check.Step{
	Checks: []*check.Check{origin05, origin06, origin07, origin08, origin09, origin10, origin29},
}

var origin05 = &check.Check{
	ID: "ORIGIN-05", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Needs:          check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
	Title:          "the origins the allowlist names are served: wildcards, a port wildcard, a custom scheme, an exact origin with its port",
	Spec:           forbiddenRule,
	Course:         allowCourse,
	StarterMayPass: "the starter checks nothing, so it serves every origin; the check guards that your allowlist lets the listed ones in",
	Hint: check.Hint{
		Report:   "Parse each pattern once, into scheme, host (or the domain after \"*.\") and port (or \":*\"); parse the Origin the same way and compare the parts.",
		Question: "After parsing, what do a pattern and an origin have in common that you can compare?",
		Pointer:  "RFC 6454: an origin is (scheme, host, port). strings.Cut(s, \"://\"), then host[:port].",
		Near:     "matches: o.scheme == p.scheme && (p.anyPort || o.port == p.port) && (p.anyHost || (p.subs && strings.HasSuffix(o.host, \".\"+p.host)) || o.host == p.host).",
	},
	Claims: []check.Claim{
		{Claim: "the listed origins are served: wildcards, a port wildcard, a custom scheme, an exact origin with a port", Where: "step 2"},
	},
	Run: checkListedOrigins,
}

func checkListedOrigins(t *check.T) {
	h := startOrigin(t)
	const app = "https://app.example.com"
	resp := initializeFrom(h, app)
	expectServed(t, resp, "initialize from Origin "+app, "https://*.example.com allows it")
	session := resp.Header.Get("Mcp-Session-Id")
	h.Do(wire.Req{Header: with(session, spec.Rev, app), Body: wire.Notification("notifications/initialized", nil), Purpose: "notifications/initialized from " + app})
	call := h.Do(wire.Req{Header: with(session, spec.Rev, app), Body: wire.Request(`2`, "tools/call", wire.ToolCall("echo", map[string]any{"text": "hi"}, nil)),
		Purpose: "tools/call from " + app})
	probe.ExpectStatus(t, call, http.StatusOK, "tools/call from Origin "+app)
	expectOrigins(t, h, []originCase{
		{"https://a.b.example.com", true, "a wildcard takes one label or more: https://*.example.com allows a.b.example.com"},
		{"http://localhost:5173", true, "http://localhost:* allows every port"},
		{"http://localhost", true, "http://localhost:* allows the default port too"},
		{"vscode-webview://1a2b3c4d5e6f", true, "vscode-webview://* allows any host of that scheme"},
		{"https://mcp.test:8443", true, "https://mcp.test:8443 is listed exactly"},
	})
}

var origin06 = &check.Check{
	ID: "ORIGIN-06", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
	Title:  "look-alike origins get 403: a wildcard matches on a label boundary, and never the bare domain",
	Spec:   forbiddenRule,
	Course: allowCourse + " https://xexample.com, https://example.com.evil, https://evil.example.com.attacker.net and http://localhost.evil.example are other sites.",
	Hint: check.Hint{
		Report:   "strings.HasSuffix(host, \"example.com\") lets xexample.com in, and strings.HasPrefix(origin, \"http://localhost\") lets localhost.evil.example in. Compare the parsed host with \".\"+domain as its suffix.",
		Question: "Which hosts end in the string \"example.com\" without being below example.com?",
		Pointer:  "strings.HasSuffix is a string test, not a label test: xexample.com ends in example.com; so does example.com itself.",
		Near:     "For \"*.example.com\" keep p.host = \"example.com\" and test strings.HasSuffix(o.host, \".example.com\"); compare exact hosts with ==, never HasPrefix.",
	},
	Claims: []check.Claim{
		{Claim: "a wildcard takes one label or more, on a label boundary, never the bare domain; look-alikes are refused", Where: "concept, step 2", How: "xexample.com, example.com, example.com.evil, evil.example.com.attacker.net and more"},
	},
	Run: checkLookAlikes,
}

func checkLookAlikes(t *check.T) {
	h := startOrigin(t)
	expectOrigins(t, h, []originCase{
		{"https://app.example.com", true, "https://*.example.com allows it (the positive control)"},
		{"https://xexample.com", false, "xexample.com is not below example.com: the match must end on a label boundary"},
		{"https://example.com", false, "*.example.com names hosts below example.com, not the bare domain"},
		{"https://evil.example.com.attacker.net", false, "its host ends in attacker.net"},
		{"https://example.com.evil", false, "its host ends in .evil"},
		{"https://app-example.com", false, "app-example.com is another domain"},
		{"https://mcp.test.evil.example:8443", false, "only https://mcp.test:8443 is listed, not names that start like it"},
		{"http://localhost.evil.example", false, "localhost.evil.example is a domain anyone can register, not localhost"},
		{"http://localhost.evil.example:5173", false, "localhost.evil.example is a domain anyone can register, not localhost"},
		{"http://127.0.0.1.nip.io:5173", false, "127.0.0.1.nip.io is a DNS name on the internet"},
	})
}

var origin07 = &check.Check{
	ID: "ORIGIN-07", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
	Title:  "scheme and port are part of the origin: another scheme or another port gets 403",
	Spec:   forbiddenRule,
	Course: allowCourse + " http://app.example.com and https://app.example.com:8443 are different origins from https://app.example.com (RFC 6454).",
	Hint: check.Hint{
		Report:   "An origin is the triple (scheme, host, port). A pattern without a port means the scheme's default (443 for https); only \":*\" means any port.",
		Question: "What makes http://app.example.com a different origin from https://app.example.com:8443?",
		Pointer:  "RFC 6454 §4: the origin is the scheme, the host and the port; a pattern without a port means the scheme's default one.",
		Near:     "Compare o.scheme with p.scheme, and o.port with p.port unless p.anyPort; store \"\" for a port equal to defaultPorts[scheme], on both sides.",
	},
	Claims: []check.Claim{
		{Claim: "scheme and port are part of the origin", Where: "concept, step 2"},
	},
	Run: checkSchemeAndPort,
}

func checkSchemeAndPort(t *check.T) {
	h := startOrigin(t)
	expectOrigins(t, h, []originCase{
		{"https://app.example.com", true, "https://*.example.com allows it (the positive control)"},
		{"http://localhost:5173", true, "http://localhost:* allows it (the positive control)"},
		{"https://mcp.test:8443", true, "listed exactly (the positive control)"},
		{"http://app.example.com", false, "the pattern says https; http is another origin"},
		{"wss://app.example.com", false, "the pattern says https"},
		{"https://localhost:5173", false, "the pattern says http://localhost:*; https is another origin"},
		{"https://app.example.com:8443", false, "https://*.example.com names port 443 only"},
		{"https://mcp.test", false, "the list names port 8443; no port means 443"},
		{"http://mcp.test:8443", false, "the list names https"},
		{"vscode-webviewx://1a2b3c", false, "another scheme than vscode-webview"},
	})
}

var origin08 = &check.Check{
	ID: "ORIGIN-08", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Mode: check.AnyMode, Allowlist: courseAllowlist},
	Title:  "origins are parsed: case and an explicit default port do not matter; a path, userinfo, a trailing dot or raw Unicode match nothing",
	Spec:   forbiddenRule,
	Course: allowCourse + " Scheme and host compare without case, :443 on https is no port at all, and an Origin that is not exactly scheme://host[:port] in ASCII (browsers send punycode) is refused, under a custom scheme's any-host pattern too.",
	Hint: check.Hint{
		Report:   "Lower-case scheme and host, drop a port equal to the scheme's default, and refuse anything with \"/\", \"@\", an empty label or a byte above 0x7F.",
		Question: "Which parts of an origin are case-insensitive, and which spellings of one origin might a client send?",
		Pointer:  "RFC 3986 §6.2.2.1 (scheme and host are case-insensitive); §6.2.3 (a default port is the same as none); browsers send IDNs as punycode.",
		Near:     "In parseOrigin: strings.ToLower scheme and host; drop the port when it equals defaultPorts[scheme]; refuse a host with an empty label, a byte outside a-z 0-9 - _, or anything after the port.",
	},
	Claims: []check.Claim{
		{Claim: "origins are parsed: case and an explicit default port do not matter; a path, userinfo, a trailing dot, raw Unicode match nothing; punycode does", Where: "concept, step 2",
			How: "also ports at both ends of 1 to 65535 and just past them, a leading zero, a sign; a custom scheme's any-host pattern with a path, no host, a space"},
	},
	Run: checkParsedOrigins,
}

func checkParsedOrigins(t *check.T) {
	h := startOrigin(t)
	expectOrigins(t, h, []originCase{
		{"HTTPS://APP.EXAMPLE.COM", true, "scheme and host compare without regard to case"},
		{"https://App.Example.Com", true, "scheme and host compare without regard to case"},
		{"https://app.example.com:443", true, "443 is https's default port: the same origin as https://app.example.com"},
		{"http://LOCALHOST:5173", true, "host names compare without regard to case"},
		{"https://xn--bcher-kva.example.com", true, "browsers send international names in punycode, and that is below example.com"},
		{"https://app.example.com/", false, "an origin has no path"},
		{"https://evil.net@app.example.com", false, "an origin has no userinfo; no browser sends one"},
		{"https://app.example.com.", false, "the course's allowlist does not strip a trailing dot: app.example.com. is a different origin to a browser"},
		{"https://bücher.example.com", false, "raw Unicode is not an origin a browser sends (it sends punycode)"},
		{"https://\u212Aey.example.com", false, "raw Unicode is not an origin a browser sends, the Kelvin sign included, though strings.ToLower turns it into k"},
		{"https://app.example.com:", false, "a colon with no port is malformed"},
		// A DNS label is 1 to 63 bytes, a name at most 253.
		{"https://" + strings.Repeat("a", 63) + ".example.com", true, "a label of 63 bytes, the longest DNS allows, below example.com"},
		{"https://" + strings.Repeat("a", 64) + ".example.com", false, "a label of 64 bytes is longer than DNS allows"},
		{"https://" + hostOfLength(253, ".example.com"), true, "a name of 253 bytes, the longest DNS allows, below example.com"},
		{"https://" + hostOfLength(254, ".example.com"), false, "a name of 254 bytes is longer than DNS allows"},
		// http://localhost:* takes every port, and only ports: 1 to 65535, as written by a browser.
		{"http://localhost:65535", true, "http://localhost:* allows every port, the highest included"},
		{"http://localhost:1", true, "http://localhost:* allows every port, the lowest included"},
		{"http://localhost:65536", false, "65536 is not a port"},
		{"http://localhost:0", false, "0 is not a port a page is served from"},
		{"http://localhost:05173", false, "a browser writes a port without a leading zero"},
		{"http://localhost:+80", false, "a port is digits only"},
		{"https://z9.example.com", true, "a label may hold every letter and digit, z and 9 included"},
		{"vscode-webview://a", true, "vscode-webview://* allows any host of that scheme, one letter long too"},
		{"vscode-webview://1a2b3c/x", false, "vscode-webview://* allows any host of that scheme, not anything at all: an origin has no path"},
		{"vscode-webview://", false, "vscode-webview://* allows any host of that scheme, and this origin has none"},
		{"vscode-webview://a b", false, "vscode-webview://* allows any host of that scheme; a space is in no host"},
	})
}

var origin09 = &check.Check{
	ID: "ORIGIN-09", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Needs:  check.Needs{Restart: true},
	Title:  "without -allow-origin only loopback pages are allowed (localhost, 127.0.0.1, [::1], any port); with it, only what it names",
	Spec:   forbiddenRule,
	Course: "A server that allowed every origin by default would be open to every web site its user visits. The course's default is http://localhost:*, http://127.0.0.1:* and http://[::1]:*, and an explicit list replaces it.",
	Hint: check.Hint{
		Report:   "When no pattern is given, use the loopback patterns (LoopbackOrigins); when some are given, use exactly those.",
		Question: "What should a server started with no -allow-origin trust, and does an explicit list add to that or replace it?",
		Pointer:  "LoopbackOrigins: http://localhost:*, http://127.0.0.1:*, http://[::1]:*.",
		Near:     "In NewAllowlist: if len(patterns) == 0 { patterns = LoopbackOrigins }. Only then parse; never append the loopback patterns to a given list.",
	},
	Claims: []check.Claim{
		{Claim: "without -allow-origin only loopback pages are allowed, any port, [::1] included; with it, only what it names", Where: "concept, step 2"},
	},
	Run: checkDefaultAllowlist,
}

func checkDefaultAllowlist(t *check.T) {
	h := wire.StartHTTP(t)
	expectOrigins(t, h, []originCase{
		{"http://localhost:5173", true, "the default allowlist is http://localhost:*, http://127.0.0.1:* and http://[::1]:*"},
		{"http://127.0.0.1:8080", true, "the default allowlist is http://localhost:*, http://127.0.0.1:* and http://[::1]:*"},
		{"http://[::1]:3000", true, "the default allowlist is http://localhost:*, http://127.0.0.1:* and http://[::1]:*"},
		{"http://evil.example", false, "without -allow-origin only loopback pages are allowed"},
		{"https://app.example.com", false, "without -allow-origin only loopback pages are allowed"},
		{"http://localhost.evil.example:5173", false, "a look-alike of localhost"},
		{"http://127.0.0.1.nip.io:8080", false, "a look-alike of 127.0.0.1"},
	})
	explicit := startOrigin(t)
	resp := initializeFrom(explicit, "http://127.0.0.1:5173")
	expectForeignRefused(t, resp, "with -allow-origin 'https://*.example.com,http://localhost:*' (and two more), initialize from Origin http://127.0.0.1:5173",
		"an explicit allowlist replaces the loopback default; it does not add to it")
}

var origin10 = &check.Check{
	ID: "ORIGIN-10", Step: 2, Severity: check.Must, Budget: 15 * time.Second, // some thirty starts, slow under the race detector
	Needs: check.Needs{Restart: true},
	Title: "a malformed or too-wide -allow-origin stops the server at start, naming the pattern",
	Spec:  forbiddenRule,
	Course: "An allowlist with a typo must stop the server, not quietly allow less, or more, than meant. The course refuses a host of * for a web scheme (http, https, ws, wss, in any case: a scheme is case-insensitive), " +
		"a wildcard below a single label (*.com), patterns without a scheme or with one that is not a scheme (a letter, then letters, digits, +, - and .), a * inside a label, a port of 0, a port and :*, paths, and empty patterns (-allow-origin '', or two commas).",
	Hint: check.Hint{
		Report:   "Parse every pattern before listening; on the first error, exit non-zero with a message that quotes it.",
		Question: "What should happen to a pattern your parser cannot read?",
		Pointer:  "flag.Value and NewAllowlist return errors; main exits with log.Fatal. A pattern of https://* would allow every web site.",
		Near:     "parsePattern returns fmt.Errorf(\"allowed origin %q: %s\", s, why) for a missing scheme, a path, a * inside a label, a host of * for a web scheme (looked up lower-cased, as matching compares it), or *. before a single label; NewAllowlist returns the first error.",
	},
	Claims: []check.Claim{
		{Claim: "a malformed or too-wide pattern stops the server at start, quoting it", Where: "concept, step 2",
			How: "https://*, http://*, ws://*, wss://*, the scheme in capitals (HTTPS://*), with :*; *.com and *.localhost below a single label; a pattern without a scheme, a * inside a label, port 0, a path; an empty pattern (-allow-origin '', two commas, a trailing comma)"},
	},
	Run: checkBadPatterns,
}

func checkBadPatterns(t *check.T) {
	var starts []refusedStart
	for _, bad := range tooWidePatterns {
		starts = append(starts, refusedStart{bad, []string{"-addr", "127.0.0.1:0", "-allow-origin", "http://localhost:*," + bad}})
	}
	for _, bad := range []string{"app.example.com", "https://app*.example.com", "https://example.com/mcp", "https://*.example.com:0", "https://app.example.com:*:*", "https://app.example.com:8443:*",
		"x_y://*", "1app://*", "a@b://*", "a`b://*", "http://[fe80::1%eth0]", "http://[127.0.0.1]:*", "http://[::1"} {
		starts = append(starts, refusedStart{bad, []string{"-addr", "127.0.0.1:0", "-allow-origin", "http://localhost:*," + bad}})
	}
	// An empty pattern is a typo (two commas) or an unset variable
	// (-allow-origin "$ORIGINS"): skipped, it would leave the loopback
	// default in force, or allow less than meant.
	for _, empty := range []string{"", "https://app.example.com,,http://localhost:*", "https://app.example.com,"} {
		starts = append(starts, refusedStart{"-allow-origin", []string{"-addr", "127.0.0.1:0", "-allow-origin", empty}})
	}
	expectRefusedStarts(t, nil, starts)
}

var origin29 = &check.Check{
	ID: "ORIGIN-29", Step: 2, Severity: check.Must, Budget: 5 * time.Second,
	Needs: check.Needs{Restart: true},
	Title: "patterns are parsed as origins are: a written-out default port, IPv6 hosts, every character of a scheme",
	Spec:  forbiddenRule,
	Course: allowCourse + " A port equal to the scheme's default (80 for http, 443 for https) is no port at all, on both sides: in the Origin (ORIGIN-08) and in the pattern, " +
		"where an operator may well write it out. Browsers never send it, so a pattern that kept it would name an origin no browser sends.",
	Hint: check.Hint{
		Report:   "Drop a port equal to defaultPorts[scheme] in parsePattern too, not only in parseOrigin: both sides must hold \"\" for the default port, or they never compare equal.",
		Question: "A pattern says https://app.example.com:443, and a browser sends Origin: https://app.example.com: which port does each of them hold once parsed?",
		Pointer:  "RFC 6454 §6.2: a browser omits the port when it is the scheme's default; RFC 3986 §6.2.3: a default port is the same as none.",
		Near:     "At the end of parsePattern, as in parseOrigin: p.port = port; if p.port == defaultPorts[p.scheme] { p.port = \"\" }.",
	},
	Claims: []check.Claim{
		{Claim: "a default port written out in a pattern is the same as none: the pattern names the origin a browser sends, and no other port", Where: "step 2",
			How: "-allow-origin https://app.example.com:443, http://localhost:80, https://*.dev.example.com:443, https://api.example.com:80 (spaces after the commas): each origin with the port and without, and with another port or scheme"},
		{Claim: "a custom scheme's pattern takes every character a scheme may hold, in any case", Where: "step 2", How: "tauri://localhost, moz-extension://*, X-App.v0.9+Web://*"},
	},
	Run: checkPatternDefaultPorts,
}

func checkPatternDefaultPorts(t *check.T) {
	// Spaces after the commas, as an operator may type them, do not matter.
	h := wire.StartHTTP(t, "-allow-origin", "https://app.example.com:443, http://localhost:80", "-allow-origin", "https://*.dev.example.com:443 , https://api.example.com:80",
		"-allow-origin", "tauri://localhost,moz-extension://*,X-App.v0.9+Web://*,kitty://*", "-allow-origin", "http://[::1]:8080")
	expectOrigins(t, h, []originCase{
		{"https://app.example.com", true, "https://app.example.com:443 names it: 443 is https's default port, which a browser leaves out"},
		{"https://app.example.com:443", true, "the very origin the pattern names"},
		{"http://localhost", true, "http://localhost:80 names it: 80 is http's default port"},
		{"http://localhost:80", true, "the very origin the pattern names"},
		{"https://a.dev.example.com", true, "https://*.dev.example.com:443 names it: 443 is https's default port"},
		{"https://api.example.com:80", true, "https://api.example.com:80 names it exactly: 80 is not https's default"},
		{"https://app.example.com:8443", false, "the pattern names port 443 only"},
		{"http://app.example.com", false, "the pattern says https"},
		{"http://localhost:8080", false, "the pattern names port 80 only"},
		{"https://localhost", false, "the pattern says http"},
		{"https://api.example.com", false, "https://api.example.com means port 443, and the pattern names port 80"},
		{"https://a.dev.example.com:8443", false, "the pattern names port 443 only"},
		// A custom scheme holds letters, digits, "+", "-" and ".", in any case.
		{"tauri://localhost", true, "tauri://localhost names it"},
		{"moz-extension://4b6f2a1c", true, "moz-extension://* allows any host of that scheme"},
		{"x-app.v0.9+web://1a2b", true, "X-App.v0.9+Web://* allows any host of that scheme, whose name compares without case"},
		{"tauri://evil.example", false, "tauri://localhost names localhost only"},
		{"\u212Aitty://1a2b", false, "a scheme is ASCII: the Kelvin sign is not k, though strings.ToLower makes it one"},
		// An IPv6 host is in brackets, and its port after them.
		{"http://[::1]:8080", true, "http://[::1]:8080 names it"},
		{"http://[0:0:0:0:0:0:0:1]:8080", true, "the same address, written out"},
		{"http://[::1]:9090", false, "http://[::1]:8080 names port 8080 only"},
		{"http://[::1]", false, "http://[::1]:8080 names port 8080, and this is port 80"},
		{"http://[::1]8080", false, "a port follows a colon"},
		{"http://[::1]x8080", false, "a port follows a colon, and nothing else comes after the brackets"},
	})
}

// tooWidePatterns would let every web site in, or every site under a
// top-level domain: a host of * for each scheme a web page can have, in any
// case and with a port wildcard, and a wildcard below a single label.
var tooWidePatterns = []string{"https://*", "http://*", "HTTPS://*", "Http://*", "https://*:*", "wss://*", "ws://*",
	"https://*.com", "http://*.localhost", "HTTPS://*.com", "https://*.COM:*"}

// hostOfLength returns a DNS name of n bytes that ends in suffix, made of
// labels of 63 bytes at most.
func hostOfLength(n int, suffix string) string {
	var b strings.Builder
	for left := n - len(suffix); left > 0; {
		if b.Len() > 0 {
			b.WriteByte('.')
			left--
		}
		k := min(63, left)
		if left-k == 1 {
			k-- // never leave a single byte for a label after a dot
		}
		b.WriteString(strings.Repeat("b", k))
		left -= k
	}
	return b.String() + suffix
}

// allowCourse says what the course asks of the allowlist beyond the spec's
// words, which leave "invalid" to the server.
const allowCourse = "The spec leaves \"invalid\" to the server. The course's allowlist takes exact origins and patterns " +
	"(https://*.example.com: hosts below example.com on a label boundary; http://localhost:*: any port; vscode-webview://*), " +
	"and compares parsed origins (scheme, host, port), never strings."

// originCase is one Origin and what the server must do with it.
type originCase struct {
	origin string
	allow  bool
	why    string
}

// expectOrigins sends initialize from each origin in turn.
func expectOrigins(t *check.T, h *wire.HTTP, cases []originCase) {
	for _, c := range cases {
		t.Case("Origin "+c.origin, func() {
			resp := initializeFrom(h, c.origin)
			if c.allow {
				expectServed(t, resp, "initialize from Origin "+c.origin, c.why)
			} else {
				expectForeignRefused(t, resp, "initialize from Origin "+c.origin, c.why)
			}
		})
	}
}
