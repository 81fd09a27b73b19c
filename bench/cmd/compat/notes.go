package main

import "strings"

// notes explain the spec findings, per server and check ("gosdk/HTTP-08"),
// or per check for every server ("ORIGIN-01"): who reads the spec right,
// and why. Each was written after reading the spec's text at the section
// the grader cites (modelcontextprotocol/modelcontextprotocol,
// docs/specification/2025-11-25 and 2025-03-26) and, for the SDKs, their
// code at the pinned version; a finding without a note is reported by the
// command, so that a new one is read before it is published.
var notes = map[string]string{
	// stdio: input a correct client never sends. JSON-RPC 2.0 (which MCP's
	// base protocol adopts: "All messages between MCP clients and servers
	// MUST follow the JSON-RPC 2.0 specification") answers it; MCP's stdio
	// section forbids the client to send it.
	"gosdk/STDIO-10": badInput + " go-sdk stops at the first such line: `ioConn.Read` (mcp/transport.go, v1.8.0) returns the decoding error, " +
		"the connection ends, and `Server.Run` returns it (the peer then exits). One bad line ends the session, with no answer.",
	"ts/STDIO-10": badInput + " The TypeScript SDK's stdio transport drops a line it cannot parse and reports it to `onerror` " +
		"(`processReadBuffer`, server/stdio.js): the client gets nothing, and the connection goes on.",

	"gosdk/STDIO-11": invalidRequest + " go-sdk ends the session instead, as for a line that is not JSON (STDIO-10).",
	"mcpgo/STDIO-11": invalidRequest + " mcp-go answers `\"jsonrpc\": \"1.0\"` right, -32600 with the request's id, but `\"jsonrpc\": 2.0` " +
		"(a number) with -32700 Parse error, which JSON-RPC keeps for text that is not JSON (\"Invalid JSON was received by the server\"): " +
		"`{\"jsonrpc\":2.0,...}` is valid JSON. The answer is there, its code is wrong: the smallest finding here.",
	"ts/STDIO-11": invalidRequest + " The TypeScript SDK drops the message (it fails the SDK's message schema) and answers nothing.",

	"STDIO-12": "MCP forbids a null id (\"Unlike base JSON-RPC, the ID MUST NOT be null\"), so `{\"id\": null, \"method\": \"ping\"}` is an invalid " +
		"request, and JSON-RPC 2.0 answers an invalid Request with -32600 and a null id (§5: \"If there was an error in detecting the id in the " +
		"Request object (e.g. Parse error/Invalid Request), it MUST be Null\"). The grader broke MCP's MUST first; but a client that does so " +
		"waits for an answer, and the server sends none: it reads the null id as no id, a notification, or drops the message. The grader reads the spec right; " +
		"the harm is small.",

	"gosdk/STDIO-13": invalidShape + " go-sdk ends the session instead (STDIO-10).",
	"mcpgo/STDIO-13": invalidShape + " mcp-go answers -32700 Parse error for valid JSON of the wrong shape (`\"method\": 42`), where JSON-RPC " +
		"says -32600 Invalid Request. The answer is there, its code is wrong. (For `\"method\": \"\"` it answers -32601, which the grader accepts: " +
		"JSON-RPC reads an empty name as a method that does not exist.)",
	"ts/STDIO-13": invalidShape + " The TypeScript SDK drops such messages and answers nothing.",

	"gosdk/STDIO-20": batches + " go-sdk has batches over stdio, but a batch that holds a notification is never answered: `ioConn.Read` " +
		"(mcp/transport.go, v1.8.0) counts every `*jsonrpc.Request` of the batch as awaiting a response, and a notification is a Request " +
		"without an id, so the batch's answer waits for it for ever. Checked by hand: `[ping, ping]` is answered, " +
		"`[ping, notifications/cancelled]` never is. Over HTTP the same batch is answered (HTTP-19 passes). A bug in go-sdk.",
	"mcpgo/STDIO-20": batches + " mcp-go has no batches over stdio: it answers the array with -32700 \"Failed to parse message\".",
	"ts/STDIO-20": batches + " The TypeScript SDK has no batches over stdio: the array fails its message schema and is dropped, unanswered. " +
		"Over HTTP it answers them (HTTP-19 passes).",

	"mcpgo/STDIO-17": "The spec: \"Progress notifications MUST stop after completion\" (basic/utilities/progress, Implementation Notes). " +
		"mcp-go queues notifications for a goroutine of their own, and the call's response does not wait for that queue, so any of a call's " +
		"progress notifications can be written after its response, every one of them included: checked by hand, a countdown from 3 " +
		"without a pause between steps had all three after its response in 38 runs of 40, and with 20 ms between steps the last one in " +
		"11 of 30. The client sees progress for a request that has completed, and a client that stopped tracking the token when the " +
		"response came drops it. mcp-go is wrong; over HTTP the same queue loses notifications, which the grader counts as a course rule " +
		"(HTTP-22), since a server may send as few notifications as it likes. Known to the benchmark (bench/README.md).",

	"gosdk/HTTP-08": "A POST that holds a request gets a response: \"If the input is a JSON-RPC request, the server MUST either return " +
		"Content-Type: text/event-stream ... or Content-Type: application/json\" (Sending Messages to the Server, item 5), and JSON-RPC 2.0 §5 " +
		"\"When a rpc call is made, the Server MUST reply with a Response\", here -32601 Method not found. go-sdk refuses a request for a method " +
		"it does not know before any session sees it (`checkRequest` in `servePOST`, mcp/streamable.go, v1.8.0) with HTTP 400 and a text/plain " +
		"body, so the client never gets a response for its id. At protocol 2026-07-28 the same code answers 404 with a -32601 error, which is " +
		"the SDK's own reading of the rule; over stdio it answers -32601 too. The grader is right. (Its 400 for an unknown notification, HTTP-03, " +
		"is allowed: \"If the server cannot accept the input, it MUST return an HTTP error status code\".)",

	"mcpgo/HTTP-12": ended + " mcp-go (server.WithStateful) answers 404 to a POST, request or notification, in a session that DELETE has " +
		"ended, but 200 to a second DELETE of it, where the spec's MUST says 404. (It answers a DELETE of an id it never issued with 200 too, " +
		"which the grader counts as a course rule: the spec's words are about an ended session.) A client learns nothing wrong from it (the " +
		"session is gone either way), so the harm is small; the spec is on the grader's side.",
	"mcpgo/HTTP-13": "The ended-session rule of HTTP-12, seen through DELETE: mcp-go ends the session (a ping with its id then gets 404), " +
		"and answers a second DELETE of it with 200. Same reason, same verdict.",
	"mcpgo/SSE-02": ended + " mcp-go answers a GET that names a session DELETE has ended with 200 and an SSE stream that stays open, where " +
		"its POSTs in that session get 404: the GET handler does not look the session up (it does the same for an id it never issued, and for " +
		"a GET without a session id, which the grader counts as course rules). A client that reconnects its stream after the session ended " +
		"waits on a stream that will never carry anything, rather than learning that it must initialize again. The grader is right.",

	"mcpgo/HTTP-06": "The grader broke the client's rule first (\"The body of the POST request MUST be a single JSON-RPC request, notification, " +
		"or response\"), and the spec still says what a server does with input it cannot accept: \"If the server cannot accept the input, it " +
		"MUST return an HTTP error status code\" (Sending Messages to the Server, item 4). mcp-go reads `{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}` " +
		"as a notification and answers 202 Accepted with no body (checked by hand). Under MCP the message is invalid (\"the ID MUST NOT be " +
		"null\"), which a server cannot accept; under JSON-RPC 2.0 a request whose id is null is still a request (a notification is one " +
		"without an id member), owed a response. Answered as neither, the client waits for ever for its ping. Its answer to `\"method\": 42`, " +
		"400 with -32700, is the HTTP error the spec asks for; only the course wants -32600 in it. A robustness finding: the grader reads the spec right.",
	"mcpgo/HTTP-19": batches + " mcp-go has no batches over HTTP: it answers the array with 400 and -32700 \"request body is not valid json\".",
	"gosdk/HTTP-19": batches + " go-sdk takes a batch over HTTP only when it knows every method in it: `[ping, ping, notifications/cancelled]` is " +
		"answered, `[ping, ping, notifications/grader-unknown]` gets 400 text/plain \"JSON RPC not handled: \\\"notifications/grader-unknown\\\" " +
		"unsupported\" and no response to either ping (checked by hand). JSON-RPC never answers a notification, an unknown one included, and at " +
		"2025-03-26 \"If the input contains any number of JSON-RPC requests, the server MUST either return Content-Type: text/event-stream ... " +
		"or Content-Type: application/json\". The refusal is the same `checkRequest` as for an unknown method (HTTP-08), applied to every " +
		"element of the batch.",

	"ORIGIN-01": origin + " Here the grader sends `initialize` with `Origin: http://evil.example`, and the server answers it.",
	"ORIGIN-02": "The rule of ORIGIN-01, on \"all incoming connections\": here a foreign page's GET opens the session's stream " +
		"(and its POST and DELETE are served too). Same reason, same verdict.",
	"ORIGIN-04": "The rule of ORIGIN-01: here `Origin: null`, which any page can send from a sandboxed iframe or a `data:` URL, is served. " +
		"Same reason, same verdict.",
}

