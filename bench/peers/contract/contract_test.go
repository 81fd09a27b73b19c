package contract

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// TestSchemasMatchTheNotesServer keeps tools.json in step with the course's
// notes server: same tool names, same argument schemas.
func TestSchemasMatchTheNotesServer(t *testing.T) {
	id := jsonrpc.IntID(1)
	resp := mcp.NewServer().NewSession().Handle(context.Background(), &jsonrpc.Message{JSONRPC: "2.0", ID: &id, Method: "tools/list"}, nil)
	require.NotNil(t, resp)
	require.Nil(t, resp.Error)
	var list struct {
		Tools []Tool `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(resp.Result, &list))
	notes := map[string]Tool{}
	for _, tool := range list.Tools {
		notes[tool.Name] = tool
	}
	tools := Tools()
	require.Len(t, tools, 4)
	for _, tool := range tools {
		want, ok := notes[tool.Name]
		require.True(t, ok, "the notes server has no tool %q", tool.Name)
		assert.JSONEq(t, string(want.InputSchema), string(tool.InputSchema), tool.Name)
		assert.Equal(t, want.Title, tool.Title, tool.Name)
	}
}

func TestTools(t *testing.T) {
	text, err := Echo(json.RawMessage(`{"text":"héllo\nworld"}`))
	require.NoError(t, err)
	assert.Equal(t, "héllo\nworld", text)
	_, err = Echo(json.RawMessage(`{}`))
	assert.Error(t, err)

	var n *Notes
	assert.Equal(t, "No notes yet.", n.List())
	n = &Notes{}
	for i, note := range []string{"milk", "eggs"} {
		got, err := n.Add(json.RawMessage(`{"text":"` + note + `"}`))
		require.NoError(t, err)
		assert.Equal(t, []string{"Saved note 1.", "Saved note 2."}[i], got)
	}
	assert.Equal(t, "1. milk\n2. eggs", n.List())

	var steps []int
	got, err := Countdown(context.Background(), json.RawMessage(`{"from":3,"interval_ms":0}`), func(step, total int, msg string) {
		steps = append(steps, step)
		assert.Equal(t, 3, total)
	})
	require.NoError(t, err)
	assert.Equal(t, "Liftoff! Counted down from 3.", got)
	assert.Equal(t, []int{1, 2, 3}, steps)
	_, err = Countdown(context.Background(), json.RawMessage(`{"from":1001}`), nil)
	assert.Error(t, err)
}

// TestStatelessSchemasMatchTheNotesServer keeps tools-2026.json in step with
// the notes server at 2026-07-28: same tool names, titles, argument and
// output schemas, in the same order.
func TestStatelessSchemasMatchTheNotesServer(t *testing.T) {
	id := jsonrpc.IntID(1)
	params := json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	resp := mcp.NewServer().HandleStateless(context.Background(), &jsonrpc.Message{JSONRPC: "2.0", ID: &id, Method: "tools/list", Params: params}, nil)
	require.NotNil(t, resp)
	require.Nil(t, resp.Error)
	var list struct {
		Tools []Tool `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(resp.Result, &list))
	var order []string
	notes := map[string]Tool{}
	for _, tool := range list.Tools {
		notes[tool.Name] = tool
		order = append(order, tool.Name)
	}
	tools := StatelessTools()
	require.Len(t, tools, 6)
	var names []string
	for _, tool := range tools {
		want, ok := notes[tool.Name]
		require.True(t, ok, "the notes server has no tool %q at 2026-07-28", tool.Name)
		assert.JSONEq(t, string(want.InputSchema), string(tool.InputSchema), tool.Name)
		if want.OutputSchema != nil || tool.OutputSchema != nil {
			assert.JSONEq(t, string(want.OutputSchema), string(tool.OutputSchema), tool.Name)
		}
		assert.Equal(t, want.Title, tool.Title, tool.Name)
		names = append(names, tool.Name)
	}
	assert.Equal(t, []string{"echo", "new_notebook", "add_note", "list_notes", "clear_notes", "countdown"}, names)
	assert.Subset(t, order, names)
}

func TestNotebooks(t *testing.T) {
	var nbs Notebooks
	h, err := nbs.New()
	require.NoError(t, err)
	assert.Regexp(t, `^nb_[a-z2-7]{26}$`, h)
	_, notes, err := nbs.Get(json.RawMessage(`{"notebook":"` + h + `"}`))
	require.NoError(t, err)
	got, err := notes.Add(json.RawMessage(`{"notebook":"` + h + `","text":"milk"}`))
	require.NoError(t, err)
	assert.Equal(t, "Saved note 1.", got)
	assert.Equal(t, 1, notes.Count())
	_, _, err = nbs.Get(json.RawMessage(`{"notebook":"nb_nope"}`))
	assert.ErrorContains(t, err, "new_notebook")
	_, _, err = nbs.Get(json.RawMessage(`{}`))
	assert.ErrorContains(t, err, `"notebook"`)

	for i := 0; i < MaxNotes-1; i++ {
		_, err := notes.Add(json.RawMessage(`{"text":"n"}`))
		require.NoError(t, err)
	}
	_, err = notes.Add(json.RawMessage(`{"text":"n"}`))
	assert.EqualError(t, err, "this notebook already holds 100 notes, the most it may")
	assert.Equal(t, MaxNotes, notes.Clear())
	assert.Equal(t, "No notes yet.", notes.List())
}

func TestConfirm(t *testing.T) {
	req := ConfirmRequest("nb_x", 1)
	assert.Equal(t, "elicitation/create", req["method"])
	assert.Contains(t, req["params"].(map[string]any)["message"], "Delete 1 note of notebook nb_x?")
	for answer, want := range map[string]bool{
		`{"action":"accept","content":{"confirm":true}}`:  true,
		`{"action":"accept","content":{"confirm":false}}`: false,
		`{"action":"decline"}`:                            false,
		`{"action":"cancel"}`:                             false,
	} {
		got, err := Confirmed(json.RawMessage(answer))
		require.NoError(t, err, answer)
		assert.Equal(t, want, got, answer)
	}
	for _, bad := range []string{`"yes"`, `{"action":"maybe"}`} {
		_, err := Confirmed(json.RawMessage(bad))
		assert.Error(t, err, bad)
	}
}
