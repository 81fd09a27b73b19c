package resume

import (
	"context"
	"net/http/httptest"
	"testing"

	"mcpcourse/internal/jsonrpc"
)

// The hot path of stage 03 beyond the event log (eventlog_test.go has
// BenchmarkEventLogAdd and BenchmarkReplay): sending a message on a stream,
// which logs it and writes it as one event.
//
//	go test -run '^$' -bench . -benchmem ./solutions/03-sse-resume

// BenchmarkStreamSend measures Send on an attached stream: encode, log,
// write and flush one event.
func BenchmarkStreamSend(b *testing.B) {
	set := &sessionStreams{events: newEventLog(DefaultReplayBuffer, DefaultReplayBytes), streams: map[int]*stream{}}
	s := set.newStream()
	rec := httptest.NewRecorder()
	s.attachLocked(startEventStream(rec))
	msg, _ := jsonrpc.NewNotification("notifications/progress", map[string]any{"progressToken": "t", "progress": 1, "total": 10})
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%1000 == 0 {
			rec.Body.Reset()
		}
		if err := s.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
	}
}
