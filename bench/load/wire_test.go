package load

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAnswers(t *testing.T) {
	json := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hello, bench"}]}}`)
	assert.True(t, answers(json, 12))
	assert.False(t, answers(json, 1), "id 1 is not id 12")
	assert.False(t, answers(json, 123))
	sse := []byte("event: message\ndata: {\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hello, bench\"}]},\"jsonrpc\":\"2.0\",\"id\":7}\n\n")
	assert.True(t, answers(sse, 7), "an SSE body, any member order")
	assert.False(t, answers([]byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"other"}]}}`), 12))
	assert.Equal(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, bench"}}}`, string(echoRequest(nil, 5)))
}

func TestResponseID(t *testing.T) {
	assert.Equal(t, int64(42), responseID([]byte(`{"jsonrpc":"2.0","id":42,"result":{}}`)))
	assert.Equal(t, int64(-1), responseID([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)))
	assert.Equal(t, int64(-1), responseID([]byte(`{"jsonrpc":"2.0","id":"s","result":{}}`)))
}
