package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// tool is one entry of tools/list, with the code that runs it.
type tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`

	// run returns the text of a successful result, or an error that is
	// reported to the client as a tool execution error (isError: true).
	run func(ctx context.Context, s *Session, args json.RawMessage, progress progressReporter) (string, error) `json:"-"`
}

// Limits on countdown's arguments, so that one call cannot run for hours.
const (
	MaxCountdownSteps    = 1000
	MaxCountdownInterval = 10 * time.Second
)

func notesTools() []*tool {
	return []*tool{
		{
			Name:        "echo",
			Title:       "Echo",
			Description: "Returns its text argument unchanged.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text to send back."}},"required":["text"]}`),
			run: func(_ context.Context, _ *Session, args json.RawMessage, _ progressReporter) (string, error) {
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
			},
		},
		{
			Name:        "add_note",
			Title:       "Add a note",
			Description: fmt.Sprintf("Saves a note in this session (at most %d notes of %d bytes each).", MaxNotes, MaxNoteBytes),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The note to save."}},"required":["text"]}`),
			run: func(_ context.Context, s *Session, args json.RawMessage, _ progressReporter) (string, error) {
				var a struct {
					Text string `json:"text"`
				}
				if err := decodeArgs(args, &a); err != nil {
					return "", err
				}
				n, err := s.addNote(a.Text)
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("Saved note %d.", n), nil
			},
		},
		{
			Name:        "list_notes",
			Title:       "List notes",
			Description: "Lists the notes saved in this session, one per line.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			run: func(_ context.Context, s *Session, _ json.RawMessage, _ progressReporter) (string, error) {
				notes := s.listNotes()
				if len(notes) == 0 {
					return "No notes yet.", nil
				}
				var b strings.Builder
				for i, n := range notes {
					fmt.Fprintf(&b, "%d. %s\n", i+1, n)
				}
				return strings.TrimSuffix(b.String(), "\n"), nil
			},
		},
		{
			Name:        "countdown",
			Title:       "Countdown",
			Description: "Counts down from `from`, waiting interval_ms between steps. Sends notifications/progress for each step when the request carries a progress token. Stops when cancelled.",
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
				`"from":{"type":"integer","minimum":0,"maximum":%d,"description":"How many steps to count."},`+
				`"interval_ms":{"type":"integer","minimum":0,"maximum":%d,"default":1000,"description":"Milliseconds between steps."}},`+
				`"required":["from"]}`, MaxCountdownSteps, MaxCountdownInterval.Milliseconds())),
			run: countdown,
		},
	}
}

func countdown(ctx context.Context, _ *Session, args json.RawMessage, progress progressReporter) (string, error) {
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
		if err := progress.report(ctx, step, *a.From, fmt.Sprintf("%d...", *a.From-step)); err != nil {
			return "", err
		}
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
		Tools []*tool `json:"tools"`
	}{s.tools}
}

func (s *Server) lookupTool(name string) *tool {
	for _, t := range s.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}
