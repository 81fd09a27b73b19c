package mcp

// Era is how a protocol revision opens a conversation and carries it. The
// three eras are what a server must tell apart when one endpoint serves
// clients of every age (MCP 2026-07-28, basic/versioning, "Backward
// Compatibility with Initialization-Based Versions").
type Era string

// The eras, oldest first.
const (
	// EraHTTPSSE is 2024-11-05: an initialize handshake, and over HTTP the
	// old HTTP+SSE transport (a GET stream plus a separate POST endpoint).
	// No stage of the course serves it yet; it is in the table so that
	// every revision the course names has a row.
	EraHTTPSSE Era = "http+sse"

	// EraSessions is 2025-03-26 to 2025-11-25, the era lessons 01-04
	// teach: an initialize handshake that negotiates the version once, and
	// over HTTP the Streamable HTTP transport with sessions, a GET stream
	// and resumable SSE.
	EraSessions Era = "sessions"

	// EraStateless is 2026-07-28: no initialize and no session. Every
	// request names its protocol version and the client's capabilities in
	// params._meta (the spec calls this era "modern", and the two before
	// it "legacy").
	EraStateless Era = "stateless"
)

// ProtocolVersion is one MCP revision this server speaks, with the transport
// behaviour that differs between revisions. Every stage asks this table
// instead of comparing version strings, so adding a revision is one new row.
type ProtocolVersion struct {
	// Name is the revision's date, as sent in "protocolVersion" and in the
	// MCP-Protocol-Version HTTP header.
	Name string

	// Era says how the revision opens a conversation: with initialize
	// (EraHTTPSSE, EraSessions), or not at all (EraStateless).
	Era Era

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

// Revisions is every revision the course knows, newest first: one table for
// all of them, whatever their era.
var Revisions = []ProtocolVersion{
	{Name: "2026-07-28", Era: EraStateless},
	{Name: "2025-11-25", Era: EraSessions, Priming: true},
	{Name: "2025-06-18", Era: EraSessions},
	{Name: "2025-03-26", Era: EraSessions, Batches: true},
	{Name: "2024-11-05", Era: EraHTTPSSE},
}

// Versions lists the revisions initialize negotiates, newest first: the
// session era, which stages 01-04 teach. The first row is the one the server
// prefers when a client asks for a revision it does not know (lifecycle,
// "Version Negotiation": the server SHOULD answer with the latest version it
// supports).
//
// 2026-07-28 is not among them, and never can be: it has no initialize.
// Neither is 2024-11-05, whose HTTP+SSE transport no stage serves yet; an
// initialize asking for it is answered with 2025-11-25, as for any revision
// the server does not speak.
var Versions = revisionsOf(EraSessions)

// StatelessVersions lists the revisions of the stateless era, newest first:
// what server/discover offers in supportedVersions, and what a -32022 error
// lists as supported. Session-era revisions are not in it, on purpose: a
// client reaches them through initialize, never by naming them in _meta.
var StatelessVersions = revisionsOf(EraStateless)

// LatestVersion is the revision initialize prefers.
var LatestVersion = Versions[0]

// HTTPFallbackVersion is the revision an HTTP server assumes for a request
// with no MCP-Protocol-Version header and no other way to know the version
// (basic/transports, "Protocol Version Header": the server SHOULD assume
// 2025-03-26).
const HTTPFallbackVersion = "2025-03-26"

// LookupVersion returns the row for a revision that initialize negotiates
// (one of Versions), and whether there is one. A stage of the session era
// uses it to check an MCP-Protocol-Version header, so that a header naming
// 2026-07-28 gets the 400 of an unsupported version there.
func LookupVersion(name string) (ProtocolVersion, bool) {
	for _, v := range Versions {
		if v.Name == name {
			return v, true
		}
	}
	return ProtocolVersion{}, false
}

// LookupRevision returns the row for any revision the course knows, of
// whatever era, and whether there is one.
func LookupRevision(name string) (ProtocolVersion, bool) {
	for _, v := range Revisions {
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

// revisionsOf returns the rows of one era, in the table's order.
func revisionsOf(era Era) []ProtocolVersion {
	var rows []ProtocolVersion
	for _, v := range Revisions {
		if v.Era == era {
			rows = append(rows, v)
		}
	}
	return rows
}

// names returns the revisions' names, in order.
func names(versions []ProtocolVersion) []string {
	out := make([]string, len(versions))
	for i, v := range versions {
		out[i] = v.Name
	}
	return out
}
