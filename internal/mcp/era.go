package mcp

import (
	"context"
	"encoding/json"

	"mcpcourse/internal/jsonrpc"
)

// servesStateless reports whether the session serves a request of method,
// with params, in the stateless era, and fixes the session's era on the
// first request that decides it. "A request carrying modern per-request
// _meta is served statelessly according to this revision. An initialize
// request selects legacy semantics, scoped to the stdio process (stdio)"
// (basic/versioning, "Backward Compatibility"). So:
//
//   - once initialize has been answered, the session is of the 2025 era:
//     server/discover is an unknown method there, as it is to any 2025
//     server, and a request's _meta is only _meta;
//   - once a request claimed 2026-07-28, the session is of the stateless
//     era: every request then needs its _meta, and initialize is a method
//     that does not exist;
//   - the first server/discover, or the first request whose _meta names a
//     protocol version (ClaimsStateless), fixes the stateless era, even when
//     its envelope is then refused: the client spoke it;
//   - a request before either is served as the 2025 era serves it (as
//     lessons 01-04 teach: a server does not make a client initialize
//     first), and fixes nothing.
//
// A stdio server has one session for its process, so its first deciding
// request chooses the era of the process (checklist D8).
func (s *Session) servesStateless(method string, params json.RawMessage) bool {
	s.mu.Lock()
	decided := s.stateless || s.version.Name != ""
	stateless := s.stateless
	s.mu.Unlock()
	if decided {
		return stateless
	}
	if method != "server/discover" && !ClaimsStateless(&jsonrpc.Message{Params: params}) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version.Name == "" { // initialize may have been answered meanwhile
		s.stateless = true
	}
	return s.stateless
}

// dispatchStateless serves a request of the stateless era in a session: as
// Server.HandleStateless does, with the session's cancellation around it.
func (s *Session) dispatchStateless(ctx context.Context, method string, req *Request) (any, *jsonrpc.Error) {
	req.server = s.server
	result, rpcErr := s.server.serveStateless(ctx, req, method)
	if rpcErr != nil || result == nil {
		return nil, rpcErr // no result: the request was cancelled, and gets no response
	}
	return result, nil
}

// startListen runs a subscriptions/listen of the stateless era in the
// session (on stdio) and returns at once: a listen has no response until it
// ends, and a transport that waits for its requests before it exits must not
// wait for one. It stays in flight, under its id, until the client cancels
// it with notifications/cancelled (no response then), the session closes,
// ctx ends, or the server ends its listens (its completion result then goes
// through peer).
func (s *Session) startListen(ctx context.Context, msg *jsonrpc.Message, peer Peer) *jsonrpc.Message {
	id := *msg.ID
	ctx, end, refused, ok := s.begin(ctx, id)
	if !ok {
		return refused
	}
	go func() {
		defer end()
		req := &Request{Session: s, ID: id, Params: msg.Params, peer: peer, server: s.server}
		result, rpcErr := s.server.serveStateless(ctx, req, msg.Method)
		if resp := s.server.statelessResponse(ctx, id, result, rpcErr); resp != nil && peer != nil {
			peer.Send(ctx, resp)
		}
	}()
	return nil
}
