package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"mcpcourse/internal/jsonrpc"
)

// Change is something that changed on the server which clients may want to
// hear of: a list (the tools, the prompts, the resources) or one resource.
// It says nothing of who may hear it: each listener decides that, in its
// own era's form (see Notification).
type Change struct {
	Kind ChangeKind
	URI  string // the resource, for ResourceUpdated; empty otherwise
}

// ChangeKind is the notification a change is told with.
type ChangeKind string

// The kinds of change, named by their notification's method.
const (
	ToolsListChanged     ChangeKind = "notifications/tools/list_changed"
	PromptsListChanged   ChangeKind = "notifications/prompts/list_changed"
	ResourcesListChanged ChangeKind = "notifications/resources/list_changed"
	ResourceUpdated      ChangeKind = "notifications/resources/updated"
)

// Notification returns the notification that tells of c. On a
// subscriptions/listen stream, pass the listen request's id: "On
// notifications delivered via a subscriptions/listen stream, the server
// MUST include io.modelcontextprotocol/subscriptionId in _meta" (basic/index,
// "_meta"). For a session of the 2025 era pass nil: its notifications carry
// no tag, since a session has one GET stream for all of them.
func (c Change) Notification(subscription *jsonrpc.ID) *jsonrpc.Message {
	params := map[string]any{}
	if c.Kind == ResourceUpdated {
		params["uri"] = c.URI
	}
	if subscription != nil {
		params["_meta"] = map[string]any{MetaSubscriptionID: *subscription}
	}
	if len(params) == 0 {
		n, _ := jsonrpc.NewNotification(string(c.Kind), nil) // notifications/tools/list_changed has no params
		return n
	}
	n, _ := jsonrpc.NewNotification(string(c.Kind), params) // strings and ids always marshal
	return n
}

// ChangeFeed carries changes from where they happen (a tool call) to
// whoever listens (a subscriptions/listen stream, a session's GET stream).
// Everything that listens subscribes to the server's one feed. The default,
// NewMemoryFeed, reaches the listeners of this process; a feed shared by
// several processes (lesson 07 puts one on Redis) lets a change made through
// one reach the listeners of all.
type ChangeFeed interface {
	// Publish tells every subscriber of c. It does not wait for them to
	// act on it.
	Publish(ctx context.Context, c Change) error

	// Subscribe calls deliver with each change published from now on,
	// until cancel is called. deliver must return at once: it may be
	// called while a tool is still running.
	Subscribe(deliver func(Change)) (cancel func())
}

// NewMemoryFeed returns a ChangeFeed for the listeners of one process.
func NewMemoryFeed() ChangeFeed { return &memoryFeed{subs: map[int]func(Change){}} }

type memoryFeed struct {
	mu   sync.Mutex
	next int
	subs map[int]func(Change)
}

func (f *memoryFeed) Publish(_ context.Context, c Change) error {
	f.mu.Lock()
	subs := make([]func(Change), 0, len(f.subs))
	for _, deliver := range f.subs {
		subs = append(subs, deliver)
	}
	f.mu.Unlock()
	for _, deliver := range subs {
		deliver(c)
	}
	return nil
}

func (f *memoryFeed) Subscribe(deliver func(Change)) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	id := f.next
	f.subs[id] = deliver
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.subs, id)
	}
}

// Changes returns the server's change feed, for a transport that fans
// changes out to listeners of its own.
func (s *Server) Changes() ChangeFeed { return s.changes }

// Publish tells the server's listeners of a change: every subscriptions/
// listen that opted into it, and, in the 2025 era, every session with an
// outlet when the server declared list changes of that kind. A tool calls it
// after it changed something; the notes tools do after each change to a
// notebook.
func (s *Server) Publish(c Change) {
	s.changes.Publish(context.Background(), c) // the in-memory feed never fails; another one reports its own trouble
}

// ListenFilter is the notifications filter of subscriptions/listen: what the
// client opts into, each kind "opt-in; the server MUST NOT send notification
// types the client has not explicitly requested" (schema: SubscriptionFilter).
type ListenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// Wants reports whether the filter opted into c.
func (f ListenFilter) Wants(c Change) bool {
	switch c.Kind {
	case ToolsListChanged:
		return f.ToolsListChanged
	case PromptsListChanged:
		return f.PromptsListChanged
	case ResourcesListChanged:
		return f.ResourcesListChanged
	case ResourceUpdated:
		for _, uri := range f.ResourceSubscriptions {
			if uri == c.URI {
				return true
			}
		}
	}
	return false
}

// MaxListenURIs bounds the resources one listen may watch; a longer list is
// honoured up to it, and the acknowledgment says which ones.
const MaxListenURIs = 100

// ReadListen reads the filter of a subscriptions/listen request: its params
// "MUST" hold notifications, an object (schema:
// SubscriptionsListenRequestParams). A missing or malformed one is -32602.
func ReadListen(params json.RawMessage) (ListenFilter, *jsonrpc.Error) {
	var p struct {
		Notifications *ListenFilter `json:"notifications"`
	}
	if json.Unmarshal(params, &p) != nil || p.Notifications == nil {
		return ListenFilter{}, jsonrpc.NewError(jsonrpc.CodeInvalidParams,
			`subscriptions/listen needs params.notifications, an object such as {"resourceSubscriptions":["notes://nb_…"]}`)
	}
	return *p.Notifications, nil
}

