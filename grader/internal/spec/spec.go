// Package spec says where the rules that more than one lesson cites live
// in the MCP spec. Each lesson keeps the rules only it cites beside its
// checks.
package spec

import "mcpcourse/grader/check"

// Rev is the MCP revision stages 01-04 teach.
const Rev = "2025-11-25"

// JSONRPCErrors is the rule on error responses and their codes.
var JSONRPCErrors = check.Spec{Rev: Rev, Section: "basic/index › Error Responses, with JSON-RPC 2.0 §5.1 error codes",
	Quote: "Error responses MUST include an error field with a code and message"}

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

// GET is the spec's rule for what a GET gets.
var GET = Listening("The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed")

// Rules of the progress utility, which checks of every transport cite when
// a progress notification breaks them.
var (
	ProgressIncreases = check.Spec{Rev: Rev, Section: "basic/utilities/progress › Progress Flow", Quote: "The progress value MUST increase with each notification, even if the total is unknown."}
	ProgressTokens    = check.Spec{Rev: Rev, Section: "basic/utilities/progress › Behavior Requirements", Quote: "Progress notifications MUST only reference tokens that: Were provided in an active request"}
	ProgressStops     = check.Spec{Rev: Rev, Section: "basic/utilities/progress › Implementation Notes", Quote: "Progress notifications MUST stop after completion"}
)
