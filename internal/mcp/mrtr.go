package mcp

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"mcpcourse/internal/jsonrpc"
)

// Multi round-trip requests (basic/patterns/mrtr). At 2026-07-28 a server
// never sends a request of its own; a tool that needs something from the
// user answers with an InputRequiredResult, and the client retries the same
// call, under a new id, with the answers (inputResponses) and the server's
// requestState echoed back:
//
//	→ tools/call clear_notes {notebook}                       id 1
//	← {resultType: "input_required", inputRequests: {confirm: elicitation/create …}, requestState: "…"}
//	→ tools/call clear_notes {notebook}, inputResponses: {confirm: {action: "accept", …}}, requestState: "…"   id 2
//	← {resultType: "complete", content: […]}
//
// The retry may reach another process: nothing is kept between the two
// calls but what travels in them.

// InputRequired is what a tool returns, as its error, to ask the client for
// input before it can finish: the requests to fulfil, by key, and State,
// anything the tool wants back on the retry. The server turns it into an
// InputRequiredResult, sealing State into requestState, and on the retry the
// tool finds the answers with Request.InputResponse and its state with
// Request.State.
type InputRequired struct {
	// Requests are the requests the client must fulfil, by a key the tool
	// chooses: "MUST be one of ElicitRequest, CreateMessageRequest, or
	// ListRootsRequest" (mrtr, "Server Requirements").
	Requests map[string]InputRequest

	// State is the tool's own state for the retry, any JSON value. It
	// travels through the client, so the server protects it (see sealState).
	State any
}

func (e *InputRequired) Error() string { return "the tool needs input from the client first" }

// InputRequest is one request for the client to fulfil: elicitation/create,
// sampling/createMessage or roots/list, with its params.
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// inputRequiredResult is the wire form (schema: InputRequiredResult).
// "Servers MUST include at least one of inputRequests or requestState":
// this server always includes both.
type inputRequiredResult struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]InputRequest `json:"inputRequests"`
	RequestState  string                  `json:"requestState"`
}

// requiredCapability names the client capability each kind of input
// request needs: "Servers MUST NOT send an inputRequests that the client has
// not declared support for in its capabilities" (mrtr).
var requiredCapability = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// inputRequired answers a call whose tool returned an InputRequired. A
// request the client's capabilities do not allow is never sent: the call
// fails with -32021 instead, naming what was missing.
func (s *Server) inputRequired(req *Request, method, name string, args json.RawMessage, in *InputRequired) (any, *jsonrpc.Error) {
	if len(in.Requests) == 0 {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the tool asked for input but named no request")
	}
	caps := req.Meta().ClientCapabilities
	missing := map[string]any{}
	for _, r := range in.Requests {
		capName, known := requiredCapability[r.Method]
		switch {
		case !known:
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the tool asked for %q, which is not an input request", r.Method)
		case !isObject(caps[capName]):
			missing[capName] = map[string]any{}
		case r.Method == "elicitation/create" && !elicitsForms(caps[capName]) && isFormElicitation(r.Params):
			missing[capName] = map[string]any{"form": map[string]any{}}
		}
	}
	if len(missing) > 0 {
		return nil, MissingCapability(missing, "%s needs the client's input, and this request does not declare the capability for it", name)
	}
	state, err := s.sealState(method, name, args, in.State)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "encoding the request state: %v", err)
	}
	return inputRequiredResult{ResultType: resultInputRequired, InputRequests: in.Requests, RequestState: state}, nil
}

// elicitsForms reports whether an elicitation capability allows form mode:
// "an empty capabilities object is equivalent to declaring support for form
// mode only" (client/elicitation, "Capabilities").
func elicitsForms(capability json.RawMessage) bool {
	var c map[string]json.RawMessage
	json.Unmarshal(capability, &c)
	_, form := c["form"]
	_, url := c["url"]
	return form || !url
}

// isFormElicitation reports whether elicitation params ask for a form (mode
// "form", or no mode at all).
func isFormElicitation(params any) bool {
	b, _ := json.Marshal(params)
	var p struct {
		Mode string `json:"mode"`
	}
	json.Unmarshal(b, &p)
	return p.Mode == "" || p.Mode == "form"
}

