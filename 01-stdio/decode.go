package stdio

import "mcpcourse/internal/jsonrpc"

// Decode parses and validates one JSON-RPC message: a single JSON object, such
// as one line read from stdin or one HTTP request body.
//
// When data is not a valid message, msg is nil and reject is the error
// response the client is owed:
//   - -32700 Parse error when data is not JSON at all, with no id, because
//     an id cannot be read from text that does not parse;
//   - -32600 Invalid Request when data is JSON but not a valid message, with
//     the message's id when it could be read, else none.
//
// Decode does not look inside arrays; see IsBatch and ServeBatch.
func Decode(data []byte) (msg *jsonrpc.Message, reject *jsonrpc.Message) {
	// TODO(step 1): json.Unmarshal data into a jsonrpc.Message and return it.
	//
	// TODO(step 2): validate before trusting it. Decode the members as
	// json.RawMessage first (a struct with JSONRPC, ID, Method, Params,
	// Result and Error fields): then "id": null is the bytes `null`, while a
	// missing id is nil. Check that
	//   - data is JSON at all (json.Valid), else -32700;
	//   - it is an object, "jsonrpc" is exactly "2.0", "method" is a
	//     non-empty string, a request's id is not null, "params" is an
	//     object or an array, and a response has exactly one of "result"
	//     and "error"; else -32600.
	return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},
		jsonrpc.NewError(jsonrpc.CodeInternalError, "stdio.Decode is not written yet: see step 1 of lessons/01-stdio.md"))
}
