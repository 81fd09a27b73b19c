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
