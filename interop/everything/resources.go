package everything

import (
	"context"
	"encoding/json"
	"regexp"
	"sync"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// resourceContents is one item of a resources/read result, or the body of
// an embedded resource (server/resources, "Reading Resources").
type resourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// resource is one direct resource, as resources/list describes it, with its
// contents.
type resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`

	contents resourceContents
}

var resources = []resource{
	{
		URI: "test://static-text", Name: "static-text", MimeType: "text/plain",
		Description: "A text resource that never changes.",
		contents:    resourceContents{Text: "This is the content of the static text resource."},
	},
	{
		URI: "test://static-binary", Name: "static-binary", MimeType: "image/png",
		Description: "A binary resource: a 1x1 red PNG image.",
		contents:    resourceContents{Blob: pngBase64},
	},
	{
		URI: "test://watched-resource", Name: "watched-resource", MimeType: "text/plain",
		Description: "A resource a client may subscribe to.",
		contents:    resourceContents{Text: "Watched resource content."},
	},
}

// The one resource template, and the URIs it matches.
const dataTemplate = "test://template/{id}/data"

var dataURI = regexp.MustCompile(`^test://template/([^/]+)/data$`)

func listResources(context.Context, *mcp.Request) (any, *jsonrpc.Error) {
	return map[string]any{"resources": resources}, nil
}

func listResourceTemplates(context.Context, *mcp.Request) (any, *jsonrpc.Error) {
	return map[string]any{"resourceTemplates": []any{map[string]any{
		"uriTemplate": dataTemplate,
		"name":        "template-data",
		"description": "JSON data for the id in the URI.",
		"mimeType":    "application/json",
	}}}, nil
}

func readResource(_ context.Context, req *mcp.Request) (any, *jsonrpc.Error) {
	uri, rpcErr := uriParam(req)
	if rpcErr != nil {
		return nil, rpcErr
	}
	for _, r := range resources {
		if r.URI == uri {
			c := r.contents
			c.URI, c.MimeType = r.URI, r.MimeType
			return map[string]any{"contents": []resourceContents{c}}, nil
		}
	}
	if m := dataURI.FindStringSubmatch(uri); m != nil {
		data, _ := json.Marshal(map[string]any{"id": m[1], "templateTest": true, "data": "Data for ID: " + m[1]})
		return map[string]any{"contents": []resourceContents{{URI: uri, MimeType: "application/json", Text: string(data)}}}, nil
	}
	// An unknown resource is an invalid parameter, and the error names it
	// (server/resources, "Error Handling").
	e := jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Resource not found")
	e.Data, _ = json.Marshal(map[string]string{"uri": uri})
	return nil, e
}

// uriParam reads the "uri" every resources/* request carries.
func uriParam(req *mcp.Request) (string, *jsonrpc.Error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || p.URI == "" {
		return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, `params must hold a string "uri"`)
	}
	return p.URI, nil
}

// subscriptions remembers, per session, the resources its client
// subscribed to. Nothing here changes, so no notifications/resources/updated
// is ever due; the list exists so that unsubscribe undoes subscribe.
type subscriptions struct {
	mu     sync.Mutex
	bySess map[*mcp.Session]map[string]bool
}

func newSubscriptions() *subscriptions {
	return &subscriptions{bySess: map[*mcp.Session]map[string]bool{}}
}

func (s *subscriptions) subscribe(_ context.Context, req *mcp.Request) (any, *jsonrpc.Error) {
	uri, rpcErr := uriParam(req)
	if rpcErr != nil {
		return nil, rpcErr
	}
	sess := req.Session
	s.mu.Lock()
	defer s.mu.Unlock()
	uris := s.bySess[sess]
	if uris == nil {
		if len(s.bySess) >= maxSessions {
			s.forgetEndedLocked()
		}
		if len(s.bySess) >= maxSessions {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "too many sessions hold subscriptions; try again later")
		}
		uris = map[string]bool{}
		s.bySess[sess] = uris
	}
	if len(uris) >= maxSubscriptions {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "a session may subscribe to at most %d resources", maxSubscriptions)
	}
	uris[uri] = true
	return struct{}{}, nil
}

func (s *subscriptions) unsubscribe(_ context.Context, req *mcp.Request) (any, *jsonrpc.Error) {
	uri, rpcErr := uriParam(req)
	if rpcErr != nil {
		return nil, rpcErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.bySess[req.Session], uri)
	return struct{}{}, nil
}

// forgetEndedLocked drops the subscriptions of sessions that have ended.
// It runs only when the table is full, so an idle server does no work for it.
func (s *subscriptions) forgetEndedLocked() {
	for sess := range s.bySess {
		if sess.Context().Err() != nil {
			delete(s.bySess, sess)
		}
	}
}

// Bounds on what clients may store here.
const (
	maxSubscriptions = 100  // per session
	maxSessions      = 1000 // sessions with subscriptions
)
