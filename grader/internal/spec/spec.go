// Package spec says where the rules that more than one lesson cites live
// in the MCP spec. Each lesson keeps the rules only it cites beside its
// checks.
package spec

import "mcpcourse/grader/check"

// Rev is the MCP revision stages 01-04 teach.
const Rev = "2025-11-25"

// JSONRPCErrors is the rule that a request gets a response, an error one
// with JSON-RPC's code for what went wrong: MCP makes JSON-RPC 2.0 its own,
// whose §5 says "When a rpc call is made, the Server MUST reply with a
// Response, except for in the case of Notifications", and whose §5.1 names
// the codes (-32700 Parse error, -32600 Invalid Request, -32601 Method not
// found).
var JSONRPCErrors = check.Spec{Rev: Rev, Section: "basic/index › Messages; JSON-RPC 2.0 §5 (the Server MUST reply with a Response) and §5.1 (error codes)",
	Quote: "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification"}

// ClientInput and ClientBody are the rules a client breaks when it sends
// what is not a valid MCP message, on stdio and over HTTP: the checks that
// send such input on purpose test a server's robustness
// (check.Check.Robustness).
var (
	ClientInput = check.Spec{Rev: Rev, Section: "basic/transports › stdio",
		Quote: "The client MUST NOT write anything to the server's stdin that is not a valid MCP message"}
	ClientBody = Sending("The body of the POST request MUST be a single JSON-RPC request, notification, or response")
)

// HTTP cites a rule of the Streamable HTTP transport, in the given section
// of it ("" for the transport's opening).
func HTTP(section, quote string) check.Spec {
	where := "basic/transports › Streamable HTTP"
	if section != "" {
		where += " › " + section
	}
	return check.Spec{Rev: Rev, Section: where, Quote: quote}
}

// NoLimit is cited by checks of limits the spec leaves to servers.
var NoLimit = check.Spec{Rev: Rev, Section: "basic/transports › Streamable HTTP (the spec sets no limit here; the course does)"}

// Sending cites a rule of Streamable HTTP › Sending Messages to the Server.
func Sending(quote string) check.Spec { return HTTP("Sending Messages to the Server", quote) }

// Session cites a rule of Streamable HTTP › Session Management.
func Session(quote string) check.Spec { return HTTP("Session Management", quote) }

// Listening cites a rule of Streamable HTTP › Listening for Messages from
// the Server.
func Listening(quote string) check.Spec { return HTTP("Listening for Messages from the Server", quote) }

// RequestAnswer is the rule for what a POST that holds a request gets.
var RequestAnswer = Sending("If the input is a JSON-RPC request, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, " +
	"or Content-Type: application/json, to return one JSON object")

// Ended is the rule for a session that has ended: its id gets 404. The
// spec's words are about a session the server terminated; the course reads
// an id it never issued the same way, as the SDKs do (a course rule).
var Ended = Session("The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found")

// GET is the spec's rule for what a GET gets.
var GET = Listening("The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed")

// Rules of the progress utility, which checks of every transport cite when
// a progress notification breaks them.
var (
	ProgressIncreases = check.Spec{Rev: Rev, Section: "basic/utilities/progress › Progress Flow", Quote: "The progress value MUST increase with each notification, even if the total is unknown."}
	ProgressTokens    = check.Spec{Rev: Rev, Section: "basic/utilities/progress › Behavior Requirements", Quote: "Progress notifications MUST only reference tokens that: Were provided in an active request"}
	ProgressStops     = check.Spec{Rev: Rev, Section: "basic/utilities/progress › Implementation Notes", Quote: "Progress notifications MUST stop after completion"}
)
