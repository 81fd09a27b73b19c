package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"mcpcourse/internal/jsonrpc"
)

// The reserved _meta keys of MCP 2026-07-28 (basic/index, "_meta", the table
// of reserved keys). A client puts the first four in params._meta of every
// request; a server puts serverInfo in every result's _meta, and
// subscriptionId in every notification of a subscriptions/listen stream.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// The error codes MCP 2026-07-28 defines (basic/index, "Error Codes": the
// range -32020 to -32099 is reserved for the specification, and these three
// are all it defines). Each is answered with HTTP 400.
const (
	// CodeHeaderMismatch: an HTTP header does not match the body, or a
	// required header is missing or malformed. Only an HTTP transport
	// raises it; see HeaderMismatch.
	CodeHeaderMismatch = -32020

	// CodeMissingClientCapability: serving the request needs a client
	// capability the request's _meta did not declare.
	CodeMissingClientCapability = -32021

	// CodeUnsupportedVersion: the request names a protocol version this
	// server does not serve.
	CodeUnsupportedVersion = -32022
)

// RequestMeta is what a request of the stateless era says about itself in
// params._meta: "Servers use these to identify the protocol version and
// capabilities in use without relying on any prior connection state"
// (basic/index, "Per-request protocol fields").
type RequestMeta struct {
	// ProtocolVersion is the revision the request speaks. Required.
	ProtocolVersion string

	// ClientCapabilities are the capabilities the client declares for this
	// request alone, by name ("elicitation", "sampling", …). Required; {}
	// declares none. "Servers MUST NOT infer capabilities from prior
	// requests" (schema, RequestMetaObject).
	ClientCapabilities map[string]json.RawMessage

	// ClientInfo names the client, when it said (a SHOULD for clients). It
	// is self-reported: for display and logs, never for decisions.
	ClientInfo *Implementation

	// LogLevel is the lowest level of log message the client wants for this
	// request, and HasLogLevel whether it asked for any: without it the
	// server "MUST NOT emit notifications/message for a request"
	// (server/utilities/logging, "Per-request log level").
	LogLevel    Level
	HasLogLevel bool
}

