// Package httpjson writes JSON answers to HTTP requests. It is given code,
// shared by the HTTP stages of the course.
package httpjson

import (
	"encoding/json"
	"fmt"
	"net/http"

	"mcpcourse/internal/jsonrpc"
)

// Write writes v as the whole JSON body of a response with status.
func Write(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encoding the response failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// Error answers with an HTTP error status and, as the spec allows, a JSON-RPC
// error response without an id as the body (basic/transports, "Sending
// Messages to the Server": the body MAY comprise a JSON-RPC error response
// that has no id). A client that only reads JSON-RPC still learns what went
// wrong.
func Error(w http.ResponseWriter, status, code int, format string, args ...any) {
	Write(w, status, jsonrpc.NewErrorResponse(jsonrpc.ID{}, jsonrpc.NewError(code, "%s", fmt.Sprintf(format, args...))))
}