// summary is what the table says, written by hand from a full run at the
// pinned versions; the command prints it under the table.
var summary = strings.Join([]string{
	"## What it says",
	"",
	"- **No SDK refuses a foreign Origin by default** (ORIGIN-01, ORIGIN-02, ORIGIN-04: one rule, found on POST, on GET and for `Origin: null`): " +
		"it is the one MUST every HTTP row breaks, and the spec leaves no doubt. All three refuse a `Host` that is not a loopback name when they " +
		"listen on loopback, which stops DNS rebinding: go-sdk and mcp-go in their handlers, the TypeScript SDK in `createMcpExpressApp`, with " +
		"which its examples serve HTTP (ORIGIN-11 fails for go-sdk and mcp-go only on the course's error body, and passes for the TypeScript SDK).",
	"- **Bad input**, which a correct client never sends (robustness, counted apart): over stdio go-sdk ends the session at the first line " +
		"that is not JSON or not a valid message, and answers nothing to a null id; the TypeScript SDK drops such lines silently; mcp-go answers " +
		"a line that is not JSON with -32700 and `\"jsonrpc\": \"1.0\"` with -32600, as JSON-RPC says, but valid JSON of the wrong shape " +
		"(`\"jsonrpc\": 2.0` as a number, `\"method\": 42`) with -32700, and a null id with nothing at all (STDIO-10 to STDIO-13). Over HTTP " +
		"every SDK refuses an invalid body with an HTTP error, as the spec asks, but for mcp-go's 202 to `\"id\": null`, taken for a " +
		"notification (HTTP-06).",
	"- **2025-03-26 batches**: each server agrees to 2025-03-26 at initialize, and that revision says implementations MUST receive " +
		"batches. Over stdio none does it right (go-sdk never answers a batch that holds a notification, mcp-go answers -32700, the TypeScript " +
		"SDK drops it). Over HTTP the TypeScript SDK does; mcp-go answers 400; go-sdk answers only a batch whose every method it knows: " +
		"`[ping, ping, notifications/grader-unknown]` gets 400 text/plain and no response to either ping (HTTP-19).",
	"- **go-sdk over HTTP** answers a request for an unknown method with HTTP 400 and a plain-text body, no JSON-RPC response (HTTP-08).",
	"- **mcp-go** writes progress notifications after the call's response, any of them and often all (STDIO-17: a countdown without pauses " +
		"between steps had all three after its response in most runs). It serves the id of a session that DELETE has ended, where the spec says " +
		"404: a second DELETE gets 200 (HTTP-12, HTTP-13), and a GET gets 200 and a stream that stays open (SSE-02), though its POSTs get 404.",
	"- **The course's reference** passes every check that applies to it, graded the same way: what it skips is what the external " +
		"mode cannot grade on any server (the course's flags, restarts, SIGTERM to a server at a URL, the WebSocket, the source).",
	"",
	"Course-rule failures are many on every SDK: they are where the course asks more than the spec (statuses the spec leaves open, " +
		"cancellation's SHOULDs, body limits). A few are worth knowing: go-sdk's DELETE does not answer until every request running in " +
		"the session has finished, since closing a session waits for them (HTTP-13); the TypeScript SDK leaves a cancelled request's " +
		"stream open for ever (HTTP-23), and the `express.json()` of its examples refuses a body over 100 KiB (HTTP-07); mcp-go reads a " +
		"request body of any size (HTTP-07, HTTP-28); go-sdk and mcp-go answer a cancelled request, which the spec says they SHOULD NOT " +
		"(STDIO-18, HTTP-23). Timing decides some course checks (go-sdk's STDIO-24 and STDIO-25, for one): a run may count them differently.",
	"",
	"### go-sdk and the reference",
	"",
	"Graded side by side, go-sdk v1.8.0 and the course's reference disagree on about thirty checks, listed in go-sdk's section. " +
		"On the spec's own rules the reading above holds in each case: where go-sdk breaks a MUST (Origin, bad input on stdio, " +
		"batches with a notification over stdio or with a method it does not know over HTTP, unknown methods over HTTP), the spec's text is " +
		"on the reference's side; no check found the reference breaking a rule go-sdk keeps. The rest are the course's choices, each allowed " +
		"by the spec either way: `q=0` in " +
		"Accept read as a refusal, 406 rather than 400 for a GET that cannot take a stream, 202 for an unknown notification, 400 " +
		"rather than 200 for a request without a session (the spec: SHOULD 400), 400 for an initialize that names a session, a DELETE " +
		"answered at once, JSON rather than SSE when a request has no progress token, a JSON-RPC error body in every refusal, no answer " +
		"to a cancelled request (the spec: SHOULD NOT), a 4xx rather than an empty stream for a resume of an ended stream (lesson 03 " +
		"explains why), a retry field in the priming event, and over stdio the requests in flight finished at the end of input, and " +
		"batches judged by the version initialize has just agreed.",
	"",
}, "\n")

