package streamable

import (
	"mime"
	"net/http"

	"mcpcourse/internal/mcp"
)

// acceptsBoth reports whether an Accept header lists both application/json
// and text/event-stream, as every POST must (basic/transports, "Sending
// Messages to the Server": the client MUST list both). The server decides per
// response which of the two to send, so it needs the client to take either.
// Wildcards count, and a q=0 parameter takes a type away.
func acceptsBoth(header []string) bool {
	return Accepts(header, "application/json") && Accepts(header, "text/event-stream")
}

// Accepts reports whether the values of an Accept header allow mediaType,
// such as "text/event-stream". Each value is a comma-separated list of media
// ranges; wildcards count, and a q=0 parameter takes a type away.
func Accepts(header []string, mediaType string) bool {
	// TODO(step 1): split each header value on commas. Parse each media
	// range, such as "application/json", "text/*;q=0.5" or "*/*", with
	// mime.ParseMediaType; skip one whose q parameter is 0, and match the
	// exact type, its "type/*" wildcard, or "*/*".
	return false
}

// isJSON reports whether a Content-Type is application/json, with or
// without parameters such as charset.
func isJSON(contentType string) bool {
	if contentType == "application/json" {
		return true // the common case, without parsing
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// ProtocolVersion works out the protocol version of a request. A present
// MCP-Protocol-Version header must name a version this server supports, or
// the request gets 400 (basic/transports, "Protocol Version Header": MUST).
// Without the header the server relies on what the session negotiated, and
// failing that assumes 2025-03-26, as the spec says it SHOULD.
//
// When the header is bad, ProtocolVersion writes the 400 and returns false.
// s may be nil, before a session is known.
func (h *Handler) ProtocolVersion(w http.ResponseWriter, r *http.Request, s *Session) (mcp.ProtocolVersion, bool) {
	// TODO(step 3): read the header (r.Header.Values: present but empty,
	// or there twice, is a 400); look it up with mcp.LookupVersion;
	// without it, use s.Version() or mcp.HTTPFallbackVersion.
	v, _ := mcp.LookupVersion(mcp.HTTPFallbackVersion)
	return v, true
}
