package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/jsonrpc"
)

// toolText calls a tool at 2026-07-28 and returns its text and whether it
// was a tool error.
func toolText(t *testing.T, s *Server, name string, args map[string]any) (string, bool) {
	t.Helper()
	resp := stateless(t, s, 1, "tools/call", call(name, args), nil)
	f := fields(t, resp)
	var isError bool
	json.Unmarshal(f["isError"], &isError)
	return text(t, resp), isError
}

func TestNotebooksAreNamedByTheirHandles(t *testing.T) {
	s := NewServer()
	a, b := newNotebook(t, s), newNotebook(t, s)
	assert.NotEqual(t, a, b)

	got, isErr := toolText(t, s, "add_note", map[string]any{"notebook": a, "text": "milk"})
	assert.False(t, isErr)
	assert.Equal(t, "Saved note 1.", got)
	toolText(t, s, "add_note", map[string]any{"notebook": a, "text": "eggs"})
	toolText(t, s, "add_note", map[string]any{"notebook": b, "text": "bread"})

	got, _ = toolText(t, s, "list_notes", map[string]any{"notebook": a})
	assert.Equal(t, "1. milk\n2. eggs", got)
	got, _ = toolText(t, s, "list_notes", map[string]any{"notebook": b})
	assert.Equal(t, "1. bread", got, "each notebook is its own")

	got, _ = toolText(t, NewServer(), "list_notes", map[string]any{"notebook": a})
	assert.Contains(t, got, "no notebook", "another server does not know the handle")
}

func TestAHandleThatNamesNothingIsAToolError(t *testing.T) {
	s := NewServer()
	for _, tool := range []string{"add_note", "list_notes", "clear_notes", "history", "countdown"} {
		got, isErr := toolText(t, s, tool, map[string]any{"notebook": "nb_aaaaaaaaaaaaaaaaaaaaaaaaaa", "text": "x", "from": 1})
		assert.True(t, isErr, tool)
		assert.Contains(t, got, "new_notebook", "%s: the error says how to recover", tool)
	}
	for _, tool := range []string{"add_note", "list_notes", "clear_notes", "history"} {
		got, isErr := toolText(t, s, tool, map[string]any{"text": "x"})
		assert.True(t, isErr, tool)
		assert.Contains(t, got, `"notebook"`, tool)
	}
	got, isErr := toolText(t, s, "countdown", map[string]any{"from": 1, "interval_ms": 0})
	assert.False(t, isErr, "countdown needs no notebook")
	assert.Equal(t, "Liftoff! Counted down from 1.", got)
}

func TestANotebookExpiresUnused(t *testing.T) {
	s := NewServer()
	now := time.Now()
	s.now = func() time.Time { return now }
	nb := newNotebook(t, s)
	now = now.Add(NotebookIdle - time.Second)
	_, isErr := toolText(t, s, "list_notes", map[string]any{"notebook": nb})
	assert.False(t, isErr, "a use keeps it")
	now = now.Add(NotebookIdle - time.Second)
	_, isErr = toolText(t, s, "list_notes", map[string]any{"notebook": nb})
	assert.False(t, isErr, "idle time counts from the last use")
	now = now.Add(NotebookIdle + time.Second)
	got, isErr := toolText(t, s, "list_notes", map[string]any{"notebook": nb})
	assert.True(t, isErr)
	assert.Contains(t, got, "unused")
}

func TestTheServerHoldsABoundedNumberOfNotebooks(t *testing.T) {
	s := NewServer()
	now := time.Now()
	s.now = func() time.Time { return now }
	first := newNotebook(t, s)
	for i := 1; i < MaxNotebooks; i++ {
		_, err := s.notebooks.create()
		require.NoError(t, err)
	}
	got, isErr := toolText(t, s, "new_notebook", nil)
	assert.True(t, isErr)
	assert.Contains(t, got, fmt.Sprint(MaxNotebooks))

	now = now.Add(NotebookIdle / 2)
	toolText(t, s, "list_notes", map[string]any{"notebook": first}) // kept in use
	now = now.Add(NotebookIdle/2 + time.Second)
	newNotebook(t, s) // the idle ones make room
	_, isErr = toolText(t, s, "list_notes", map[string]any{"notebook": first})
	assert.False(t, isErr, "a notebook in use is not dropped")
	assert.Len(t, s.notebooks.byHandle, 2)
}

