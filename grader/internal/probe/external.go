package probe

// What the checks ask of an external server beyond the tool contract (see
// grader/EXTERNAL.md). The course's own servers have all of it; a check
// that needs what an external server lacks is skipped, saying why.

import (
	"encoding/json"
	"net/http"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/spec"
	"mcpcourse/grader/internal/wire"
)

// RequireHistory skips the check when an external server does not list
// the history tool in tools/list: tools beyond the contract are optional
// there. On the course's own servers every tool is there, and a missing one
// fails the check where it is called.
func RequireHistory(t *check.T, h *wire.HTTP, session string) {
	const tool = "history"
	t.Relies(check.History)
	if !t.Target.External() {
		return
	}
	resp := h.Post(session, spec.Rev, wire.Request(`"tools"`, "tools/list", nil), "tools/list, to see whether the server has "+tool)
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

// SkipWithoutGETStream skips the check when an external server answers a
// GET with 405, as the spec lets a server that offers no standalone stream
// do ("or else return HTTP 405 Method Not Allowed"): lesson 03's checks of
// that stream do not apply to it. The course's stage 03 must offer the
// stream, so a course server is never skipped.
func SkipWithoutGETStream(t *check.T, status int) {
	t.Relies(check.GETStream)
	if t.Target.External() && status == http.StatusMethodNotAllowed {
		t.Skip("the server answers GET with 405: it offers no standalone SSE stream, which the spec allows, so this check of that stream does not apply")
	}
}
