package grader

// hintsLesson04 are the levelled hints of lesson 04's checks: a question,
// a pointer into the standard library or the spec, a near-solution.
var hintsLesson04 = map[string]Hint{
	"ORIGIN-01": {
		"Which code runs before stage 03 sees a request, and what does it answer a page it does not trust?",
		"basic/transports › Security Warning: an Origin that is present and invalid gets 403; the body MAY be a JSON-RPC error without an id (httpjson.Error writes one).",
		"In guard: if !h.originAllowed(r) { forbidden(w, \"Origin %q is not allowed to use this server\", r.Header.Get(\"Origin\")); return }; next.ServeHTTP(w, r).",
	},
	"ORIGIN-02": {
		"Does your check run for GET and DELETE, and before the session is looked up?",
		"\"on all incoming connections\" (basic/transports › Security Warning); Go's http.CrossOriginProtection lets GET, HEAD and OPTIONS through, so it cannot be this check.",
		"Judge Origin in the middleware around the whole handler (h.endpoint = h.guard(...)), whatever r.Method is; never inside servePOST.",
	},
	"ORIGIN-03": {
		"What does a request from a CLI client, which sends no Origin, look like to your guard?",
		"r.Header.Values(\"Origin\") is empty when the header is absent; the spec refuses an Origin only \"if present and invalid\".",
		"originAllowed: origins := r.Header.Values(\"Origin\"); return len(origins) == 0 || (len(origins) == 1 && h.allow.Allows(origins[0])).",
	},
	"ORIGIN-04": {
		"Is \"null\" a missing Origin, or an origin any page can produce?",
		"The HTML standard serialises an opaque origin (a sandboxed iframe, a data: URL, a file:// page) as the string \"null\".",
		"Do not special-case it: parseOrigin finds no \"://\" in \"null\", returns false, and Allows refuses it.",
	},
	"ORIGIN-05": {
		"After parsing, what do a pattern and an origin have in common that you can compare?",
		"RFC 6454: an origin is (scheme, host, port). strings.Cut(s, \"://\"), then host[:port].",
		"matches: o.scheme == p.scheme && (p.anyPort || o.port == p.port) && (p.anyHost || (p.subs && strings.HasSuffix(o.host, \".\"+p.host)) || o.host == p.host).",
	},
	"ORIGIN-06": {
		"Which hosts end in the string \"example.com\" without being below example.com?",
		"strings.HasSuffix is a string test, not a label test: xexample.com ends in example.com; so does example.com itself.",
		"For \"*.example.com\" keep p.host = \"example.com\" and test strings.HasSuffix(o.host, \".example.com\"); compare exact hosts with ==, never HasPrefix.",
	},
	"ORIGIN-07": {
		"What makes http://app.example.com a different origin from https://app.example.com:8443?",
		"RFC 6454 §4: the origin is the scheme, the host and the port; a pattern without a port means the scheme's default one.",
		"Compare o.scheme with p.scheme, and o.port with p.port unless p.anyPort; store \"\" for a port equal to defaultPorts[scheme], on both sides.",
	},
	"ORIGIN-08": {
		"Which parts of an origin are case-insensitive, and which spellings of one origin might a client send?",
		"RFC 3986 §6.2.2.1 (scheme and host are case-insensitive); §6.2.3 (a default port is the same as none); browsers send IDNs as punycode.",
		"In parseOrigin: strings.ToLower scheme and host; drop the port when it equals defaultPorts[scheme]; refuse a host with an empty label, a byte outside a-z 0-9 - _, or anything after the port.",
	},
	"ORIGIN-09": {
		"What should a server started with no -allow-origin trust, and does an explicit list add to that or replace it?",
		"LoopbackOrigins: http://localhost:*, http://127.0.0.1:*, http://[::1]:*.",
		"In NewAllowlist: if len(patterns) == 0 { patterns = LoopbackOrigins }. Only then parse; never append the loopback patterns to a given list.",
	},
	"ORIGIN-10": {
		"What should happen to a pattern your parser cannot read?",
		"flag.Value and NewAllowlist return errors; main exits with log.Fatal. A pattern of https://* would allow every web site.",
		"parsePattern returns fmt.Errorf(\"allowed origin %q: %s\", s, why) for a missing scheme, a path, a * inside a label, or a host of * for http/https; NewAllowlist returns the first error.",
	},
	"ORIGIN-11": {
		"After DNS rebinding, which header of a same-origin GET still names the attacker's domain?",
		"http.LocalAddrContextKey gives the connection's local address; the Go SDK's DisableLocalhostProtection documents the same check.",
		"hostAllowed: !arrivedOnLoopback(r) || isLoopbackHost(r.Host), where isLoopbackHost drops the port and accepts \"localhost\" (EqualFold) or a loopback netip.Addr. Call it first in guard.",
	},
	"ORIGIN-12": {
		"What must a preflight answer say for a browser to send MCP's headers from another origin?",
		"The Fetch standard's CORS protocol; github.com/rs/cors Options: AllowOriginFunc, AllowedMethods, AllowedHeaders.",
		"cors.New(cors.Options{AllowOriginFunc: allow.Allows, AllowedMethods: []string{\"GET\", \"POST\", \"DELETE\"}, AllowedHeaders: []string{\"Accept\", \"Content-Type\", \"Authorization\", \"Mcp-Session-Id\", \"Mcp-Protocol-Version\", \"Last-Event-Id\"}}).Handler(h.mcp).",
	},
	"ORIGIN-13": {
		"Which response headers may a page's script read by default, and is Mcp-Session-Id one of them?",
		"The Fetch standard's CORS-safelisted response headers; rs/cors Options.ExposedHeaders.",
		"ExposedHeaders: []string{streamable.SessionIDHeader}, and AllowOriginFunc rather than AllowedOrigins: []string{\"*\"}, so that the origin is echoed.",
	},
	"ORIGIN-14": {
		"What does rs/cors answer a preflight from an origin it does not allow?",
		"rs/cors v1.11 Handler: every OPTIONS with Access-Control-Request-Method gets OptionsSuccessStatus (204), with or without a grant.",
		"h.endpoint = h.guard(grant.Handler(h.mcp)): the guard first, for OPTIONS as for every method.",
	},
	"ORIGIN-15": {
		"With CheckOrigin left nil, what does gorilla compare the Origin with?",
		"gorilla/websocket Upgrader.CheckOrigin: nil means the Origin's host must equal Host.",
		"websocket.Upgrader{CheckOrigin: h.originAllowed, ...}: the same function the guard uses.",
	},
	"ORIGIN-16": {
		"Which web pages can open a WebSocket to your server, and what does a browser ask first?",
		"Nothing: a WebSocket handshake has no preflight; only Upgrader.CheckOrigin stands between any page and the socket (cross-site WebSocket hijacking).",
		"CheckOrigin: h.originAllowed, never func(*http.Request) bool { return true }; mount /ws outside the /mcp guard so that CheckOrigin is what refuses, with 403.",
	},
	"ORIGIN-17": {
		"Does the Host check of /mcp run for /ws, which is mounted beside it?",
		"The WebSocket handler is not wrapped by guard; hostAllowed is a plain function you can call anywhere.",
		"At the top of WebSocket's handler: if !hostAllowed(r) { forbidden(w, ...); return }, before Upgrade.",
	},
	"ORIGIN-18": {
		"How many lines does stage 01's loop see in a frame whose JSON is pretty-printed?",
		"encoding/json.Compact removes insignificant whitespace, newlines included.",
		"asLine: var b bytes.Buffer; if json.Compact(&b, frame) == nil { return append(b.Bytes(), '\\n') }; else the invalid-JSON path.",
	},
	"ORIGIN-19": {
		"If you turn a raw newline into a space, can an invalid frame become valid?",
		"RFC 8259 §7: control characters, U+000A among them, must be escaped inside strings; no JSON text contains a NUL byte.",
		"When json.Compact fails, copy the frame with each '\\n' and '\\r' replaced by 0, then append '\\n': the loop answers -32700 for the whole frame.",
	},
	"ORIGIN-20": {
		"Who runs requests concurrently and attaches the outlet in stage 01, and are you reusing it?",
		"stdio.Serve(ctx, in io.Reader, out io.Writer, srv): one line in per message, one Write out per message, concurrency and Session.Attach included.",
		"In serveSocket: stdio.Serve(ctx, in, &frameWriter{ws: ws}, h.server), with frameReader yielding asLine(frame) per text frame and frameWriter sending each line as one TextMessage.",
	},
	"ORIGIN-21": {
		"When the socket breaks, who is left to read the answers the loop is waiting to write?",
		"stdio.Serve waits for requests in flight at the end of input, but returns at once when its context is cancelled.",
		"In frameReader.Read, when ReadMessage fails: r.gone() (the cancel of serveSocket's context), then return 0, io.EOF.",
	},
	"ORIGIN-22": {
		"Does http.Server.Shutdown know about a connection the upgrader hijacked?",
		"net/http: Shutdown does not close or wait for hijacked connections; the given serve.Run calls CloseStreams before it.",
		"CloseStreams calls h.sockets.closeAll(), which cancels each connection; serveSocket then sends websocket.CloseGoingAway; Close waits for them (h.sockets.wait).",
	},
	"ORIGIN-24": {
		"How does a WebSocket message say whether it is text, and what does the course's transport carry?",
		"websocket.Conn.ReadMessage returns the frame's kind first; RFC 6455 §7.4.1 reserves close code 1003 for data an endpoint cannot accept.",
		"if kind != websocket.TextMessage { r.refuse(websocket.CloseUnsupportedData, \"send each JSON-RPC message as one text frame\"); return 0, io.EOF }",
	},
	"ORIGIN-23": {
		"Who can reach a server listening on 0.0.0.0, and which pages does the default allowlist trust?",
		"basic/transports › Security Warning: local servers SHOULD bind only to 127.0.0.1; net.SplitHostPort, netip.Addr.IsLoopback.",
		"In Listen, unless allowlisted: host, _, _ := net.SplitHostPort(addr); unless host is \"localhost\" or a loopback IP, return an error that says to pass -allow-origin, before net.Listen.",
	},
}
