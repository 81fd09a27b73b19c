package streamable

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"mcpcourse/internal/httpjson"
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
	// @step 1: Accept read as a list of media ranges
	kind, _, _ := strings.Cut(mediaType, "/")
	for _, value := range header {
		for _, item := range strings.Split(value, ",") {
			item = strings.TrimSpace(item)
			if !strings.Contains(item, ";") {
				// No parameters, so no q=0 either: compare the type as it
				// is. Nearly every client sends such a header, and parsing
				// it with the mime package was a tenth of a POST's work.
				if strings.EqualFold(item, mediaType) || strings.EqualFold(item, kind+"/*") || item == "*/*" {
					return true
				}
				continue
			}
			mt, params, err := mime.ParseMediaType(item)
			if err != nil {
				continue
			}
			if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q == 0 {
				continue
			}
			if mt == mediaType || mt == kind+"/*" || mt == "*/*" {
				return true
			}
		}
	}
	return false
	// @starter
	// | // TODO(step 1): split each header value on commas. Parse each media
	// | // range, such as "application/json", "text/*;q=0.5" or "*/*", with
	// | // mime.ParseMediaType; skip one whose q parameter is 0, and match the
	// | // exact type, its "type/*" wildcard, or "*/*".
	// | return false
	// @end
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
	// @step 3: the version header, or the session's version, or the fallback
	values := r.Header.Values(ProtocolVersionHeader)
	if len(values) == 0 {
		if s != nil {
			if v, ok := s.Version(); ok {
				return v, true
			}
		}
		v, _ := mcp.LookupVersion(mcp.HTTPFallbackVersion)
		return v, true
	}
	v, ok := mcp.LookupVersion(values[0])
	if !ok || len(values) > 1 {
		var supported []string
		for _, v := range mcp.Versions {
			supported = append(supported, v.Name)
		}
		httpjson.Error(w, http.StatusBadRequest, codeInvalidRequest, "unsupported %s %q: this server speaks %s",
			ProtocolVersionHeader, strings.Join(values, ", "), strings.Join(supported, ", "))
		return mcp.ProtocolVersion{}, false
	}
	return v, true
	// @starter
	// | // TODO(step 3): read the header (r.Header.Values: present but empty,
	// | // or there twice, is a 400); look it up with mcp.LookupVersion;
	// | // without it, use s.Version() or mcp.HTTPFallbackVersion.
	// | v, _ := mcp.LookupVersion(mcp.HTTPFallbackVersion)
	// | return v, true
	// @end
}
