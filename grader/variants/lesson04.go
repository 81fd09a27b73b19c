package variants

// Files of the reference that lesson 04's variants edit.
const (
	originAllowlist = "solutions/04-origin/allowlist.go"
	originHandler   = "solutions/04-origin/handler.go"
	originHost      = "solutions/04-origin/host.go"
	originSocket    = "solutions/04-origin/websocket.go"
	originFrames    = "solutions/04-origin/frames.go"
	originMain      = "solutions/04-origin/cmd/server/main.go"
	originFlags     = "solutions/04-origin/flags.go"
)

// guardOrigin is the guard's Origin case, which several variants change.
const guardOrigin = "\t\tcase !h.originAllowed(r):\n"

// lesson04 are mistakes in a server that decides which web pages may use it
// (stage 04).
var lesson04 = []*Variant{
	// Step 1: the guard.
	{
		Name: "cors-is-the-only-guard", Lesson: "04",
		Kills:   []string{"ORIGIN-01", "ORIGIN-02", "ORIGIN-04", "ORIGIN-06", "ORIGIN-07", "ORIGIN-08", "ORIGIN-09", "ORIGIN-11", "ORIGIN-14", "ORIGIN-25", "ORIGIN-26", "ORIGIN-27", "ORIGIN-28", "ORIGIN-29", "ORIGIN-30"},
		Mistake: "relies on CORS alone: a foreign page cannot read the answers, but its requests are served, and with them every side effect",
		Edits: []Edit{{File: originHandler,
			Old: "\th.endpoint = h.guard(grant.Handler(h.mcp))",
			New: "\th.endpoint = grant.Handler(h.mcp)"}},
	},
	{
		Name: "origin-checked-on-post-only", Lesson: "04", Kills: []string{"ORIGIN-02", "ORIGIN-14", "ORIGIN-30"},
		Mistake: "checks the Origin of POST requests only, so a foreign page can open the session's GET stream, delete the session, and have its preflights granted",
		Edits: []Edit{{File: originHandler,
			Old: guardOrigin,
			New: "\t\tcase r.Method == http.MethodPost && !h.originAllowed(r):\n"}},
	},
	{
		Name: "origin-required", Lesson: "04",
		Kills:   []string{"ORIGIN-02", "ORIGIN-03", "ORIGIN-11", "ORIGIN-22", "ORIGIN-23", "ORIGIN-26", "ORIGIN-27", "ORIGIN-28"},
		Mistake: "refuses requests that carry no Origin, which locks out every CLI and desktop client (typescript-sdk #1205)",
		Edits: []Edit{{File: originHandler,
			Old: guardOrigin,
			New: "\t\tcase !h.originAllowed(r) || r.Header.Get(\"Origin\") == \"\":\n"}},
	},
	{
		Name: "null-origin-allowed", Lesson: "04", Kills: []string{"ORIGIN-04", "ORIGIN-14", "ORIGIN-16"},
		Mistake: "treats Origin: null as if no Origin had been sent, though any page can send it from a sandboxed iframe",
		Edits: []Edit{{File: originHandler,
			Old: "\torigins := r.Header.Values(\"Origin\")\n",
			New: "\torigins := r.Header.Values(\"Origin\")\n\tif len(origins) == 1 && origins[0] == \"null\" {\n\t\torigins = nil // an opaque origin: as good as none\n\t}\n"}},
	},
	{
		Name: "first-origin-only", Lesson: "04", Kills: []string{"ORIGIN-04", "ORIGIN-16", "ORIGIN-25", "ORIGIN-28"},
		Mistake: "judges the first Origin header only (r.Header.Get), so a second one goes in unjudged, whatever it says",
		Edits: []Edit{{File: originHandler,
			Old: "\torigins := r.Header.Values(\"Origin\")\n\treturn len(origins) == 0 || (len(origins) == 1 && h.allow.Allows(origins[0]))\n",
			New: "\torigin := r.Header.Get(\"Origin\")\n\treturn origin == \"\" || h.allow.Allows(origin)\n"}},
	},

	{
		Name: "empty-origin-served", Lesson: "04", Kills: []string{"ORIGIN-04", "ORIGIN-16"},
		Mistake: "treats an Origin header that is present but empty as no Origin at all, and serves it, on /mcp and (through CheckOrigin) on /ws",
		Edits: []Edit{{File: originHandler,
			Old: "(len(origins) == 1 && h.allow.Allows(origins[0]))",
			New: "(len(origins) == 1 && (origins[0] == \"\" || h.allow.Allows(origins[0])))"}},
	},

	// Step 2: the allowlist.
	{
		Name: "wildcard-takes-one-label", Lesson: "04", Kills: []string{"ORIGIN-05", "ORIGIN-08", "ORIGIN-12", "ORIGIN-13"},
		Mistake: "lets *.example.com stand for one label only, as in a TLS certificate, so a.b.example.com is refused though the course's wildcard takes one label or more",
		Edits: []Edit{{File: originAllowlist,
			Old: "\t\treturn strings.HasSuffix(o.host, \".\"+p.host)\n",
			New: "\t\treturn strings.HasSuffix(o.host, \".\"+p.host) && !strings.Contains(strings.TrimSuffix(o.host, \".\"+p.host), \".\")\n"}},
	},
	{
		Name: "has-suffix-matching", Lesson: "04", Kills: []string{"ORIGIN-06", "ORIGIN-16"},
		Mistake: "matches a wildcard with strings.HasSuffix(host, \"example.com\"), without the dot, so xexample.com and the bare example.com get in",
		Edits: []Edit{{File: originAllowlist,
			Old: "\t\treturn strings.HasSuffix(o.host, \".\"+p.host)\n",
			New: "\t\treturn strings.HasSuffix(o.host, p.host)\n"}},
	},
	{
		Name: "has-prefix-matching", Lesson: "04", Kills: []string{"ORIGIN-06", "ORIGIN-09"},
		Mistake: "matches an exact host with strings.HasPrefix, so http://localhost.evil.example passes for http://localhost",
		Edits: []Edit{{File: originAllowlist,
			Old: "\treturn o.host == p.host\n",
			New: "\treturn strings.HasPrefix(o.host, p.host)\n"}},
	},
	{
		Name: "scheme-ignored", Lesson: "04",
		Kills:   []string{"ORIGIN-01", "ORIGIN-02", "ORIGIN-06", "ORIGIN-07", "ORIGIN-14", "ORIGIN-16", "ORIGIN-28", "ORIGIN-29", "ORIGIN-33"},
		Mistake: "compares hosts and ports but not schemes, so http://app.example.com passes for https://*.example.com, and vscode-webview://* lets in every origin of every scheme",
		Edits: []Edit{{File: originAllowlist,
			Old: "\tif o.scheme != p.scheme || (!p.anyPort && o.port != p.port) {",
			New: "\tif !p.anyPort && o.port != p.port {"}},
	},
	{
		Name: "port-ignored", Lesson: "04", Kills: []string{"ORIGIN-07", "ORIGIN-29"},
		Mistake: "compares schemes and hosts but not ports, so any port of an allowed host passes",
		Edits: []Edit{{File: originAllowlist,
			Old: "\tif o.scheme != p.scheme || (!p.anyPort && o.port != p.port) {",
			New: "\tif o.scheme != p.scheme {"}},
	},
	{
		Name: "case-sensitive-hosts", Lesson: "04", Kills: []string{"ORIGIN-08"},
		Mistake: "compares host names as written, so HTTPS://APP.EXAMPLE.COM is refused though it is the same origin",
		Edits: []Edit{{File: originAllowlist,
			Old: "\th = strings.ToLower(h)\n",
			New: ""}},
	},
	{
		Name: "raw-unicode-lowered-into-ascii", Lesson: "04", Kills: []string{"ORIGIN-08"},
		Mistake: "lower-cases a host before it looks for raw Unicode, so strings.ToLower turns the Kelvin sign into k, and https://\u212Aey.example.com passes for key.example.com",
		Edits: []Edit{{File: originAllowlist,
			Old: "\tfor i := 0; i < len(h); i++ {\n\t\tif h[i] >= 0x80 {\n\t\t\treturn \"\", false // raw Unicode, which strings.ToLower could turn into ASCII (the Kelvin sign K into k)\n\t\t}\n\t}\n",
			New: ""}},
	},
	{
		Name: "default-port-not-implied", Lesson: "04", Kills: []string{"ORIGIN-08", "ORIGIN-12", "ORIGIN-13", "ORIGIN-29"},
		Mistake: "treats https://app.example.com:443 as another origin than https://app.example.com, though 443 is https's default port",
		Edits: []Edit{{File: originAllowlist,
			Old: "\tif o.port == defaultPorts[o.scheme] {\n\t\to.port = \"\"\n\t}\n\treturn o, true",
			New: "\treturn o, true"}},
	},
	{
		Name: "no-default-allowlist", Lesson: "04", Kills: []string{"ORIGIN-09", "ORIGIN-30"},
		Mistake: "allows every origin when no -allow-origin is given, so a server started without flags is open to every web site",
		Edits: []Edit{
			{File: originAllowlist,
				Old: "\tif len(patterns) == 0 {\n\t\tpatterns = LoopbackOrigins\n\t}\n",
				New: ""},
			{File: originAllowlist,
				Old: "\to, ok := parseOrigin(origin)\n\tif !ok {\n\t\treturn false\n\t}\n\tfor _, p := range a.patterns {",
				New: "\tif len(a.patterns) == 0 {\n\t\treturn true // no list, nothing to enforce\n\t}\n\to, ok := parseOrigin(origin)\n\tif !ok {\n\t\treturn false\n\t}\n\tfor _, p := range a.patterns {"},
		},
	},
	{
		Name: "loopback-always-allowed", Lesson: "04", Kills: []string{"ORIGIN-09", "ORIGIN-29"},
		Mistake: "adds the loopback origins to an explicit allowlist instead of using them only when none is given",
		Edits: []Edit{{File: originAllowlist,
			Old: "\tif len(patterns) == 0 {\n\t\tpatterns = LoopbackOrigins\n\t}\n",
			New: "\tpatterns = append(append([]string(nil), patterns...), LoopbackOrigins...)\n"}},
	},

	{
		Name: "bad-patterns-skipped", Lesson: "04", Kills: []string{"ORIGIN-10"},
		Mistake: "skips an -allow-origin pattern it cannot parse, so a typo silently changes what is allowed",
		Edits: []Edit{{File: originAllowlist,
			Old: "\t\tif err != nil {\n\t\t\treturn nil, err\n\t\t}\n\t\ta.patterns = append(a.patterns, p)",
			New: "\t\tif err != nil {\n\t\t\tcontinue // not a pattern: skip it\n\t\t}\n\t\ta.patterns = append(a.patterns, p)"}},
	},

	{
		Name: "too-wide-check-reads-the-raw-scheme", Lesson: "04", Kills: []string{"ORIGIN-10"},
		Mistake: "looks the scheme up as written when it refuses a host of *, so HTTPS://* starts the server as a custom scheme's any-host, then matches every https origin",
		Edits: []Edit{{File: originAllowlist,
			Old: "\t\tif _, web := defaultPorts[p.scheme]; web {\n",
			New: "\t\tif _, web := defaultPorts[scheme]; web {\n"}},
	},
	{
		Name: "wildcard-below-a-tld-accepted", Lesson: "04", Kills: []string{"ORIGIN-10"},
		Mistake: "accepts a wildcard below a single label, so -allow-origin https://*.com starts the server and lets every .com site in",
		Edits: []Edit{{File: originAllowlist,
			Old: "\t\tif !strings.Contains(host, \".\") {\n\t\t\treturn bad(\"a wildcard needs a domain of at least two labels below it (*.example.com); *.\" + host + \" would take in every site under .\" + host)\n\t\t}\n",
			New: ""}},
	},
	{
		Name: "pattern-keeps-its-default-port", Lesson: "04", Kills: []string{"ORIGIN-29"},
		Mistake: "drops the default port of the Origin but not of the pattern, so -allow-origin https://app.example.com:443 names an origin no browser sends, and its page is refused",
		Edits: []Edit{{File: originAllowlist,
			Old: "\tp.port = port\n\tif p.port == defaultPorts[p.scheme] {\n\t\tp.port = \"\"\n\t}\n",
			New: "\tp.port = port\n"}},
	},

	// Step 3: the Host header.
	{
		Name: "no-host-check", Lesson: "04", Kills: []string{"ORIGIN-11", "ORIGIN-17", "ORIGIN-26", "ORIGIN-27", "ORIGIN-28", "ORIGIN-33"},
		Mistake: "checks Origin but not Host, so a page whose DNS name was rebound to 127.0.0.1 can GET the server's streams, which carry no Origin",
		Edits: []Edit{{File: originHost,
			Old: "\thost := hostName(r.Host)\n\treturn isLocalHost(host) || h.hosts.allows(host)\n",
			New: "\treturn true\n"}},
	},
	{
		Name: "host-checked-on-loopback-only", Lesson: "04", Kills: []string{"ORIGIN-27"},
		Mistake: "checks Host only on requests that arrived on a loopback address, as the official Go SDK does, so a server listening on every interface serves a page rebound to its network address",
		Edits: []Edit{
			{File: originHost,
				Old: "\treturn isLocalHost(host) || h.hosts.allows(host)\n",
				New: "\treturn !arrivedOnLoopback(r) || isLocalHost(host) || h.hosts.allows(host)\n"},
			{File: originHost,
				Old: "// hostName returns the name a Host header holds",
				New: `// arrivedOnLoopback reports whether r came in on a loopback address.
func arrivedOnLoopback(r *http.Request) bool {
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if addr == nil {
		return false
	}
	ap, err := netip.ParseAddrPort(addr.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// hostName returns the name a Host header holds`},
		},
	},
	{
		Name: "allow-host-ignored", Lesson: "04", Kills: []string{"ORIGIN-26", "ORIGIN-27"},
		Mistake: "parses -allow-host but never asks it, so a server that clients reach by its own name refuses them all",
		Edits: []Edit{{File: originHost,
			Old: "\treturn isLocalHost(host) || h.hosts.allows(host)\n",
			New: "\treturn isLocalHost(host)\n"}},
	},
	{
		Name: "allow-host-suffix-matching", Lesson: "04", Kills: []string{"ORIGIN-26"},
		Mistake: "matches an -allow-host wildcard with strings.HasSuffix(host, domain), without the dot, so xdev.example.com and the bare dev.example.com get in for *.dev.example.com",
		Edits: []Edit{{File: originHost,
			Old: "\t\treturn strings.HasSuffix(host, \".\"+p.host)\n",
			New: "\t\treturn strings.HasSuffix(host, p.host)\n"}},
	},
	{
		Name: "allow-host-too-wide", Lesson: "04", Kills: []string{"ORIGIN-26"},
		Mistake: "takes any -allow-host wildcard, *.com included, which lets every rebound name under .com in",
		Edits: []Edit{{File: originHost,
			Old: "\tcase subs && !strings.Contains(host, \".\"):\n",
			New: "\tcase false:\n"}},
	},
	{
		Name: "host-prefix-check", Lesson: "04", Kills: []string{"ORIGIN-11", "ORIGIN-17"},
		Mistake: "accepts any Host that starts with localhost, so localhost.evil.example, a name anyone can register and rebind, gets in",
		Edits: []Edit{{File: originHost,
			Old: "\tif strings.EqualFold(host, \"localhost\") {",
			New: "\tif strings.HasPrefix(strings.ToLower(host), \"localhost\") {"}},
	},

	{
		Name: "host-read-from-x-forwarded-host", Lesson: "04", Kills: []string{"ORIGIN-11", "ORIGIN-17"},
		Mistake: "judges X-Forwarded-Host, when a request carries one, instead of Host, for servers behind a proxy, so a rebound page that adds X-Forwarded-Host: localhost passes the Host check",
		Edits: []Edit{{File: originHost,
			Old: "\thost := hostName(r.Host)\n",
			New: "\thostport := r.Host\n\tif fwd := r.Header.Get(\"X-Forwarded-Host\"); fwd != \"\" {\n\t\thostport = fwd // behind a reverse proxy, the name the client used\n\t}\n\thost := hostName(hostport)\n"}},
	},
	{
		Name: "ipv6-host-without-port-refused", Lesson: "04", Kills: []string{"ORIGIN-11", "ORIGIN-17"},
		Mistake: "keeps the brackets of a Host without a port, so Host: [::1], which a client of http://[::1]/ sends, is not read as an address and gets 403",
		Edits: []Edit{{File: originHost,
			Old: "\t\thost = strings.TrimSuffix(strings.TrimPrefix(hostport, \"[\"), \"]\") // no port\n",
			New: "\t\thost = hostport // no port\n"}},
	},
	{
		Name: "host-refusal-does-not-stop", Lesson: "04", Kills: []string{"ORIGIN-11", "ORIGIN-26", "ORIGIN-27", "ORIGIN-28"},
		Mistake: "answers a rebound Host with 403 and does not return, so the Origin check and stage 03 run behind the refusal: a refused initialize still opens a session",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tswitch {\n\t\t// @step 3: the Host check comes first\n\t\tcase !h.hostAllowed(r):\n\t\t\tforbiddenHost(w, r)\n",
			New: "\t\t// @step 3: the Host check comes first\n\t\tif !h.hostAllowed(r) {\n\t\t\tforbiddenHost(w, r)\n\t\t}\n\t\tswitch {\n"}},
	},

	// Step 4: CORS.
	{
		Name: "cors-star", Lesson: "04", Kills: []string{"ORIGIN-12", "ORIGIN-13", "ORIGIN-30"},
		Mistake: "answers CORS with Access-Control-Allow-Origin: * (rs/cors's AllowedOrigins: *), a grant to every web site",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tAllowOriginFunc: allow.Allows, // the same allowlist; the answer echoes the origin, never \"*\"\n",
			New: "\t\tAllowedOrigins: []string{\"*\"},\n"}},
	},
	{
		Name: "cors-default-headers", Lesson: "04", Kills: []string{"ORIGIN-12", "ORIGIN-30"},
		Mistake: "leaves rs/cors's allowed headers at their default (Accept, Content-Type, X-Requested-With), so a page's preflight for Mcp-Session-Id is not granted",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tAllowedHeaders: []string{\"Accept\", \"Content-Type\", \"Authorization\",\n\t\t\tstreamable.SessionIDHeader, streamable.ProtocolVersionHeader, resume.LastEventIDHeader},\n",
			New: ""}},
	},
	{
		Name: "session-id-not-exposed", Lesson: "04", Kills: []string{"ORIGIN-13", "ORIGIN-30"},
		Mistake: "does not expose Mcp-Session-Id, so a page can initialize but cannot read its session id",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tExposedHeaders: []string{streamable.SessionIDHeader}, // so that a page can read its session id\n",
			New: ""}},
	},
	{
		Name: "preflight-bypasses-403", Lesson: "04", Kills: []string{"ORIGIN-14", "ORIGIN-30"},
		Mistake: "lets every OPTIONS request through to rs/cors, which answers a foreign origin's preflight with 204",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tcase !h.hostAllowed(r):",
			New: "\t\tcase r.Method == http.MethodOptions:\n\t\t\tnext.ServeHTTP(w, r) // preflights are CORS's business\n\t\tcase !h.hostAllowed(r):"}},
	},
	{
		Name: "cors-outside-the-guard", Lesson: "04", Kills: []string{"ORIGIN-14", "ORIGIN-30"},
		Mistake: "puts rs/cors outside the guard, so every preflight meets rs/cors first and gets its 204",
		Edits: []Edit{{File: originHandler,
			Old: "\th.endpoint = h.guard(grant.Handler(h.mcp))",
			New: "\th.endpoint = grant.Handler(h.guard(h.mcp))"}},
	},

	{
		Name: "cors-reads-the-patterns-itself", Lesson: "04", Kills: []string{"ORIGIN-12", "ORIGIN-13", "ORIGIN-30"},
		Mistake: "gives rs/cors the raw -allow-origin list (AllowedOrigins) instead of the allowlist: without the flag the list is empty, which rs/cors reads as every origin (*), and with it rs/cors's string matching disagrees with the guard",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tAllowOriginFunc: allow.Allows, // the same allowlist; the answer echoes the origin, never \"*\"\n",
			New: "\t\tAllowedOrigins:  opts.AllowOrigins, // rs/cors reads the same -allow-origin patterns\n"}},
	},

	// Step 5: the WebSocket.
	{
		Name: "checkorigin-default", Lesson: "04", Kills: []string{"ORIGIN-15", "ORIGIN-16"},
		Mistake: "leaves Upgrader.CheckOrigin nil: gorilla's default wants the Origin's host to equal Host, so every allowed page on another host is refused",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tCheckOrigin: h.originAllowed,\n",
			New: ""}},
	},
	{
		Name: "checkorigin-true", Lesson: "04", Kills: []string{"ORIGIN-16", "ORIGIN-33"},
		Mistake: "sets Upgrader.CheckOrigin to a function that returns true, so any web site can open the socket (cross-site WebSocket hijacking)",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tCheckOrigin: h.originAllowed,\n",
			New: "\t\tCheckOrigin: func(*http.Request) bool { return true },\n"}},
	},
	{
		Name: "ws-no-host-check", Lesson: "04", Kills: []string{"ORIGIN-17", "ORIGIN-33"},
		Mistake: "checks Host on /mcp but not on /ws",
		Edits: []Edit{{File: originSocket,
			Old: "\t\tif !h.hostAllowed(r) {\n\t\t\tforbiddenHost(w, r)",
			New: "\t\tif false {\n\t\t\tforbiddenHost(w, r)"}},
	},
	{
		Name: "frames-not-compacted", Lesson: "04", Kills: []string{"ORIGIN-18", "ORIGIN-19"},
		Mistake: "hands each frame to the loop as it came, so a frame whose JSON spans lines becomes several broken messages",
		Edits: []Edit{{File: originFrames,
			Old: "\tvar line bytes.Buffer\n\tif json.Compact(&line, frame) != nil {",
			New: "\tvar line bytes.Buffer\n\tline.Write(frame)\n\tif false && json.Compact(&line, frame) != nil {"}},
	},
	{
		Name: "newlines-to-spaces", Lesson: "04", Kills: []string{"ORIGIN-19"},
		Mistake: "turns a frame's raw newlines into spaces, which makes an invalid frame (a raw newline inside a string) valid, and runs it",
		Edits: []Edit{{File: originFrames,
			Old: "\t\t\t\tc = 0\n",
			New: "\t\t\t\tc = ' '\n"}},
	},
	{
		Name: "ws-serves-frames-itself", Lesson: "04", Kills: []string{"ORIGIN-20", "ORIGIN-21", "ORIGIN-22", "ORIGIN-24", "ORIGIN-32", "ORIGIN-34"},
		Mistake: "answers each frame itself, one at a time, instead of running stage 01's loop: a slow tool holds up every other request",
		Edits: []Edit{
			{File: originSocket,
				Old: "\tstdio.Serve(ctx, in, &frameWriter{ws: ws}, h.server)\n",
				New: "\tserveOneByOne(ctx, in, &frameWriter{ws: ws}, h.server.NewSession())\n"},
			{File: originSocket,
				Old: "// ping sends a ping",
				New: `// serveOneByOne reads a frame, answers it, then reads the next.
func serveOneByOne(ctx context.Context, in io.Reader, out io.Writer, sess *mcp.Session) {
	defer sess.Close()
	lines := bufio.NewScanner(in)
	lines.Buffer(nil, stdio.MaxMessageBytes+1)
	for lines.Scan() {
		msg, answer := stdio.Decode(lines.Bytes())
		if answer == nil {
			answer = sess.Handle(ctx, msg, linePeer{out})
		}
		if answer != nil {
			linePeer{out}.Send(ctx, answer)
		}
	}
}

type linePeer struct{ w io.Writer }

func (p linePeer) Send(_ context.Context, msg *jsonrpc.Message) error {
	b, err := json.Marshal(msg)
	if err == nil {
		_, err = p.w.Write(append(b, '\n'))
	}
	return err
}

// ping sends a ping`},
			{File: originSocket,
				Old: "import (\n\t\"context\"\n",
				New: "import (\n\t\"bufio\"\n\t\"encoding/json\"\n\t\"io\"\n\n\t\"mcpcourse/internal/jsonrpc\"\n\t\"mcpcourse/internal/mcp\"\n\n\t\"context\"\n"},
		},
	},
	{
		Name: "socket-close-is-eof", Lesson: "04", Kills: []string{"ORIGIN-21"},
		Mistake: "reports a broken socket as the end of input and nothing more, so the loop waits for the connection's requests to finish, for nobody",
		Edits: []Edit{{File: originFrames,
			Old: "\t\t\tr.gone()\n\t\t\treturn 0, io.EOF\n",
			New: "\t\t\treturn 0, io.EOF\n"}},
	},
	{
		Name: "websockets-outlive-shutdown", Lesson: "04", Kills: []string{"ORIGIN-22"},
		Mistake: "leaves the WebSockets to http.Server.Shutdown, which does not track hijacked connections: they die with the process, without a close frame",
		Edits: []Edit{{File: originHandler,
			Old: "\th.mcp.CloseStreams()\n\th.sockets.closeAll()\n",
			New: "\th.mcp.CloseStreams()\n"}},
	},

	{
		Name: "sockets-waited-for-a-fixed-time", Lesson: "04", Kills: []string{"ORIGIN-22"},
		Mistake: "waits out the whole second at shutdown instead of until the last socket has closed, so every stop takes a second longer than it needs",
		Edits: []Edit{{File: originSocket,
			Old: "\tselect {\n\tcase <-closed:\n\tcase <-time.After(d):\n\t}\n",
			New: "\tselect {\n\tcase <-time.After(d):\n\t}\n"}},
	},
	{
		Name: "sockets-not-waited-for", Lesson: "04", Kills: []string{"ORIGIN-22"},
		Mistake: "does not wait for the sockets at shutdown: the process exits while a socket is still finishing an answer, and its client gets neither the rest nor a close frame",
		Edits: []Edit{{File: originSocket,
			Old: "\t\ts.done.Wait()\n",
			New: ""}},
	},
	{
		Name: "sockets-waited-for-without-a-bound", Lesson: "04", Kills: []string{"ORIGIN-22"},
		Mistake: "waits for every socket's goodbye at shutdown without a bound, so a client that stopped reading holds the exit until its write times out",
		Edits: []Edit{{File: originSocket,
			Old: "\tcase <-time.After(d):\n",
			New: ""}},
	},
	{
		Name: "binary-frames-read-as-text", Lesson: "04", Kills: []string{"ORIGIN-24"},
		Mistake: "reads a binary frame as if it were text, so bytes the transport does not carry run as a message instead of closing the socket with 1003",
		Edits: []Edit{{File: originFrames,
			Old: "\t\tif kind != websocket.TextMessage {\n",
			New: "\t\tif kind != websocket.TextMessage && kind != websocket.BinaryMessage {\n"}},
	},

	{
		Name: "ws-checkorigin-reads-the-first-origin", Lesson: "04", Kills: []string{"ORIGIN-16"},
		Mistake: "gives the WebSocket a CheckOrigin of its own that reads the first Origin only (r.Header.Get), so a handshake with an allowed Origin first and a foreign one second is upgraded",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tCheckOrigin: h.originAllowed,\n",
			New: "\t\tCheckOrigin: func(r *http.Request) bool {\n\t\t\to := r.Header.Get(\"Origin\")\n\t\t\treturn o == \"\" || allow.Allows(o)\n\t\t},\n"}},
	},
	{
		Name: "ws-socket-cap-off-by-one", Lesson: "04", Kills: []string{"ORIGIN-31", "ORIGIN-33"},
		Mistake: "compares the number of sockets with > instead of >=, so /ws admits one socket more than -max-sessions before it answers 503",
		Edits: []Edit{{File: originSocket,
			Old: "\treturn s.closing || len(s.live) >= s.max\n",
			New: "\treturn s.closing || len(s.live) > s.max\n"}},
	},
	{
		Name: "ws-closed-sockets-still-counted", Lesson: "04", Kills: []string{"ORIGIN-22", "ORIGIN-31"},
		Mistake: "never removes a socket that has ended from the set, so closed sockets still count: after -max-sessions sockets have come and gone, every handshake gets 503",
		Edits: []Edit{{File: originSocket,
			Old: "\tdefer h.sockets.remove(ws)\n",
			New: ""}},
	},
	{
		Name: "ws-no-read-limit", Lesson: "04", Kills: []string{"ORIGIN-32"},
		Mistake: "sets no read limit on the socket, so gorilla reads a frame of any size into memory before the loop sees it",
		Edits: []Edit{{File: originSocket,
			Old: "\tws.SetReadLimit(stdio.MaxMessageBytes)\n",
			New: ""}},
	},
	{
		Name: "ws-long-frame-tail-dropped", Lesson: "04", Kills: []string{"ORIGIN-22", "ORIGIN-32"},
		Mistake: "drops what of a frame did not fit in the loop's read buffer, so a frame longer than 64 KiB loses its tail and runs on into the next frame",
		Edits: []Edit{{File: originFrames,
			Old: "\tr.line = r.line[n:]\n",
			New: "\tr.line = nil // the frame has been handed over\n"}},
	},
	{
		Name: "ws-blank-frame-answered", Lesson: "04", Kills: []string{"ORIGIN-32"},
		Mistake: "has no case for a blank frame, so a frame of white space with a line break in it becomes NUL bytes and is answered with -32700, where a blank line gets no answer",
		Edits: []Edit{{File: originFrames,
			Old: "\tif len(bytes.TrimSpace(frame)) == 0 {\n\t\treturn []byte(\"\\n\") // a blank line: no message, and no answer\n\t}\n",
			New: ""}},
	},
	{
		Name: "ws-no-write-deadline", Lesson: "04", Kills: []string{"ORIGIN-34"},
		Mistake: "writes each frame without a deadline, so a client that stops reading holds its socket, its goroutines and a half-written answer for ever",
		Edits: []Edit{{File: originFrames,
			Old: "\t\tw.ws.SetWriteDeadline(time.Now().Add(writeTimeout))\n",
			New: ""}},
	},
	{
		Name: "ws-write-error-ignored", Lesson: "04", Kills: []string{"ORIGIN-34"},
		Mistake: "drops the error of a frame's write, so the loop never learns that its client is gone: it keeps running, writing into a broken socket, until the client closes it",
		Edits: []Edit{{File: originFrames,
			Old: "\t\tif err := w.ws.WriteMessage(websocket.TextMessage, msg); err != nil {\n\t\t\treturn 0, err\n\t\t}\n",
			New: "\t\tw.ws.WriteMessage(websocket.TextMessage, msg)\n"}},
	},
	{
		Name: "ws-never-pings", Lesson: "04", Kills: []string{"ORIGIN-35"},
		Mistake: "never pings its sockets, so a quiet client that is still there is taken for a vanished one once the read deadline passes",
		Edits: []Edit{{File: originSocket,
			Old: "\tgo ping(ctx, ws, h.ping)\n",
			New: ""}},
	},
	{
		Name: "ws-frames-do-not-push-the-deadline", Lesson: "04", Kills: []string{"ORIGIN-35"},
		Mistake: "pushes the read deadline on only for pongs, so a client that talks all the time but answers no ping is cut off mid-conversation",
		Edits: []Edit{{File: originFrames,
			Old: "\t\tr.ws.SetReadDeadline(time.Now().Add(r.wait))\n",
			New: ""}},
	},
	{
		Name: "ws-no-read-deadline", Lesson: "04", Kills: []string{"ORIGIN-35"},
		Mistake: "pings, but sets no read deadline before the first frame, so a client that vanished right after the handshake is never let go",
		Edits: []Edit{{File: originSocket,
			Old: "\tws.SetReadDeadline(time.Now().Add(wait))\n",
			New: ""}},
	},
	{
		Name: "empty-patterns-skipped", Lesson: "04", Kills: []string{"ORIGIN-10"},
		Mistake: "skips empty -allow-origin patterns, so -allow-origin '' (an unset variable) starts the server with the loopback default, and a doubled comma goes unnoticed",
		Edits: []Edit{{File: originFlags,
			Old: "\t\ts = strings.TrimSpace(s)\n",
			New: "\t\ts = strings.TrimSpace(s)\n\t\tif s == \"\" {\n\t\t\tcontinue // nothing to allow: skip it\n\t\t}\n"}},
	},
	{
		Name: "ws-subprotocol-not-chosen", Lesson: "04", Kills: []string{"ORIGIN-15"},
		Mistake: "leaves the Upgrader's Subprotocols out, so a client that offers mcp gets a 101 naming none, and the MCP SDKs' WebSocket clients hang up",
		Edits: []Edit{{File: originHandler,
			Old: "\t\tSubprotocols:     []string{subprotocol}, // chosen when the client offers it\n",
			New: ""}},
	},
	{
		Name: "ws-ping-zero-not-defaulted", Lesson: "04", Kills: []string{"ORIGIN-35"},
		Mistake: "takes -ws-ping 0 as it is rather than as the default, so the pinger's time.NewTicker(0) panics at the first socket and the server dies",
		Edits: []Edit{{File: originHandler,
			Old: "\th.ping = opts.WebSocketPing\n\tif h.ping <= 0 {\n\t\th.ping = DefaultWebSocketPing\n\t}\n",
			New: "\th.ping = opts.WebSocketPing\n"}},
	},
	{
		Name: "ws-host-refusal-does-not-stop", Lesson: "04", Kills: []string{"ORIGIN-33"},
		Mistake: "answers a handshake with a rebound Host with 403 and does not return, so Upgrade writes its 101 behind the refusal and serves the socket",
		Edits: []Edit{{File: originSocket,
			Old: "\t\tif !h.hostAllowed(r) {\n\t\t\tforbiddenHost(w, r)\n\t\t\treturn\n\t\t}\n",
			New: "\t\tif !h.hostAllowed(r) {\n\t\t\tforbiddenHost(w, r)\n\t\t}\n"}},
	},
	{
		Name: "shutdown-leaves-get-streams-open", Lesson: "04", Kills: []string{"ORIGIN-22"},
		Mistake: "ends the WebSockets at shutdown but forgets stage 03's GET streams, so Shutdown waits its whole grace period for a stream that never ends by itself, then cuts it off",
		Edits: []Edit{{File: originHandler,
			Old: "\th.mcp.CloseStreams()\n\th.sockets.closeAll()\n",
			New: "\th.sockets.closeAll()\n"}},
	},

	// Step 6: secure defaults.
	{
		Name: "binds-anywhere", Lesson: "04", Kills: []string{"ORIGIN-23"},
		Mistake: "listens on every interface when told to, with the loopback default allowlist, so the whole network can reach a server that trusts only local pages",
		Edits: []Edit{{File: originHost,
			Old: "\tif !allowlisted {\n",
			New: "\tif false {\n"}},
	},
	{
		Name: "listen-refuses-only-0.0.0.0", Lesson: "04", Kills: []string{"ORIGIN-23"},
		Mistake: "refuses only an empty host and 0.0.0.0 without an allowlist, so [::] (every interface) and any one network address go through with the loopback default",
		Edits: []Edit{{File: originHost,
			Old: "\t\tif !strings.EqualFold(host, \"localhost\") && (err != nil || !ip.IsLoopback()) {\n",
			New: "\t\tif host == \"\" || host == \"0.0.0.0\" {\n"}},
	},
	{
		Name: "listen-refuses-ipv6-loopback", Lesson: "04", Kills: []string{"ORIGIN-23"},
		Mistake: "compares the host with the strings localhost and 127.0.0.1 instead of asking whether it is loopback, so it refuses [::1] and 127.0.0.2 without -allow-origin",
		Edits: []Edit{{File: originHost,
			Old: "\t\tif !strings.EqualFold(host, \"localhost\") && (err != nil || !ip.IsLoopback()) {\n",
			New: "\t\tif host != \"localhost\" && host != \"127.0.0.1\" {\n"}},
	},
	{
		Name: "allow-host-counts-as-an-allowlist", Lesson: "04", Kills: []string{"ORIGIN-23"},
		Mistake: "tells Listen an allowlist was named when -allow-host alone was given, so the server listens beyond loopback trusting any http://localhost:* page of any machine",
		Edits: []Edit{{File: originMain,
			Old: "\tln, err := origin.Listen(flags.Addr, len(opts.AllowOrigins) > 0)\n",
			New: "\tln, err := origin.Listen(flags.Addr, len(opts.AllowOrigins) > 0 || len(opts.AllowHosts) > 0)\n"}},
	},
}
