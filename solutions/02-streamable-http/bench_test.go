package streamable

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mcpcourse/internal/mcp"
)

// The hot paths of stage 02, measured without a network: finding a session,
// checking the Accept header, and a whole POST through the handler.
//
//	go test -run '^$' -bench . -benchmem ./solutions/02-streamable-http

// BenchmarkSessionAcquire measures finding a session by its id among 10,000
// and marking it busy, from every core at once.
func BenchmarkSessionAcquire(b *testing.B) {
	store := newSessionStore(time.Hour, 20000)
	defer store.close()
	server := mcp.NewServer()
	ids := make([]string, 10000)
	for i := range ids {
		ids[i] = newSessionID()
		if _, err := store.create(server, ids[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			_, release, ok := store.acquire(ids[i%len(ids)])
			if !ok {
				b.Fatal("session not found")
			}
			release()
			i++
		}
	})
}

// BenchmarkAccepts measures the Accept check every POST makes.
func BenchmarkAccepts(b *testing.B) {
	header := []string{"application/json, text/event-stream"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !acceptsBoth(header) {
			b.Fatal("refused")
		}
	}
}

// BenchmarkPOSTEcho measures one tools/call of echo through the handler, in
// a session, with a recorded response: everything but the network.
func BenchmarkPOSTEcho(b *testing.B) {
	h := NewHandler(mcp.NewServer(), Options{Logger: log.New(io.Discard, "", 0)})
	defer h.Close()
	id := post(h, "", initBody).Header().Get(SessionIDHeader)
	bodies := make([]string, 1024)
	for i := range bodies {
		bodies[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, bench"}}}`, i+2)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(bodies[i%len(bodies)]))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(SessionIDHeader, id)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
		}
	}
}
