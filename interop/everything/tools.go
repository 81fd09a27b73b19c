package everything

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"mcpcourse/internal/mcp"
)

// Content items other than text (server/tools, "Tool Result").
type (
	imageContent struct {
		Type     string `json:"type"` // "image"
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	}
	audioContent struct {
		Type     string `json:"type"` // "audio"
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	}
	embeddedResource struct {
		Type     string           `json:"type"` // "resource"
		Resource resourceContents `json:"resource"`
	}
)

func text(s string) mcp.TextContent { return mcp.TextContent{Type: "text", Text: s} }

// noArgs is the input schema of a tool without arguments.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// constant returns a tool that always answers with the same content.
func constant(name, description string, content ...any) *mcp.Tool {
	return &mcp.Tool{
		Name:        name,
		Description: description,
		InputSchema: noArgs,
		Run: func(context.Context, *mcp.Request, json.RawMessage) (*mcp.ToolResult, error) {
			return &mcp.ToolResult{Content: content}, nil
		},
	}
}

// step is the pause between the notifications of the logging and progress
// tools: the suite asks for about 50 ms, so that a client sees them arrive
// one by one while the call runs.
const step = 50 * time.Millisecond

func tools() []*mcp.Tool {
	return []*mcp.Tool{
		constant("test_simple_text", "Returns one text item.",
			text("This is a simple text response for testing.")),
		constant("test_image_content", "Returns a 1x1 red PNG image.",
			imageContent{Type: "image", Data: pngBase64, MimeType: "image/png"}),
		constant("test_audio_content", "Returns a short silent WAV clip.",
			audioContent{Type: "audio", Data: wavBase64, MimeType: "audio/wav"}),
		constant("test_embedded_resource", "Returns an embedded text resource.",
			embeddedResource{Type: "resource", Resource: resourceContents{
				URI: "test://embedded-resource", MimeType: "text/plain", Text: "This is an embedded resource content.",
			}}),
		constant("test_multiple_content_types", "Returns text, an image and an embedded resource.",
			text("Multiple content types test:"),
			imageContent{Type: "image", Data: pngBase64, MimeType: "image/png"},
			embeddedResource{Type: "resource", Resource: resourceContents{
				URI: "test://mixed-content-resource", MimeType: "application/json", Text: `{"test":"data","value":123}`,
			}}),
		{
			Name:        "test_error_handling",
			Description: "Always fails, reporting the failure inside its result (isError).",
			InputSchema: noArgs,
			Run: func(context.Context, *mcp.Request, json.RawMessage) (*mcp.ToolResult, error) {
				return nil, errors.New("This tool intentionally returns an error for testing")
			},
		},
		{
			Name:        "test_tool_with_logging",
			Description: "Sends three info log messages, 50 ms apart, while it runs.",
			InputSchema: noArgs,
			Run:         runWithLogging,
		},
		{
			Name:        "test_tool_with_progress",
			Description: "Reports progress 0, 50 and 100 of 100, 50 ms apart, when the request carries a progress token.",
			InputSchema: noArgs,
			Run:         runWithProgress,
		},
		{
			Name:        "test_sampling",
			Description: "Asks the client's LLM to answer a prompt (sampling/createMessage) and returns the answer.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM."}},"required":["prompt"]}`),
			Run:         runSampling,
		},
		{
			Name:        "test_elicitation",
			Description: "Asks the user for a username and an email (elicitation/create) and returns the answer.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user."}},"required":["message"]}`),
			Run: func(ctx context.Context, req *mcp.Request, args json.RawMessage) (*mcp.ToolResult, error) {
				var a struct {
					Message string `json:"message"`
				}
				if err := json.Unmarshal(args, &a); err != nil || a.Message == "" {
					return nil, errors.New(`argument "message" must be a non-empty string`)
				}
				return elicit(ctx, req, "User response: ", a.Message, json.RawMessage(`{
					"type": "object",
					"properties": {
						"username": {"type": "string", "description": "User's response"},
						"email": {"type": "string", "description": "User's email address"}
					},
					"required": ["username", "email"]
				}`))
			},
		},
		{
			Name:        "test_elicitation_sep1034_defaults",
			Description: "Elicits a form whose fields of every primitive type carry a default (SEP-1034).",
			InputSchema: noArgs,
			Run: func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.ToolResult, error) {
				return elicit(ctx, req, "Elicitation completed: ", "Please review your details.", json.RawMessage(`{
					"type": "object",
					"properties": {
						"name": {"type": "string", "default": "John Doe"},
						"age": {"type": "integer", "default": 30},
						"score": {"type": "number", "default": 95.5},
						"status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
						"verified": {"type": "boolean", "default": true}
					}
				}`))
			},
		},
		{
			Name:        "test_elicitation_sep1330_enums",
			Description: "Elicits a form with the five kinds of enum field (SEP-1330).",
			InputSchema: noArgs,
			Run: func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.ToolResult, error) {
				return elicit(ctx, req, "Elicitation completed: ", "Please choose your options.", json.RawMessage(`{
					"type": "object",
					"properties": {
						"untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
						"titledSingle": {"type": "string", "oneOf": [
							{"const": "value1", "title": "First Option"},
							{"const": "value2", "title": "Second Option"},
							{"const": "value3", "title": "Third Option"}
						]},
						"legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
							"enumNames": ["Option One", "Option Two", "Option Three"]},
						"untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
						"titledMulti": {"type": "array", "items": {"anyOf": [
							{"const": "value1", "title": "First Choice"},
							{"const": "value2", "title": "Second Choice"},
							{"const": "value3", "title": "Third Choice"}
						]}}
					}
				}`))
			},
		},
		{
			// Not one of the suite's: the interop tests' own, so that the
			// third request a server sends its client is covered too.
			Name:        "test_list_roots",
			Description: "Asks the client for its roots (roots/list) and lists their URIs.",
			InputSchema: noArgs,
			Run: func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.ToolResult, error) {
				raw, err := call(ctx, req, "roots/list", nil)
				if err != nil {
					return nil, err
				}
				var res struct {
					Roots []struct {
						URI string `json:"uri"`
					} `json:"roots"`
				}
				if err := json.Unmarshal(raw, &res); err != nil {
					return nil, fmt.Errorf("reading the roots/list result: %w", err)
				}
				var uris []string
				for _, r := range res.Roots {
					uris = append(uris, r.URI)
				}
				return mcp.Text("Roots: " + strings.Join(uris, ", ")), nil
			},
		},
		{
			Name:        "json_schema_2020_12_tool",
			Description: "Has an input schema that uses JSON Schema 2020-12 ($schema, $defs, $anchor, allOf/anyOf, if/then/else), which must reach the client untouched.",
			InputSchema: json.RawMessage(`{
				"$schema": "https://json-schema.org/draft/2020-12/schema",
				"type": "object",
				"$defs": {
					"address": {
						"$anchor": "addressDef",
						"type": "object",
						"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
					}
				},
				"properties": {
					"name": {"type": "string"},
					"address": {"$ref": "#/$defs/address"},
					"contactMethod": {"type": "string", "enum": ["phone", "email"]},
					"phone": {"type": "string"},
					"email": {"type": "string"}
				},
				"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
				"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
				"then": {"required": ["phone"]},
				"else": {"required": ["email"]},
				"additionalProperties": false
			}`),
			Run: func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.ToolResult, error) {
				return mcp.Text("Received: " + string(args)), nil
			},
		},
	}
}

