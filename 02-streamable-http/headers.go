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
func acceptsBoth(header []string) bool {
	// TODO(step 1): each header value is a comma-separated list of media
	// ranges such as "application/json", "text/*;q=0.5" or "*/*". Parse each
	// with mime.ParseMediaType; wildcards count, and q=0 means "not this".
	return false
}

// isJSON reports whether a Content-Type is application/json, with or
// without parameters such as charset.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// protocolVersion works out the protocol version of a request. A present
// MCP-Protocol-Version header must name a version this server supports, or
// the request gets 400 (basic/transports, "Protocol Version Header": MUST).
// Without the header the server relies on what the session negotiated, and
// failing that assumes 2025-03-26, as the spec says it SHOULD.
//
// When the header is bad, protocolVersion writes the 400 and returns false.
// s may be nil, before a session is known.
func (h *Handler) protocolVersion(w http.ResponseWriter, r *http.Request, s *session) (mcp.ProtocolVersion, bool) {
	// TODO(step 3): read the header; look it up with mcp.LookupVersion;
	// without it, use s.Version() or mcp.HTTPFallbackVersion.
	v, _ := mcp.LookupVersion(mcp.HTTPFallbackVersion)
	return v, true
}
