package grader

import (
	"encoding/json"
	"net/http"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/wire"
)

// What the checks ask of an external server beyond the tool contract (see
// grader/EXTERNAL.md). The course's own servers have all of it; a check
// that needs what an external server lacks is skipped, saying why.

// Behaviour only the course's notes server has (check.Needs.Course).
const (
	notesLog  = `add_note's log message (notifications/message, logger "notes") sent through the session's outlet, the standalone GET stream`
	webSocket = "the WebSocket transport at /ws"
)

// courseAllowlist is the allowlist that lesson 04's checks start the
// course's servers with (allowArgs), one pattern per item: a server at a
// URL that claims it is graded on every check of the allowlist.
var courseAllowlist = allowlistOf(allowArgs)

// allowlistOf collects the patterns of -allow-origin arguments.
func allowlistOf(args []string) []string {
	var patterns []string
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-allow-origin" {
			patterns = append(patterns, SplitList(args[i+1])...)
		}
	}
	return patterns
}

// requireTool skips the check when an external server does not list tool
// in tools/list: tools beyond the contract (history) are optional there.
// On the course's own servers every tool is there, and a missing one fails
// the check where it is called.
func requireTool(t *check.T, h *wire.HTTP, session, tool string) {
	if !t.Target.External() {
		return
	}
	resp := h.Post(session, rev, wire.Request(`"tools"`, "tools/list", nil), "tools/list, to see whether the server has "+tool)
	var r struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if m := resp.Find(`"tools"`); m != nil {
		json.Unmarshal(m.Result, &r)
	}
	for _, tl := range r.Tools {
		if tl.Name == tool {
			return
		}
	}
	t.Skip("this check asks the " + tool + " tool how requests ended, and the server does not list it (it is outside the tool contract)")
}

// skipWithoutGETStream skips the check when an external server answers a
// GET with 405, as the spec lets a server that offers no standalone stream
// do ("or else return HTTP 405 Method Not Allowed"): lesson 03's checks of
// that stream do not apply to it. The course's stage 03 must offer the
// stream, so a course server is never skipped.
func skipWithoutGETStream(t *check.T, status int) {
	if t.Target.External() && status == http.StatusMethodNotAllowed {
		t.Skip("the server answers GET with 405: it offers no standalone SSE stream, which the spec allows, so this check of that stream does not apply")
	}
}

// requireGETStream opens and drops a GET stream in session, and skips the
// check on an external server that offers none (skipWithoutGETStream).
// Checks of what a GET gets when something is wrong call it first: on a
// server without the stream, every GET is rightly 405.
func requireGETStream(t *check.T, h *wire.HTTP, session string) {
	if !t.Target.External() {
		return
	}
	s := h.Open(wire.Req{Method: http.MethodGet, Header: getHeaders(session, rev, ""), Purpose: "GET with the session, to see whether the server offers a standalone stream"})
	skipWithoutGETStream(t, s.Status)
	s.Close()
}

// skipWithoutEventIDs skips the check when the events of an external
// server's stream carry no ids: it does not offer resumption, which the
// spec leaves to servers (MAY), so checks of resumption do not apply.
func skipWithoutEventIDs(t *check.T, what string) {
	if t.Target.External() {
		t.Wire.Event("the events of %s carry no id", what)
		t.Skip("the server's SSE events carry no id: it does not offer resumption with Last-Event-ID, which the spec leaves to it (MAY), so this check does not apply")
	}
}

// courseServer reports whether the target is one of the course's own
// servers, which have every behaviour the lessons build, beyond the tool
// contract (the notes log, the history tool, the ticker).
func courseServer(t *check.T) bool { return !t.Target.External() }
