package origin

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	streamable "mcpcourse/solutions/02-streamable-http"
	resume "mcpcourse/solutions/03-sse-resume"

	"mcpcourse/internal/mcp"
)

// The hot path stage 04 adds: matching an Origin against the allowlist, and
// the guard and CORS around every request.
//
//	go test -run '^$' -bench . -benchmem ./solutions/04-origin

// BenchmarkAllows measures matching one Origin: an allowed one on a
// wildcard port, one on a wildcard subdomain, and a refused one.
func BenchmarkAllows(b *testing.B) {
	a, err := NewAllowlist("https://*.example.com", "http://localhost:*", "http://127.0.0.1:*")
	if err != nil {
		b.Fatal(err)
	}
	origins := []string{"http://localhost:5173", "https://app.example.com", "https://evil.example.org"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if got, want := a.Allows(origins[i%3]), i%3 != 2; got != want {
			b.Fatalf("Allows(%q) = %v", origins[i%3], got)
		}
	}
}

// BenchmarkPOSTEcho measures a tools/call of echo through the whole
// handler, recorded, without and with an allowed Origin: the difference is
// what the guard and CORS cost a browser's request.
func BenchmarkPOSTEcho(b *testing.B) {
	for _, origin := range []string{"", "http://localhost:5173"} {
		name := "no-origin"
		if origin != "" {
			name = "allowed-origin"
		}
		b.Run(name, func(b *testing.B) {
			h, err := NewHandler(mcp.NewServer(), Options{Options: resume.Options{Options: streamable.Options{Logger: log.New(io.Discard, "", 0)}}})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			do := func(session, body string) *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(body))
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Content-Type", "application/json")
				if session != "" {
					req.Header.Set(streamable.SessionIDHeader, session)
				}
				if origin != "" {
					req.Header.Set("Origin", origin)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			init := do("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
			id := init.Header().Get(streamable.SessionIDHeader)
			if id == "" {
				b.Fatalf("initialize: HTTP %d: %s", init.Code, init.Body)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rec := do(id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, bench"}}}`, i+2))
				if rec.Code != http.StatusOK {
					b.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
