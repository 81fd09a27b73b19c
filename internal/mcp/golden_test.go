package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/internal/jsonrpc"
)

// session2025 is a conversation of the 2025 era, one request per line
// (method, a tab, params), among them the methods and _meta keys of
// 2026-07-28, which a session that began with initialize must treat as a
// 2025 server treats anything it does not know.
var session2025 = []string{
	"ping\t",
	"initialize\t{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"g\",\"version\":\"1\"}}",
	"initialize\t{\"protocolVersion\":\"2025-11-25\"}",
	"tools/list\t",
	"tools/list\t{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}",
	"server/discover\t{}",
	"tools/call\t{\"name\":\"echo\",\"arguments\":{\"text\":\"héllo\\nworld\"}}",
	"tools/call\t{\"name\":\"echo\",\"arguments\":{}}",
	"tools/call\t{\"name\":\"add_note\",\"arguments\":{\"text\":\"milk\"}}",
	"tools/call\t{\"name\":\"add_note\",\"arguments\":{\"text\":\"\"}}",
	"tools/call\t{\"name\":\"list_notes\",\"arguments\":{}}",
	"tools/call\t{\"name\":\"countdown\",\"arguments\":{\"from\":2,\"interval_ms\":1},\"_meta\":{\"progressToken\":\"t\"}}",
	"tools/call\t{\"name\":\"countdown\",\"arguments\":{\"from\":2000}}",
	"tools/call\t{\"name\":\"history\",\"arguments\":{}}",
	"tools/call\t{\"name\":\"nope\"}",
	"tools/call\t{\"name\":\"new_notebook\",\"arguments\":{}}",
	"logging/setLevel\t{\"level\":\"warning\"}",
	"logging/setLevel\t{\"level\":\"loud\"}",
	"resources/list\t{}",
	"subscriptions/listen\t{\"notifications\":{}}",
	"no/such\t",
}

// TestTheSessionEraIsUnchanged replays session2025 and compares every byte
// the session answers, sends on the request's stream and sends through its
// outlet with what the notes server of lessons 01-04 (main before the
// stateless era, commit f4a3a99) answered to the same script, recorded in
// testdata/session-2025.golden.
func TestTheSessionEraIsUnchanged(t *testing.T) {
	want, err := os.ReadFile("testdata/session-2025.golden")
	require.NoError(t, err)

	s := NewServer().NewSession()
	outlet := &lines{}
	s.Attach(outlet)
	var got []string
	for i, line := range session2025 {
		method, params, _ := strings.Cut(line, "\t")
		id := jsonrpc.IntID(int64(i + 1))
		m := &jsonrpc.Message{JSONRPC: "2.0", ID: &id, Method: method}
		if params != "" {
			m.Params = json.RawMessage(params)
		}
		peer := &lines{}
		resp := s.Handle(context.Background(), m, peer)
		b, _ := json.Marshal(resp)
		v, ok := s.Version()
		got = append(got, fmt.Sprintf("%s -> %s [version %q %v]", method, b, v.Name, ok))
		got = append(got, peer.lines...)
		got = append(got, outlet.lines...)
		outlet.lines = nil
	}
	assert.Equal(t, string(want), strings.Join(got, "\n")+"\n")
}

// lines is a Peer that keeps each message as a line of JSON.
type lines struct{ lines []string }

func (l *lines) Send(_ context.Context, m *jsonrpc.Message) error {
	b, _ := json.Marshal(m)
	l.lines = append(l.lines, "  sent: "+string(b))
	return nil
}
