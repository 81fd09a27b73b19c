package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"mcpcourse/internal/jsonrpc"
)

// Tool is one entry of tools/list, with the code that runs it.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  any             `json:"annotations,omitempty"`

	// Run performs one call. An error is reported to the client inside the
	// result, as a tool execution error (isError: true), so the model can
	// see it; a *jsonrpc.Error is answered as a protocol error instead.
	Run func(ctx context.Context, req *Request, args json.RawMessage) (*ToolResult, error) `json:"-"`
}

// ToolResult is the result of tools/call.
type ToolResult struct {
	Content           []any `json:"content"`
	StructuredContent any   `json:"structuredContent,omitempty"`
	IsError           bool  `json:"isError,omitempty"`
}

// TextContent is a content item of text.
type TextContent struct {
	Type string `json:"type"` // always "text"
	Text string `json:"text"`
}

// Text returns a result holding one text item.
func Text(text string) *ToolResult {
	return &ToolResult{Content: []any{TextContent{Type: "text", Text: text}}}
}

// Limits on countdown's arguments, so that one call cannot run for hours.
const (
	MaxCountdownSteps    = 1000
	MaxCountdownInterval = 10 * time.Second
)

// textTool adapts a function that returns text to Tool.Run.
func textTool(run func(ctx context.Context, req *Request, args json.RawMessage) (string, error)) func(context.Context, *Request, json.RawMessage) (*ToolResult, error) {
	return func(ctx context.Context, req *Request, args json.RawMessage) (*ToolResult, error) {
		text, err := run(ctx, req, args)
		if err != nil {
			return nil, err
		}
		return Text(text), nil
	}
}

// echoTool is the echo tool, the same in both eras.
func echoTool() *Tool {
	return &Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Returns its text argument unchanged.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text to send back."}},"required":["text"]}`),
		Run: textTool(func(_ context.Context, _ *Request, args json.RawMessage) (string, error) {
			var a struct {
				Text *string `json:"text"`
			}
			if err := decodeArgs(args, &a); err != nil {
				return "", err
			}
			if a.Text == nil {
				return "", fmt.Errorf(`missing required argument "text"`)
			}
			return *a.Text, nil
		}),
	}
}

// notesTools are the notes server's tools in a session (the 2025 era): the
// notes and the history are the session's own. statelessNotesTools are the
// 2026-07-28 ones.
func notesTools() []*Tool {
	return []*Tool{
		echoTool(),
		{
			Name:  "add_note",
			Title: "Add a note",
			Description: fmt.Sprintf("Saves a note in this session (at most %d notes of %d bytes each), "+
				"and logs it (notifications/message, logger \"notes\") to whatever stream the session has for such messages.", MaxNotes, MaxNoteBytes),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The note to save."}},"required":["text"]}`),
			Run: textTool(func(ctx context.Context, req *Request, args json.RawMessage) (string, error) {
				var a struct {
					Text string `json:"text"`
				}
				if err := decodeArgs(args, &a); err != nil {
					return "", err
				}
				n, err := req.Session.addNote(a.Text)
				if err != nil {
					return "", err
				}
				// A message about the session, not about this request: it
				// goes through the session's outlet, or nowhere if the
				// transport has attached none.
				req.Session.Log(ctx, LevelInfo, "notes", map[string]any{"note": n, "text": a.Text})
				return fmt.Sprintf("Saved note %d.", n), nil
			}),
		},
		{
			Name:        "list_notes",
			Title:       "List notes",
			Description: "Lists the notes saved in this session, one per line.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Run: textTool(func(_ context.Context, req *Request, _ json.RawMessage) (string, error) {
				return numbered(req.Session.listNotes(), "No notes yet."), nil
			}),
		},
		{
			Name:  "countdown",
			Title: "Countdown",
			Description: "Counts down from `from`, waiting interval_ms between steps. Sends notifications/progress for each step " +
				"when the request carries a progress token. Stops when cancelled; a client that only goes away does not stop it.",
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
				`"from":{"type":"integer","minimum":0,"maximum":%d,"description":"How many steps to count."},`+
				`"interval_ms":{"type":"integer","minimum":0,"maximum":%d,"default":1000,"description":"Milliseconds between steps."}},`+
				`"required":["from"]}`, MaxCountdownSteps, MaxCountdownInterval.Milliseconds())),
			Run: textTool(countdown),
		},
		{
			Name:  "history",
			Title: "History",
			Description: fmt.Sprintf("Lists this session's last %d tool calls, oldest first, and how each ended: "+
				"finished, failed or cancelled. It shows whether a call ran to its end after its client went away.", MaxHistory),
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Run: textTool(func(_ context.Context, req *Request, _ json.RawMessage) (string, error) {
				return numbered(req.Session.listHistory(), "No tool calls yet."), nil
			}),
		},
	}
}