func runWithLogging(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.ToolResult, error) {
	messages := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
	for i, m := range messages {
		if i > 0 {
			if err := sleep(ctx, step); err != nil {
				return nil, err
			}
		}
		if err := req.Log(ctx, mcp.LevelInfo, "everything", m); err != nil {
			return nil, fmt.Errorf("sending log message %d: %w", i+1, err)
		}
	}
	return mcp.Text("Tool with logging executed: sent 3 log messages."), nil
}

func runWithProgress(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.ToolResult, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := sleep(ctx, step); err != nil {
				return nil, err
			}
		}
		// Progress travels on the request's own stream; without a
		// progress token it sends nothing, as the suite asks.
		if err := req.Progress(ctx, p, 100, ""); err != nil {
			return nil, fmt.Errorf("sending progress %v: %w", p, err)
		}
	}
	return mcp.Text("Tool with progress executed: reported 0, 50 and 100 of 100."), nil
}

func runSampling(ctx context.Context, req *mcp.Request, args json.RawMessage) (*mcp.ToolResult, error) {
	var a struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Prompt == "" {
		return nil, errors.New(`argument "prompt" must be a non-empty string`)
	}
	params := map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": text(a.Prompt)}},
		"maxTokens": 100,
	}
	raw, err := call(ctx, req, "sampling/createMessage", params)
	if err != nil {
		return nil, err
	}
	var res struct {
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("reading the sampling result: %w", err)
	}
	return mcp.Text("LLM response: " + res.Content.Text), nil
}

// elicit asks the user to fill in a form of the given schema, and returns
// what they answered as text after prefix.
func elicit(ctx context.Context, req *mcp.Request, prefix, message string, schema json.RawMessage) (*mcp.ToolResult, error) {
	raw, err := call(ctx, req, "elicitation/create", map[string]any{"message": message, "requestedSchema": schema})
	if err != nil {
		return nil, err
	}
	var res struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("reading the elicitation result: %w", err)
	}
	if len(res.Content) == 0 {
		res.Content = json.RawMessage(`{}`)
	}
	return mcp.Text(fmt.Sprintf("%saction=%s, content=%s", prefix, res.Action, res.Content)), nil
}

// call sends a request of the server's own to the client and waits for the
// answer the client POSTs back (on stdio, writes on stdin).
func call(ctx context.Context, req *mcp.Request, method string, params any) (json.RawMessage, error) {
	// A client that never answers must not hold the tool call forever.
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	raw, err := req.Call(ctx, method, params)
	if err != nil {
		// %v, not %w: a JSON-RPC error from the client is this tool's
		// failure, reported in its result, not a protocol error of the
		// tools/call request itself (see mcp.Tool.Run).
		return nil, fmt.Errorf("%s: %v", method, err)
	}
	return raw, nil
}

// callTimeout bounds the wait for the client's answer to one request.
const callTimeout = 10 * time.Second

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
