package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"mcpcourse/internal/jsonrpc"
)

// HandleStateless serves one message of the stateless era (MCP 2026-07-28),
// which needs no session: "all the information needed to process a request
// is contained in the request itself" (basic/index, "Statelessness"). An
// HTTP transport calls it for every request that claims the era
// (ClaimsStateless), after its own header checks.
//
// For a request it returns the response, whose error, if any, carries the
// HTTP status to answer with (jsonrpc.Error.HTTPStatus). It returns nil when
// nothing is owed: for a notification (the era defines none from client to
// server over HTTP), and for a request whose ctx ended first. On HTTP,
// "closing the SSE response stream MUST be treated by the server as
// cancellation", so a transport passes a ctx that ends when the client goes
// away, and sends nothing once it has.
//
// peer is the request's own stream: its progress notifications, its log
// messages (when _meta asks for them) and, for subscriptions/listen, the
// acknowledgment and every notification of the subscription travel there.
// A subscriptions/listen request runs until ctx ends (no response then: the
// client closed the stream) or until EndListens (its completion result).
func (s *Server) HandleStateless(ctx context.Context, msg *jsonrpc.Message, peer Peer) *jsonrpc.Message {
	if !msg.IsRequest() {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	result, rpcErr := s.serveStateless(ctx, &Request{ID: *msg.ID, Params: msg.Params, peer: peer, server: s}, msg.Method)
	return s.statelessResponse(ctx, *msg.ID, result, rpcErr)
}

// statelessResponse makes the response to a request of the stateless era:
// none when ctx ended first (the request was cancelled), else the error or
// the result.
func (s *Server) statelessResponse(ctx context.Context, id jsonrpc.ID, result json.RawMessage, rpcErr *jsonrpc.Error) *jsonrpc.Message {
	switch {
	case ctx.Err() != nil:
		return nil
	case rpcErr != nil:
		return jsonrpc.NewErrorResponse(id, rpcErr)
	}
	return &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: &id, Result: result}
}

// removedMethods are the methods of the session era that 2026-07-28 took
// away, with what replaced them (changelog; basic/transports/streamable-http,
// "Protocol Version Header": an unimplemented method gets 404 and -32601).
// They are refused even when a MethodHandler was registered for them, so
// that a server built for both eras cannot serve them at 2026.
var removedMethods = map[string]string{
	"initialize":            "there is no handshake: every request carries its version and capabilities in params._meta; server/discover tells what the server offers",
	"ping":                  "ping was removed",
	"logging/setLevel":      "the log level is per request: set io.modelcontextprotocol/logLevel in params._meta",
	"resources/subscribe":   "subscribe with subscriptions/listen and its resourceSubscriptions filter",
	"resources/unsubscribe": "close the subscriptions/listen stream (or cancel it on stdio)",
}

// serveStateless runs one request of the stateless era, in the order the
// checks must come: a removed method, the _meta envelope (-32602), the
// version (-32022), then the method itself. The result has every field the
// era adds to results (see finish).
func (s *Server) serveStateless(ctx context.Context, req *Request, method string) (result json.RawMessage, rpcErr *jsonrpc.Error) {
	defer func() {
		if p := recover(); p != nil {
			result, rpcErr = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: %v", p)
		}
	}()
	if why, removed := removedMethods[method]; removed {
		return nil, notFound("method %q does not exist at %s: %s", method, strings.Join(names(StatelessVersions), ", "), why)
	}
	meta, rpcErr := ReadMeta(req.Params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if rpcErr := CheckVersion(meta.ProtocolVersion); rpcErr != nil {
		return nil, rpcErr
	}
	req.meta = &meta

	var out any
	switch method {
	case "server/discover":
		out, rpcErr = s.discover(), nil
	case "tools/list":
		out, rpcErr = s.listStatelessTools(), nil
	case "tools/call":
		out, rpcErr = s.callStatelessTool(ctx, req)
	case "subscriptions/listen":
		out, rpcErr = s.listen(ctx, req)
	default:
		h := s.statelessMethods[method] // the core's own: the notes as resources
		if h == nil {
			h = s.methods[method]
		}
		if h == nil {
			return nil, notFound("method %q is not served here", method)
		}
		out, rpcErr = s.callMethod(ctx, h, method, req)
	}
	if rpcErr != nil || ctx.Err() != nil {
		return nil, rpcErr
	}
	return s.finish(method, out)
}

// asksForInput are the methods other than tools/call on which a server may
// answer with an InputRequiredResult: "Servers MUST NOT send
// InputRequiredResult responses on any other client requests" (mrtr,
// "Supported Requests").
var asksForInput = map[string]bool{"prompts/get": true, "resources/read": true}

// callMethod runs a MethodHandler at 2026-07-28. For prompts/get and
// resources/read the handler may return an *InputRequired as its result,
// and finds a retry's answers with Request.InputResponse and Request.State,
// as a tool does.
func (s *Server) callMethod(ctx context.Context, h MethodHandler, method string, req *Request) (any, *jsonrpc.Error) {
	var p struct {
		Arguments      json.RawMessage `json:"arguments"`
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   *string         `json:"requestState"`
	}
	name, _ := RequestName(&jsonrpc.Message{Method: method, Params: req.Params})
	if asksForInput[method] {
		json.Unmarshal(req.Params, &p)
		if rpcErr := s.readRetry(req, method, name, p.Arguments, p.InputResponses, p.RequestState); rpcErr != nil {
			return nil, rpcErr
		}
	}
	out, rpcErr := h(ctx, req)
	if in, ok := out.(*InputRequired); ok {
		if !asksForInput[method] {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "%s may not ask the client for input", method)
		}
		return s.inputRequired(req, method, name, p.Arguments, in)
	}
	return out, rpcErr
}

