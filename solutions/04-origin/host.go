package origin

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// hostAllowed is the defence against DNS rebinding. A page on
// http://evil.example:8080 can have its DNS name re-pointed at 127.0.0.1;
// the browser then sends the page's requests to this server, and thinks them
// same-origin. They still carry the name the page was loaded from, in Host.
// So a request that arrived on a loopback address must name this machine
// without DNS: localhost, or a loopback IP address (an address literal
// cannot be re-pointed), with any port.
//
// The local address is judged per request (http.LocalAddrContextKey), as
// the official Go SDK does, so a server listening on every interface still
// guards the requests that come in on loopback.
func hostAllowed(r *http.Request) bool {
	// @step 3: not on loopback, or a loopback name
	return !arrivedOnLoopback(r) || isLoopbackHost(r.Host)
	// @starter
	// | // TODO(step 3): true when r did not arrive on loopback, or when its
	// | // Host is a loopback name (the two functions below).
	// | return true
	// @end
}

// arrivedOnLoopback reports whether r came in on a loopback address.
func arrivedOnLoopback(r *http.Request) bool {
	// @step 3: the local address of the connection
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if addr == nil {
		return false
	}
	ap, err := netip.ParseAddrPort(addr.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
	// @starter
	// | // TODO(step 3): net/http puts the connection's local address in the
	// | // request's context: r.Context().Value(http.LocalAddrContextKey), a
	// | // net.Addr. Parse its String() with netip.ParseAddrPort, and ask the
	// | // address (Unmap it first) IsLoopback.
	// | return false
	// @end
}

// isLoopbackHost reports whether a Host header names this machine without
// DNS: localhost, or a loopback IP address, with or without a port.
func isLoopbackHost(host string) bool {
	// @step 3: localhost or a loopback address, without DNS
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
	// @starter
	// | // TODO(step 3): drop the port (net.SplitHostPort, which also strips
	// | // the brackets of [::1]:8080; without a port, trim them yourself).
	// | // Then: "localhost" in any case (strings.EqualFold), or an address
	// | // netip.ParseAddr reads, without a zone, that IsLoopback. Never a
	// | // name that merely starts with localhost.
	// | return false
	// @end
}

// Listen opens the server's socket on addr. Reachable beyond this machine,
// the server must be told which web origins to trust: unless allowlisted is
// true (the operator named origins), Listen refuses, before binding, any
// address that is not loopback. A bind on ":8080" or "0.0.0.0:8080" with
// the loopback default would serve every network the machine is on, and
// the spec asks local servers to bind to 127.0.0.1 (basic/transports,
// "Security Warning").
func Listen(addr string, allowlisted bool) (net.Listener, error) {
	// @step 6: beyond loopback only with an explicit allowlist
	if !allowlisted {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		ip, err := netip.ParseAddr(host)
		if !strings.EqualFold(host, "localhost") && (err != nil || !ip.IsLoopback()) {
			where := host
			if host == "" || (err == nil && ip.IsUnspecified()) {
				where = "every network interface"
			}
			return nil, fmt.Errorf("refusing to listen on %s (%s) without an explicit allowlist: "+
				"the default trusts web pages from this machine only. Name the web origins that may use the server "+
				"(-allow-origin https://app.example.com), or listen on 127.0.0.1", addr, where)
		}
	}
	// @starter
	// | // TODO(step 6): unless allowlisted, split addr (net.SplitHostPort);
	// | // a host that is neither "localhost" nor a loopback IP address (""
	// | // means every interface) gets an error that says to pass
	// | // -allow-origin, or to listen on 127.0.0.1.
	// @end
	return net.Listen("tcp", addr)
}
