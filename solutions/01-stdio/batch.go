package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// IsBatch reports whether data is a JSON-RPC batch: a JSON array rather than
// a single object.
func IsBatch(data []byte) bool {
	// @step 5: the first byte that is not white space
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '['
	// @starter
	// | // TODO(step 5): is the first byte that is not white space a '['?
	// | return false
	// @end
}

// ServeBatch serves a JSON-RPC batch, a JSON array of messages (JSON-RPC 2.0
// §6), for a session speaking the given protocol version.
//
// It returns the responses to send back together as one JSON array, in any
// order, or none when the batch held only notifications and responses. When
// the batch cannot be served at all it returns a single error response
// instead (reject), never an array:
//   - -32700 when data is not JSON;
//   - -32600 when the protocol version has no batches. Only 2025-03-26 has
//     them (version.Batches); 2025-06-18 removed them, and before initialize
//     no version has been agreed;
//   - -32600 when the array is empty.
//
// The requests in a batch run concurrently, like requests sent one by one.
func ServeBatch(ctx context.Context, session *mcp.Session, version mcp.ProtocolVersion, data []byte, peer mcp.Peer) (responses []*jsonrpc.Message, reject *jsonrpc.Message) {
	// @step 5: decode the elements, and serve them at once
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		if !json.Valid(data) {
			return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},
				jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: the batch is not valid JSON"))
		}
		return nil, invalid(jsonrpc.ID{}, "a batch must be a JSON array")
	}
	if !version.Batches {
		return nil, invalid(jsonrpc.ID{}, noBatches(version))
	}
	if len(elems) == 0 {
		return nil, invalid(jsonrpc.ID{}, "a batch must not be empty")
	}

	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	reply := func(resp *jsonrpc.Message) {
		mu.Lock()
		responses = append(responses, resp)
		mu.Unlock()
	}
	for _, elem := range elems {
		msg, reject := Decode(elem)
		switch {
		case reject != nil:
			reply(reject)
		case msg.Method == "initialize" && msg.IsRequest():
			// 2025-03-26 lifecycle: "The initialize request MUST NOT be part of a JSON-RPC batch".
			reply(invalid(*msg.ID, "initialize must not be sent in a batch"))
		case msg.IsRequest():
			wg.Add(1)
			go func() {
				defer wg.Done()
				if resp := session.Handle(ctx, msg, peer); resp != nil {
					reply(resp)
				}
			}()
		default:
			session.Handle(ctx, msg, peer) // notifications and responses: never answered
		}
	}
	wg.Wait()
	return responses, nil
	// @starter
	// | // TODO(step 5): split data into its elements (json.Unmarshal into a
	// | // []json.RawMessage), Decode each one, answer the invalid ones and the
	// | // requests, and skip the notifications. initialize may not be batched.
	// | return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},
	// | 	jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "batches are not supported yet: see step 5 of lessons/01-stdio.md"))
	// @end
}

// @step 5: why a batch is refused

// noBatches explains why a batch was refused.
func noBatches(version mcp.ProtocolVersion) string {
	if version.Name == "" {
		return "JSON-RPC batches are only allowed once initialize has agreed on protocol version 2025-03-26"
	}
	return fmt.Sprintf("protocol version %s has no JSON-RPC batches (MCP removed them in 2025-06-18); send each message on its own", version.Name)
}

// @end
