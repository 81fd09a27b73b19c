package origin

import "strings"

// LoopbackOrigins is the allowlist when none is given: web pages served from
// this machine, on any port. Local tools (the MCP Inspector, a dev server)
// work out of the box, whatever port they picked; every web site on the
// internet is refused, and cannot borrow these origins: a page is
// http://localhost:5173 only if this machine served it.
//
// The price: it trusts every page that anything on this machine serves
// over plain http on a loopback address, a dev server showing a project
// you cloned or a notebook showing someone's HTML included. The Origin
// check guards against web pages, not local programs (those can connect
// without a browser), so that is the trust that remains. Where it is too
// much, name the one client's origin: -allow-origin http://localhost:6274.
var LoopbackOrigins = []string{"http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"}

// Allowlist says which web origins may use the server. It holds patterns:
//
//	https://app.example.com   that origin exactly
//	https://*.example.com     any host below example.com (one label or more), port 443;
//	                          neither example.com itself nor xexample.com
//	http://localhost:*        localhost on any port, the default port included
//	vscode-webview://*        any host of a custom scheme, whose host is an id
//
// Origins are parsed, never compared as strings: scheme and host compare
// without regard to case, and a port that is the scheme's default (80 for
// http, 443 for https) is the same as none. An Origin that is not exactly
// what a browser sends (scheme://host[:port], in ASCII) matches nothing:
// "null", a path, userinfo, a trailing dot, raw Unicode. Browsers send
// international names in punycode (xn--…), and patterns name them so too.
type Allowlist struct {
	patterns []pattern
}

// NewAllowlist parses patterns. With none, it allows LoopbackOrigins. A
// pattern that is malformed, or so wide it would let every web site in, is
// an error: an allowlist with a typo in it must stop the server, not quietly
// allow less, or more, than its owner meant.
func NewAllowlist(patterns ...string) (*Allowlist, error) {
	// TODO(step 2): with no patterns at all, use LoopbackOrigins.
	a := &Allowlist{}
	for _, s := range patterns {
		p, err := parsePattern(s)
		if err != nil {
			return nil, err
		}
		a.patterns = append(a.patterns, p)
	}
	return a, nil
}

// Allows reports whether a request whose Origin header is origin may be
// served.
func (a *Allowlist) Allows(origin string) bool {
	// A first version, for step 1: an origin is allowed when a pattern is
	// the very same string. It refuses look-alikes, but also every origin
	// a wildcard should let in, and HTTPS://APP.EXAMPLE.COM.
	//
	// TODO(step 2): parse origin (parseOrigin; false if it does not
	// parse), then allow it when some pattern matches it (p.matches).
	for _, p := range a.patterns {
		if p.text == origin {
			return true
		}
	}
	return false
}

// String lists the patterns, for log lines.
func (a *Allowlist) String() string {
	var out []string
	for _, p := range a.patterns {
		out = append(out, p.text)
	}
	return strings.Join(out, ",")
}

// origin is a parsed Origin header: a browser's serialisation of an origin
// (RFC 6454 §6.2), scheme "://" host [":" port].
type origin struct {
	scheme string // lower case
	host   string // lower case; an IPv6 address in brackets, as [::1]
	port   string // decimal, without leading zeros; "" for none or the scheme's default
}

// defaultPorts are the ports an origin of these schemes has when it names none.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}

// parseOrigin parses an Origin header. ok is false for anything a browser
// would not send as an origin, "null" among them.
func parseOrigin(s string) (o origin, ok bool) {
	// TODO(step 2): cut s at "://" (strings.Cut): a scheme of letters
	// (then letters, digits, "+", "-", "."), then host[:port] with
	// nothing after it: no "/", no "?", no "@".
	//   - host: lower-cased; DNS labels of a-z, 0-9, "-" and "_", none
	//     empty (so no trailing dot) and no byte above 0x7F; or an IPv6
	//     address in brackets (netip.ParseAddr).
	//   - port: digits from 1 to 65535, no leading zero. Drop it when it
	//     is the scheme's default (defaultPorts).
	return origin{}, false
}

// pattern is one entry of an Allowlist.
type pattern struct {
	text    string // as written, for messages
	scheme  string
	host    string // the host, or for a wildcard the domain after "*."
	port    string // as in origin
	subs    bool   // "*.domain": hosts below domain, not domain itself
	anyHost bool   // "*"
	anyPort bool   // ":*"
}

// parsePattern parses one allowlist entry.
func parsePattern(s string) (pattern, error) {
	// TODO(step 2): parse s like an origin, with three wildcards: a port
	// of "*" (anyPort), a host of "*" (anyHost; refuse it for http and
	// https: it would let every web site in), and a host that starts
	// with "*." (subs, host = the domain after it, of two labels or
	// more). A "*" anywhere else is an error, and so is anything
	// parseOrigin would refuse. Say which pattern, and why:
	//   fmt.Errorf("allowed origin %q: %s", s, why)
	return pattern{text: s}, nil
}

// matches reports whether o is one of the origins p names.
func (p pattern) matches(o origin) bool {
	// TODO(step 2): the same scheme; the same port, unless anyPort; and
	// the same host, or any host for anyHost, or for subs a host that
	// ends in "." + p.host: the dot keeps the match on a label boundary
	// (app.example.com, never xexample.com).
	return false
}