// readRetry reads what a retried request carries: inputResponses, and the
// requestState of the InputRequiredResult it answers. A requestState that
// fails verification is refused with -32602, before the tool runs: it is
// "attacker-controlled input", and a server whose state influences business
// logic "MUST reject state that fails verification" (mrtr).
func (s *Server) readRetry(req *Request, method, name string, args, responses json.RawMessage, state *string) *jsonrpc.Error {
	if len(bytes.TrimSpace(responses)) > 0 && !bytes.Equal(bytes.TrimSpace(responses), []byte("null")) {
		if !isObject(responses) || json.Unmarshal(responses, &req.inputResponses) != nil {
			return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "inputResponses must be an object of responses, by the keys of inputRequests")
		}
	}
	if state == nil {
		return nil
	}
	payload, err := s.openState(*state, method, name, args)
	if err != nil {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "requestState rejected: %v", err)
	}
	req.state = payload
	return nil
}

// InputResponse returns the client's response to the input request with
// key, from the retry's inputResponses, and whether there is one. "If the
// client fails to send all the information requested ... the server SHOULD
// respond with a new InputRequiredResult requesting the missing information
// again, rather than returning an error" (mrtr, "Error Handling").
func (r *Request) InputResponse(key string) (json.RawMessage, bool) {
	raw, ok := r.inputResponses[key]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, false
	}
	return raw, true
}

// State decodes the state the tool gave its InputRequired into v, and
// reports whether the request carried one that passed verification. It is
// false on a first call.
func (r *Request) State(v any) bool {
	if r.state == nil {
		return false
	}
	return json.Unmarshal(r.state, v) == nil
}

// The sealed request state. The spec leaves its form to the server, and asks
// that it be protected when it matters ("HMAC or AEAD") and that it name
// what it belongs to, with a short expiry (mrtr, "Server Requirements"
// 4 and 5). Here it is
//
//	base64url(payload) "." base64url(HMAC-SHA256(key, payload))
//
// where payload is JSON: the method and tool it answers, a digest of the
// call's arguments, when it expires, and the tool's own state. The payload
// is only signed, not encrypted: a client may read it, and must not be able
// to change it. The key is the server's (Options.StateKey): a retry that
// reaches another process verifies if the processes share the key.

// stateTTL is how long a requestState stays valid: long enough for a person
// to answer a question, short enough to bound a replay.
const stateTTL = 10 * time.Minute

// statePayload is what a requestState carries.
type statePayload struct {
	Method  string          `json:"m"`
	Name    string          `json:"n"`
	Args    string          `json:"a"` // base64url SHA-256 of the canonical arguments
	Expires int64           `json:"e"` // Unix seconds
	State   json.RawMessage `json:"s,omitempty"`
}

// sealState makes the requestState for a call's InputRequiredResult.
func (s *Server) sealState(method, name string, args json.RawMessage, state any) (string, error) {
	raw, err := json.Marshal(state)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(statePayload{Method: method, Name: name, Args: argsDigest(args),
		Expires: s.now().Add(stateTTL).Unix(), State: raw})
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(s.mac(payload)), nil
}

// openState verifies a requestState against the retry it came with, and
// returns the tool's state from it.
func (s *Server) openState(sealed, method, name string, args json.RawMessage) (json.RawMessage, error) {
	enc := base64.RawURLEncoding
	body, sig, ok := strings.Cut(sealed, ".")
	payload, err1 := enc.DecodeString(body)
	mac, err2 := enc.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(payload)) {
		return nil, errTampered
	}
	var p statePayload
	if json.Unmarshal(payload, &p) != nil {
		return nil, errTampered
	}
	switch {
	case p.Method != method || p.Name != name || p.Args != argsDigest(args):
		return nil, errWrongRequest
	case s.now().Unix() > p.Expires:
		return nil, errExpired
	}
	return p.State, nil
}

// Why a requestState is refused.
var (
	errTampered     = stateError("it is not one this server issued, or it was changed")
	errWrongRequest = stateError("it was issued for another request (another tool, or other arguments)")
	errExpired      = stateError("it has expired: call the tool again without it")
)

type stateError string

func (e stateError) Error() string { return string(e) }

func (s *Server) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.stateKey)
	m.Write(payload)
	return m.Sum(nil)
}

// argsDigest is a digest of a call's arguments that does not depend on how
// the client wrote them: key order, spacing and number forms (42.0 is 42)
// are normalized by decoding and encoding them again.
func argsDigest(args json.RawMessage) string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		v = nil
	}
	canon, _ := json.Marshal(v) // map keys come out sorted
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
