package mcp

import (
	"encoding/json"
	"sort"
	"strconv"
)

// HeaderParam is a tool argument that clients mirror into an HTTP header at
// 2026-07-28: its schema in the tool's inputSchema has an x-mcp-header
// property, and "conforming clients MUST mirror the designated parameter
// values into HTTP headers" named Mcp-Param-{x-mcp-header}, which a server
// "MUST validate" against the body (basic/transports/streamable-http,
// "Custom Headers from Tool Parameters").
type HeaderParam struct {
	Header string   // the header's name, such as "Mcp-Param-Countdown-From"
	Path   []string // where the argument is: a chain of properties from the arguments object
	Type   string   // its schema type: "string", "integer" or "boolean"
}

// HeaderParams returns the x-mcp-header arguments of the stateless-era tool
// with name, ordered by header; none for a tool that has none or does not
// exist. Only arguments reached from the schema's root through properties
// count, as the spec says.
func (s *Server) HeaderParams(tool string) []HeaderParam {
	t := s.lookupStatelessTool(tool)
	if t == nil {
		return nil
	}
	var params []HeaderParam
	var walk func(schema json.RawMessage, path []string)
	walk = func(schema json.RawMessage, path []string) {
		var node struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Header     string                     `json:"x-mcp-header"`
			Type       string                     `json:"type"`
		}
		if json.Unmarshal(schema, &node) != nil {
			return
		}
		if node.Header != "" && len(path) > 0 {
			params = append(params, HeaderParam{Header: "Mcp-Param-" + node.Header, Path: path, Type: node.Type})
		}
		for name, prop := range node.Properties {
			walk(prop, append(append([]string(nil), path...), name))
		}
	}
	walk(t.InputSchema, nil)
	sort.Slice(params, func(i, j int) bool { return params[i].Header < params[j].Header })
	return params
}

// Value returns the argument's value in a call's arguments as a client
// writes it in the header before any Base64 encoding: a string as it is, an
// integer in decimal, a boolean as true or false. ok is false when the
// arguments hold no value there, or null: then the client "MUST omit the
// header", and the server "MUST NOT expect" it.
func (p HeaderParam) Value(arguments json.RawMessage) (value string, ok bool) {
	raw := arguments
	for _, name := range p.Path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return "", false
		}
		if raw, ok = obj[name]; !ok {
			return "", false
		}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	}
	return "", false // null, an object or an array: nothing a header can carry
}