// Honour returns the part of a requested filter this server will serve,
// which the acknowledgment echoes: "Notification types the server does not
// support are omitted" (basic/patterns/subscriptions, "Acknowledgment"). A
// list's changes are honoured when the server declares listChanged for it at
// 2026-07-28, and resources when it declares resources.subscribe.
func (s *Server) Honour(f ListenFilter) ListenFilter {
	caps := s.statelessCapabilities()
	honoured := ListenFilter{
		ToolsListChanged:     f.ToolsListChanged && declares(caps, "tools", "listChanged"),
		PromptsListChanged:   f.PromptsListChanged && declares(caps, "prompts", "listChanged"),
		ResourcesListChanged: f.ResourcesListChanged && declares(caps, "resources", "listChanged"),
	}
	if declares(caps, "resources", "subscribe") {
		honoured.ResourceSubscriptions = f.ResourceSubscriptions[:min(len(f.ResourceSubscriptions), MaxListenURIs)]
	}
	return honoured
}

// declares reports whether capability name declares feature true, as in
// {"tools":{"listChanged":true}}.
func declares(caps map[string]any, name, feature string) bool {
	b, _ := json.Marshal(caps[name])
	var c map[string]any
	json.Unmarshal(b, &c)
	return c[feature] == true
}

// pending holds the changes a listener has yet to send. A change already
// waiting is not queued twice: these notifications say "look again", not
// what changed, so a listener that falls behind sends each kind of change
// once, however many there were. The queue is bounded by what the filter
// can want, and a slow client never grows it further.
type pending struct {
	wants func(Change) bool
	ready chan struct{} // holds one token while changes wait

	mu      sync.Mutex
	changes []Change
}

func newPending(wants func(Change) bool) *pending {
	return &pending{wants: wants, ready: make(chan struct{}, 1)}
}

// deliver is the pending queue's ChangeFeed callback: it never blocks.
func (p *pending) deliver(c Change) {
	if !p.wants(c) {
		return
	}
	p.mu.Lock()
	for _, waiting := range p.changes {
		if waiting == c {
			p.mu.Unlock()
			return
		}
	}
	p.changes = append(p.changes, c)
	p.mu.Unlock()
	select {
	case p.ready <- struct{}{}:
	default: // a token is already waiting
	}
}

// take returns the changes waiting, oldest first, and empties the queue.
func (p *pending) take() []Change {
	p.mu.Lock()
	defer p.mu.Unlock()
	changes := p.changes
	p.changes = nil
	return changes
}

// listen serves subscriptions/listen (basic/patterns/subscriptions): it
// acknowledges the subscription on the request's stream, then sends each
// change the filter wants there, tagged with the request's id, until
//   - ctx ends: the client closed the stream (HTTP) or cancelled the
//     request (stdio); an abrupt end "carries no response";
//   - the server ends its listens (EndListens): it answers with the
//     completion result, "to signal a graceful end".
func (s *Server) listen(ctx context.Context, req *Request) (any, *jsonrpc.Error) {
	requested, rpcErr := ReadListen(req.Params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if req.peer == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "this transport gives subscriptions/listen no stream to send on")
	}
	filter := s.Honour(requested)
	queue := newPending(filter.Wants)
	unsubscribe := s.changes.Subscribe(queue.deliver) // before the ack: nothing after it is missed
	defer unsubscribe()

	// "The server MUST send notifications/subscriptions/acknowledged as the
	// first message carrying the subscription's ID".
	id := req.ID
	ack, _ := jsonrpc.NewNotification("notifications/subscriptions/acknowledged", map[string]any{
		"_meta":         map[string]any{MetaSubscriptionID: id},
		"notifications": filter,
	})
	if err := req.peer.Send(ctx, ack); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "sending the acknowledgment: %v", err)
	}
	for {
		select {
		case <-ctx.Done():
			return nil, nil
		case <-s.ending:
			return map[string]any{"_meta": map[string]any{MetaSubscriptionID: id}}, nil
		case <-queue.ready:
			for _, c := range queue.take() {
				if err := req.peer.Send(ctx, c.Notification(&id)); err != nil {
					return nil, nil // the stream is gone; so is the subscription
				}
			}
		}
	}
}

// EndListens ends every subscriptions/listen this server runs, now and
// later, each with its completion result. A transport calls it as it shuts
// down, before it closes its streams, so that each listener knows the
// subscription ended on purpose and not by accident.
func (s *Server) EndListens() { s.endOnce.Do(func() { close(s.ending) }) }

// followChanges makes a session of the 2025 era hear, through its outlet,
// the list changes its server declared for that era. It is called once, when
// the session gets an outlet; the session's notifications carry no tag.
// The notes server declares none, so its sessions never follow the feed.
func (s *Session) followChanges() {
	caps := s.server.capabilities()
	kinds := map[ChangeKind]bool{
		ToolsListChanged:     declares(caps, "tools", "listChanged"),
		PromptsListChanged:   declares(caps, "prompts", "listChanged"),
		ResourcesListChanged: declares(caps, "resources", "listChanged"),
	}
	if !kinds[ToolsListChanged] && !kinds[PromptsListChanged] && !kinds[ResourcesListChanged] {
		return
	}
	queue := newPending(func(c Change) bool { return kinds[c.Kind] })
	unsubscribe := s.server.changes.Subscribe(queue.deliver)
	ctx := s.Context()
	go func() {
		defer unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case <-queue.ready:
				for _, c := range queue.take() {
					s.send(ctx, nil, c.Notification(nil)) // no outlet now: the change is dropped, like any message of the server's own
				}
			}
		}
	}()
}