func TestANotebookIsBounded(t *testing.T) {
	s := NewServer()
	nb := newNotebook(t, s)
	_, isErr := toolText(t, s, "add_note", map[string]any{"notebook": nb, "text": string(make([]byte, MaxNoteBytes+1))})
	assert.True(t, isErr)
	for i := 0; i < MaxNotes; i++ {
		_, isErr := toolText(t, s, "add_note", map[string]any{"notebook": nb, "text": "n"})
		require.False(t, isErr)
	}
	got, isErr := toolText(t, s, "add_note", map[string]any{"notebook": nb, "text": "one too many"})
	assert.True(t, isErr)
	assert.Equal(t, "this notebook already holds 100 notes, the most it may", got)
}

func TestHistoryIsPerNotebook(t *testing.T) {
	s := NewServer()
	a, b := newNotebook(t, s), newNotebook(t, s)
	toolText(t, s, "add_note", map[string]any{"notebook": a, "text": "milk"})
	toolText(t, s, "add_note", map[string]any{"notebook": a, "text": ""})
	toolText(t, s, "countdown", map[string]any{"notebook": b, "from": 1, "interval_ms": 0})
	toolText(t, s, "echo", map[string]any{"notebook": a, "text": "x"}) // echo ignores it, but the call named the notebook
	got, _ := toolText(t, s, "history", map[string]any{"notebook": a})
	assert.Equal(t, "1. add_note (id 1): finished\n2. add_note (id 1): failed: argument \"text\" must not be empty\n3. echo (id 1): finished", got)
	got, _ = toolText(t, s, "history", map[string]any{"notebook": b})
	assert.Equal(t, "1. countdown (id 1): finished", got)
}

func TestTheNotesAreResources(t *testing.T) {
	s := NewServer()
	nb := newNotebook(t, s)
	toolText(t, s, "add_note", map[string]any{"notebook": nb, "text": "milk"})

	f := fields(t, stateless(t, s, 1, "resources/read", with(map[string]any{"uri": "notes://" + nb}), nil))
	assert.JSONEq(t, `[{"uri":"notes://`+nb+`","mimeType":"text/plain","text":"1. milk"}]`, string(f["contents"]))
	assert.JSONEq(t, `"private"`, string(f["cacheScope"]), "a notebook's notes are its owner's")
	assert.JSONEq(t, `0`, string(f["ttlMs"]))

	f = fields(t, stateless(t, s, 1, "resources/list", with(nil), nil))
	assert.JSONEq(t, `[]`, string(f["resources"]), "handles are secrets: never listed")
	f = fields(t, stateless(t, s, 1, "resources/templates/list", with(nil), nil))
	assert.Contains(t, string(f["resourceTemplates"]), `"uriTemplate":"notes://{notebook}"`)

	for _, uri := range []string{"notes://nb_aaaaaaaaaaaaaaaaaaaaaaaaaa", "test://nonexistent-resource-for-conformance-testing", ""} {
		resp := stateless(t, s, 1, "resources/read", with(map[string]any{"uri": uri}), nil)
		require.NotNil(t, resp.Error, uri)
		assert.Equal(t, jsonrpc.CodeInvalidParams, resp.Error.Code, "a missing resource is -32602, never -32002")
		assert.JSONEq(t, `{"uri":"`+uri+`"}`, string(resp.Error.Data))
	}
}

func TestASessionOwnsItsNotebook(t *testing.T) {
	srv := NewServer()
	a, b := srv.NewSession(), srv.NewSession()
	for _, s := range []*Session{a, b} {
		s.Handle(context.Background(), request(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25"}), nil)
	}
	assert.Equal(t, "Saved note 1.", callTool(t, a, 2, "add_note", map[string]any{"text": "milk"}))
	assert.Equal(t, "No notes yet.", callTool(t, b, 2, "list_notes", nil), "another session's notebook is another")
	assert.Empty(t, srv.notebooks.byHandle, "a session's notebook is not in the server's store")
}
