// Package contract is the small tool contract that every peer server serves:
// four tools of the course's notes server (internal/mcp), with the same
// names, argument schemas and answers, so that one load generator (bench/)
// and one grader (its external-server mode) can drive them all alike.
//
//   - echo {text}: returns text unchanged.
//   - add_note {text}: saves a note in the session; "Saved note N.".
//   - list_notes {}: the session's notes as "1. …" lines, or "No notes yet.".
//   - countdown {from, interval_ms}: counts down, with one
//     notifications/progress per step when the request has a progress
//     token; "Liftoff! Counted down from N."; stops when cancelled.
//
// A bad argument is a tool execution error (a result with isError), as in
// the notes server. The schemas live in tools.json, which the TypeScript
// peer reads too.
//
// At MCP 2026-07-28 there are no sessions, and the contract follows the
// notes server's tools of that era (tools-2026.json, StatelessTools): notes
// live in notebooks that a client names by handle.
//
//   - echo {text}: as above.
//   - new_notebook {}: "Made notebook nb_…. …", with structuredContent
//     {"notebook": "nb_…"} (Notebooks.New).
//   - add_note {notebook, text}, list_notes {notebook}: as above, in the
//     notebook the handle names (Notebooks.Get).
//   - clear_notes {notebook}: deletes the notes once the user confirms, in a
//     multi round-trip request: the first call answers an
//     InputRequiredResult with ConfirmRequest under the key "confirm", and
//     the retry's inputResponses.confirm decides (Confirmed): "Deleted N
//     notes." or "Kept N notes."; a notebook with none: "Notebook nb_… has
//     no notes." without asking.
//   - countdown {from, interval_ms, notebook}: as above; the notebook is the
//     notes server's, for its history tool, and a peer may ignore it.
package contract

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"mcpcourse/internal/mcp"
)

//go:embed tools.json
var toolsJSON []byte

//go:embed tools-2026.json
var statelessToolsJSON []byte

// Tool is one tool of the contract as tools/list shows it.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Tools returns the contract's tools, in the order tools/list shows them.
func Tools() []Tool { return parseTools("tools.json", toolsJSON) }

// StatelessTools returns the contract's tools at MCP 2026-07-28, in the
// order tools/list shows them.
func StatelessTools() []Tool { return parseTools("tools-2026.json", statelessToolsJSON) }

func parseTools(name string, data []byte) []Tool {
	var tools []Tool
	if err := json.Unmarshal(data, &tools); err != nil {
		panic("contract: " + name + ": " + err.Error())
	}
	return tools
}

// Limits on notes: the notes server's own, so that the two cannot drift
// apart (countdown's are mcp.Countdown's).
const (
	MaxNotes     = mcp.MaxNotes
	MaxNoteBytes = mcp.MaxNoteBytes
)

// Echo serves the echo tool.
func Echo(args json.RawMessage) (string, error) {
	var a struct {
		Text *string `json:"text"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if a.Text == nil {
		return "", fmt.Errorf(`missing required argument "text"`)
	}
	return *a.Text, nil
}

// Notes is one session's notes, or one notebook's. The zero value is empty
// and ready to use.
type Notes struct {
	mu       sync.Mutex
	notes    []string
	notebook bool // a notebook's notes: its errors say "notebook", not "session"
}

// Add serves add_note.
func (n *Notes) Add(args json.RawMessage) (string, error) {
	var a struct {
		Text string `json:"text"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	switch {
	case a.Text == "":
		return "", fmt.Errorf(`argument "text" must not be empty`)
	case len(a.Text) > MaxNoteBytes:
		return "", fmt.Errorf("a note holds at most %d bytes; this one has %d", MaxNoteBytes, len(a.Text))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.notes) >= MaxNotes {
		holder := "session"
		if n.notebook {
			holder = "notebook"
		}
		return "", fmt.Errorf("this %s already holds %d notes, the most it may", holder, MaxNotes)
	}
	n.notes = append(n.notes, a.Text)
	return fmt.Sprintf("Saved note %d.", len(n.notes)), nil
}

// List serves list_notes.
func (n *Notes) List() string {
	if n == nil {
		return "No notes yet."
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.notes) == 0 {
		return "No notes yet."
	}
	var b strings.Builder
	for i, note := range n.notes {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s", i+1, note)
	}
	return b.String()
}

// Count returns how many notes there are.
func (n *Notes) Count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.notes)
}

// Clear deletes every note and returns how many there were.
func (n *Notes) Clear() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	count := len(n.notes)
	n.notes = nil
	return count
}

