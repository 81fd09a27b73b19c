package stdio

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"mcpcourse/internal/jsonrpc"
	"mcpcourse/internal/mcp"
)

// The hot paths of stage 01, measured one at a time: framing a line,
// decoding a message, encoding an answer, and whole round trips through
// Serve. The benchmark module (bench/) measures the server as a process.
//
//	go test -run '^$' -bench . -benchmem ./solutions/01-stdio

var echoLine = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, bench"}}}`)

// BenchmarkReadLine measures framing: finding the next line in a buffered
// stream of echo requests.
func BenchmarkReadLine(b *testing.B) {
	input := bytes.Repeat(append(append([]byte(nil), echoLine...), '\n'), 1000)
	r := bufio.NewReaderSize(bytes.NewReader(input), 64<<10)
	b.SetBytes(int64(len(echoLine) + 1))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%1000 == 0 {
			r.Reset(bytes.NewReader(input))
		}
		if _, err := readLine(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeEcho measures decoding a small tools/call, the common case
// (BenchmarkDecode has a 256-byte argument).
func BenchmarkDecodeEcho(b *testing.B) {
	b.SetBytes(int64(len(echoLine)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, reject := Decode(echoLine); reject != nil {
			b.Fatal(reject.Error)
		}
	}
}

// BenchmarkSend measures encoding an answer and writing it as one line.
func BenchmarkSend(b *testing.B) {
	w := newLineWriter(io.Discard)
	resp, _ := jsonrpc.NewResult(jsonrpc.IntID(42), mcp.Text("hello, bench"))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := w.send(resp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeEchoPipelined measures Serve with up to 64 echo calls in
// flight, as a busy client sends them: read, decode, run, encode, write.
func BenchmarkServeEchoPipelined(b *testing.B) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go Serve(context.Background(), inR, outW, mcp.NewServer())
	defer inW.Close()
	r := bufio.NewReader(outR)
	const depth = 64
	slots := make(chan struct{}, depth)
	go func() {
		w := bufio.NewWriter(inW)
		for i := 0; i < b.N; i++ {
			select {
			case slots <- struct{}{}:
			default:
				w.Flush()
				slots <- struct{}{}
			}
			line := strings.Replace(string(echoLine), `"id":42`, `"id":`+strconv.Itoa(i+1), 1)
			w.WriteString(line + "\n")
		}
		w.Flush()
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		<-slots
	}
}
