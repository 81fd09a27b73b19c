package origin

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

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
	// @step 2: no patterns: this machine's pages
	if len(patterns) == 0 {
		patterns = LoopbackOrigins
	}
	// @starter
	// | // TODO(step 2): with no patterns at all, use LoopbackOrigins.
	// @end
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
	// @step 2: origins parsed, then matched
	o, ok := parseOrigin(origin)
	if !ok {
		return false
	}
	for _, p := range a.patterns {
		if p.matches(o) {
			return true
		}
	}
	return false
	// @starter
	// | // A first version, for step 1: an origin is allowed when a pattern is
	// | // the very same string. It refuses look-alikes, but also every origin
	// | // a wildcard should let in, and HTTPS://APP.EXAMPLE.COM.
	// | //
	// | // TODO(step 2): parse origin (parseOrigin; false if it does not
	// | // parse), then allow it when some pattern matches it (p.matches).
	// | for _, p := range a.patterns {
	// | 	if p.text == origin {
	// | 		return true
	// | 	}
	// | }
	// | return false
	// @end
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
	// @step 2: scheme://host[:port], as a browser writes it
	scheme, rest, found := strings.Cut(s, "://")
	if !found || !isScheme(scheme) {
		return origin{}, false
	}
	host, port, ok := splitHostPort(rest)
	if !ok {
		return origin{}, false
	}
	if host, ok = canonicalHost(host); !ok {
		return origin{}, false
	}
	o = origin{scheme: strings.ToLower(scheme), host: host, port: port}
	if o.port == defaultPorts[o.scheme] {
		o.port = ""
	}
	return o, true
	// @starter
	// | // TODO(step 2): cut s at "://" (strings.Cut): a scheme of letters
	// | // (then letters, digits, "+", "-", "."), then host[:port] with
	// | // nothing after it: no "/", no "?", no "@".
	// | //   - host: lower-cased; DNS labels of a-z, 0-9, "-" and "_", none
	// | //     empty (so no trailing dot) and no byte above 0x7F; or an IPv6
	// | //     address in brackets (netip.ParseAddr).
	// | //   - port: digits from 1 to 65535, no leading zero. Drop it when it
	// | //     is the scheme's default (defaultPorts).
	// | return origin{}, false
	// @end
}

// @step 2: the parts of an origin

// isScheme reports whether s is a URL scheme: a letter, then letters,
// digits, "+", "-" or ".".
func isScheme(s string) bool {
	for i, c := range []byte(s) {
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// splitHostPort splits "host" or "host:port". A port must be a decimal from
// 1 to 65535 with no leading zero; anything after it (a path, a query) makes
// the whole malformed.
func splitHostPort(s string) (host, port string, ok bool) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", false
		}
		host, s = s[:end+1], s[end+1:]
		if s == "" {
			return host, "", true
		}
		if s[0] != ':' {
			return "", "", false
		}
		port = s[1:]
	} else {
		host, port, _ = strings.Cut(s, ":")
		if strings.HasSuffix(s, ":") {
			return "", "", false // "host:" names no port
		}
	}
	if port != "" && !isPort(port) {
		return "", "", false
	}
	return host, port, true
}

func isPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == s // no "+", no leading zero
}

// canonicalHost lower-cases a host and checks that it is a DNS name or an IP
// address as a browser writes it. DNS names are ASCII labels of letters,
// digits, "-" and "_", 1 to 63 bytes each, and no empty label: so no
// trailing dot, no "@", no raw Unicode.
func canonicalHost(h string) (string, bool) {
	if strings.HasPrefix(h, "[") {
		ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
		if err != nil || !ip.Is6() || ip.Zone() != "" || !strings.HasSuffix(h, "]") {
			return "", false
		}
		return "[" + ip.String() + "]", true
	}
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			return "", false // raw Unicode, which strings.ToLower could turn into ASCII (the Kelvin sign K into k)
		}
	}
	h = strings.ToLower(h)
	if len(h) == 0 || len(h) > 253 {
		return "", false
	}
	for _, label := range strings.Split(h, ".") {
		if len(label) == 0 || len(label) > 63 {
			return "", false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", false
			}
		}
	}
	return h, true
}

// @end

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
	// @step 2: an origin, with its three wildcards; anything else an error
	bad := func(why string) (pattern, error) {
		return pattern{}, fmt.Errorf("allowed origin %q: %s", s, why)
	}
	scheme, rest, found := strings.Cut(s, "://")
	if !found || !isScheme(scheme) {
		return bad("write it as scheme://host[:port], such as https://app.example.com, https://*.example.com or http://localhost:*")
	}
	p := pattern{text: s, scheme: strings.ToLower(scheme)}
	if strings.HasSuffix(rest, ":*") {
		p.anyPort, rest = true, strings.TrimSuffix(rest, ":*")
	}
	host, port, ok := splitHostPort(rest)
	if !ok || (p.anyPort && port != "") {
		return bad("an origin is scheme://host[:port], with no path, query or user name, and a port from 1 to 65535 or *")
	}
	switch {
	case host == "*":
		if _, web := defaultPorts[p.scheme]; web {
			return bad("it would let every web site in; list the sites, or use a wildcard below a domain you own, such as " + p.scheme + "://*.example.com")
		}
		p.anyHost = true
	case strings.HasPrefix(host, "*."):
		p.subs, host = true, strings.TrimPrefix(host, "*.")
		if !strings.Contains(host, ".") {
			return bad("a wildcard needs a domain of at least two labels below it (*.example.com); *." + host + " would take in every site under ." + host)
		}
	}
	if !p.anyHost {
		if strings.Contains(host, "*") {
			return bad("a * can only stand for the whole host (custom schemes only), for the labels before a domain (*.example.com), or for the port (:*)")
		}
		if p.host, ok = canonicalHost(host); !ok {
			return bad("the host must be a DNS name in ASCII (write international names in punycode, xn--…, as browsers send them), or an IP address; no trailing dot")
		}
	}
	p.port = port
	if p.port == defaultPorts[p.scheme] {
		p.port = ""
	}
	return p, nil
	// @starter
	// | // TODO(step 2): parse s like an origin, with three wildcards: a port
	// | // of "*" (anyPort), a host of "*" (anyHost; refuse it for http and
	// | // https: it would let every web site in), and a host that starts
	// | // with "*." (subs, host = the domain after it, of two labels or
	// | // more). A "*" anywhere else is an error, and so is anything
	// | // parseOrigin would refuse. Say which pattern, and why:
	// | //   fmt.Errorf("allowed origin %q: %s", s, why)
	// | return pattern{text: s}, nil
	// @end
}

// matches reports whether o is one of the origins p names.
func (p pattern) matches(o origin) bool {
	// @step 2: scheme, port and host; a wildcard on a label boundary
	if o.scheme != p.scheme || (!p.anyPort && o.port != p.port) {
		return false
	}
	switch {
	case p.anyHost:
		return true
	case p.subs:
		// The dot makes the match end on a label boundary: app.example.com,
		// never xexample.com. o.host has no empty label, so something stands
		// before the dot, and the apex example.com is not matched.
		return strings.HasSuffix(o.host, "."+p.host)
	}
	return o.host == p.host
	// @starter
	// | // TODO(step 2): the same scheme; the same port, unless anyPort; and
	// | // the same host, or any host for anyHost, or for subs a host that
	// | // ends in "." + p.host: the dot keeps the match on a label boundary
	// | // (app.example.com, never xexample.com).
	// | return false
	// @end
}
