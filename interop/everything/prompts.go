package everything

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// prompt is one entry of prompts/list, with the code that fills it in.
type prompt struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Arguments   []argument `json:"arguments,omitempty"`

	get func(args map[string]string) []message
}

type argument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// message is one message of a prompts/get result.
type message struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

func user(content any) message { return message{Role: "user", Content: content} }

var prompts = []prompt{
	{
		Name:        "test_simple_prompt",
		Description: "A prompt without arguments.",
		get: func(map[string]string) []message {
			return []message{user(text("This is a simple prompt for testing."))}
		},
	},
	{
		Name:        "test_prompt_with_arguments",
		Description: "A prompt that quotes its two arguments.",
		Arguments: []argument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		},
		get: func(args map[string]string) []message {
			return []message{user(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"])))}
		},
	},
	{
		Name:        "test_prompt_with_embedded_resource",
		Description: "A prompt that embeds the resource it is given.",
		Arguments:   []argument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
		get: func(args map[string]string) []message {
			return []message{
				user(embeddedResource{Type: "resource", Resource: resourceContents{
					URI: args["resourceUri"], MimeType: "text/plain", Text: "Embedded resource content for testing.",
				}}),
				user(text("Please process the embedded resource above.")),
			}
		},
	},
	{
		Name:        "test_prompt_with_image",
		Description: "A prompt that shows an image.",
		get: func(map[string]string) []message {
			return []message{
				user(imageContent{Type: "image", Data: pngBase64, MimeType: "image/png"}),
				user(text("Please analyze the image above.")),
			}
		},
	},
}

func listPrompts(context.Context, *mcp.Request) (any, *jsonrpc.Error) {
	return map[string]any{"prompts": prompts}, nil
}

func getPrompt(_ context.Context, req *mcp.Request) (any, *jsonrpc.Error) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "prompts/get params: %v", err)
	}
	for _, pr := range prompts {
		if pr.Name != p.Name {
			continue
		}
		for _, a := range pr.Arguments {
			if _, ok := p.Arguments[a.Name]; a.Required && !ok {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "prompt %s needs the argument %q", pr.Name, a.Name)
			}
		}
		return map[string]any{"description": pr.Description, "messages": pr.get(p.Arguments)}, nil
	}
	// server/prompts, "Error Handling": an invalid prompt name is -32602.
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown prompt: %q", p.Name)
}

// completions are the values offered for each argument of a prompt.
var completions = map[string]map[string][]string{
	"test_prompt_with_arguments": {
		"arg1": {"paris", "park", "party", "test", "testing"},
		"arg2": {"hello", "world"},
	},
}

// complete serves completion/complete: the known values of the argument
// that begin with what the user typed so far.
func complete(_ context.Context, req *mcp.Request) (any, *jsonrpc.Error) {
	var p struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "completion/complete params: %v", err)
	}
	values := []string{}
	if p.Ref.Type == "ref/prompt" {
		for _, v := range completions[p.Ref.Name][p.Argument.Name] {
			if strings.HasPrefix(v, p.Argument.Value) {
				values = append(values, v)
			}
		}
	}
	sort.Strings(values)
	return map[string]any{"completion": map[string]any{"values": values, "total": len(values), "hasMore": false}}, nil
}
