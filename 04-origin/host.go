package origin

import (
	"net"
	"net/http"
)

// hostAllowed is the defence against DNS rebinding. A page on
// http://evil.example:8080 can have its DNS name re-pointed at this
// machine: at 127.0.0.1, or at the machine's address on the network. The
// browser then sends the page's requests here, and thinks them
// same-origin. They still carry the name the page was loaded from, in Host.
// Only a DNS name can be re-pointed, so Host must be one of:
//
//   - localhost, which browsers resolve to loopback themselves, never
//     through a DNS server an attacker can answer;
//   - an IP address, which no DNS answer can change;
//   - a DNS name the operator allows (-allow-host), for a server that
//     clients reach by name.
//
// The port does not matter. The rule holds on every connection, whatever
// address it arrived on: a check made only on loopback (as the official Go
// SDK's is) leaves a server that listens on every interface open to a page
// rebound to the machine's network address, whose same-origin GET carries
// no Origin either.
func (h *Handler) hostAllowed(r *http.Request) bool {
	// TODO(step 3): the name in r.Host (hostName) is allowed when it is
	// localhost or an IP address (isLocalHost), or when h.hosts allows it.
	return true
}

// hostName returns the name a Host header holds, lower-cased, without its
// port and, for an IPv6 address, without its brackets.
func hostName(hostport string) string {
	// TODO(step 3): net.SplitHostPort drops the port, and the brackets
	// of [::1]:8080; without a port it fails: trim the brackets
	// yourself. Lower-case the result.
	return hostport
}

// isLocalHost reports whether host (from hostName) names this server
// without asking DNS: localhost, or an IP address.
func isLocalHost(host string) bool {
	// TODO(step 3): "localhost" (strings.EqualFold), or an address
	// netip.ParseAddr reads, without a zone. Never a name that merely
	// starts with localhost: localhost.evil.example is anyone's.
	return false
}

// hostList is the DNS names a request's Host may carry beyond localhost and
// IP addresses: the -allow-host patterns.
type hostList []hostPattern

// hostPattern is one -allow-host entry: a DNS name, such as
// mcp.example.com, or "*." and a domain for every name below it, such as
// *.example.com (one label or more, on a label boundary, never the domain
// itself), as in an origin's host.
type hostPattern struct {
	text string // as written, for messages
	host string // lower case; for a wildcard, the domain after "*."
	subs bool   // "*.domain"
}

// newHostList parses patterns. A pattern that is malformed, or so wide it
// would let any rebound name in, is an error that stops the server.
func newHostList(patterns []string) (hostList, error) {
	var l hostList
	for _, s := range patterns {
		p, err := parseHostPattern(s)
		if err != nil {
			return nil, err
		}
		l = append(l, p)
	}
	return l, nil
}

// allows reports whether host (from hostName) is one of the names l lists.
func (l hostList) allows(host string) bool {
	for _, p := range l {
		if p.matches(host) {
			return true
		}
	}
	return false
}

// parseHostPattern parses one -allow-host entry.
func parseHostPattern(s string) (hostPattern, error) {
	// TODO(step 3): an optional "*." (strings.CutPrefix; subs), then a
	// DNS name that canonicalHost accepts: no scheme, port, path or
	// "*" elsewhere. The domain of a wildcard needs two labels or more
	// (*.com would take in every name under .com). Say which pattern,
	// and why: fmt.Errorf("allowed host %q: %s", s, why)
	return hostPattern{text: s}, nil
}

// matches reports whether host is one of the names p names.
func (p hostPattern) matches(host string) bool {
	// TODO(step 3): for subs, a host that ends in "." + p.host, as
	// an origin's wildcard matches; else the very same host.
	return false
}

// Listen opens the server's socket on addr. Reachable beyond this machine,
// the server must be told which web origins to trust: unless allowlisted is
// true (the operator named origins), Listen refuses, before binding, any
// address that is not loopback. A bind on ":8080" or "0.0.0.0:8080" with
// the loopback default would serve every network the machine is on, and
// the spec asks local servers to bind to 127.0.0.1 (basic/transports,
// "Security Warning").
func Listen(addr string, allowlisted bool) (net.Listener, error) {
	// TODO(step 6): unless allowlisted, split addr (net.SplitHostPort);
	// a host that is neither "localhost" nor a loopback IP address (""
	// means every interface) gets an error that says to pass
	// -allow-origin, or to listen on 127.0.0.1.
	return net.Listen("tcp", addr)
}