// ClaimsStateless reports whether a message claims the stateless era: its
// params._meta has the key io.modelcontextprotocol/protocolVersion, whatever
// its value. "A request carrying modern per-request _meta is served
// statelessly" (basic/versioning, "Backward Compatibility"); a message of
// the session era never carries the key. A transport that serves both eras
// asks this first, then ReadMeta.
func ClaimsStateless(msg *jsonrpc.Message) bool {
	// Most messages, and every one of the session era, do not mention the
	// key at all: say so without decoding a body that may be megabytes.
	if !bytes.Contains(msg.Params, []byte(MetaProtocolVersion)) {
		return false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(msg.Params, &p) != nil {
		return false
	}
	_, ok := p.Meta[MetaProtocolVersion]
	return ok
}

// ReadMeta reads and checks the _meta envelope of a request of the stateless
// era. "A request missing any required field is malformed; the server MUST
// reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the
// response status MUST be 400 Bad Request" (basic/index, "Per-request
// protocol fields"). The error ReadMeta returns is that one, its
// HTTPStatus set to 400. It covers, in this order:
//   - params that are not an object, or no _meta object in them;
//   - no protocolVersion string;
//   - no clientCapabilities object;
//   - a clientInfo that is not an Implementation (name and version);
//   - a logLevel that is not one of the eight levels (server/utilities/
//     logging, "Error Handling": the server SHOULD reject it with -32602).
//
// ReadMeta does not check that the version is one the server serves: that is
// CheckVersion, which a transport may need to run after comparing the
// version with a header.
func ReadMeta(params json.RawMessage) (RequestMeta, *jsonrpc.Error) {
	var p struct {
		Meta *map[string]json.RawMessage `json:"_meta"`
	}
	if len(bytes.TrimSpace(params)) == 0 || json.Unmarshal(params, &p) != nil || p.Meta == nil || *p.Meta == nil {
		return RequestMeta{}, badEnvelope("params._meta must be an object carrying %s and %s", MetaProtocolVersion, MetaClientCapabilities)
	}
	meta := *p.Meta
	var m RequestMeta
	if json.Unmarshal(meta[MetaProtocolVersion], &m.ProtocolVersion) != nil || m.ProtocolVersion == "" {
		return RequestMeta{}, badEnvelope("params._meta must carry %s, a string such as %q", MetaProtocolVersion, StatelessVersions[0].Name)
	}
	if !isObject(meta[MetaClientCapabilities]) || json.Unmarshal(meta[MetaClientCapabilities], &m.ClientCapabilities) != nil {
		return RequestMeta{}, badEnvelope("params._meta must carry %s, an object ({} declares none)", MetaClientCapabilities)
	}
	if raw, ok := meta[MetaClientInfo]; ok {
		var info Implementation
		if !isObject(raw) || json.Unmarshal(raw, &info) != nil || info.Name == "" || info.Version == "" {
			return RequestMeta{}, badEnvelope("%s must be an object with a name and a version", MetaClientInfo)
		}
		m.ClientInfo = &info
	}
	if raw, ok := meta[MetaLogLevel]; ok {
		var name string
		json.Unmarshal(raw, &name)
		level, ok := parseLevel(name)
		if !ok {
			return RequestMeta{}, badEnvelope("%s must be one of %s", MetaLogLevel, strings.Join(levelNames, ", "))
		}
		m.LogLevel, m.HasLogLevel = level, true
	}
	return m, nil
}

// CheckVersion returns nil when version is a revision of the stateless era
// this server serves, and otherwise the UnsupportedProtocolVersionError to
// answer with: -32022, HTTP 400, and data listing the versions it does
// support and the one requested (basic/versioning, "Protocol Version
// Negotiation": the server "MUST respond with an UnsupportedProtocolVersionError
// listing the versions it does support").
//
// A session-era revision named in _meta gets this error too: those are
// reached through initialize, and data.supported lists only what a client
// may name in _meta, so a client that retries with one of them succeeds.
func CheckVersion(version string) *jsonrpc.Error {
	if v, ok := LookupRevision(version); ok && v.Era == EraStateless {
		return nil
	}
	supported := names(StatelessVersions)
	err := jsonrpc.NewError(CodeUnsupportedVersion, "unsupported protocol version %q: name %s in _meta (a client of a 2025 revision starts with initialize instead)",
		version, strings.Join(supported, " or "))
	err.Data, _ = json.Marshal(map[string]any{"supported": supported, "requested": version})
	err.HTTPStatus = http.StatusBadRequest
	return err
}

// HeaderMismatch returns a HeaderMismatch error (-32020, HTTP 400): an HTTP
// header does not match the body, or a required one is missing or malformed
// (basic/transports/streamable-http, "Server Validation"). Only an HTTP
// transport checks headers, so only it raises this error; the core never
// does.
func HeaderMismatch(format string, args ...any) *jsonrpc.Error {
	err := jsonrpc.NewError(CodeHeaderMismatch, format, args...)
	err.HTTPStatus = http.StatusBadRequest
	return err
}

// MissingCapability returns a MissingRequiredClientCapabilityError (-32021,
// HTTP 400) whose data.requiredCapabilities is the object of the
// capabilities the request lacked, such as {"elicitation":{}} (basic/index:
// the server "MUST return a MissingRequiredClientCapabilityError (-32021)
// whose data.requiredCapabilities lists the missing capabilities").
func MissingCapability(required map[string]any, format string, args ...any) *jsonrpc.Error {
	err := jsonrpc.NewError(CodeMissingClientCapability, format, args...)
	err.Data, _ = json.Marshal(map[string]any{"requiredCapabilities": required})
	err.HTTPStatus = http.StatusBadRequest
	return err
}

// RequestName returns the value the Mcp-Name header of an HTTP request must
// carry, and whether the method has one: params.name of tools/call and
// prompts/get, params.uri of resources/read (basic/transports/
// streamable-http, "Standard Request Headers"). ok is true for those three
// methods even when the field is missing, so that a transport still demands
// the header; the body's own error then comes from the method.
func RequestName(msg *jsonrpc.Message) (name string, ok bool) {
	field := ""
	switch msg.Method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	default:
		return "", false
	}
	var p map[string]json.RawMessage
	json.Unmarshal(msg.Params, &p)
	json.Unmarshal(p[field], &name)
	return name, true
}

// badEnvelope is the -32602 of a malformed _meta: HTTP 400.
func badEnvelope(format string, args ...any) *jsonrpc.Error {
	err := jsonrpc.NewError(jsonrpc.CodeInvalidParams, format, args...)
	err.HTTPStatus = http.StatusBadRequest
	return err
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
