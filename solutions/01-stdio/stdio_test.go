package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		code    int    // 0: valid
		replyID string // the id the reject carries ("" for none)
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{name: "string id", in: `{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}`},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{name: "result response", in: `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{name: "error response without id", in: `{"jsonrpc":"2.0","error":{"code":-1,"message":"x"}}`},
		{name: "params null is no params", in: `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`},
		{name: "not JSON", in: `{"jsonrpc":"2.0","id":1`, code: jsonrpc.CodeParseError},
		{name: "not an object", in: `42`, code: jsonrpc.CodeInvalidRequest},
		{name: "wrong version", in: `{"jsonrpc":"1.0","id":5,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, replyID: "5"},
		{name: "no version", in: `{"id":5,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest, replyID: "5"},
		{name: "method not a string", in: `{"jsonrpc":"2.0","id":7,"method":42}`, code: jsonrpc.CodeInvalidRequest, replyID: "7"},
		{name: "empty method", in: `{"jsonrpc":"2.0","id":7,"method":""}`, code: jsonrpc.CodeInvalidRequest, replyID: "7"},
		{name: "null id", in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest},
		{name: "fractional id", in: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, code: jsonrpc.CodeInvalidRequest},
		{name: "params a string", in: `{"jsonrpc":"2.0","id":8,"method":"ping","params":"x"}`, code: jsonrpc.CodeInvalidRequest, replyID: "8"},
		{name: "request with a result", in: `{"jsonrpc":"2.0","id":8,"method":"ping","result":{}}`, code: jsonrpc.CodeInvalidRequest, replyID: "8"},
		{name: "response with both", in: `{"jsonrpc":"2.0","id":8,"result":{},"error":{"code":1,"message":"x"}}`, code: jsonrpc.CodeInvalidRequest, replyID: "8"},
		{name: "response with neither", in: `{"jsonrpc":"2.0","id":8}`, code: jsonrpc.CodeInvalidRequest, replyID: "8"},
		{name: "empty object", in: `{}`, code: jsonrpc.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, reject := Decode([]byte(tt.in))
			if tt.code == 0 {
				require.Nil(t, reject)
				require.NotNil(t, msg)
				return
			}
			require.Nil(t, msg)
			require.NotNil(t, reject)
			assert.Equal(t, tt.code, reject.Error.Code)
			if tt.replyID == "" {
				assert.Nil(t, reject.ID)
			} else {
				require.NotNil(t, reject.ID)
				assert.Equal(t, tt.replyID, reject.ID.String())
			}
		})
	}
}

// pipeServer runs Serve on in-memory pipes and returns the client's ends.
func pipeServer(t *testing.T) (send func(string), recv func() string, closeInput func(), done <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errc := make(chan error, 1)
	go func() { errc <- Serve(context.Background(), inR, outW, mcp.NewServer()); outW.Close() }()
	t.Cleanup(func() { inW.Close(); outR.Close() })

	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 32<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send = func(s string) {
		_, err := io.WriteString(inW, s+"\n")
		require.NoError(t, err)
	}
	recv = func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(2 * time.Second):
			t.Fatal("no line from the server within 2s")
			return ""
		}
	}
	return send, recv, func() { inW.Close() }, errc
}

func TestServeAnswersAndExitsAtEOF(t *testing.T) {
	send, recv, closeInput, done := pipeServer(t)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	assert.Contains(t, recv(), `"protocolVersion":"2025-06-18"`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"countdown","arguments":{"from":2,"interval_ms":10}}}`)
	closeInput()
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Liftoff! Counted down from 2."}]}}`, recv())
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(2 * time.Second):
		t.Fatal("Serve did not return after end of input")
	}
}

func TestServerInitiatedMessagesGoToStdout(t *testing.T) {
	send, recv, _, _ := pipeServer(t)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	recv()
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_note","arguments":{"text":"milk"}}}`)
	got := []string{recv(), recv()}
	assert.Contains(t, strings.Join(got, "\n"), `"method":"notifications/message"`, "the session's outlet is stdout")
	assert.Contains(t, strings.Join(got, "\n"), `"Saved note 1."`)
}

func TestServeBatchAt20250326(t *testing.T) {
	send, recv, _, _ := pipeServer(t)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`)
	recv()
	send(`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(recv()), &got))
	assert.Len(t, got, 2, "one response per request, none for the notification")
	send(`[]`)
	assert.Contains(t, recv(), `-32600`)
}

func TestServeStopsWhenWritesFail(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	outR.Close() // the client has gone
	errc := make(chan error, 1)
	go func() { errc <- Serve(context.Background(), inR, outW, mcp.NewServer()) }()
	t.Cleanup(func() { inW.Close() })
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	select {
	case err := <-errc:
		assert.ErrorIs(t, err, io.ErrClosedPipe)
	case <-time.After(2 * time.Second):
		t.Fatal("Serve kept running after its output failed")
	}
}

func TestServeRefusesRequestsBeyondMaxInFlight(t *testing.T) {
	send, recv, _, _ := pipeServer(t)
	countdown := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"countdown","arguments":{"from":1,"interval_ms":10000}}}`
	for i := 0; i < MaxInFlight; i++ {
		send(fmt.Sprintf(countdown, i))
	}
	send(fmt.Sprintf(countdown, MaxInFlight))
	assert.JSONEq(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32000,"message":"server busy: %d requests are already running; try again when one has finished"}}`, MaxInFlight, MaxInFlight), recv())
	// A cancelled request gives its place back once its goroutine ends,
	// which may take a moment: ping until one gets through.
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}`)
	deadline := time.Now().Add(2 * time.Second)
	for {
		send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
		if reply := recv(); !strings.Contains(reply, "server busy") {
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":"after","result":{}}`, reply, "a cancellation frees a place")
			return
		}
		require.True(t, time.Now().Before(deadline), "no place was freed within 2s of the cancellation")
	}
}

func BenchmarkDecode(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 256) + `"}}}`)
	b.SetBytes(int64(len(line)))
	for i := 0; i < b.N; i++ {
		if _, reject := Decode(line); reject != nil {
			b.Fatal(reject.Error)
		}
	}
}

// BenchmarkServePing measures a round trip through Serve: read a line,
// decode it, answer on a goroutine, write a line.
func BenchmarkServePing(b *testing.B) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go Serve(context.Background(), inR, outW, mcp.NewServer())
	defer inW.Close()
	r := bufio.NewReader(outR)
	ping := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := inW.Write(ping); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
}