// notFound is -32601 for a method that does not exist at 2026-07-28: HTTP 404.
func notFound(format string, args ...any) *jsonrpc.Error {
	err := jsonrpc.NewError(jsonrpc.CodeMethodNotFound, format, args...)
	err.HTTPStatus = http.StatusNotFound
	return err
}

// Caching hints (server/utilities/caching): "Servers MUST include caching
// hints on results with resultType: complete" of server/discover, the four
// list methods and resources/read; "Servers MUST provide a ttlMs value that is
// >= 0". The spec sets no default; these are the course's.
const (
	// listTTLMs is how long a client may keep what does not change while
	// the server runs: the tools, the templates, what discover says.
	listTTLMs = 5 * 60 * 1000
)

// cacheHint is the pair of caching fields.
type cacheHint struct {
	TTLMs int    // >= 0; 0: stale at once
	Scope string // "public": the same for every caller; "private": not to be shared
}

// publicHint fits a result that is the same for every client, and that a
// client may keep for listTTLMs.
var publicHint = cacheHint{TTLMs: listTTLMs, Scope: "public"}

// cachedResult is a result with the caching hint it carries. A handler of
// the core returns one to say which hint; finish writes it.
type cachedResult struct {
	result any
	hint   cacheHint
}

// cacheable are the methods whose complete results must carry caching
// hints. A MethodHandler's result for one of them that has no hint of its
// own gets ttlMs 0 and "private", which never lets a cache keep or share it.
var cacheable = map[string]bool{
	"server/discover": true, "tools/list": true, "prompts/list": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
}

// finish turns a handler's result into the JSON of a result of the
// stateless era. Every result gets
//   - resultType: "complete", unless it is an InputRequiredResult, which
//     says "input_required" itself ("The result MUST include a resultType
//     field", basic/index, "Result Responses");
//   - _meta["io.modelcontextprotocol/serverInfo"] ("Servers SHOULD include
//     [it] in every result's _meta", basic/index, "Per-response protocol
//     fields"), beside whatever _meta the result has;
//   - ttlMs and cacheScope when the method is cacheable and the result
//     complete: "Interim results with resultType: input_required ... are
//     not cacheable and carry no caching hints" (server/utilities/caching).
func (s *Server) finish(method string, out any) (json.RawMessage, *jsonrpc.Error) {
	hint, hinted := cacheHint{Scope: "private"}, false
	if c, ok := out.(cachedResult); ok {
		out, hint, hinted = c.result, c.hint, true
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "encoding the result: %v", err)
	}
	fields := map[string]json.RawMessage{}
	if string(raw) != "null" {
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "a result must be a JSON object, not %s", raw)
		}
	}

	complete := true
	if _, ok := fields["resultType"]; ok {
		var rt string
		json.Unmarshal(fields["resultType"], &rt)
		complete = rt == resultComplete
	} else {
		fields["resultType"] = json.RawMessage(`"` + resultComplete + `"`)
	}

	meta := map[string]json.RawMessage{}
	if m, ok := fields["_meta"]; ok {
		json.Unmarshal(m, &meta)
	}
	meta[MetaServerInfo] = s.serverInfo
	fields["_meta"], _ = json.Marshal(meta)

	if cacheable[method] && complete {
		if _, has := fields["ttlMs"]; hinted || !has {
			fields["ttlMs"], _ = json.Marshal(hint.TTLMs)
		}
		if _, has := fields["cacheScope"]; hinted || !has {
			fields["cacheScope"], _ = json.Marshal(hint.Scope)
		}
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "encoding the result: %v", err)
	}
	return b, nil
}

// The two values of resultType the core protocol defines.
const (
	resultComplete      = "complete"
	resultInputRequired = "input_required"
)

// discoverResult is the result of server/discover (server/discover,
// "Response"; schema: DiscoverResult).
type discoverResult struct {
	SupportedVersions []string       `json:"supportedVersions"`
	Capabilities      map[string]any `json:"capabilities"`
	Instructions      string         `json:"instructions,omitempty"`
}

