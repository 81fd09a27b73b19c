package lesson02

import (
	"fmt"
	"net/http"

	"mcpcourse/grader/check"
	"mcpcourse/grader/internal/probe"
	"mcpcourse/grader/internal/wire"
)

// expectAccepted fails the check unless resp is 202 Accepted with an empty
// body. The spec lets a server refuse a notification or a response with an
// HTTP error; a success status other than 202, or a body, breaks it.
func expectAccepted(t *check.T, resp *wire.Response, what string) {
	if resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
		t.Fail(check.Failure{What: what + " did not get 202 Accepted with an empty body", Got: resp.Summary(), Want: "HTTP 202, empty body",
			Spec: resp.Status < 300})
	}
}

// expectErrorBody fails the check unless resp's body is a JSON-RPC error
// response with code.
func expectErrorBody(t *check.T, resp *wire.Response, code int, what string) {
	m := resp.ErrorBody()
	if m == nil {
		t.Fail(check.Failure{What: fmt.Sprintf("the answer to %s has no JSON-RPC error as its body", what), Got: resp.Summary(),
			Want: fmt.Sprintf(`Content-Type: application/json, body {"jsonrpc":"2.0","error":{"code":%d,"message":"..."}}`, code)})
	}
	probe.ExpectError(t, m, code, what)
}
