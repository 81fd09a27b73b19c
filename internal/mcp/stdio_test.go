package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/mcp"
	stdio "mcpcourse/solutions/01-stdio"
)

// The reference of stage 01 serves both eras with the loop lessons 01-04
// teach: these tests run it over pipes, as a client runs a stdio server.

// pipe is a stdio server in a goroutine, and the client's ends of its pipes.
type pipe struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func serve(t *testing.T) *pipe {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipe{in: inW, lines: make(chan string, 64), done: make(chan error, 1)}
	go func() {
		p.done <- stdio.Serve(context.Background(), inR, outW, mcp.NewServer())
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-p.done:
		case <-time.After(2 * time.Second):
			t.Error("Serve did not return after end of input")
		}
	})
	return p
}

func (p *pipe) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(t, err)
}

// next returns the next line of stdout that mentions want.
func (p *pipe) next(t *testing.T, want string) string {
	t.Helper()
	deadline := time.After(2 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			require.True(t, ok, "stdout ended before a line with %s", want)
			if strings.Contains(l, want) {
				return l
			}
		case <-deadline:
			t.Fatalf("no line with %s within 2s", want)
		}
	}
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

func TestStdioProcessThatStartsWithDiscoverIsStateless(t *testing.T) {
	p := serve(t)
	p.send(t, `{"jsonrpc":"2.0","id":"d1","method":"server/discover","params":{`+meta+`}}`)
	discover := p.next(t, `"id":"d1"`)
	assert.Contains(t, discover, `"supportedVersions":["2026-07-28"]`)
	assert.Contains(t, discover, `"resultType":"complete"`)

	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"new_notebook","arguments":{},`+meta+`}}`)
	var made struct {
		Result struct {
			StructuredContent struct{ Notebook string } `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(p.next(t, `"id":2`)), &made))
	nb := made.Result.StructuredContent.Notebook

	p.send(t, `{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["notes://`+nb+`"]},`+meta+`}}`)
	p.next(t, `notifications/subscriptions/acknowledged`)
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add_note","arguments":{"notebook":"`+nb+`","text":"milk"},`+meta+`}}`)
	assert.Contains(t, p.next(t, `notifications/resources/updated`), `"io.modelcontextprotocol/subscriptionId":"L1"`)

	p.send(t, `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	assert.Contains(t, p.next(t, `"id":4`), `"code":-32601`, "the process chose 2026-07-28")
	// End of input ends the process, though a listen is still open.
}

func TestStdioProcessThatStartsWithInitializeIs2025(t *testing.T) {
	p := serve(t)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	assert.Contains(t, p.next(t, `"id":1`), `"protocolVersion":"2025-11-25"`)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+meta+`}}`)
	assert.Contains(t, p.next(t, `"id":2`), `"code":-32601`, "a 2025 process does not know server/discover")
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add_note","arguments":{"text":"milk"}}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Saved note 1."}]}}`, p.next(t, `"id":3`))
}

func TestStdioProcessCancelsAStatelessRequest(t *testing.T) {
	p := serve(t)
	p.send(t, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"countdown","arguments":{"from":50,"interval_ms":20},`+
		`"_meta":{"progressToken":"p6","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	p.next(t, `"progressToken":"p6"`)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`)
	time.Sleep(100 * time.Millisecond) // a progress line already written may still be read
	for drained := false; !drained; {
		select {
		case <-p.lines:
		default:
			drained = true
		}
	}
	p.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"},`+meta+`}}`)
	line := p.next(t, `"id":7`)
	assert.Contains(t, line, `"after"`)
	select {
	case l := <-p.lines:
		t.Fatalf("a line after the cancel: %s", l)
	case <-time.After(200 * time.Millisecond):
	}
}