// discover answers server/discover: "Servers MUST implement it". The body
// has no serverInfo of its own: it travels in _meta, as on every result.
func (s *Server) discover() any {
	instructions := s.opts.StatelessInstructions
	if instructions == "" {
		instructions = s.opts.Instructions
	}
	return cachedResult{discoverResult{
		SupportedVersions: names(StatelessVersions),
		Capabilities:      s.statelessCapabilities(),
		Instructions:      instructions,
	}, publicHint}
}

// statelessCapabilities lists what the server offers at 2026-07-28: its
// tools, log messages (a server that emits notifications/message "MUST
// declare the logging capability", server/utilities/logging), the notes as
// resources when it keeps notebooks, and whatever New was told. Unlike the
// session era, these are answered per request, by server/discover.
func (s *Server) statelessCapabilities() map[string]any {
	caps := map[string]any{"tools": map[string]any{}, "logging": map[string]any{}}
	if s.notebooks != nil {
		// A listener may name a notebook's resource in resourceSubscriptions
		// and hear of each change to it. The list itself never changes (it
		// lists no notebook: their handles are secrets), so no listChanged.
		caps["resources"] = map[string]any{"subscribe": true}
	}
	for name, v := range s.opts.Capabilities {
		caps[name] = v
	}
	return caps
}

// listStatelessTools answers tools/list at 2026-07-28. The list "MUST NOT
// vary per-connection", and "Servers SHOULD return tools in a deterministic
// order" (server/tools, "Capabilities"): it is the order the tools were
// added in, every time. It is the same for every client, so it is public.
func (s *Server) listStatelessTools() any {
	return cachedResult{struct {
		Tools []*Tool `json:"tools"`
	}{s.statelessTools}, publicHint}
}

// lookupStatelessTool finds a tool of the stateless era by name.
func (s *Server) lookupStatelessTool(name string) *Tool {
	for _, t := range s.statelessTools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// callStatelessTool answers tools/call at 2026-07-28: the tool runs as in a
// session, with the request's own _meta instead of a session's state. A tool
// may answer with an InputRequiredResult (see InputRequired), and a call
// that names a notebook leaves its outcome in the notebook's history.
func (s *Server) callStatelessTool(ctx context.Context, req *Request) (any, *jsonrpc.Error) {
	var p struct {
		Name           string          `json:"name"`
		Arguments      json.RawMessage `json:"arguments"`
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   *string         `json:"requestState"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "tools/call params: %v", err)
	}
	t := s.lookupStatelessTool(p.Name)
	if t == nil {
		// -32602, on HTTP 200: the spec fixes a status only for the errors
		// of the envelope, and an unknown tool is the tool's business
		// (server/tools, "Error Handling").
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown tool: %q", p.Name)
	}
	if rpcErr := s.readRetry(req, "tools/call", p.Name, p.Arguments, p.InputResponses, p.RequestState); rpcErr != nil {
		return nil, rpcErr
	}

	result, err := t.Run(ctx, req, p.Arguments)
	notebook := s.notebooks.named(p.Arguments) // nil when the call names none
	var (
		rpcErr *jsonrpc.Error
		input  *InputRequired
	)
	switch {
	case ctx.Err() != nil:
		notebook.remember(p.Name, req.ID, "cancelled")
		return nil, nil
	case errors.As(err, &input):
		return s.inputRequired(req, "tools/call", p.Name, p.Arguments, input)
	case errors.As(err, &rpcErr):
		notebook.remember(p.Name, req.ID, "failed: "+rpcErr.Message)
		return nil, rpcErr
	case err != nil:
		notebook.remember(p.Name, req.ID, "failed: "+err.Error())
		return &ToolResult{Content: []any{TextContent{Type: "text", Text: err.Error()}}, IsError: true}, nil
	}
	notebook.remember(p.Name, req.ID, "finished")
	return result, nil
}

// Stateless reports whether the request is served in the stateless era
// (2026-07-28): it has no Session then, and Meta tells what its _meta said.
func (r *Request) Stateless() bool { return r.meta != nil }

// Meta returns what the request's _meta declared: its protocol version, the
// client's capabilities and name, and its log level. It is the zero
// RequestMeta for a request of the session era, whose session holds those.
func (r *Request) Meta() RequestMeta {
	if r.meta == nil {
		return RequestMeta{}
	}
	return *r.meta
}

// ErrStateless is returned for a server-to-client request attempted at
// 2026-07-28: "Servers MUST NOT initiate JSON-RPC requests" (basic/patterns).
// A tool asks the client for input by returning an InputRequired instead.
var ErrStateless = errors.New("mcp: a server does not send requests at 2026-07-28: return an *InputRequired instead")
