package streamable

import (
	"encoding/json"
	"fmt"
	"net/http"

	"mcpcourse/internal/jsonrpc"
)

// Error codes for failures of the transport itself. JSON-RPC 2.0 keeps
// -32000 to -32099 for implementation-defined server errors.
const (
	codeInvalidRequest  = jsonrpc.CodeInvalidRequest
	codeServerError     = -32000
	codeSessionNotFound = -32001
)

// writeJSON writes v as the whole JSON body of a response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encoding the response failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// writeError answers with an HTTP error status and, as the spec allows, a
// JSON-RPC error response without an id as the body: a client that only
// reads JSON-RPC still learns what went wrong.
func writeError(w http.ResponseWriter, status, code int, format string, args ...any) {
	writeJSON(w, status, jsonrpc.NewErrorResponse(jsonrpc.ID{}, jsonrpc.NewError(code, "%s", fmt.Sprintf(format, args...))))
}