// Texts several notes share.
const (
	badInput = "JSON-RPC 2.0, which MCP adopts (\"All messages ... MUST follow the JSON-RPC 2.0 specification\"), answers text it cannot " +
		"parse with an error response, code -32700 and a null id (§5, §5.1). The grader broke a rule first: on stdio " +
		"\"The client MUST NOT write anything to the server's stdin that is not a valid MCP message\". So this is about a server's " +
		"robustness against a broken client, not about two correct programs failing to talk; still the spec's text is the grader's: " +
		"a client that sent a bad line is left waiting."
	invalidRequest = "JSON-RPC 2.0 §4: `jsonrpc` \"MUST be exactly \\\"2.0\\\"\"; a message that is valid JSON but not a valid Request " +
		"gets -32600 Invalid Request (§5.1). As for STDIO-10, the client broke stdio's MUST first, and the spec still says what the server answers."
	invalidShape = "JSON-RPC 2.0 §5.1: valid JSON that is not a valid Request object gets -32600 Invalid Request, with the request's id when " +
		"it can be read. As for STDIO-10, the client broke stdio's MUST first, and the spec still says what the server answers."
	batches = "MCP 2025-03-26, which the server agrees to in `initialize`, says \"MCP implementations MAY support sending JSON-RPC batches, " +
		"but MUST support receiving JSON-RPC batches\" (basic/index, Batching). Batches left the spec in 2025-06-18, but a server that accepts " +
		"2025-03-26 takes on its rules; the alternative the spec offers is to answer `initialize` with another version. The grader is right."
	origin = "The spec: \"Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks\", and " +
		"\"If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden\" (Streamable HTTP, Security Warning). " +
		"No SDK does it by default, and the peers, like servers built from the SDKs' examples, add nothing. All three refuse a `Host` that is " +
		"not a loopback name when they listen on loopback, which stops DNS rebinding, and leave Origin to the application: go-sdk and mcp-go " +
		"in their handlers (go-sdk's `CrossOriginProtection` option is deprecated in favour of net/http's, which lets every GET through; " +
		"mcp-go's CORS options only add headers), the TypeScript SDK in `createMcpExpressApp`, with which its examples serve HTTP (its " +
		"transport's own `allowedOrigins` and `enableDnsRebindingProtection` are off by default and deprecated: \"Use external middleware\"). " +
		"The spec is clear and the grader is right: a server built on any of them must add the check itself, as the course's stage 04 does."
	ended = "\"The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with " +
		"HTTP 404 Not Found\" (Session Management, item 3)."
)

// explain returns the note for server's failure of check id, or "".
func explain(server, id string) string {
	if n, ok := notes[server+"/"+id]; ok {
		return n
	}
	return notes[id]
}