// countdown is the countdown tool: Countdown, with a notifications/progress
// for each step (Request.Progress sends it only when the request carries a
// progress token).
func countdown(ctx context.Context, req *Request, args json.RawMessage) (string, error) {
	return Countdown(ctx, args, func(step, total int, message string) {
		// A progress notification that cannot be delivered does not stop
		// the countdown: a client that went away has not cancelled
		// (basic/transports: a disconnection SHOULD NOT be taken for
		// cancellation).
		req.Progress(ctx, float64(step), float64(total), message)
	})
}

// Countdown checks countdown's arguments, then counts down from "from",
// waiting interval_ms before each step and calling progress after it with
// the step, the total and a message ("2..."). It stops, with ctx's error,
// when ctx is cancelled. The benchmark's peer servers run it too
// (bench/peers/contract), so that every server counts down alike.
func Countdown(ctx context.Context, args json.RawMessage, progress func(step, total int, message string)) (string, error) {
	var a struct {
		From       *int `json:"from"`
		IntervalMS *int `json:"interval_ms"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	if a.From == nil || *a.From < 0 || *a.From > MaxCountdownSteps {
		return "", fmt.Errorf(`argument "from" must be an integer from 0 to %d`, MaxCountdownSteps)
	}
	interval := time.Second
	if a.IntervalMS != nil {
		interval = time.Duration(*a.IntervalMS) * time.Millisecond
		if interval < 0 || interval > MaxCountdownInterval {
			return "", fmt.Errorf(`argument "interval_ms" must be from 0 to %d`, MaxCountdownInterval.Milliseconds())
		}
	}

	timer := time.NewTimer(interval)
	defer timer.Stop()
	for step := 1; step <= *a.From; step++ {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-timer.C:
		}
		progress(step, *a.From, fmt.Sprintf("%d...", *a.From-step))
		timer.Reset(interval)
	}
	return fmt.Sprintf("Liftoff! Counted down from %d.", *a.From), nil
}

// decodeArgs reads a tool's arguments object. Absent arguments count as {}.
func decodeArgs(args json.RawMessage, into any) error {
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(args, into); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

func (s *Server) listTools() any {
	return struct {
		Tools []*Tool `json:"tools"`
	}{s.tools}
}

func (s *Server) lookupTool(name string) *Tool {
	for _, t := range s.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (s *Session) callTool(ctx context.Context, req *Request) (any, *jsonrpc.Error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "tools/call params: %v", err)
	}
	t := s.server.lookupTool(p.Name)
	if t == nil {
		// The tools page uses -32602 for an unknown tool (server/tools, "Error Handling").
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown tool: %q", p.Name)
	}
	result, err := t.Run(ctx, req, p.Arguments)
	var rpcErr *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		s.remember(p.Name, req.ID, "cancelled")
		return nil, nil // the caller drops the response of a cancelled request
	case errors.As(err, &rpcErr):
		s.remember(p.Name, req.ID, "failed: "+rpcErr.Message)
		return nil, rpcErr
	case err != nil:
		// A tool that ran and failed reports it inside the result, so the
		// model can see the error (server/tools, "Tool Execution Errors").
		s.remember(p.Name, req.ID, "failed: "+err.Error())
		return &ToolResult{Content: []any{TextContent{Type: "text", Text: err.Error()}}, IsError: true}, nil
	}
	s.remember(p.Name, req.ID, "finished")
	return result, nil
}

// remember adds a finished tool call to the session's history. Every call
// of a session is made with the session's notebook.
func (s *Session) remember(tool string, id jsonrpc.ID, outcome string) {
	s.notebook.remember(tool, id, outcome)
}

func (s *Session) listHistory() []string { return s.notebook.calls() }

// numbered lists items as "1. …" lines, or says empty when there are none.
func numbered(items []string, empty string) string {
	if len(items) == 0 {
		return empty
	}
	var b strings.Builder
	for i, item := range items {
		fmt.Fprintf(&b, "%d. %s\n", i+1, item)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// addNote stores a note in the session's notebook and returns how many it
// now holds.
func (s *Session) addNote(text string) (int, error) { return s.notebook.add(text) }

func (s *Session) listNotes() []string { return s.notebook.list() }
