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
package contract

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"mcpcourse/internal/mcp"
)

//go:embed tools.json
var toolsJSON []byte

// Tool is one tool of the contract as tools/list shows it.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Tools returns the contract's tools, in the order tools/list shows them.
func Tools() []Tool {
	var tools []Tool
	if err := json.Unmarshal(toolsJSON, &tools); err != nil {
		panic("contract: tools.json: " + err.Error())
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

// Notes is one session's notes. The zero value is empty and ready to use.
type Notes struct {
	mu    sync.Mutex
	notes []string
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
		return "", fmt.Errorf("this session already holds %d notes, the most it may", MaxNotes)
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
