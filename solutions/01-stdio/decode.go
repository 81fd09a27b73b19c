package stdio

import (
	"bytes"
	"encoding/json"
	"errors"

	"mcpcourse/internal/jsonrpc"
)

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
	// @step 2: validate before trusting: each member as raw JSON first
	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) == 0 || data[0] != '{' {
		if !json.Valid(data) {
			return nil, notJSON()
		}
		return nil, invalid(jsonrpc.ID{}, "a message must be a JSON object")
	}

	// Decode each member as raw JSON first. Going straight to
	// jsonrpc.Message would lose the difference between "id": null and no id
	// at all (both leave a nil pointer), and would turn "method": 42 into an
	// unmarshal error that looks like a parse error.
	var raw struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		// Unmarshal checks that the whole text is JSON before it decodes
		// anything, so a syntax error here means "not JSON": checking with
		// json.Valid first would read every message twice.
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, notJSON()
		}
		return nil, invalid(jsonrpc.ID{}, "a message must be a JSON object")
	}

	// Read the id early, so that every error below can carry it.
	var id *jsonrpc.ID
	if raw.ID != nil && !isNull(raw.ID) {
		id = new(jsonrpc.ID)
		if err := id.UnmarshalJSON(raw.ID); err != nil {
			return nil, invalid(jsonrpc.ID{}, `"id" must be a string or an integer`)
		}
	}
	echo := jsonrpc.ID{} // the id to answer an invalid message with
	if id != nil {
		echo = *id
	}

	var version string
	if json.Unmarshal(raw.JSONRPC, &version) != nil || version != jsonrpc.Version {
		return nil, invalid(echo, `"jsonrpc" must be exactly "2.0"`)
	}

	msg = &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: id}
	if raw.Method != nil {
		// A request or a notification.
		if json.Unmarshal(raw.Method, &msg.Method) != nil || msg.Method == "" {
			return nil, invalid(echo, `"method" must be a non-empty string`)
		}
		if raw.ID != nil && id == nil {
			// JSON-RPC allows a null id; MCP does not (basic/index, "Requests").
			return nil, invalid(echo, `a request id must not be null`)
		}
		if raw.Result != nil || raw.Error != nil {
			return nil, invalid(echo, `a request or notification has no "result" or "error"`)
		}
		if raw.Params != nil && !isNull(raw.Params) {
			if p := bytes.TrimLeft(raw.Params, " \t\r\n"); p[0] != '{' && p[0] != '[' {
				return nil, invalid(echo, `"params" must be an object or an array`)
			}
			msg.Params = raw.Params
		}
		return msg, nil
	}

	// No method: this must be a response to a request the server sent. Only
	// an error response may lack an id, when the id could not be read.
	if raw.ID == nil && raw.Error == nil {
		return nil, invalid(echo, `a message needs a "method" (request, notification) or an "id" (response)`)
	}
	if (raw.Result == nil) == (raw.Error == nil) {
		return nil, invalid(echo, `a response has exactly one of "result" and "error"`)
	}
	if raw.Result != nil && id == nil {
		return nil, invalid(echo, `a result response must carry the id of its request`)
	}
	if raw.Error != nil {
		msg.Error = new(jsonrpc.Error)
		if json.Unmarshal(raw.Error, msg.Error) != nil {
			return nil, invalid(echo, `"error" must be an object with an integer "code" and a string "message"`)
		}
	}
	msg.Result = raw.Result
	return msg, nil
	// @was 1: straight into a jsonrpc.Message
	// | // TODO(step 2): validate before trusting it. Decode the members as
	// | // json.RawMessage first (a struct with JSONRPC, ID, Method, Params,
	// | // Result and Error fields): then "id": null is the bytes `null`, while a
	// | // missing id is nil. Check that
	// | //   - data is JSON at all (json.Valid), else -32700;
	// | //   - it is an object, "jsonrpc" is exactly "2.0", "method" is a
	// | //     non-empty string, a request's id is not null, "params" is an
	// | //     object or an array, and a response has exactly one of "result"
	// | //     and "error"; else -32600.
	// | msg = new(jsonrpc.Message)
	// | if err := json.Unmarshal(data, msg); err != nil {
	// | 	return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},
	// | 		jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: %v", err))
	// | }
	// | return msg, nil
	// @starter
	// | // TODO(step 1): json.Unmarshal data into a jsonrpc.Message and return it.
	// | //
	// | // TODO(step 2): validate before trusting it. Decode the members as
	// | // json.RawMessage first (a struct with JSONRPC, ID, Method, Params,
	// | // Result and Error fields): then "id": null is the bytes `null`, while a
	// | // missing id is nil. Check that
	// | //   - data is JSON at all (json.Valid), else -32700;
	// | //   - it is an object, "jsonrpc" is exactly "2.0", "method" is a
	// | //     non-empty string, a request's id is not null, "params" is an
	// | //     object or an array, and a response has exactly one of "result"
	// | //     and "error"; else -32600.
	// | return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},
	// | 	jsonrpc.NewError(jsonrpc.CodeInternalError, "stdio.Decode is not written yet: see step 1 of lessons/01-stdio.md"))
	// @end
}

// @step 2: the errors Decode answers with

// notJSON is the answer to text that does not parse: -32700, and no id,
// since none can be read.
func notJSON() *jsonrpc.Message {
	return jsonrpc.NewErrorResponse(jsonrpc.ID{},
		jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: the message is not valid JSON"))
}

func invalid(id jsonrpc.ID, why string) *jsonrpc.Message {
	return jsonrpc.NewErrorResponse(id, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: %s", why))
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// @end
