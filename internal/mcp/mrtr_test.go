package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/jsonrpc"
)

// elicits is the client capability an MRTR retry needs for clear_notes.
var elicits = map[string]any{"elicitation": map[string]any{}}

// clearCall is a clear_notes call with capabilities caps and, on a retry,
// what the retry carries (nil values are left out).
func clearCall(nb string, caps map[string]any, responses any, state any) map[string]any {
	p := map[string]any{"name": "clear_notes", "arguments": map[string]any{"notebook": nb}, "_meta": envelope(caps, nil)}
	if responses != nil {
		p["inputResponses"] = responses
	}
	if state != nil {
		p["requestState"] = state
	}
	return p
}

// inputRequired checks that a result asks for input, and returns its
// requestState.
func inputRequired(t *testing.T, resp *jsonrpc.Message) string {
	t.Helper()
	f := fields(t, resp)
	assert.JSONEq(t, `"input_required"`, string(f["resultType"]))
	assert.NotContains(t, f, "ttlMs", "input_required results carry no caching hints")
	assert.NotContains(t, f, "cacheScope")
	assert.Contains(t, string(f["_meta"]), MetaServerInfo)
	var reqs map[string]struct {
		Method string `json:"method"`
		Params struct {
			Mode    string `json:"mode"`
			Message string `json:"message"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(f["inputRequests"], &reqs))
	require.Contains(t, reqs, "confirm")
	assert.Equal(t, "elicitation/create", reqs["confirm"].Method)
	assert.Equal(t, "form", reqs["confirm"].Params.Mode)
	var state string
	require.NoError(t, json.Unmarshal(f["requestState"], &state))
	require.NotEmpty(t, state)
	return state
}

var accept = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}

func notebookWith(t *testing.T, s *Server, notes ...string) string {
	t.Helper()
	nb := newNotebook(t, s)
	for _, n := range notes {
		toolText(t, s, "add_note", map[string]any{"notebook": nb, "text": n})
	}
	return nb
}

func TestClearNotesAsksFirst(t *testing.T) {
	s := NewServer()
	nb := notebookWith(t, s, "milk", "eggs")
	state := inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(nb, elicits, nil, nil), nil))
	got, _ := toolText(t, s, "list_notes", map[string]any{"notebook": nb})
	assert.Equal(t, "1. milk\n2. eggs", got, "nothing is deleted before the user says so")

	resp := stateless(t, s, 2, "tools/call", clearCall(nb, elicits, accept, state), nil)
	assert.Equal(t, "Deleted 2 notes.", text(t, resp))
	assert.JSONEq(t, `"complete"`, string(fields(t, resp)["resultType"]))
	got, _ = toolText(t, s, "list_notes", map[string]any{"notebook": nb})
	assert.Equal(t, "No notes yet.", got)
}

func TestClearNotesKeepsWhatTheUserKeeps(t *testing.T) {
	for _, answer := range []map[string]any{
		{"action": "decline"},
		{"action": "cancel"},
		{"action": "accept", "content": map[string]any{"confirm": false}},
	} {
		s := NewServer()
		nb := notebookWith(t, s, "milk")
		state := inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(nb, elicits, nil, nil), nil))
		assert.Equal(t, "Kept 1 note.", text(t, stateless(t, s, 2, "tools/call", clearCall(nb, elicits, map[string]any{"confirm": answer}, state), nil)), "%v", answer)
	}
}

func TestClearNotesOnAnEmptyNotebookAsksNothing(t *testing.T) {
	s := NewServer()
	nb := newNotebook(t, s)
	resp := stateless(t, s, 1, "tools/call", clearCall(nb, nil, nil, nil), nil)
	assert.Equal(t, "Notebook "+nb+" has no notes.", text(t, resp))
}

func TestARetryWithoutTheAnswerIsAskedAgain(t *testing.T) {
	s := NewServer()
	nb := notebookWith(t, s, "milk")
	state := inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(nb, elicits, nil, nil), nil))
	for _, responses := range []any{nil, map[string]any{}, map[string]any{"other": map[string]any{"action": "accept"}}, map[string]any{"confirm": nil}} {
		inputRequired(t, stateless(t, s, 2, "tools/call", clearCall(nb, elicits, responses, state), nil))
	}
	// An answer without the state it answers is a first call too.
	inputRequired(t, stateless(t, s, 3, "tools/call", clearCall(nb, elicits, accept, nil), nil))
	got, _ := toolText(t, s, "list_notes", map[string]any{"notebook": nb})
	assert.Equal(t, "1. milk", got)
}

func TestExtraResponsesAreIgnored(t *testing.T) {
	s := NewServer()
	nb := notebookWith(t, s, "milk")
	state := inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(nb, elicits, nil, nil), nil))
	responses := map[string]any{"confirm": accept["confirm"], "unasked": map[string]any{"action": "accept"}}
	assert.Equal(t, "Deleted 1 note.", text(t, stateless(t, s, 2, "tools/call", clearCall(nb, elicits, responses, state), nil)))
}

func TestAChangedNotebookIsAskedAboutAgain(t *testing.T) {
	s := NewServer()
	nb := notebookWith(t, s, "milk")
	state := inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(nb, elicits, nil, nil), nil))
	toolText(t, s, "add_note", map[string]any{"notebook": nb, "text": "eggs"})
	resp := stateless(t, s, 2, "tools/call", clearCall(nb, elicits, accept, state), nil)
	inputRequired(t, resp)
	assert.Contains(t, string(resp.Result), "Delete 2 notes", "the user agreed to delete one note, not two")
}

func TestATamperedStateIsRefused(t *testing.T) {
	s := NewServer()
	nb := notebookWith(t, s, "milk")
	other := notebookWith(t, s, "eggs")
	state := inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(nb, elicits, nil, nil), nil))
	body, sig, _ := strings.Cut(state, ".")

	forged := func(payload statePayload) string {
		b, _ := json.Marshal(payload)
		return base64.RawURLEncoding.EncodeToString(b) + "." + sig
	}
	for what, bad := range map[string]any{
		"the conformance suite's tampering": state + "-TAMPERED",
		"a changed payload":                 forged(statePayload{Method: "tools/call", Name: "clear_notes", Expires: time.Now().Add(time.Hour).Unix(), State: json.RawMessage(`{"notes":1}`)}),
		"no signature":                      body,
		"a signature of another server":     signedBy(t, NewServer(), nb),
		"not base64":                        "%%%.%%%",
		"empty":                             "",
		"a number":                          7,
	} {
		resp := stateless(t, s, 2, "tools/call", clearCall(nb, elicits, accept, bad), nil)
		require.NotNil(t, resp.Error, what)
		assert.Equal(t, jsonrpc.CodeInvalidParams, resp.Error.Code, what)
	}
	// A state issued for one notebook does not clear another.
	resp := stateless(t, s, 3, "tools/call", clearCall(other, elicits, accept, state), nil)
	require.NotNil(t, resp.Error)
	assert.Contains(t, resp.Error.Message, "another request")
	for _, n := range []string{nb, other} {
		got, _ := toolText(t, s, "list_notes", map[string]any{"notebook": n})
		assert.NotEqual(t, "No notes yet.", got, "nothing was deleted")
	}
}

// signedBy returns a state another server issued for a notebook of the
// same handle.
func signedBy(t *testing.T, other *Server, nb string) string {
	t.Helper()
	state, err := other.sealState("tools/call", "clear_notes", json.RawMessage(`{"notebook":"`+nb+`"}`), map[string]int{"notes": 1})
	require.NoError(t, err)
	return state
}

func TestAStateExpires(t *testing.T) {
	s := NewServer()
	now := time.Now()
	s.now = func() time.Time { return now }
	nb := notebookWith(t, s, "milk")
	state := inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(nb, elicits, nil, nil), nil))
	now = now.Add(stateTTL + time.Second)
	toolText(t, s, "list_notes", map[string]any{"notebook": nb}) // keep the notebook itself
	resp := stateless(t, s, 2, "tools/call", clearCall(nb, elicits, accept, state), nil)
	require.NotNil(t, resp.Error)
	assert.Contains(t, resp.Error.Message, "expired")
}

func TestServersSharingAKeyAcceptEachOthersStates(t *testing.T) {
	key := []byte("a key the fleet shares")
	a := New(Options{StateKey: key})
	b := New(Options{StateKey: key})
	state, err := a.sealState("tools/call", "t", json.RawMessage(`{"x": 1.0, "y":[1]}`), 5)
	require.NoError(t, err)
	got, err := b.openState(state, "tools/call", "t", json.RawMessage(`{"y":[1],"x":1}`))
	require.NoError(t, err, "another process, and the arguments written another way")
	assert.JSONEq(t, `5`, string(got))
}

func TestAnInputRequestNeedsItsCapability(t *testing.T) {
	s := NewServer()
	nb := notebookWith(t, s, "milk")
	for _, c := range []struct {
		caps map[string]any
		want string
	}{
		{nil, `{"elicitation":{}}`},
		{map[string]any{"sampling": map[string]any{}}, `{"elicitation":{}}`},
		{map[string]any{"elicitation": nil}, `{"elicitation":{}}`},
		{map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}, `{"elicitation":{"form":{}}}`},
	} {
		resp := stateless(t, s, 1, "tools/call", clearCall(nb, c.caps, nil, nil), nil)
		require.NotNil(t, resp.Error, "%v", c.caps)
		assert.Equal(t, CodeMissingClientCapability, resp.Error.Code)
		assert.Equal(t, http.StatusBadRequest, resp.Error.HTTPStatus)
		assert.JSONEq(t, `{"requiredCapabilities":`+c.want+`}`, string(resp.Error.Data), "%v", c.caps)
	}
	for _, caps := range []map[string]any{elicits, {"elicitation": map[string]any{"form": map[string]any{}}}, {"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}} {
		inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(nb, caps, nil, nil), nil))
	}
}

func TestMalformedInputResponsesAreRefused(t *testing.T) {
	s := NewServer()
	nb := notebookWith(t, s, "milk")
	state := inputRequired(t, stateless(t, s, 1, "tools/call", clearCall(nb, elicits, nil, nil), nil))
	for _, responses := range []any{"yes", []any{accept}, 7, map[string]any{"confirm": "yes"}, map[string]any{"confirm": map[string]any{"action": "maybe"}}} {
		resp := stateless(t, s, 2, "tools/call", clearCall(nb, elicits, responses, state), nil)
		require.NotNil(t, resp.Error, "%v", responses)
		assert.Equal(t, jsonrpc.CodeInvalidParams, resp.Error.Code, "%v", responses)
	}
}

func TestOnlyToolCallsAskForInput(t *testing.T) {
	s := NewServer()
	for _, method := range []string{"server/discover", "tools/list", "resources/list", "resources/templates/list"} {
		f := fields(t, stateless(t, s, 1, method, map[string]any{"_meta": envelope(elicits, nil)}, nil))
		assert.JSONEq(t, `"complete"`, string(f["resultType"]), method)
	}
}

func TestAPromptMayAskForInputAndAListMayNot(t *testing.T) {
	s := New(Options{Info: Implementation{Name: "x", Version: "1"}})
	s.HandleMethod("prompts/get", func(_ context.Context, req *Request) (any, *jsonrpc.Error) {
		var st string
		if answer, ok := req.InputResponse("who"); ok && req.State(&st) {
			return map[string]any{"messages": []any{}, "description": st + string(answer)}, nil
		}
		return &InputRequired{Requests: map[string]InputRequest{"who": {Method: "roots/list"}}, State: "asked:"}, nil
	})
	s.HandleMethod("prompts/list", func(context.Context, *Request) (any, *jsonrpc.Error) {
		return &InputRequired{Requests: map[string]InputRequest{"who": {Method: "roots/list"}}}, nil
	})
	roots := map[string]any{"roots": map[string]any{}}
	params := map[string]any{"name": "p", "arguments": map[string]any{"a": "1"}, "_meta": envelope(roots, nil)}
	f := fields(t, stateless(t, s, 1, "prompts/get", params, nil))
	assert.JSONEq(t, `"input_required"`, string(f["resultType"]))
	var state string
	require.NoError(t, json.Unmarshal(f["requestState"], &state))

	params["inputResponses"] = map[string]any{"who": map[string]any{"roots": []any{}}}
	params["requestState"] = state
	f = fields(t, stateless(t, s, 2, "prompts/get", params, nil))
	assert.JSONEq(t, `"complete"`, string(f["resultType"]))
	assert.JSONEq(t, `"asked:{\"roots\":[]}"`, string(f["description"]))

	params["name"] = "another"
	resp := stateless(t, s, 3, "prompts/get", params, nil)
	require.NotNil(t, resp.Error, "a state answers its own prompt only")

	resp = stateless(t, s, 4, "prompts/list", map[string]any{"_meta": envelope(roots, nil)}, nil)
	require.NotNil(t, resp.Error)
	assert.Equal(t, jsonrpc.CodeInternalError, resp.Error.Code, "never input_required on a list")

	delete(params, "inputResponses")
	delete(params, "requestState")
	params["name"] = "p"
	params["_meta"] = envelope(nil, nil)
	resp = stateless(t, s, 5, "prompts/get", params, nil)
	require.NotNil(t, resp.Error)
	assert.JSONEq(t, `{"requiredCapabilities":{"roots":{}}}`, string(resp.Error.Data))
}
