// Package mcp is the course's MCP "notes" server: what it answers, not how the
// answers travel. It is given code, shared by every stage. A transport decodes
// messages, hands each valid one to the server, and delivers what comes back.
//
// # Two eras, one server
//
// The server speaks two eras of MCP (the version table, versions.go, has an
// Era column):
//
//   - 2025-03-26 to 2025-11-25, the session era, which lessons 01-04 teach:
//     initialize negotiates a version, notifications/initialized, ping,
//     tools/list and tools/call, logging/setLevel, notifications/cancelled.
//     A transport serves it through a Session: Session.Handle.
//   - 2026-07-28, the stateless era: no initialize and no session; every
//     request carries its version and the client's capabilities in
//     params._meta (RequestMeta), and server/discover says what the server
//     offers. Every result carries resultType and the server's name, list
//     results their caching hints. An HTTP transport serves it with no
//     session at all: Server.HandleStateless, one request at a time.
//
// On stdio there is one Session for the process, and it picks its era from
// its first request that decides: initialize picks 2025, server/discover or
// a request whose _meta names a protocol version picks 2026-07-28 (see
// servesStateless). So stage 01's loop serves both eras unchanged.
//
// On HTTP the transport picks per request (ClaimsStateless, then its header
// checks: ReadMeta, CheckVersion, RequestName, Server.HeaderParams). An
// error of the stateless era carries the HTTP status to answer it with
// (jsonrpc.Error.HTTPStatus): 400 for a malformed _meta (-32602), a missing
// client capability (-32021) and an unsupported version (-32022), 404 for a
// method that does not exist (-32601). The transport adds -32020 for its
// headers (HeaderMismatch).
//
// # What the eras share: notebooks
//
// A 2025 session is a conversation: the notes it takes are the session's,
// and end with it. At 2026-07-28 "Servers MUST NOT rely on prior requests
// over the same connection", and "State that needs to span multiple requests
// ... MUST be referenced by an explicit identifier the client passes on each
// request" (basic/index, "Statelessness"). So the notes live in notebooks:
//
//   - A 2025 session owns one notebook, unnamed, made with the session and
//     gone with it: add_note, list_notes and history work on it, as lessons
//     01-04 teach, and their tools, texts and results are exactly those of
//     the 2025 notes server.
//   - At 2026-07-28 a client makes a notebook with new_notebook and gets its
//     handle, nb_ and 128 random bits; add_note, list_notes, clear_notes and
//     history take it as their notebook argument, and countdown may, to keep
//     its outcome in the notebook's history. The server holds at most
//     MaxNotebooks, and drops one that goes unused for NotebookIdle. The
//     handle is a bearer token: whoever has it can use the notebook, so it is
//     never listed, logged or mirrored into a header.
//
// The two kinds never meet: a 2025 session cannot name a handle (its tools
// take none, and must not change), and no 2026 client can name a session's
// notebook (it has no handle). What the eras do share is the server: its
// tools' code and limits, and its change feed; the notebook store, the
// handles and the request-state key belong to 2026-07-28 alone.
//
// # Changes and listeners
//
// At 2026-07-28 a notebook's notes are also a resource, notes://<handle>:
// resources/read returns them, and subscriptions/listen with
// resourceSubscriptions naming it hears notifications/resources/updated after
// each add_note and clear_notes. resources/list lists nothing, since the
// handles are secret; resources/templates/list gives the URI template.
//
// Every change goes once through the server's ChangeFeed (Server.Publish),
// and each listener renders what it is entitled to in its own era's form:
//
//   - a subscriptions/listen that opted into it sends it tagged with the
//     listen request's id in _meta["io.modelcontextprotocol/subscriptionId"],
//     after the acknowledgment;
//   - a 2025 session with an outlet (its GET stream, or stdout) sends the
//     same change untagged, for the lists whose listChanged the server
//     declared in its InitializeResult.
//
// The notes server declares no list changes in the 2025 era (its
// InitializeResult must stay as lessons 01-04 show it), so its sessions hear
// none: a notebook change reaches only the listeners that name the notebook.
// A server built with New may declare them (Options.Capabilities), and then
// one Publish reaches both eras' listeners. A slow listener never makes the
// server queue without bound: a change already waiting is not queued twice.
//
// The feed is an interface with an in-memory default (NewMemoryFeed); a
// transport that fans changes out to listeners of its own subscribes to
// Server.Changes, and a fleet of servers shares one feed (Options.Changes).
//
// # Asking the user: multi round-trip requests
//
// At 2026-07-28 a server sends no request of its own. clear_notes shows what
// replaces them: it answers with an InputRequiredResult asking the user to
// confirm (an elicitation/create), and the client retries the call, with a
// new id, the user's answer in inputResponses and the requestState echoed
// back. The state says how many notes the user agreed to delete, so the
// server signs it (HMAC-SHA256 with Options.StateKey, bound to the tool, its
// arguments and a ten-minute expiry) and refuses one that fails
// verification with -32602. A request that does not declare the elicitation
// capability gets -32021 instead of a question it could not ask.
//
// # Where the spec leaves a choice, and what this package chose
//
//   - data.supported of -32022 and server/discover's supportedVersions list
//     only 2026-07-28: the 2025 revisions are reached through initialize,
//     not by naming them in _meta, so a _meta that names one gets -32022.
//   - A claim-less request before initialize, on stdio, is served as lessons
//     01-04 serve it, and does not choose the era; after a request chose
//     2026-07-28, initialize is a method that does not exist (-32601, naming
//     the era), and a request without _meta gets -32602.
//   - An unknown tool is -32602 on HTTP 200, like any tool's error: the spec
//     fixes a status only for the errors of the envelope.
//   - The caching hints: what is the same for everyone (server/discover,
//     tools/list, the resource lists) is "public" for five minutes; a
//     notebook read is "private" and stale at once. A MethodHandler's list
//     result without hints gets ttlMs 0 and "private".
//   - tools/list keeps the order the tools were added in.
//   - The server ends a listen with its completion result (EndListens),
//     never with notifications/cancelled, as both official SDKs do.
//
// # The 2025 outlet
//
// In the session era, messages the server starts on its own, outside any
// response, leave a session through its outlet: whatever stream the
// transport has attached (stdout on stdio, the standalone GET stream over
// HTTP). See Session.Attach. The stateless era has no such messages: a
// request's own stream carries its progress and its log messages, and a
// listen's stream its notifications.
package mcp
