package origin

import (
	"net"
	"net/http"
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
	// TODO(step 3): true when r did not arrive on loopback, or when its
	// Host is a loopback name (the two functions below).
	return true
}

// arrivedOnLoopback reports whether r came in on a loopback address.
func arrivedOnLoopback(r *http.Request) bool {
	// TODO(step 3): net/http puts the connection's local address in the
	// request's context: r.Context().Value(http.LocalAddrContextKey), a
	// net.Addr. Parse its String() with netip.ParseAddrPort, and ask the
	// address (Unmap it first) IsLoopback.
	return false
}

// isLoopbackHost reports whether a Host header names this machine without
// DNS: localhost, or a loopback IP address, with or without a port.
func isLoopbackHost(host string) bool {
	// TODO(step 3): drop the port (net.SplitHostPort, which also strips
	// the brackets of [::1]:8080; without a port, trim them yourself).
	// Then: "localhost" in any case (strings.EqualFold), or an address
	// netip.ParseAddr reads, without a zone, that IsLoopback. Never a
	// name that merely starts with localhost.
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