// Notebooks holds the notebooks of the 2026-07-28 contract, by handle, at
// most mcp.MaxNotebooks of them. The zero value is empty and ready to use.
type Notebooks struct {
	mu sync.Mutex
	m  map[string]*Notes
}

// New makes an empty notebook and returns its handle: "nb_" and 128 random
// bits in lowercase base32, as the notes server's.
func (nb *Notebooks) New() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	h := "nb_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
	nb.mu.Lock()
	defer nb.mu.Unlock()
	if len(nb.m) >= mcp.MaxNotebooks {
		return "", fmt.Errorf("the server already holds %d notebooks, the most it may", mcp.MaxNotebooks)
	}
	if nb.m == nil {
		nb.m = map[string]*Notes{}
	}
	nb.m[h] = &Notes{notebook: true}
	return h, nil
}

// Get returns the notebook a tool call's "notebook" argument names, or the
// tool execution error to answer with.
func (nb *Notebooks) Get(args json.RawMessage) (handle string, notes *Notes, err error) {
	var a struct {
		Notebook *string `json:"notebook"`
	}
	if err := decode(args, &a); err != nil {
		return "", nil, err
	}
	if a.Notebook == nil {
		return "", nil, errors.New(`missing required argument "notebook": make one with new_notebook`)
	}
	nb.mu.Lock()
	defer nb.mu.Unlock()
	if n := nb.m[*a.Notebook]; n != nil {
		return *a.Notebook, n, nil
	}
	return "", nil, fmt.Errorf("no notebook %q: make one with new_notebook", *a.Notebook)
}

// ConfirmRequest is the input request clear_notes sends, under the key
// "confirm", before it deletes count notes: an elicitation/create asking a
// yes or no in a form.
func ConfirmRequest(handle string, count int) map[string]any {
	what := fmt.Sprintf("%d notes", count)
	if count == 1 {
		what = "1 note"
	}
	return map[string]any{"method": "elicitation/create", "params": map[string]any{
		"mode":    "form",
		"message": fmt.Sprintf("Delete %s of notebook %s? This cannot be undone.", what, handle),
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"confirm": map[string]any{"type": "boolean", "title": "Delete the notes", "default": false}},
			"required":   []string{"confirm"},
		},
	}}
}

// Confirmed reads the client's answer to ConfirmRequest, an elicitation
// result: true when the user accepted with confirm true; false when they
// declined, cancelled or said no; an error when it is no elicitation result.
func Confirmed(response json.RawMessage) (bool, error) {
	var r struct {
		Action  string `json:"action"`
		Content struct {
			Confirm bool `json:"confirm"`
		} `json:"content"`
	}
	if err := json.Unmarshal(response, &r); err != nil {
		return false, fmt.Errorf("inputResponses.confirm must be an elicitation result: %v", err)
	}
	switch r.Action {
	case "accept":
		return r.Content.Confirm, nil
	case "decline", "cancel":
		return false, nil
	}
	return false, fmt.Errorf(`inputResponses.confirm.action must be "accept", "decline" or "cancel", not %q`, r.Action)
}

// Sessions holds the notes of every session, by a key the peer chooses
// (its SDK's session, or the session id). A session's notes are made on its
// first add_note, so a session that never takes notes costs nothing here.
type Sessions struct {
	mu sync.Mutex
	m  map[any]*Notes
}

// Get returns the notes of the session with key, or nil if it has none.
func (s *Sessions) Get(key any) *Notes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key]
}

// Make returns the notes of the session with key, making them if needed,
// and reports whether it made them.
func (s *Sessions) Make(key any) (n *Notes, made bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[any]*Notes{}
	}
	if n = s.m[key]; n == nil {
		n, made = &Notes{}, true
		s.m[key] = n
	}
	return n, made
}

// Drop forgets the notes of the session with key, when the session ends.
func (s *Sessions) Drop(key any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
}

// Countdown serves countdown: the notes server's own (mcp.Countdown), so
// that the two cannot drift apart. progress is called once per step, with
// the step, the total and a message; the peer sends notifications/progress
// from it when the request carried a progress token.
func Countdown(ctx context.Context, args json.RawMessage, progress func(step, total int, message string)) (string, error) {
	return mcp.Countdown(ctx, args, progress)
}

// decode reads a tool's arguments; absent arguments count as {}.
func decode(args json.RawMessage, into any) error {
	if t := bytes.TrimSpace(args); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(args, into); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}
