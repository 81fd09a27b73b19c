package mcp

// ProtocolVersion is one MCP revision this server speaks, with the transport
// behaviour that differs between revisions. Every stage asks this table
// instead of comparing version strings, so adding a revision is one new row.
type ProtocolVersion struct {
	// Name is the revision's date, as sent in "protocolVersion" and in the
	// MCP-Protocol-Version HTTP header.
	Name string

	// Batches reports whether JSON-RPC batches (arrays of messages) are
	// allowed. Only 2025-03-26 has them: it says implementations MUST support
	// receiving them (basic/index, "Batching"); 2025-06-18 removed them
	// (changelog, major change 1).
	Batches bool

	// Priming reports whether an SSE stream opens with a priming event (an
	// event id and empty data) and a retry field, so that a client holds a
	// Last-Event-ID before the first message (basic/transports, "Sending
	// Messages to the Server": the server SHOULD send it, new in 2025-11-25).
	// Empty events broke clients of earlier revisions, so they never get one.
	Priming bool
}

// Versions lists the revisions this server negotiates, newest first. The
// first row is the one the server prefers when a client asks for a revision
// it does not know (lifecycle, "Version Negotiation": the server SHOULD answer
// with the latest version it supports).
//
// Stages 01-04 teach 2025-11-25, the last revision with sessions, the GET
// stream and resumability. 2026-07-28 drops all three and will arrive with a
// stage of its own; it is deliberately not in this table yet.
var Versions = []ProtocolVersion{
	{Name: "2025-11-25", Priming: true},
	{Name: "2025-06-18"},
	{Name: "2025-03-26", Batches: true},
}

// LatestVersion is the revision the server prefers.
var LatestVersion = Versions[0]

// HTTPFallbackVersion is the revision an HTTP server assumes for a request
// with no MCP-Protocol-Version header and no other way to know the version
// (basic/transports, "Protocol Version Header": the server SHOULD assume
// 2025-03-26).
const HTTPFallbackVersion = "2025-03-26"

// LookupVersion returns the row for a revision name, and whether this server
// supports it.
func LookupVersion(name string) (ProtocolVersion, bool) {
	for _, v := range Versions {
		if v.Name == name {
			return v, true
		}
	}
	return ProtocolVersion{}, false
}

// negotiate picks the revision to answer an initialize request with: the
// client's own choice when supported, otherwise the latest this server has.
func negotiate(requested string) ProtocolVersion {
	if v, ok := LookupVersion(requested); ok {
		return v
	}
	return LatestVersion
}
