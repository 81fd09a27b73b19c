package stdio

import (
	"context"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// IsBatch reports whether data is a JSON-RPC batch: a JSON array rather than
// a single object.
func IsBatch(data []byte) bool {
	// TODO(step 5): is the first byte that is not white space a '['?
	return false
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
	// TODO(step 5): split data into its elements (json.Unmarshal into a
	// []json.RawMessage), Decode each one, answer the invalid ones and the
	// requests, and skip the notifications. initialize may not be batched.
	return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},
		jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "batches are not supported yet: see step 5 of lessons/01-stdio.md"))
}
